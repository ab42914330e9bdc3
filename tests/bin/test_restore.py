"""punct.bin.restore (``punct restore``): inputs from files and standard input, every output form,
one-line errors for bad inputs and options, help without torch."""
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from tests.tiny_models import CTM, make_tiny_model

ROOT = Path(__file__).resolve().parents[2]
WORDS = ["hello", "everyone", "and", "welcome", "to", "the", "call", "what", "is", "next"]


@pytest.fixture(autouse=True)
def one_thread():
    n = torch.get_num_threads()
    yield
    torch.set_num_threads(n)  # restore's --threads sets it


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    from punct.engine import checkpoint
    from punct.engine.vocab import Vocabulary
    from punct.text.labels import LABELS
    from punct.models import build_model, resolved_model_args

    torch.manual_seed(0)
    vocab = Vocabulary.build([WORDS], min_count=1)
    args = resolved_model_args("tbrnn", {"embedding_dim": 8, "hidden_size": 8, "attention_dim": 8})
    model = build_model("tbrnn", args, len(vocab))
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.7)
    path = tmp_path_factory.mktemp("m") / "tiny.pt"
    checkpoint.save(path, {"model": "tbrnn", "model_args": args, "vocab": vocab.to_list(), "labels": list(LABELS),
                           "state_dict": model.state_dict(), "train_config": {"slice_length": 12, "batch_size": 4}})
    return path


@pytest.fixture
def ctm(tmp_path):
    rng = random.Random(0)
    p = tmp_path / "talk.ctm"
    p.write_text("".join(f"talk 1 {i * 0.5:.2f} 0.40 {rng.choice(WORDS).upper()} 0.95\n" for i in range(60)))
    return p


