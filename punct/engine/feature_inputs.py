"""Featurizers that add per-word feature vectors (pause, prosody: DIR/NAME.scp of a data
directory, punct.prosody.features) to the word ids (``words+feats``, FeatureInputs) or to a
transformer's word pieces (``wordpieces+feats``, PieceFeatureInputs). They keep the columns
of ``feature_columns`` plus a missing flag; the raw values are sliced, cached and windowed
like the ids, and ``tensors`` z-normalizes them with the training set's statistics (stored
in the checkpoint) and zeroes the words without acoustic evidence."""
from __future__ import annotations

import hashlib
import logging
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from punct.engine.lexical_inputs import PieceInputs, WordInputs
from punct.engine.vocab import Vocabulary

if TYPE_CHECKING:
    import torch

log = logging.getLogger(__name__)


class FeaturePart:
    """The per-word feature part of a featurizer (FeatureInputs, PieceFeatureInputs): the
    feature sets and kept columns, their normalization, and the ``feats``/``feat_missing``
    tensors; the word part (ids, pieces) is the other base class's."""

    #: standard deviations below this are taken as this (a constant column stays finite)
    SD_FLOOR = 1e-2

    def _init_features(self, sets: Sequence[str] = (), columns: Sequence[str] = (),
                       mean: Sequence[float] | None = None, std: Sequence[float] | None = None,
                       normalize: bool = True) -> None:
        self.feature_sets = tuple(sets)
        self.columns = list(columns)
        if self.columns and not self.feature_sets:
            raise ValueError("feature columns without feature sets")
        n = len(self.columns)
        self.mean = np.asarray(mean if mean is not None else [0.0] * n, dtype=np.float32)
        self.std = np.asarray(std if std is not None else [1.0] * n, dtype=np.float32)
        if self.mean.shape != (n,) or self.std.shape != (n,):
            raise ValueError(f"normalization statistics for {n} columns expected")
        self.normalize = normalize

    @staticmethod
    def feature_setup(cfg, data_dir) -> tuple[list[str], list[str]]:
        """(feature sets, kept columns) of the training config ``cfg`` over the training data
        directory ``data_dir`` ([], [] when the config names no sets)."""
        from punct.errors import PunctError
        from punct.prosody.features import feature_files, feature_names

        sets = list(cfg.features)
        if not sets:
            return [], []
        if data_dir is None:
            raise ValueError("the training data directory is needed to read its feature sets")
        if all(feature_files(data_dir, n)[1].is_file() for n in sets):
            names = feature_names(data_dir, sets)
        elif sets == ["pause"]:
            from punct.prosody.pause import PAUSE_FEATURES

            names = list(PAUSE_FEATURES)
        else:
            missing = [str(feature_files(data_dir, n)[1]) for n in sets if not feature_files(data_dir, n)[1].is_file()]
            raise PunctError(f"feature set file not found (run stage 4): {missing[0]}")
        columns = list(cfg.feature_columns) or names
        unknown = [c for c in columns if c not in names]
        if unknown:
            raise PunctError(f"feature column {unknown[0]!r} is not in feature sets {sets} (columns: {' '.join(names)})")
        return sets, columns

    def training_statistics(self, data_dir) -> tuple[list[float], list[float]] | None:
        """(mean, standard deviation) of the kept columns over the words of ``data_dir`` that
        have acoustic evidence (None when none has)."""
        raw = np.concatenate(list(self.load_features(data_dir).values())
                             or [np.zeros((0, len(self.columns) + 1), np.float32)])
        keep = raw[:, -1] < 0.5
        vals = raw[keep, :-1].astype(np.float64)
        log.info("feature normalization over %d of %d training words (the others lack acoustic evidence)",
                 int(keep.sum()), len(raw))
        return (vals.mean(0).tolist(), vals.std(0).tolist()) if len(vals) else None

    def feature_state(self) -> dict[str, Any]:
        return {"features": list(self.feature_sets), "columns": list(self.columns),
                "mean": [float(x) for x in self.mean], "std": [float(x) for x in self.std], "normalize": self.normalize}

    @staticmethod
    def feature_args(state: dict[str, Any]) -> tuple:
        """The ``_init_features`` arguments of a ``feature_state``."""
        return (state.get("features", ()), state.get("columns", ()), state.get("mean"), state.get("std"),
                bool(state.get("normalize", True)))

    def feature_digest(self) -> str:
        """The kept columns (the cached slices hold raw values, so not the statistics)."""
        return "\n".join(["#sets"] + list(self.feature_sets) + ["#columns"] + self.columns)

    def model_args(self) -> dict[str, Any]:
        """What the model needs to know about its input: the names of the feature columns."""
        return {"feature_names": list(self.columns)}

    @property
    def n_feats(self) -> int:
        return len(self.columns)

    def select(self, feats: np.ndarray, names: Sequence[str]) -> np.ndarray:
        """float32 [n, len(columns) + 1]: the kept columns of ``feats`` [n, len(names)] (raw)
        and the missing flag (punct.prosody.features.missing_words) as the last column."""
        from punct.errors import PunctError
        from punct.prosody.features import missing_words

        names = list(names)
        absent = [c for c in self.columns if c not in names]
        if absent:
            raise PunctError(f"the model reads feature column {absent[0]!r}, which these features lack ({' '.join(names)})")
        idx = [names.index(c) for c in self.columns]
        m = np.asarray(feats, dtype=np.float32)
        out = np.empty((m.shape[0], len(idx) + 1), dtype=np.float32)
        out[:, :-1] = m[:, idx]
        out[:, -1] = missing_words(m, names)
        return out

    def load_features(self, data_dir, utts=None) -> dict[str, np.ndarray]:
        """{utt: float32 [n_words, len(columns) + 1]} of data directory ``data_dir`` (``select``).

        The feature sets are read from DIR/NAME.scp; a model that reads only ``pause``
        gets them computed from the word times when DIR/pause.scp does not exist (words
        without times are flagged missing). ``utts``: the directory's utterances, if loaded."""
        from punct.errors import PunctError
        from punct.prosody.features import feature_files, feature_names, load_word_features

        if not self.columns:
            return {}
        sets = list(self.feature_sets)
        stored = all(feature_files(data_dir, n)[1].is_file() for n in sets)
        names = feature_names(data_dir, sets) if stored else []
        # pause files written before a column was added lack it: computed anew, as without them
        absent = [c for c in self.columns if c not in names]
        stale = stored and sets == ["pause"] and bool(absent)
        if stored and not stale:
            mats = load_word_features(data_dir, sets)
        elif sets == ["pause"]:
            from punct.data.datadir import load_utterances
            from punct.prosody.pause import PAUSE_FEATURES, pause_features

            if utts is None:
                utts = load_utterances(data_dir, require_labels=False)
            why = "pause.scp lacks " + " ".join(absent) if stale else "no pause.scp"
            log.warning("%s has %s: pause features computed from its word times (stage 4 stores them; "
                        "--force to write them again)", data_dir, why)
            mats, names = pause_features(utts), list(PAUSE_FEATURES)
        else:
            missing = [str(feature_files(data_dir, n)[1]) for n in sets if not feature_files(data_dir, n)[1].is_file()]
            raise PunctError(f"the model reads feature sets {sets}; not found: {missing[0]} (stage 4 writes it)")
        return {k: self.select(m, names) for k, m in mats.items()}

    def add_feature_tensors(self, out: dict[str, torch.Tensor], ids: np.ndarray,
                            feats: np.ndarray | None) -> dict[str, torch.Tensor]:
        """``out`` (the word part's tensors) plus, with feature columns, ``feats`` [B,T,F]
        (normalized, 0 where missing) and ``feat_missing`` [B,T] from the raw ``feats`` [B,T,F+1]."""
        if not self.columns:
            return out
        if feats is None:
            raise ValueError(f"this model reads features ({' '.join(self.columns)}): none were given with the words")
        import torch

        f = torch.from_numpy(np.ascontiguousarray(feats, dtype=np.float32))
        if f.shape[:2] != ids.shape or f.shape[2] != self.n_feats + 1:
            raise ValueError(f"features of shape {tuple(f.shape)} for ids {ids.shape} and {self.n_feats} columns + flag")
        missing = (f[..., -1] > 0.5) | ~out["mask"]
        x = f[..., :-1]
        if self.normalize:
            x = (x - torch.from_numpy(self.mean)) / torch.from_numpy(np.maximum(self.std, self.SD_FLOOR))
        out["feats"] = x.masked_fill(missing.unsqueeze(-1), 0.0)
        out["feat_missing"] = missing
        return out

    def describe_features(self) -> str:
        if not self.columns:
            return "no features"
        return (f"features {'+'.join(self.feature_sets)}: {' '.join(self.columns)} (+ missing flag)"
                f"{'' if self.normalize else ', not normalized'}")


