"""Where a training run starts: what kind of run its config asks of the model class, the
checkpoint it resumes or the model it starts from, its featurizer and model arguments, and
the model itself. ``init_from`` names a two-stage model's stage one (punct.models.twostage:
its vocabulary, spec and weights go into the new model, which then decodes alone) or, for
any other model, a model of the same kind to train on from (a warm start)."""
from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import Any

import torch

from punct.engine import checkpoint as ckpt
from punct.engine.config import TrainConfig
from punct.engine.expdir import check_resume, load_warm_start, new_progress, warm_progress
from punct.engine.inputs import WordInputs, build_inputs, input_kind, inputs_from_checkpoint
from punct.errors import PunctError
from punct.models import SPECIALS, build_model, resolved_model_args

log = logging.getLogger(__name__)


@dataclasses.dataclass
class RunKind:
    """What sort of training a config asks of its model class (checked against each other)."""

    #: a two-stage model: ``init_from`` names its stage one
    second_stage: bool
    #: a warm start: ``init_from`` names a model of the same kind to train on from
    warm: bool
    #: estimated by counting in one pass (``trainer = "fit"``), not by SGD
    counting: bool

    @classmethod
    def of(cls, cfg: TrainConfig, model_cls: type) -> "RunKind":
        second_stage = hasattr(model_cls, "stage1_models")
        kind = cls(second_stage=second_stage, warm=bool(cfg.init_from) and not second_stage,
                   counting=getattr(model_cls, "trainer", "sgd") == "fit")
        if cfg.freeze and not second_stage:
            raise PunctError(f"freeze keeps a two-stage model's stage one fixed; {cfg.model} has no stage one")
        if cfg.word_dropout and (kind.counting or input_kind(model_cls) not in ("words", "words+feats")):
            raise PunctError(f"word_dropout needs a network that reads word ids; {cfg.model} "
                             + ("is estimated by counting" if kind.counting else f"reads {input_kind(model_cls)}"))
        if kind.warm and kind.counting:
            raise PunctError(f"model {cfg.model} is estimated by counting: it cannot train on from init_from")
        if second_stage and not cfg.init_from:
            raise PunctError(f"model {cfg.model} is a second stage: set init_from to a stage-one model (a best.pt)")
        return kind


@dataclasses.dataclass
class Start:
    """Where a run starts: its featurizer, model arguments and progress, and the checkpoints
    it starts from (the one it resumes, a warm start's model, a two-stage model's stage one)."""

    inputs: Any
    model_args: dict[str, Any]
    prog: dict[str, Any]
    resumed: dict[str, Any] | None = None
    warm: dict[str, Any] | None = None
    stage1: dict[str, Any] | None = None

    @property
    def stage1_train_config(self) -> dict[str, Any]:
        """A two-stage run's stage-one training config: from the stage-one checkpoint, or as
        the resumed run recorded it."""
        if self.stage1 is not None:
            return self.stage1.get("train_config") or {}
        return (self.resumed or {}).get("stage1_train_config") or {}

    @property
    def stage1_decision_bias(self) -> dict[str, Any] | None:
        """A two-stage run's stage-one decision bias (punct set-bias): the stage-one file's, or
        as the resumed run recorded it."""
        if self.stage1 is not None:
            return self.stage1.get("decision_bias")
        return (self.resumed or {}).get("stage1_decision_bias")