def test_help_does_not_import_torch():
    code = ("import sys\nfrom punct.cli import main\ntry:\n  main(['restore', '--help'])\nexcept SystemExit as e:\n"
            "  assert e.code == 0\nassert 'torch' not in sys.modules, 'torch imported'\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 0, r.stderr
    assert "usage: punct restore" in r.stdout and "--output-format" in r.stdout and "--model" in r.stdout


def test_missing_input_and_default_model(tmp_path, ctm, capsys, monkeypatch):
    from punct.bin import restore
    from punct.engine import restorer

    assert restore.main([str(tmp_path / "nope.ctm")]) == 1
    assert capsys.readouterr().err.strip().splitlines() == [f"error: {tmp_path / 'nope.ctm'}: input not found"]
    monkeypatch.setattr(restorer, "DEFAULT_MODEL", tmp_path / "models" / "default.pt")
    assert restore.main([str(ctm)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {tmp_path / 'models' / 'default.pt'}: no --model given")


def test_malformed_input_names_file_and_line(tmp_path, model_path, capsys):
    from punct.bin import restore

    bad = tmp_path / "bad.ctm"
    bad.write_text("talk 1 0.0 0.3 hello\ntalk 1 0.5 x0.3 world\n")
    assert restore.main(["--model", str(model_path), str(bad)]) == 1
    assert capsys.readouterr().err.strip().splitlines() == [f"error: {bad}:2: duration 'x0.3' is not a number"]
    assert restore.main(["--model", str(model_path), str(bad), "-o", str(tmp_path / "x.docx")]) == 1
    assert "cannot tell the output format" in capsys.readouterr().err


def test_standard_input(tmp_path, model_path, ctm, capsys, caplog, monkeypatch):
    """INPUT - reads standard input: the format by content (or --input-format), errors
    naming <stdin> and the line, the same output as from the file."""
    import io
    from punct.bin import restore

    def stdin(data: bytes):
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))

    assert restore.main(["--model", str(model_path), str(ctm)]) == 0
    from_file = capsys.readouterr().out
    stdin(ctm.read_bytes())
    caplog.clear()
    assert restore.main(["--model", str(model_path), "-"]) == 0
    assert capsys.readouterr().out == from_file
    assert "from <stdin>" in caplog.text and "punct-restore-" not in caplog.text  # the logs name stdin, not its copy
    stdin(b"talk 1 0.0 0.3 hello\ntalk 1 0.5 x0.3 world\n")
    assert restore.main(["--model", str(model_path), "-"]) == 1
    assert capsys.readouterr().err.strip().splitlines() == ["error: <stdin>:2: duration 'x0.3' is not a number"]
    # unpunctuated words, which no format's sniffer claims, are plain text, as with --input-format text
    outs = []
    for opts in ([], ["--input-format", "text"]):
        stdin(b"hello everyone and welcome to the call\n")
        assert restore.main(["--model", str(model_path), "-", *opts]) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1]
    assert [t.rstrip(",.?") for t in outs[0].split()] == "hello everyone and welcome to the call".split()
    stdin(b"\xff\xfe hello\n")
    assert restore.main(["--model", str(model_path), "-"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: <stdin>:1:"), err
    stdin(b"")
    assert restore.main(["--model", str(model_path), "-"]) == 1
    assert capsys.readouterr().err.strip().splitlines() == ["error: <stdin>: input is empty (0 bytes)"]


def test_stdout_text_and_files(tmp_path, model_path, ctm, capsys, monkeypatch):
    from punct.bin import restore
    from punct.io.sentences import punctuated
    from punct.io import read_input

    assert restore.main(["--model", str(model_path), str(ctm)]) == 0
    out = capsys.readouterr().out
    monkeypatch.chdir(tmp_path)
    assert restore.main(["--model", str(model_path), str(ctm), "-o", "-"]) == 0  # - is stdout, as for the input
    assert capsys.readouterr().out == out and not (tmp_path / "-").exists()
    tokens = out.split()
    assert [t.rstrip(",.?") for t in tokens] == [w.upper() for w in (line.split()[4].lower() for line in ctm.read_text().splitlines())]
    assert any(t[-1] in ",.?" for t in tokens)
    for ext in ("ctm", "vtt", "srt", "TextGrid", "json"):
        o = tmp_path / f"out.{ext}"
        assert restore.main(["--model", str(model_path), str(ctm), "-o", str(o)]) == 0
        back = read_input(o)[0]
        assert " ".join(punctuated(w) for w in back.words) == " ".join(tokens)
    assert restore.main(["--model", str(model_path), str(ctm), "--output-format", "json"]) == 0
    assert '"format": "punct-words-1"' in capsys.readouterr().out
    d = tmp_path / "dd"
    assert restore.main(["--model", str(model_path), str(ctm), "-o", str(d), "--output-format", "datadir"]) == 0
    assert (d / "text").read_text().split()[0] == "talk" and (d / "word_times").is_file()


def test_a_timed_output_of_untimed_words_is_refused_before_decoding(tmp_path, model_path, capsys):
    """Words without times (plain text) cannot be written as CTM, TextGrid or subtitles: a one-line
    error naming the input and the first such word, and no output file."""
    from punct.bin import restore

    src = tmp_path / "words.txt"
    src.write_text("so how\nare we doing\n")
    for out in ("o.ctm", "o.TextGrid", "o.srt", "o.vtt"):
        assert restore.main(["--model", str(model_path), str(src), "-o", str(tmp_path / out)]) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"error: {src}: word 1 ('so') of words has no times"), err
        assert not (tmp_path / out).exists()
    assert restore.main(["--model", str(model_path), str(src), "-o", str(tmp_path / "o.json")]) == 0


def test_subtitles_of_partly_timed_words(tmp_path, model_path, capsys):
    """Subtitles spread a cue's untimed words between its timed ones (estimated_times), so an SRT
    (cue times only: punctuate a recognizer's subtitles anew) or a WhisperX JSON with a word left
    without times gives subtitles; a CTM or a TextGrid of the same words is still refused."""
    import json

    from punct.bin import restore
    from punct.io import subtitles

    srt = tmp_path / "in.srt"
    srt.write_text("1\n00:00:01,000 --> 00:00:03,000\nhello everyone and welcome\n\n"
                   "2\n00:00:04,000 --> 00:00:05,500\nto the call what is next\n")
    wx = tmp_path / "wx.json"
    words = [{"word": " " + w, "start": 1.0 + 0.5 * k, "end": 1.4 + 0.5 * k} for k, w in enumerate(WORDS)]
    del words[4]["start"], words[4]["end"]  # WhisperX leaves some words (numbers) without times
    wx.write_text(json.dumps({"segments": [{"start": 1.0, "end": 6.0, "words": words}]}))
    for src, span in ((srt, (1.0, 5.5)), (wx, (1.0, 5.9))):
        for fmt in ("srt", "vtt"):
            out = tmp_path / f"{src.stem}.out.{fmt}"
            assert restore.main(["--model", str(model_path), str(src), "-o", str(out)]) == 0, capsys.readouterr().err
            (back,) = subtitles.read(out)
            assert [w.text for w in back.words] == [w.lower() for w in WORDS]
            times = [t for w in back.words for t in (w.start, w.end) if t is not None]
            assert span[0] == min(times) and max(times) == span[1]
    for out in ("o.ctm", "o.TextGrid"):
        assert restore.main(["--model", str(model_path), str(wx), "-o", str(tmp_path / out)]) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"error: {wx}: word 5 ('to') of wx has no times"), err
        assert not (tmp_path / out).exists()
    # a subtitle cue's first word has its start, its last its end: the error says which one is missing
    assert restore.main(["--model", str(model_path), str(srt), "-o", str(tmp_path / "s.ctm")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: {srt}: word 1 ('hello') of in has no end time, and a CTM needs word times (give timed "
                   "input, or another --output-format)"]


@pytest.mark.parametrize("option,message", [
    (["--window", "1"], "argument --window: must be at least 2, got 1"),
    (["--batch-size", "-1"], "argument --batch-size: must be at least 1, got -1"),  # looped for ever before
    (["--threads", "0"], "argument --threads: must be at least 1, got 0"),
    (["--threads", "two"], "argument --threads: expected an integer, got 'two'"),
    (["--output-format", "bogus"], "argument --output-format: invalid choice: 'bogus'"),
])
def test_bad_options_are_one_line_errors(option, message, ctm, model_path):
    r = subprocess.run([sys.executable, "-m", "punct.cli", "restore", str(ctm), "--model", str(model_path), *option],
                       cwd=ROOT, capture_output=True, text=True, timeout=60, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {message}") and lines[0].endswith("(see punct restore --help)")


def test_the_library_refuses_an_empty_batch(model_path):
    from punct.engine.restorer import Restorer

    with pytest.raises(ValueError, match="batch_size at least 1, got 200 and 0"):
        Restorer.load(model_path, window=200, batch_size=0)


def test_output_form_options(tmp_path, model_path, ctm):
    """--ctm-marks, --no-word-times, --max-line-chars reach the writers; a data directory input's
    Kaldi files reach a data directory output, with its spelling in text."""
    from punct.bin import restore

    rc = [restore.main(["--model", str(model_path), str(ctm), "-o", str(tmp_path / f"{form}.ctm"), "--ctm-marks", form])
          for form in ("comment", "glued", "none")]
    assert rc == [0, 0, 0]
    comment, glued, none = ((tmp_path / f"{f}.ctm").read_text().splitlines() for f in ("comment", "glued", "none"))
    assert [x for x in comment if not x.startswith(";;")] == none == ctm.read_text().splitlines()
    assert sum(x.startswith(";; punct-mark ") for x in comment) == sum(x.split()[4][-1] in ",.?" for x in glued) > 0
    assert restore.main(["--model", str(model_path), str(ctm), "-o", str(tmp_path / "a.vtt"), "--no-word-times",
                         "--max-line-chars", "20"]) == 0
    cues = (tmp_path / "a.vtt").read_text().split("\n\n")[1:]
    assert cues and all(len(line) <= 20 for c in cues for line in c.splitlines()[1:])
    assert "<00:" not in (tmp_path / "a.vtt").read_text()
    d = tmp_path / "in"
    d.mkdir()
    (d / "wav.scp").write_text("talk /data/talk.wav\n")
    (d / "reco2file_and_channel").write_text("talk talk 1\n")
    (d / "ctm").write_text(ctm.read_text())
    out = tmp_path / "out"
    assert restore.main(["--model", str(model_path), str(d), "-o", str(out), "--output-format", "datadir"]) == 0
    assert (out / "wav.scp").read_text() == "talk /data/talk.wav\n"
    assert (out / "reco2file_and_channel").read_text() == "talk talk 1\n"
    assert (out / "text").read_text().split()[1:] == [x.split()[4] for x in ctm.read_text().splitlines()]  # upper case
    assert restore.main(["--model", str(model_path), str(ctm), "-o", str(tmp_path / "x.srt"), "--max-cue-seconds",
                         "0"]) == 1


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "tiny.pt"
    model, vocab = make_tiny_model(path)
    return path, model, vocab


def test_ensemble_restore_cli_errors(tiny, tmp_path, capsys):
    from punct.bin import restore as restore_bin

    path_a, _, _ = tiny
    src = tmp_path / "call.ctm"
    src.write_text(CTM)
    rc = restore_bin.main([str(src), "-o", str(tmp_path / "o.ctm"), "--model", str(path_a), "--model", str(path_a),
                           "--weights", "1"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 1 and err == ["error: --weights: 1 weights for 2 models (one per model)"]
    rc = restore_bin.main([str(src), "-o", str(tmp_path / "o.ctm"), "--model", str(path_a), "--model",
                           str(tmp_path / "none.pt")])
    assert rc == 1 and capsys.readouterr().err.strip() == f"error: {tmp_path / 'none.pt'}: model file not found"
    rc = restore_bin.main([str(src), "-o", str(tmp_path / "o.ctm"), "--model", str(path_a), "--model", str(path_a),
                           "--weights", "1", "0"])
    assert rc == 1 and "ensemble weights must be positive numbers" in capsys.readouterr().err
    rc = restore_bin.main([str(src), "-o", str(tmp_path / "o.ctm"), "--model", str(path_a), "--model", str(path_a),
                           "--window", "8"])
    assert rc == 1 and "--window applies to one model" in capsys.readouterr().err
    assert not (tmp_path / "o.ctm").exists()
    assert restore_bin.main([str(src), "-o", str(tmp_path / "o.ctm"), "--model", str(path_a), "--model",
                             str(path_a)]) == 0
    assert sum(not line.startswith(";;") for line in (tmp_path / "o.ctm").read_text().splitlines()) == CTM.count("\n")


def test_capitalize_option_of_the_command(tiny, tmp_path, capsys):
    from punct.bin.restore import main

    model_path, _, _ = tiny
    src = tmp_path / "in.txt"
    src.write_text("good morning and welcome to the call i grew revenue\n")
    assert main([str(src), "-o", str(tmp_path / "plain.txt"), "--model", str(model_path)]) == 0
    assert main([str(src), "-o", str(tmp_path / "cap.txt"), "--model", str(model_path), "--capitalize"]) == 0
    plain = (tmp_path / "plain.txt").read_text().split()
    cap = (tmp_path / "cap.txt").read_text().split()
    assert [c.lower() for c in cap] == plain  # the same words and marks
    assert cap[0].rstrip(",.?") == "Good" and cap[plain.index(next(p for p in plain if p.rstrip(",.?") == "i"))].startswith("I")
    ends = [k + 1 for k, p in enumerate(plain[:-1]) if p.endswith((".", "?"))]
    assert all(cap[k][0].isupper() for k in ends)
    assert not any(c[0].isupper() for k, c in enumerate(cap) if k and k not in ends and c.rstrip(",.?") != "I")
