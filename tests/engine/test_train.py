"""punct.engine.train: its outputs, schedules, model selection, precision, warm starts,
checkpoint averaging and optimizer step (a training stopped and run again:
test_train_interrupted.py)."""
from pathlib import Path

import pytest
import torch

from punct.config import load_config
from punct.engine import checkpoint as ckpt
from punct.engine.config import TrainConfig
from punct.engine.train import train
from punct.errors import PunctError

ROOT = Path(__file__).resolve().parents[2]


# every config under conf/ builds and trains: tests/models/test_configs.py


def test_outputs_and_best_model(tiny_data, tmp_path, tiny_cfg):
    tr, dev = tiny_data
    exp = tmp_path / "exp"
    prog = train(tiny_cfg(), tr, dev, exp, command="cmd line")
    assert prog["epoch"] == 2
    lines = (exp / "train_log.tsv").read_text().splitlines()
    assert lines[0].split("\t") == ["epoch", "train_loss", "valid_ppl", "valid_f1", "seconds", "words_per_s",
                                    "f1_COMMA", "f1_PERIOD", "f1_QUESTION"]
    assert len(lines) == 3
    assert (exp / "cmd").read_text() == "cmd line\n"
    assert "model_args:" in (exp / "config.yaml").read_text()
    model, vocab, ck = ckpt.load_model(exp / "best.pt")
    assert len(vocab) == 33 and ck["model"] == "tbrnn" and "optimizer" not in ck
    import json

    done = json.loads((exp / "train_done.json").read_text())
    assert done["stopped"] == "max_epochs" and done["epochs"] == 2 and done["best_epoch"] in (1, 2)


def test_word_dropout(tiny_data, tmp_path, tiny_cfg):
    import numpy as np
    from punct.engine.loss import drop_words
    from punct.models import UNK_ID

    ids = torch.tensor([[5, 6, 7, 8], [9, 10, 0, 0]])
    kw = {"ids": ids, "mask": ids != 0}
    u = np.array([[0.05, 0.5, 0.09, 0.9, 0.0], [0.5, 0.01, 0.0, 0.0, 0.0]])
    out = drop_words(kw, 0.1, u)
    assert out["ids"].tolist() == [[UNK_ID, 6, UNK_ID, 8], [9, UNK_ID, 0, 0]]  # padding stays padding
    assert kw["ids"] is ids and ids[0, 0] == 5  # the batch itself is not changed
    with pytest.raises(PunctError, match="word_dropout must be at least 0 and below 1"):
        tiny_cfg("word_dropout=1.0")
    tr, dev = tiny_data
    for model, why in (("char_bilstm", "reads chars"), ("hidden_event_lm", "is estimated by counting")):
        cfg = load_config(ROOT / "conf" / f"{model}.yaml", TrainConfig, ["word_dropout=0.1", "max_epochs=1"])
        with pytest.raises(PunctError, match=f"word_dropout needs a network that reads word ids; {model} {why}"):
            train(cfg, tr, dev, tmp_path / model)
    # it changes what the network learns, and the same seed draws the same words
    a, b, c = (ckpt.load(train(tiny_cfg(*x), tr, dev, tmp_path / n) and tmp_path / n / "checkpoint.pt")["state_dict"]
               for n, x in (("a", []), ("b", ["word_dropout=0.3"]), ("c", ["word_dropout=0.3"])))
    assert not torch.equal(a["embedding.weight"], b["embedding.weight"])
    assert all(torch.equal(b[k], c[k]) for k in b)


def test_halving_schedule_halves_then_stops(tiny_data, tmp_path, monkeypatch, tiny_cfg):
    """lr_schedule halving (Mikolov): epoch 2 counts as no real gain under a huge threshold,
    so the rate halves; epoch 3 again, so training stops there, saying why."""
    import json

    from punct.engine import optim

    tr, dev = tiny_data
    exp = tmp_path / "exp"
    monkeypatch.setattr(optim, "HALVING_THRESHOLD", 100.0)
    prog = train(tiny_cfg("lr_schedule=halving", "max_epochs=10"), tr, dev, exp)
    assert prog["epoch"] == 3 and prog["halving"] and prog["halved_out"] and prog["lr_scale"] == 0.5
    assert json.loads((exp / "train_done.json").read_text())["stopped"] == "halving"
    ck = ckpt.load(exp / "checkpoint.pt")
    assert ck["optimizer"]["param_groups"][0]["lr"] == pytest.approx(0.02 * 0.5)


