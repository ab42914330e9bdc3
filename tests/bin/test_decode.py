"""punct.bin.decode (``punct decode``): a tiny trained model decodes a data directory; missing
or unreadable models are one line each; a second decoding into the same output, or one
that would replace the data or a foreign folder, is refused. Several models at once (--model A
--model B): the mean of their posteriors labels each word, with weights and a decision bias
tuned on a dev set, kept, and read by punct restore."""
import json
import os
from pathlib import Path

import numpy as np
import pytest

from punct.data.datadir import load_utterances
from punct.text.labels import LABELS

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


@pytest.fixture(scope="module")
def two_models(tiny_data, tiny_args, tmp_path_factory):
    """Two tiny T-BRNNs of different seeds and sizes, trained six epochs each (enough to leave
    the all-O prior and to disagree)."""
    from punct.bin import train

    tr, dev = tiny_data
    root = tmp_path_factory.mktemp("ens")
    paths = []
    for seed, size in ((1, 8), (2, 12)):
        exp = root / f"m{seed}"
        args = [a for a in tiny_args if not a.startswith(("model_args.hidden_size", "model_args.embedding_dim"))]
        assert train.main(["--config", str(ROOT / "conf/tbrnn.yaml"), "--train", str(tr), "--valid", str(dev),
                           "--exp", str(exp), "--max-epochs", "6", "patience=6", "lr=0.3", "batch_size=4", "slice_length=20",
                           f"seed={seed}", f"model_args.hidden_size={size}", f"model_args.embedding_dim={size}",
                           *args]) == 0
        paths.append(str(exp / "best.pt"))
    return paths


def _labels(out):
    return [lab for u in load_utterances(out) for lab in u.labels]


def test_ensemble_labels_are_the_argmax_of_the_mean_posteriors(two_models, tiny_data, tmp_path):
    from punct.bin import decode
    from punct.engine.decode import posteriors

    _, dev = tiny_data
    out = tmp_path / "ens"
    assert decode.main(["--model", *two_models[:1], "--model", two_models[1], "--data", str(dev), "--out", str(out),
                        "--weights", "3", "1", "--threads", "1", "--no-end-sentence"]) == 0
    probs = [np.concatenate(posteriors(m, dev)[1]) for m in two_models]
    want = [LABELS[i] for i in (0.75 * probs[0] + 0.25 * probs[1]).argmax(-1)]
    assert _labels(out) == want
    stats = json.loads((out / "decode_stats.json").read_text())
    assert stats["model"] == "ensemble" and stats["members"] == two_models and stats["weights"] == [0.75, 0.25]
    assert all(isinstance(e, int) for e in stats["member_epochs"]) and stats["words"] == len(want)
    assert (out / "scoring" / "report.json").is_file()  # dev has labels: scored as a single model is
    # the two models disagree somewhere, so the mean is not just one of them
    singles = [[LABELS[i] for i in p.argmax(-1)] for p in probs]
    assert singles[0] != singles[1] and len(set(want)) > 1


def test_a_model_with_itself_decodes_as_the_model_alone(two_models, tiny_data, tmp_path):
    from punct.bin import decode

    _, dev = tiny_data
    m = two_models[0]
    assert decode.main(["--model", m, "--data", str(dev), "--out", str(tmp_path / "one"), "--threads", "1"]) == 0
    assert decode.main(["--model", m, "--model", m, "--data", str(dev), "--out", str(tmp_path / "two"),
                        "--threads", "1"]) == 0
    assert _labels(tmp_path / "one") == _labels(tmp_path / "two")


def _exit_code(main, argv) -> int:
    """``main(argv)``'s return code, or its exit status when the option parser stops it (2)."""
    try:
        return main(argv)
    except SystemExit as e:
        return int(e.code)


@pytest.mark.parametrize("extra, problem", [
    (["--weights", "1"], "--weights: 1 weights for 2 models (one per model)"),
    (["--weights", "1", "-2"], "ensemble weights must be positive numbers"),
    (["--weights", "1", "nan"], "argument --weights: expected a finite number, got 'nan'"),
    (["--window", "7"], "--window and --batch-size apply to one model"),
])
def test_bad_ensemble_options_are_one_line_errors(two_models, tiny_data, tmp_path, capsys, extra, problem):
    from punct.bin import decode

    _, dev = tiny_data
    out = tmp_path / "o"
    rc = _exit_code(decode.main, ["--model", two_models[0], "--model", two_models[1], "--data", str(dev), "--out",
                                  str(out), *extra])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == (2 if "argument" in problem else 1) and len(err) == 1 and problem in err[0], err
    assert not out.exists()


