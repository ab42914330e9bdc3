import os
import subprocess
import sys
from pathlib import Path

import pytest

from punct.data.datadir import load_utterances


ROOT = Path(__file__).resolve().parents[2]


#: every entry point (a new one is checked without being listed), and the punct command
ENTRY_POINTS = sorted(f"punct.bin.{p.stem}" for p in (ROOT / "punct" / "bin").glob("*.py")
                      if p.stem not in ("__init__", "common")) + ["punct.cli"]


def test_the_entry_points_are_found():
    assert {"punct.bin.train", "punct.bin.decode", "punct.bin.restore", "punct.cli"} <= set(ENTRY_POINTS)


@pytest.mark.parametrize("module", ENTRY_POINTS)
def test_help_does_not_import_torch(module):
    code = f"import sys; from {module} import main\ntry:\n  main(['--help'])\nexcept SystemExit as e:\n  assert e.code == 0\nassert 'torch' not in sys.modules, 'torch imported'\n"
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 0, r.stderr
    assert "usage" in r.stdout


def test_missing_inputs_exit_1(tiny_data, tmp_path, capsys):
    from punct.bin import decode, train

    tr, dev = tiny_data
    rc = train.main(["--config", str(ROOT / "conf/tbrnn.yaml"), "--train", str(tmp_path / "nope"), "--valid", str(dev),
                     "--exp", str(tmp_path / "exp")])
    assert rc == 1
    assert "nope" in capsys.readouterr().err
    rc = decode.main(["--model", str(tmp_path / "none.pt"), "--data", str(dev), "--out", str(tmp_path / "o")])
    assert rc == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: {tmp_path / 'none.pt'}: model file not found"]
    # not a model: an empty file, a text file, random bytes, a directory; one line each
    (tmp_path / "empty.pt").write_bytes(b"")
    (tmp_path / "random.pt").write_bytes(bytes(range(256)) * 8)
    for model, msg in ((tmp_path / "empty.pt", "model file is empty (0 bytes)"),
                       (Path(dev) / "text", "not a readable model file (torch.load: "),
                       (tmp_path / "random.pt", "not a readable model file (torch.load: "),
                       (tmp_path, "is a directory, not a model file")):
        assert decode.main(["--model", str(model), "--data", str(dev), "--out", str(tmp_path / "o")]) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"error: {model}: {msg}"), err


def test_train_then_decode(tiny_data, tiny_args, tmp_path):
    from punct.bin import decode, train

    tr, dev = tiny_data
    exp = tmp_path / "exp"
    assert train.main(["--config", str(ROOT / "conf/tbrnn.yaml"), "--train", str(tr), "--valid", str(dev), "--exp", str(exp),
                       "--max-epochs", "1", "batch_size=4", "slice_length=20", *tiny_args]) == 0
    out = tmp_path / "dec"
    assert decode.main(["--model", str(exp / "best.pt"), "--data", str(dev), "--out", str(out), "--window", "7"]) == 0
    hyp = load_utterances(out)
    ref = load_utterances(dev)
    assert [u.texts for u in hyp] == [u.texts for u in ref]
    lines = (out / "text.punct").read_text().splitlines()
    assert len(lines) == len(ref) and lines[0].split()[0] == ref[0].id


def test_a_second_decoding_into_the_same_directory_is_refused(tiny_data, tiny_args, tmp_path, capsys):
    from punct.bin import decode, train
    from punct.fsutil import output_lock

    tr, dev = tiny_data
    exp = tmp_path / "exp"
    assert train.main(["--config", str(ROOT / "conf/tbrnn.yaml"), "--train", str(tr), "--valid", str(dev), "--exp", str(exp),
                       "--max-epochs", "1", "batch_size=4", "slice_length=20", *tiny_args]) == 0
    out = exp / "decode_dev"
    argv = ["--model", str(exp / "best.pt"), "--data", str(dev), "--out", str(out)]
    assert decode.main(argv) == 0
    first = (out / "text.punct").read_text()
    capsys.readouterr()
    with output_lock(out, "a decoding"):  # flock: another open file of the same process conflicts too
        assert decode.main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: {exp / '.decode_dev.lock'}: a decoding into {out} is already running here "
                   f"(host {os.uname().nodename}, pid {os.getpid()}); wait for it to end, or stop it (kill -TERM its pid) "
                   "and rerun"]
    assert (out / "text.punct").read_text() == first  # the first one's output is left alone
    assert decode.main(argv) == 0  # and the lock went with its holder

    # --out pointed at the data or at someone's folder: refused before decoding, nothing touched
    before = {p.name: p.read_bytes() for p in Path(dev).iterdir() if p.is_file()}
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep\n")
    for target, msg in ((dev, "--out would replace the data directory it decodes; choose another"),
                        (Path(dev).parent, "--out would replace the data directory it decodes; choose another"),
                        (mine, "exists and is not an output of this command, which would replace it whole (remove it "
                               "or choose another output)")):
        assert decode.main(["--model", str(exp / "best.pt"), "--data", str(dev), "--out", str(target)]) == 1
        assert capsys.readouterr().err.strip().splitlines() == [f"error: {target}: {msg}"]
    assert {p.name: p.read_bytes() for p in Path(dev).iterdir() if p.is_file()} == before
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]
    # a decode directory of before the output mark is still redone in place
    (out / ".punct-output").unlink()
    assert decode.main(argv) == 0 and (out / ".punct-output").is_file()


def test_train_stop_command(tiny_data, tiny_args, tmp_path, capsys):
    import json

    from punct.bin import train

    tr, dev = tiny_data
    exp = tmp_path / "exp"
    base = ["--config", str(ROOT / "conf/tbrnn.yaml"), "--train", str(tr), "--valid", str(dev), "--exp", str(exp),
            "batch_size=4", "slice_length=20", *tiny_args]
    assert train.main(["--stop", "--exp", str(exp)]) == 1  # nothing to stop yet
    assert capsys.readouterr().err.strip() == f"error: {exp}: experiment directory not found"
    assert train.main(base + ["--max-epochs", "1"]) == 0
    assert train.main(["--stop", "--exp", str(exp), "--why", "enough"]) == 0
    assert "training ends after its current epoch" in capsys.readouterr().out
    assert (exp / "stop").read_text() == "enough\n"
    assert train.main(base + ["--max-epochs", "3"]) == 0  # the resumed run stops at once
    done = json.loads((exp / "train_done.json").read_text())
    assert done == dict(done, stopped="by hand", why="enough", epochs=1)
    capsys.readouterr()
    # wrong combinations are one-line errors
    assert train.main(["--stop", "--exp", str(exp), "--config", "x.yaml"]) == 1
    assert capsys.readouterr().err.strip() == "error: --stop takes only --exp and --why"
    assert train.main(["--exp", str(exp), "--train", str(tr)]) == 1
    assert capsys.readouterr().err.strip() == "error: missing --config, --valid (required unless --stop)"
    assert train.main(base + ["--why", "x"]) == 1
    assert capsys.readouterr().err.strip() == "error: --why goes with --stop"