def test_sum_loss_steps_are_the_mean_loss_steps_times_the_word_count(tiny_data, tmp_path, tiny_cfg):
    """loss_reduction sum (punctuator2's cost): with plain SGD and no clipping, one step moves
    every weight by the word count times the mean-loss step."""
    tr, dev = tiny_data
    moved = {}
    for red, lr in (("mean", 0.0), ("mean", 0.1), ("sum", 0.1)):
        exp = tmp_path / f"{red}{lr}"
        train(tiny_cfg("optimizer=sgd", "clip_norm=0", f"lr={lr}", f"loss_reduction={red}", "max_epochs=1",
                              "epoch_slices=4"), tr, dev, exp)
        moved[red, lr] = ckpt.load(exp / "checkpoint.pt")["state_dict"]["out.bias"]
    step_mean = moved["mean", 0.1] - moved["mean", 0.0]
    step_sum = moved["sum", 0.1] - moved["mean", 0.0]
    ratio = (step_sum / step_mean)[step_mean.abs() > 1e-6]
    assert len(ratio) and torch.allclose(ratio, ratio[0].expand_as(ratio), rtol=1e-3)
    assert float(ratio[0]) == pytest.approx(80, rel=1e-4)  # the batch: 4 slices of 20 labelled words
    with pytest.raises(PunctError, match="loss_reduction must be mean or sum"):
        tiny_cfg("loss_reduction=median")


def test_select_by_f1_picks_and_stops_on_the_validation_f1(tiny_data, tmp_path, tiny_cfg):
    """select_by f1: best.pt is the first epoch of the highest validation F1, and patience
    counts epochs since the last F1 improvement (not the perplexity's)."""
    import json

    tr, dev = tiny_data
    exp = tmp_path / "exp"
    prog = train(tiny_cfg("select_by=f1", "max_epochs=5", "patience=2", "lr=0.5"), tr, dev, exp)
    f1s = [r["valid_f1"] for r in prog["history"]]
    best = 1 + f1s.index(max(f1s))
    assert ckpt.load(exp / "best.pt")["epoch"] == best
    done = json.loads((exp / "train_done.json").read_text())
    assert done["best_epoch"] == best and done["best_valid_f1"] == pytest.approx(max(f1s))
    last_gain = max(i + 1 for i, f in enumerate(f1s) if f > max([-1.0] + f1s[:i]))
    assert prog["epoch"] == min(5, last_gain + 2)
    assert done["stopped"] == ("patience" if prog["epoch"] == last_gain + 2 else "max_epochs")
    assert len(set(f1s)) > 1  # the F1 moved, so the choice above was a real one


def test_the_log_gives_each_marks_validation_f1(tiny_data, tmp_path, tiny_cfg):
    """train_log.tsv has a column per mark: the F1 the validation gave it after each epoch
    (a mark never predicted nor in the validation reference has '-')."""
    from punct.engine.expdir import MARK_LOG_COLUMNS, read_train_log
    from punct.engine.validation import LAST_BY_MARK

    tr, dev = tiny_data
    exp = tmp_path / "exp"
    prog = train(tiny_cfg("select_by=f1", "max_epochs=2", "lr=0.5"), tr, dev, exp)
    rows = read_train_log(exp / "train_log.tsv")
    assert [r["epoch"] for r in rows] == [1, 2]
    for row, kept in zip(rows, prog["history"]):
        assert all(c in row for c in MARK_LOG_COLUMNS)
        assert [row[c] for c in MARK_LOG_COLUMNS] == [kept[c] for c in MARK_LOG_COLUMNS]
    assert rows[-1]["f1_COMMA"] == (LAST_BY_MARK["COMMA"] or {}).get("f1")  # the last validation's
    assert any(r[c] is not None for r in rows for c in MARK_LOG_COLUMNS)


@pytest.mark.parametrize("extra, message", [(["select_by=bleu"], "select_by must be ppl, f1 or last"),
                                            (["select_by=f1", "lr_schedule=halving"], "needs select_by ppl"),
                                            (["select_by=last", "lr_schedule=plateau"], "select_by last keeps"),
                                            (["select_by=last", "average_best=2"], "select_by last keeps")])
def test_select_by_is_checked(extra, message, tiny_cfg):
    with pytest.raises((ValueError, PunctError), match=message):
        tiny_cfg(*extra).check()


