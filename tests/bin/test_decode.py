"""punct.bin.decode (``punct decode``): a tiny trained model decodes a data directory; missing
or unreadable models are one line each; a second decoding into the same output, or one
that would replace the data or a foreign folder, is refused."""
import os
from pathlib import Path

from punct.data.datadir import load_utterances

ROOT = Path(__file__).resolve().parents[2]


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