class FeatureInputs(FeaturePart, WordInputs):
    """Word ids of a closed vocabulary plus per-word feature vectors (pause, prosody) of
    the data directory: the acoustic and fusion models (punct.models.acoustic, twostage)."""

    kind = "words+feats"
    closed = True

    def __init__(self, vocab: Vocabulary, sets: Sequence[str] = (), columns: Sequence[str] = (),
                 mean: Sequence[float] | None = None, std: Sequence[float] | None = None, normalize: bool = True):
        WordInputs.__init__(self, vocab)
        self._init_features(sets, columns, mean, std, normalize)

    @classmethod
    def build(cls, texts, cfg, model_args: dict[str, Any], data_dir=None, vocab: Vocabulary | None = None) -> "FeatureInputs":
        """From the training texts (the vocabulary, unless ``vocab`` is given: a stage-one
        model's) and the training data directory ``data_dir`` (columns, normalization)."""
        if vocab is None:
            vocab = Vocabulary.build(texts, cfg.min_count, cfg.max_vocab)
        sets, columns = cls.feature_setup(cfg, data_dir)
        if not sets:
            return cls(vocab)
        f = cls(vocab, sets, columns, normalize=cfg.normalize_features)
        stats = f.training_statistics(data_dir) if cfg.normalize_features else None
        return cls(vocab, sets, columns, *stats, normalize=True) if stats else f

    @classmethod
    def from_state(cls, state: dict[str, Any], ck: dict[str, Any]) -> "FeatureInputs":
        return cls(Vocabulary.from_list(ck["vocab"]), *cls.feature_args(state))

    def state(self) -> dict[str, Any]:
        return dict(kind=self.kind, **self.feature_state())

    def digest(self) -> str:
        """The vocabulary and the kept columns (the cached slices hold raw values, so not the statistics)."""
        return hashlib.sha1((self.vocab.digest() + self.feature_digest()).encode("utf-8")).hexdigest()[:16]

    def tensors(self, ids: np.ndarray, lengths: np.ndarray, feats: np.ndarray | None = None) -> dict[str, torch.Tensor]:
        """``ids``, ``mask`` and, with feature columns, ``feats`` [B,T,F] (normalized, 0 where
        missing) and ``feat_missing`` [B,T] from the raw ``feats`` [B,T,F+1] of ``select``."""
        return self.add_feature_tensors(WordInputs.tensors(self, ids, lengths), ids, feats)

    def describe(self) -> str:
        return f"vocabulary of {len(self.vocab)} words, {self.describe_features()}"