def test_precision_bf16_trains_close_to_fp32(tiny_data, tmp_path, tiny_cfg):
    """precision bf16 runs the forward passes under CPU autocast: weights stay fp32, the run
    learns as the fp32 run does; a run may switch precision when it is resumed."""
    tr, dev = tiny_data
    runs = {}
    for prec in ("fp32", "bf16"):
        exp = tmp_path / prec
        prog = train(tiny_cfg(f"precision={prec}", "lr=0.5"), tr, dev, exp)
        runs[prec] = prog["history"][-1]["valid_ppl"]
        best = ckpt.load(exp / "best.pt")
        assert all(v.dtype == torch.float32 for v in best["state_dict"].values() if v.is_floating_point())
    # an untrained model (zero output layer) has perplexity 4 over the four labels
    assert runs["bf16"] < 2.5 and runs["fp32"] < 2.5
    assert runs["bf16"] == pytest.approx(runs["fp32"], rel=0.2)  # two epochs at lr 0.5: rounding shows
    # resuming an fp32 run with bf16 is allowed (only the rounding of the forward pass changes)
    prog = train(tiny_cfg("precision=bf16", "lr=0.5", "max_epochs=3"), tr, dev, tmp_path / "fp32")
    assert prog["epoch"] == 3


def test_precision_is_checked(tiny_cfg):
    with pytest.raises((ValueError, PunctError), match="precision must be fp32 or bf16"):
        tiny_cfg("precision=fp16").check()


def test_plateau_schedule_decays_after_every_epoch_without_gain(tiny_data, tmp_path, tiny_cfg):
    """lr_schedule plateau: the optimizer's rate is lr times lr_decay per epoch that did not
    improve the selected score, and training still ends on patience."""
    tr, dev = tiny_data
    exp = tmp_path / "exp"
    prog = train(tiny_cfg("lr_schedule=plateau", "select_by=f1", "max_epochs=6", "patience=2", "lr=0.5"), tr, dev, exp)
    f1s = [r["valid_f1"] for r in prog["history"]]
    missed = [f <= max([-1.0] + f1s[:i]) for i, f in enumerate(f1s)]
    assert any(missed) and prog["lr_scale"] == 0.5 ** sum(missed)
    # the last epoch trained at the rate of the misses before it
    assert ckpt.load(exp / "checkpoint.pt")["optimizer"]["param_groups"][0]["lr"] == pytest.approx(
        0.5 * 0.5 ** sum(missed[:-1]))


@pytest.mark.parametrize("extra, message", [(["lr_schedule=cosine"], "lr_schedule must be"),
                                            (["lr_schedule=plateau", "lr_decay=1.0"], "lr_decay must be between"),
                                            (["lr_decay=0"], "lr_decay must be between")])
def test_schedule_options_are_checked(extra, message, tiny_cfg):
    with pytest.raises((ValueError, PunctError), match=message):
        tiny_cfg(*extra).check()


def test_warm_start_trains_on_from_another_runs_best_model(tiny_data, tmp_path, tiny_cfg):
    """init_from on a one-stage model: the new run starts from that best.pt (weights,
    vocabulary, its epochs and their log rows), with its own optimizer settings; the
    starting model stays best.pt until an epoch beats it on validation."""
    import json

    from punct.engine.expdir import read_train_log

    tr, dev = tiny_data
    first = tmp_path / "first"
    train(tiny_cfg("max_epochs=2", "select_by=f1"), tr, dev, first)
    start = ckpt.load(first / "best.pt")
    warm = tmp_path / "warm"
    prog = train(tiny_cfg(f"init_from={first / 'best.pt'}", "select_by=f1", "max_epochs=4", "lr=0.0"), tr, dev, warm)
    # lr 0: nothing moves, so no epoch beats the start, which is kept as best.pt
    rows = read_train_log(warm / "train_log.tsv")
    assert [r["epoch"] for r in rows] == list(range(1, start["epoch"] + 1)) + list(range(start["epoch"] + 1, 5))
    assert rows[:start["epoch"]] == read_train_log(first / "train_log.tsv")[:start["epoch"]]
    best = ckpt.load(warm / "best.pt")
    assert best["epoch"] == start["epoch"] and best["train_config"]["init_from"] == str(first / "best.pt")
    for k, v in start["state_dict"].items():
        assert torch.equal(best["state_dict"][k], v), k
    assert (warm / "vocab.txt").read_text() == (first / "vocab.txt").read_text()
    assert prog["epoch"] == 4 and json.loads((warm / "train_done.json").read_text())["best_epoch"] == start["epoch"]
    # a rate that moves: an epoch may now beat the start; the run resumes like any other
    moved = tmp_path / "moved"
    train(tiny_cfg(f"init_from={first / 'best.pt'}", "max_epochs=3", "lr=0.5"), tr, dev, moved)
    assert not torch.equal(ckpt.load(moved / "checkpoint.pt")["state_dict"]["out.bias"], start["state_dict"]["out.bias"])