def test_a_missing_member_is_named(two_models, tiny_data, tmp_path, capsys):
    from punct.bin import decode

    _, dev = tiny_data
    gone = tmp_path / "gone" / "best.pt"
    assert decode.main(["--model", two_models[0], "--model", str(gone), "--data", str(dev),
                        "--out", str(tmp_path / "o")]) == 1
    assert capsys.readouterr().err.strip() == f"error: {gone}: model file not found"


def test_weights_tuned_on_a_dev_set(two_models, tiny_data, tmp_path):
    from punct.bin import decode
    from punct.engine.decode import overall_f1, posteriors, tune_ensemble_weights
    from punct.text.labels import label_id

    tr, dev = tiny_data
    weights, f1, rows = tune_ensemble_weights(two_models, tr, step=0.25)
    assert [r["weights"] for r in rows] == [[0.5, 0.5], [0.25, 0.75], [0.75, 0.25]]
    assert round(f1, 3) == max(r["f1"] for r in rows) and round(f1, 3) >= rows[0]["f1"]
    # the chosen weighting's F1 is the F1 of decoding the tuning set with it
    ref = [label_id(lab) for u in load_utterances(tr) for lab in u.labels]
    probs = [np.concatenate(posteriors(m, tr)[1]) for m in two_models]
    assert abs(overall_f1(ref, (weights[0] * probs[0] + weights[1] * probs[1]).argmax(-1)) - f1) < 1e-6
    out = tmp_path / "tuned"
    assert decode.main(["--model", two_models[0], "--model", two_models[1], "--data", str(dev), "--out", str(out),
                        "--tune-weights-on", str(tr), "--weight-step", "0.25", "--threads", "1"]) == 0
    stats = json.loads((out / "decode_stats.json").read_text())
    assert stats["weights"] == [round(x, 6) for x in weights] and stats["tuned_weights"]["f1"] == round(f1, 3)
    assert len(stats["tuned_weights"]["grid"]) == 3


@pytest.mark.parametrize("extra, problem", [
    (["--weight-step", "0.3"], "a weight step of 0.3 cannot give 2 members"),
    (["--weights", "1", "2"], "--tune-weights-on needs two or more --model and no --weights"),
])
def test_bad_tuning_options(two_models, tiny_data, tmp_path, capsys, extra, problem):
    from punct.bin import decode

    tr, dev = tiny_data
    rc = decode.main(["--model", two_models[0], "--model", two_models[1], "--data", str(dev), "--out",
                      str(tmp_path / "o"), "--tune-weights-on", str(tr), *extra])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 1 and len(err) == 1 and problem in err[0], err
    rc = decode.main(["--model", two_models[0], "--data", str(dev), "--out", str(tmp_path / "o"),
                      "--tune-weights-on", str(tmp_path)])
    assert rc == 1 and "needs two or more --model" in capsys.readouterr().err