def starting_point(cfg: TrainConfig, model_cls: type, kind: RunKind, model_args: dict[str, Any],
                    train_dir, ck_path: Path, state: str | Path | None = None) -> Start:
    """Resume from ``ck_path`` when it exists, or from the state file ``state`` (a run carried
    in git, punct.engine.carry) when that exists and is further along; else start from
    ``init_from``'s weights (a warm start) or anew, building the featurizer from ``train_dir``
    (a path, or a punct.data.datadir.DataSet whose utterances the training reads once) and the
    config's resolved ``model_args`` (a two-stage model: from its stage one's vocabulary)."""
    resumed = None
    if ck_path.is_file():
        ck = ckpt.load(ck_path)
        inputs = inputs_from_checkpoint(ck)
        stage1_extra = {"stage1": ck["model_args"].get("stage1") or {}} if kind.second_stage else {}
        model_args = _complete_model_args(cfg, inputs, stage1_extra)
        check_resume(ck["train_config"], cfg, model_args, ck_path)
        resumed = (ck, ck_path, inputs, model_args)
    if state is not None and Path(state).is_file():
        from punct.engine import carry

        st = ckpt.load(state)
        st_inputs = inputs_from_checkpoint(st)
        st_args = _complete_model_args(cfg, st_inputs, {})
        st = carry.read_state(state, cfg, st_args, st)
        if resumed is None or carry.newer(st["progress"], resumed[0]["progress"]):
            resumed = (st, Path(state), st_inputs, st_args)
    if resumed is not None:
        ck, path, inputs, model_args = resumed
        prog = dict(ck["progress"])
        log.info("resuming from %s: epoch %d, batch %d%s", path, prog["epoch"] + 1, prog["batch"],
                 "" if "optimizer" in ck or "optimizer_compact" in ck else " (without optimizer moments: the rate re-warms)")
        return Start(inputs, model_args, prog, resumed=ck)
    if kind.warm:
        warm_ck = load_warm_start(cfg.model, cfg.init_from)
        inputs = inputs_from_checkpoint(warm_ck)
        prog = warm_progress(warm_ck, Path(cfg.init_from))
        log.info("warm start from %s (epoch %d): training on from its weights with this config", cfg.init_from,
                 prog["epoch"])
        return Start(inputs, _complete_model_args(cfg, inputs, {}), prog, warm=warm_ck)
    from punct.data.datadir import DataSet

    stage1_ck, stage1_vocab, stage1_extra = None, None, {}
    if kind.second_stage:
        stage1_ck, stage1_vocab, stage1_extra = _load_stage1(model_cls, cfg.init_from)
    train = train_dir if isinstance(train_dir, DataSet) else DataSet(train_dir)
    inputs = build_inputs(model_cls, (u.texts for u in train.utterances), cfg, model_args, data_dir=train.path,
                          vocab=stage1_vocab)
    return Start(inputs, _complete_model_args(cfg, inputs, stage1_extra), new_progress(), stage1=stage1_ck)


def model_of(cfg: TrainConfig, start: Start) -> torch.nn.Module:
    """The model of a new run or a resume, from ``cfg.seed``: a warm start's weights, or the
    pretrained embeddings, or a two-stage model's stage one loaded; the parts the config
    freezes frozen. (A resume's weights are loaded with its optimizer's state.)"""
    torch.manual_seed(cfg.seed)
    model = build_model(cfg.model, start.model_args, start.inputs.input_size)
    if start.warm is not None:
        try:
            model.load_state_dict(start.warm["state_dict"])
        except RuntimeError as e:  # torch's first line is a header, the second the first mismatch
            lines = [x.strip() for x in str(e).strip().splitlines()]
            detail = lines[1] if len(lines) > 1 else lines[0]
            raise PunctError(f"its weights do not fit this config's model_args ({detail})", cfg.init_from) from None
    elif cfg.pretrained_embeddings and start.resumed is None:
        _init_pretrained(model, start.inputs, cfg.pretrained_embeddings)
    if cfg.freeze_embeddings:
        _embedding_of(model).weight.requires_grad_(False)
    if start.stage1 is not None:
        model.load_stage1(start.stage1["state_dict"])
        log.info("stage one: %s (%s, epoch %s)%s", cfg.init_from, start.stage1["model"], start.stage1.get("epoch"),
                 ", kept fixed" if cfg.freeze else ", trained on")
    if hasattr(model, "set_stage1_marks"):  # its fallback decides as its stage one decodes alone
        model.set_stage1_marks(start.stage1_train_config, start.stage1_decision_bias)
    if cfg.freeze:
        model.freeze_stage1()
        if cfg.stage1_cache_mb:
            model.cache_stage1(cfg.stage1_cache_mb)
    return model