def test_select_by_last_keeps_the_last_epoch_even_when_it_validates_worse(tiny_data, tmp_path, tiny_cfg):
    """select_by last: best.pt is the model of the last epoch, after a warm start too (whose
    start would otherwise stay best.pt when no epoch beats it), and patience never ends the run."""
    tr, dev = tiny_data
    first = tmp_path / "first"
    train(tiny_cfg("max_epochs=2", "select_by=f1"), tr, dev, first)
    start = ckpt.load(first / "best.pt")
    # a rate far too high for the tiny model: the epochs after the start validate worse
    warm = tmp_path / "warm"
    prog = train(tiny_cfg(f"init_from={first / 'best.pt'}", "select_by=last", f"max_epochs={start['epoch'] + 3}",
                          "patience=1", "lr=20", "optimizer=sgd"), tr, dev, warm)
    rows = prog["history"][start["epoch"]:]
    assert len(rows) == 3 and prog["epoch"] == start["epoch"] + 3  # patience 1 did not stop it
    best = ckpt.load(warm / "best.pt")
    assert best["epoch"] == start["epoch"] + 3 and best["valid_ppl"] == pytest.approx(rows[-1]["valid_ppl"])
    last = ckpt.load(warm / "checkpoint.pt")["state_dict"]
    for k, v in best["state_dict"].items():
        assert torch.equal(v, last[k]), k
    assert max(r["valid_ppl"] for r in rows) > start["valid_ppl"]  # an epoch did validate worse
    import json

    done = json.loads((warm / "train_done.json").read_text())
    assert done["warm_start"] == {"from": str(first / "best.pt"), "epoch": start["epoch"]}
    assert any(not torch.equal(best["state_dict"][k], v) for k, v in start["state_dict"].items())
    # max_epochs at the start's epoch: no epoch to train, best.pt is the start (a source's score)
    none = tmp_path / "none"
    prog = train(tiny_cfg(f"init_from={first / 'best.pt'}", "select_by=last", f"max_epochs={start['epoch']}"),
                 tr, dev, none)
    assert prog["epoch"] == start["epoch"] and ckpt.load(none / "best.pt")["epoch"] == start["epoch"]
    assert all(torch.equal(ckpt.load(none / "best.pt")["state_dict"][k], v) for k, v in start["state_dict"].items())


def test_average_best_keeps_the_best_epochs_and_averages_them(tiny_data, tmp_path, tiny_cfg):
    """average_best=2 keeps the models of the two best epochs (by valid F1) in epochs/, and at
    the end writes their mean to epochs/average.pt, which is best.pt only if it validates
    better. Training itself is untouched: checkpoint.pt holds the same weights as without it."""
    import json

    from punct.engine.averaging import average_state_dicts

    tr, dev = tiny_data
    plain = tmp_path / "plain"
    train(tiny_cfg("max_epochs=3", "select_by=f1"), tr, dev, plain)
    exp = tmp_path / "avg"
    prog = train(tiny_cfg("max_epochs=3", "select_by=f1", "average_best=2"), tr, dev, exp)
    a, b = ckpt.load(plain / "checkpoint.pt"), ckpt.load(exp / "checkpoint.pt")
    assert all(torch.equal(a["state_dict"][k], b["state_dict"][k]) for k in a["state_dict"])
    rows = prog["history"]
    want = sorted(sorted(rows, key=lambda r: (-r["valid_f1"], r["epoch"]))[:2], key=lambda r: r["epoch"])
    kept = sorted(int(f.stem) for f in (exp / "epochs").glob("[0-9]*.pt"))
    assert kept == [r["epoch"] for r in want] == prog["averaged"]
    for e in kept:  # each kept file is that epoch's model, with its scores
        assert ckpt.load(exp / "epochs" / f"{e}.pt")["valid_f1"] == rows[e - 1]["valid_f1"]
    avg = ckpt.load(exp / "epochs" / "average.pt")
    mean = average_state_dicts([ckpt.load(exp / "epochs" / f"{e}.pt")["state_dict"] for e in kept])
    assert avg["averaged_epochs"] == kept and all(torch.equal(mean[k], avg["state_dict"][k]) for k in mean)
    best = ckpt.load(exp / "best.pt")
    done = json.loads((exp / "train_done.json").read_text())
    best_row = max(rows, key=lambda r: r["valid_f1"])
    if avg["valid_f1"] > best_row["valid_f1"]:
        assert best["averaged_epochs"] == kept and done["averaged_epochs"] == kept
    else:
        assert "averaged_epochs" not in best and best["epoch"] == best_row["epoch"] and "averaged_epochs" not in done
    mtime = (exp / "epochs" / "average.pt").stat().st_mtime_ns
    train(tiny_cfg("max_epochs=3", "select_by=f1", "average_best=2"), tr, dev, exp)  # a rerun does nothing
    assert (exp / "epochs" / "average.pt").stat().st_mtime_ns == mtime