def test_tuned_weights_are_kept_and_reused_until_a_member_changes(two_models, tiny_data, tmp_path, monkeypatch):
    import os
    import shutil

    from punct.bin import decode
    from punct.engine import decode as engine

    tr, dev = tiny_data
    models = [str(tmp_path / "a.pt"), str(tmp_path / "b.pt")]
    for src, dst in zip(two_models, models):
        shutil.copy(src, dst)
    cache = tmp_path / "tuned_weights.json"
    calls = []
    real = engine.tune_ensemble_weights
    monkeypatch.setattr(engine, "tune_ensemble_weights", lambda *a, **k: calls.append(a) or real(*a, **k))

    def run(out):
        assert decode.main(["--model", models[0], "--model", models[1], "--data", str(dev), "--out", str(tmp_path / out),
                            "--tune-weights-on", str(tr), "--weight-step", "0.25", "--tuned-weights", str(cache),
                            "--threads", "1"]) == 0
        return json.loads((tmp_path / out / "decode_stats.json").read_text())

    first = run("d1")
    saved = json.loads(cache.read_text())
    assert len(calls) == 1 and saved["weights"] == first["tuned_weights"]["weights"]
    assert [m["path"] for m in saved["key"]["members"]] == [str(Path(m).resolve()) for m in models]
    second = run("d2")  # the same members, set and step: read, not tuned again
    assert len(calls) == 1 and second["weights"] == first["weights"]
    assert _labels(tmp_path / "d1") == _labels(tmp_path / "d2")
    st = os.stat(models[1])
    os.utime(models[1], ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # a member retrained
    run("d3")
    assert len(calls) == 2
    # a damaged file is a one-line error, not a silent retune
    cache.write_text("{not json")
    rc = decode.main(["--model", models[0], "--model", models[1], "--data", str(dev), "--out", str(tmp_path / "d4"),
                      "--tune-weights-on", str(tr), "--weight-step", "0.25", "--tuned-weights", str(cache)])
    assert rc == 1 and not (tmp_path / "d4").exists()
    # a file that cannot be written fails before any decoding
    rc = decode.main(["--model", models[0], "--model", models[1], "--data", str(dev), "--out", str(tmp_path / "d6"),
                      "--tune-weights-on", str(tr), "--tuned-weights", str(tmp_path / "no" / "w.json")])
    assert rc == 1 and len(calls) == 2
    # --tuned-weights alone makes no sense
    assert decode.main(["--model", models[0], "--model", models[1], "--data", str(dev), "--out", str(tmp_path / "d5"),
                        "--tuned-weights", str(cache)]) == 1


def test_restore_reads_the_recipes_weights_file(two_models, tiny_data, tmp_path, capsys, monkeypatch):
    from punct.bin import restore as restore_bin
    from punct.engine.restorer import EnsembleRestorer

    used = []  # the weights each restore's ensemble mixes with
    init = EnsembleRestorer.__init__

    def spy(self, *a, **kw):
        init(self, *a, **kw)
        used.append([round(float(x), 6) for x in self.weights])

    monkeypatch.setattr(EnsembleRestorer, "__init__", spy)

    tr, dev = tiny_data
    words = load_utterances(dev)[0].texts
    src = tmp_path / "in.ctm"
    src.write_text("".join(f"utt 1 {i * 0.5:.2f} 0.40 {w}\n" for i, w in enumerate(words)))
    weights = tmp_path / "tuned_weights.json"
    weights.write_text(json.dumps({"weights": [0.25, 0.75], "key": {}}))

    def restore(*extra):
        rc = restore_bin.main([str(src), "-o", str(tmp_path / "o.txt"), "--model", two_models[0], "--model",
                               two_models[1], *extra])
        return rc, (tmp_path / "o.txt").read_text() if rc == 0 else capsys.readouterr().err.strip()

    by_file = restore("--weights-from", str(weights))
    assert by_file == restore("--weights", "1", "3") and by_file[0] == 0
    assert used == [[0.25, 0.75], [0.25, 0.75]]  # the file's weights, as --weights 1 3 gives them
    stats = tmp_path / "decode_stats.json"  # an ensemble decode's stats hold the tuned weights too
    stats.write_text(json.dumps({"weights": [0.5, 0.5], "tuned_weights": {"weights": [0.25, 0.75]}}))
    assert restore("--weights-from", str(stats)) == by_file
    weights.write_text(json.dumps({"weights": [1.0]}))
    assert restore("--weights-from", str(weights)) == (1, f"error: {weights}: 1 weights for 2 models (one per model)")
    for bad in ([1, -1], [1, float("inf")]):
        weights.write_text(json.dumps({"weights": bad}))
        assert restore("--weights-from", str(weights)) == (
            1, f"error: {weights}: not a weights file: it needs a 'weights' list of positive numbers")
    assert restore("--weights-from", str(weights), "--weights", "1", "1") == (
        1, "error: give --weights or --weights-from, not both")


def test_bias_tuned_on_a_dev_set_is_kept_and_restore_applies_it(two_models, tiny_data, tmp_path, capsys):
    from punct.bin import decode
    from punct.bin import restore as restore_bin
    from punct.engine.decode import posteriors, tune_class_bias
    from punct.engine.infer import biased_labels, class_bias
    from punct.text.labels import label_id

    tr, dev = tiny_data
    m = two_models[0]
    cache = tmp_path / "tuned.json"
    out = tmp_path / "biased"
    assert decode.main(["--model", m, "--data", str(dev), "--out", str(out), "--tune-bias-on", str(tr),
                        "--tuned-weights", str(cache), "--threads", "1", "--no-end-sentence"]) == 0
    tuned = json.loads(cache.read_text())
    ref = [label_id(lab) for u in load_utterances(tr) for lab in u.labels]
    want_bias, f1, base = tune_class_bias(np.concatenate(posteriors(m, tr)[1]).astype(np.float64), ref)
    assert tuned["weights"] == [1.0] and list(tuned["bias"].values()) == want_bias
    assert tuned["f1"] == round(f1, 3) and tuned["f1_without_bias"] == round(base, 3)
    assert tuned["key"]["bias"] == {"step": decode.BIAS_STEP, "limit": decode.BIAS_LIMIT}
    # the decode of --data is the biased argmax of the model's posteriors on it
    want = [LABELS[i] for i in biased_labels(np.concatenate(posteriors(m, dev)[1]), class_bias(want_bias))]
    assert _labels(out) == want
    # --bias given by hand decodes the same
    assert decode.main(["--model", m, "--data", str(dev), "--out", str(tmp_path / "by_hand"), "--threads", "1",
                        "--bias", *map(str, want_bias), "--no-end-sentence"]) == 0
    assert _labels(tmp_path / "by_hand") == want
    # punct restore --weights-from applies the file's bias to the one model, as --bias does
    words = load_utterances(dev)[0].texts
    src = tmp_path / "in.ctm"
    src.write_text("".join(f"utt 1 {i * 0.5:.2f} 0.40 {w}\n" for i, w in enumerate(words)))

    def restore(*extra):
        rc = restore_bin.main([str(src), "-o", str(tmp_path / "o.txt"), "--model", m, *extra])
        return rc, (tmp_path / "o.txt").read_text() if rc == 0 else capsys.readouterr().err.strip()

    by_file = restore("--weights-from", str(cache))
    assert by_file[0] == 0 and by_file == restore("--bias", *map(str, want_bias))
    assert restore("--bias", "9", "9", "9") != restore()  # a strong bias puts marks everywhere
    cache.write_text(json.dumps({"weights": [1.0], "bias": {"COMMA": "x"}}))
    assert restore("--weights-from", str(cache)) == (
        1, f"error: {cache}: bias values must be finite numbers, got ['x', 0.0, 0.0]")


@pytest.mark.parametrize("extra, problem", [
    (["--bias", "0", "nan", "0"], "argument --bias: expected a finite number, got 'nan'"),
    (["--bias", "0", "0", "0", "--tune-bias-on", "TR"], "give --bias or --tune-bias-on, not both"),
    (["--tune-bias-on", "TR", "--tune-weights-on", "DEV"], "must name the same data directory"),
    (["--tune-bias-on", "NOLABELS"], "labels of the tuning set not found"),
])
def test_bad_bias_options_are_one_line_errors(two_models, tiny_data, tmp_path, capsys, extra, problem):
    from punct.bin import decode

    tr, dev = tiny_data
    extra = [{"TR": str(tr), "DEV": str(dev), "NOLABELS": str(tmp_path)}.get(x, x) for x in extra]
    rc = _exit_code(decode.main, ["--model", two_models[0], "--model", two_models[1], "--data", str(dev), "--out",
                                  str(tmp_path / "o"), *extra])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == (2 if "argument" in problem else 1) and len(err) == 1 and problem in err[0], err
    assert not (tmp_path / "o").exists()


def test_tuning_posteriors_are_cached_beside_each_model(two_models, tiny_data, tmp_path, monkeypatch):
    """A member decodes a tuning set once: later tunings (other ensembles with the same member)
    read its posteriors from posteriors/ beside the model, until the model, a file of the set or
    punct's code changes; a folder that cannot be written only means no cache."""
    import os
    import shutil

    from punct.engine import decode as engine

    tr = tmp_path / "train"  # a copy: its files' times change below
    shutil.copytree(tiny_data[0], tr)
    model = tmp_path / "m" / "best.pt"
    model.parent.mkdir()
    shutil.copy(two_models[0], model)
    calls = []
    real = engine.posteriors
    monkeypatch.setattr(engine, "posteriors", lambda *a, **k: calls.append(a) or real(*a, **k))
    ref, (first,) = engine.tuning_posteriors([model], tr)
    assert len(calls) == 1 and len(list((model.parent / engine.POSTERIOR_CACHE).iterdir())) == 1
    ref2, (second,) = engine.tuning_posteriors([model], tr)
    assert len(calls) == 1 and np.array_equal(first, second) and np.array_equal(ref, ref2)
    assert second.dtype == np.float64 and second.shape == (len(ref), len(LABELS))
    labels = Path(tr) / "labels"
    st = os.stat(labels)
    os.utime(labels, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # the set changed
    engine.tuning_posteriors([model], tr)
    assert len(calls) == 2
    st = os.stat(model)
    os.utime(model, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # the model retrained
    engine.tuning_posteriors([model], tr)
    assert len(calls) == 3 and len(list((model.parent / engine.POSTERIOR_CACHE).iterdir())) == 3
    monkeypatch.setattr(engine, "code_digest", lambda: "other code")  # punct's code changed
    engine.tuning_posteriors([model], tr)
    assert len(calls) == 4 and len(list((model.parent / engine.POSTERIOR_CACHE).iterdir())) == 4
    for f in (model.parent / engine.POSTERIOR_CACHE).iterdir():  # a damaged cache file is decoded again
        f.write_bytes(b"junk")
    _, (again,) = engine.tuning_posteriors([model], tr)
    assert len(calls) == 5 and np.array_equal(again, first)
    shutil.rmtree(model.parent / engine.POSTERIOR_CACHE)
    (model.parent / engine.POSTERIOR_CACHE).write_text("a file where the folder would be")
    _, (plain,) = engine.tuning_posteriors([model], tr)
    assert len(calls) == 6 and np.array_equal(plain, first)