class PieceFeatureInputs(FeaturePart, PieceInputs):
    """The word pieces of a packaged transformer's tokenizer (PieceInputs) plus per-word
    feature vectors (FeatureInputs' part): a second stage with pauses over a transformer
    tagger (punct.models.twostage.TATransformer). Ids index an open lexicon, so its
    slices are not cached; the features are sliced and windowed with them all the same."""

    kind = "wordpieces+feats"
    closed = False

    def __init__(self, encoder: str, digest: str | None = None, sets: Sequence[str] = (), columns: Sequence[str] = (),
                 mean: Sequence[float] | None = None, std: Sequence[float] | None = None, normalize: bool = True):
        PieceInputs.__init__(self, encoder, digest)
        self._init_features(sets, columns, mean, std, normalize)

    @classmethod
    def build(cls, texts, cfg, model_args: dict[str, Any], data_dir=None, vocab: Any = None) -> "PieceFeatureInputs":
        """From the stage-one featurizer's state ``vocab`` (a PieceInputs ``state()``: its
        encoder and tokenizer digest), else the model's ``encoder``, and the training data
        directory ``data_dir`` (columns, normalization)."""
        encoder, digest = (vocab["encoder"], vocab.get("digest")) if vocab else (model_args["encoder"], None)
        sets, columns = cls.feature_setup(cfg, data_dir)
        f = cls(encoder, digest, sets, columns, normalize=cfg.normalize_features)
        stats = f.training_statistics(data_dir) if sets and cfg.normalize_features else None
        return cls(encoder, digest, sets, columns, *stats, normalize=True) if stats else f

    @classmethod
    def from_state(cls, state: dict[str, Any], ck: dict[str, Any]) -> "PieceFeatureInputs":
        return cls(state["encoder"], state.get("digest"), *cls.feature_args(state))

    def state(self) -> dict[str, Any]:
        return dict(PieceInputs.state(self), kind=self.kind, **self.feature_state())

    def digest(self) -> str:
        return hashlib.sha1((self._digest + self.feature_digest()).encode("utf-8")).hexdigest()[:16]

    def tensors(self, ids: np.ndarray, lengths: np.ndarray, feats: np.ndarray | None = None) -> dict[str, torch.Tensor]:
        """PieceInputs' tensors plus ``feats`` and ``feat_missing`` (as FeatureInputs)."""
        return self.add_feature_tensors(PieceInputs.tensors(self, ids, lengths), ids, feats)

    def describe(self) -> str:
        return f"{PieceInputs.describe(self)}, {self.describe_features()}"