def test_average_best_switched_on_when_resuming(tiny_data, tmp_path, tiny_cfg):
    """average_best may be set when a run is trained on: its best model so far is the first one
    kept, and the epochs after it are added."""
    tr, dev = tiny_data
    exp = tmp_path / "exp"
    prog = train(tiny_cfg("max_epochs=2", "select_by=f1"), tr, dev, exp)
    first = prog["best_epoch"]
    prog = train(tiny_cfg("max_epochs=3", "select_by=f1", "average_best=3"), tr, dev, exp)
    assert sorted({first, 3}) == prog["averaged"]
    assert sorted(int(f.stem) for f in (exp / "epochs").glob("[0-9]*.pt")) == prog["averaged"]


def test_average_best_must_average_two(tmp_path, tiny_cfg):
    with pytest.raises(PunctError, match="average_best must be 0"):
        tiny_cfg("average_best=1")
    with pytest.raises(PunctError, match="average_best must be 0"):
        tiny_cfg("average_best=-2")


def test_average_best_lowered_on_a_resume(tiny_data, tmp_path, tiny_cfg):
    """A smaller average_best on a resume keeps only that many of the kept epochs."""
    tr, dev = tiny_data
    exp = tmp_path / "exp"
    train(tiny_cfg("max_epochs=3", "select_by=f1", "average_best=3"), tr, dev, exp)
    prog = train(tiny_cfg("max_epochs=4", "select_by=f1", "average_best=2"), tr, dev, exp)
    rows = prog["history"]
    want = sorted(r["epoch"] for r in sorted(rows, key=lambda r: (-r["valid_f1"], r["epoch"]))[:2])
    assert prog["averaged"] == want
    assert sorted(int(f.stem) for f in (exp / "epochs").glob("[0-9]*.pt")) == want


def test_progress_lines_without_a_terminal_tell_when_the_epoch_ends(tiny_data, tmp_path, monkeypatch, caplog, tiny_cfg):
    import logging
    import re

    from punct.engine import train as train_mod

    tr, dev = tiny_data
    monkeypatch.setattr(train_mod, "PROGRESS_LOG_SECONDS", 0.0)  # a line after every batch
    with caplog.at_level(logging.INFO, logger="punct.engine.train"):
        train(tiny_cfg("max_epochs=1"), tr, dev, tmp_path / "exp")
    lines = [r.getMessage() for r in caplog.records if " batch " in r.getMessage()]
    assert lines, caplog.text
    for line in lines:
        m = re.fullmatch(r"epoch 1 batch (\d+)/(\d+): train loss [0-9.]+, \d+ words/s, "
                         r"the epoch's batches end in (\d+) min", line)
        assert m, line
    last = re.fullmatch(r"epoch 1 batch (\d+)/(\d+).*", lines[-1])
    assert last.group(1) == last.group(2) and lines[-1].endswith("end in 0 min")


def test_valid_decode_is_checked(tiny_cfg):
    with pytest.raises((ValueError, PunctError), match="valid_decode must be slices or whole, got 'all'"):
        tiny_cfg("valid_decode=all").check()