def _complete_model_args(cfg: TrainConfig, inputs, extra: dict[str, Any]) -> dict[str, Any]:
    """The model's arguments: the config's, plus what the featurizer tells the model
    (``feature_names``) and the stage-one spec of a two-stage model."""
    more = dict(inputs.model_args()) if hasattr(inputs, "model_args") else {}
    more.update(extra)
    return resolved_model_args(cfg.model, dict(cfg.model_args, **more))


def _load_stage1(model_cls: type, path: str) -> tuple[dict[str, Any], Any, dict[str, Any]]:
    """(checkpoint, what it read, {"stage1": spec}) of the stage-one model ``path`` of a two-stage
    model. What it read is its Vocabulary for a word-id model (``words+feats`` second stages)
    and its featurizer's state (under ``inputs``: the encoder and tokenizer digest) for a
    transformer tagger (``wordpieces+feats``)."""
    from punct.engine.vocab import Vocabulary

    ck1 = ckpt.load(path)
    if ck1["model"] not in model_cls.stage1_models:
        raise PunctError(f"stage one is a {ck1['model']} model; {model_cls.__name__} builds on "
                         f"{' or '.join(model_cls.stage1_models)}", path)
    kind = (ck1.get("inputs") or {}).get("kind", "words")
    wants = input_kind(model_cls)
    spec = {"model": ck1["model"], "model_args": dict(ck1["model_args"]), "source": str(path),
            "epoch": ck1.get("epoch"), "valid_ppl": ck1.get("valid_ppl")}
    if wants == "wordpieces+feats":
        if kind != "wordpieces":
            raise PunctError(f"stage one must read word pieces (its inputs are {kind})", path)
        return ck1, dict(ck1["inputs"]), {"stage1": spec}
    if kind != "words" or not ck1.get("vocab"):
        raise PunctError(f"stage one must read word ids (its inputs are {kind})", path)
    return ck1, Vocabulary.from_list(ck1["vocab"]), {"stage1": spec}


def check_teacher(cfg: TrainConfig, model_cls: type, train_dir: str | Path, model_args: dict[str, Any]) -> None:
    """A distillation run: the teacher's posteriors are in the training directory, and the
    student can learn from them (a per-word loss); says what it learns from them."""
    from punct.engine.soft_labels import SoftLayout
    from punct.prosody.features import feature_files, read_names

    scp = feature_files(train_dir, cfg.distill_from)[1]
    if not scp.is_file():
        raise PunctError(f"distill_from: no posteriors {cfg.distill_from!r} in the training directory (punct posteriors "
                         f"--model TEACHER --data {train_dir} --name {cfg.distill_from} writes them)", scp)
    layout = SoftLayout.of(read_names(train_dir, cfg.distill_from), scp)
    if getattr(model_cls, "trainer", "sgd") == "fit":
        raise PunctError(f"model {cfg.model} is estimated by counting: it cannot learn from a teacher's posteriors")
    case = bool(model_args.get("case_head", False))
    log.info("distillation from %s: marks%s, teacher weight %.2f, temperature %g", scp,
             " and case" if case and layout.case else (" (the teacher has no case posteriors)" if case else ""),
             cfg.distill_weight, cfg.distill_temperature)


def _embedding_of(model: torch.nn.Module) -> torch.nn.Embedding:
    emb = getattr(model, "embedding", None)
    if not isinstance(emb, torch.nn.Embedding):
        raise PunctError(f"{type(model).__name__} has no word embedding (an nn.Embedding named 'embedding')")
    return emb


def _init_pretrained(model: torch.nn.Module, inputs, name: str) -> None:
    from punct.models.pretrained import init_embedding

    if not isinstance(inputs, WordInputs):
        raise PunctError("pretrained_embeddings needs a model that reads word ids")
    init_embedding(_embedding_of(model).weight, inputs.vocab.words, name, skip=len(SPECIALS))