def test_a_run_with_mark_weights_weighs_its_loss_and_validates_as_it_decodes(tiny_data, tmp_path, tiny_cfg, monkeypatch):
    """mark_weights reaches the training loss (another first step than without) and the
    validation (the mark_offset on its logits, as decoding adds it); the model file keeps them
    and decodes with the offset."""
    import numpy as np

    from punct.engine import validation

    tr, dev = tiny_data
    seen = []
    real = validation.evaluate
    monkeypatch.setattr(validation, "evaluate", lambda model, *a, **k: seen.append(model.punct_logit_offset)
                        or real(model, *a, **k))
    train(tiny_cfg("max_epochs=1"), tr, dev, tmp_path / "a")
    train(tiny_cfg("max_epochs=1", "mark_weights.QUESTION=4.0", "mark_weights.COMMA=2.0"), tr, dev, tmp_path / "b")
    loss = [(tmp_path / d / "train_log.tsv").read_text().splitlines()[1].split("\t")[1] for d in ("a", "b")]
    assert loss[0] != loss[1]
    assert seen[0] is None and np.allclose(seen[-1], [0, -np.log(2.0), 0, -np.log(4.0)])
    model, _, ck = ckpt.load_model(tmp_path / "b" / "best.pt")
    assert ck["train_config"]["mark_weights"] == {"QUESTION": 4.0, "COMMA": 2.0}
    assert np.allclose(model.punct_logit_offset, seen[-1])


def test_the_training_set_is_read_once_for_vocabulary_slices_and_spellings(tiny_data, tmp_path, tiny_cfg, monkeypatch):
    """A new run with a case head reads its training directory once: the featurizer, the slices
    and the case head's mixed spellings share the utterances read (punct.data.datadir.DataSet);
    the spellings are the ones mixed_spellings reads from the written file."""
    import shutil

    from punct.data import datadir
    from punct.data.datadir import load_utterances, mixed_spellings

    tr, dev = tiny_data
    train_dir = tmp_path / "train"
    shutil.copytree(tr, train_dir)
    text, written = [], []
    for u in load_utterances(train_dir):  # the first word of every utterance: mcdonald, spelled McDonald
        words = ["mcdonald"] + u.texts[1:]
        text.append(f"{u.id} {' '.join(words)}\n")
        written.append(f"{u.id} McDonald {' '.join(words[1:])}\n")
    (train_dir / "text").write_text("".join(text))
    (train_dir / "written").write_text("".join(written))
    reads = []
    real = datadir.load_utterances
    monkeypatch.setattr(datadir, "load_utterances", lambda path, *a, **k: reads.append(Path(path)) or real(path, *a, **k))
    exp = tmp_path / "exp"
    train(tiny_cfg("model_args.case_head=true", "max_epochs=1"), train_dir, dev, exp)
    assert reads.count(train_dir) == 1, reads
    spellings = ckpt.load_model(exp / "best.pt")[2]["mixed_spellings"]
    assert spellings == mixed_spellings(train_dir) and spellings


def test_a_two_stage_model_s_text_stage_trains_on_as_a_warm_start(tiny_data, tmp_path, tiny_cfg):
    """init_from a shipped two-stage file (models/default.pt is one, stored as float16): the
    run starts from its stage one's weights, as float32, with that stage's vocabulary."""
    from punct.engine.expdir import load_warm_start

    tr, dev = tiny_data
    train(tiny_cfg("max_epochs=1"), tr, dev, tmp_path / "one")
    one = ckpt.load(tmp_path / "one" / "best.pt")
    shipped = {k: v for k, v in one.items() if k in ("vocab", "labels", "mixed_spellings")}
    shipped.update(model="ta_brnn", model_args={"hidden_size": 4, "stage1": {"model": one["model"],
                                                                           "model_args": one["model_args"]}},
                   inputs={"kind": "features"}, stage1_train_config=one["train_config"],
                   stage1_decision_bias={"COMMA": 0.5},
                   state_dict={**{f"stage1.{k}": v.half() for k, v in one["state_dict"].items()},
                               "out.weight": torch.zeros(4, 4)})
    ckpt.save(tmp_path / "default.pt", shipped)
    ck0 = load_warm_start(one["model"], str(tmp_path / "default.pt"))
    assert ck0["decision_bias"] == {"COMMA": 0.5} and ck0["inputs"] == {"kind": "words"}
    assert set(ck0["state_dict"]) == set(one["state_dict"])
    assert all(v.dtype == torch.float32 for v in ck0["state_dict"].values())
    prog = train(tiny_cfg(f"init_from={tmp_path / 'default.pt'}", "max_epochs=2", "warm_accumulator_steps=20"),
                 tr, dev, tmp_path / "on")
    assert prog["epoch"] == 2 and (tmp_path / "on" / "vocab.txt").read_text() == (tmp_path / "one" / "vocab.txt").read_text()
    with pytest.raises(PunctError, match="init_from is a ta_brnn model"):
        load_warm_start("tlstm", str(tmp_path / "default.pt"))
