"""Input featurizers: how the words of a batch become a model's input tensors.

A model class says what it reads with a class attribute ``input_kind``
(default ``words``); the engine picks the featurizer of that kind here. Every
featurizer turns words into *integer ids, one per word* (``encode``), so the
slicing, batching, windowed decoding (``predict_streams``) and the slice cache
are the same for every model; only ``tensors`` differs, which builds the
keyword arguments of ``model.forward`` for a batch of id rows:

=========== ======================================= ==========================================
kind        one id per word means                   ``model(**inputs)`` receives
=========== ======================================= ==========================================
words       vocabulary id (``<unk>`` = 1)           ``ids [B,T]``, ``mask [B,T]``
vectors     row of a pretrained vector set (0 pad,  ``vectors [B,T,D]`` (fixed), ``mask``
            1 out-of-vocabulary default vector)
chars       word type (an open lexicon of spellings ``chars [B,C]``, ``char_mask [B,C]``,
            filled as words are encoded)            ``word_ends [B,T]`` (index of the space
                                                    after each word), ``mask``
wordpieces  word type (open lexicon, each type      ``pieces [B,S]``, ``piece_mask [B,S]``,
            tokenized once)                         ``word_last [B,T]`` (its last piece), ``mask``
words+feats vocabulary id, as ``words``; the per-word  ``ids``, ``mask``, and when feature sets
            features travel beside the ids          are configured ``feats [B,T,F]``
            (``Slices.feats``, ``predict_streams``  (normalized, 0 where missing) and
            ``feats=``)                             ``feat_missing [B,T]`` (True: no acoustic
                                                    evidence for the word, or padding)
wordpieces  word type, as ``wordpieces``; the       ``pieces``, ``piece_mask``, ``word_last``,
+feats      per-word features as ``words+feats``    ``mask``, ``feats``, ``feat_missing``
=========== ======================================= ==========================================

``words+feats`` (FeatureInputs) reads the feature sets named by the training
config's ``features`` (``[pause]``, ``[pause, prosody]``: DIR/NAME.scp of each
data directory, punct.prosody.features), keeps the columns of
``feature_columns`` (all when empty) and adds one column, the missing flag
(punct.prosody.features.missing_words). The raw values are sliced, cached and
windowed exactly like the ids (punct.engine.batching, punct.engine.decode);
``tensors`` normalizes them with the training set's mean and standard
deviation (stored in the checkpoint) and zeroes the missing words' values.
Its model gets ``feature_names`` (the kept columns) in its arguments.
``wordpieces+feats`` (PieceFeatureInputs) joins the same feature part to the word pieces
of a transformer tagger: the second stage with pauses over it (punct.models.twostage,
``ta_transformer``), which takes the tokenizer from its stage one's featurizer.

``mask [B,T]`` is True on words; logits are always ``[B,T,len(LABELS)]``, one row
per word, so scoring and decoding are shared. What a featurizer needs to be
rebuilt is ``state()`` (stored in checkpoints under ``inputs``): the vocabulary
for words (also under ``vocab``, as checkpoints always had it), the character
inventory, the tokenizer's package and a digest of its vocabulary, the name
of the vector set. ``input_size`` is what ``build_model`` passes as the
model's ``vocab_size``: the number of word ids, characters, word pieces, or
the vector dimension.

A new input kind is a subclass of ``Inputs`` here (its methods say what each
must do) and one line in INPUT_KINDS.
"""
from __future__ import annotations

import hashlib
import logging
from collections import Counter
from typing import TYPE_CHECKING, Any, Iterable, Sequence

import numpy as np

from punct.engine.vocab import Vocabulary

if TYPE_CHECKING:  # imported where tensors are built: restore's ONNX runtime reads the words without torch
    import torch

log = logging.getLogger(__name__)


def _mask(lengths: np.ndarray, T: int) -> torch.Tensor:
    import torch

    return torch.from_numpy(np.arange(T)[None, :] < np.asarray(lengths)[:, None])


def with_pretrained_words(vocab: Vocabulary, name: str) -> Vocabulary:
    """``vocab`` followed by every word of the vector set ``name`` that it lacks, in the set's order."""
    from punct.errors import PunctError
    from punct.models.pretrained import load_vectors

    vec = load_vectors(name)
    if vec.words is None:
        raise PunctError(f"the vectors {name} are keyed by hashes and list no words: vocabulary train+pretrained "
                         f"needs a set with a word list (glove-6b-50d)")
    have = set(vocab.words)
    more = [w for w in dict.fromkeys(vec.words) if w not in have]
    log.info("vocabulary: %d training words + %d more words of %s", len(vocab), len(more), name)
    return Vocabulary.from_list(list(vocab.words) + more)


class Inputs:
    """What every featurizer provides (the input kinds of the table above derive from it);
    a new input kind implements each method and adds one line to INPUT_KINDS."""

    #: the ``input_kind`` of the models it serves, stored in checkpoints under ``inputs``
    kind = ""
    #: True when ids are a fixed inventory, so precomputed slices can be cached
    closed = True

    @classmethod
    def build(cls, texts: Iterable[Sequence[str]], cfg, model_args: dict[str, Any]) -> "Inputs":
        """The featurizer of a new run, from the training text (``texts``: one word list per
        utterance), the training config and the model's arguments."""
        raise NotImplementedError

    @classmethod
    def from_state(cls, state: dict[str, Any], ck: dict[str, Any]) -> "Inputs":
        """The featurizer a checkpoint ``ck`` was trained with, from its ``state()`` (``ck["inputs"]``)."""
        raise NotImplementedError

    def state(self) -> dict[str, Any]:
        """What rebuilds this featurizer (stored in checkpoints under ``inputs``)."""
        raise NotImplementedError

    @property
    def input_size(self) -> int:
        """What ``build_model`` passes as the model's ``vocab_size``: word ids, characters,
        word pieces, or the vector dimension."""
        raise NotImplementedError

    def digest(self) -> str:
        """A hash of what the ids mean (the slice cache is keyed by it)."""
        raise NotImplementedError

    def encode(self, words: Sequence[str]) -> list[int]:
        """The ids of one utterance's words (several per word for characters and word pieces)."""
        raise NotImplementedError

    def tensors(self, ids: np.ndarray, lengths: np.ndarray) -> dict[str, torch.Tensor]:
        """The model's keyword arguments for a batch of rows of ids ``[B,T]`` with their lengths."""
        raise NotImplementedError

    def describe(self) -> str:
        """One line for the training log."""
        raise NotImplementedError


class WordInputs(Inputs):
    """Word ids of a closed vocabulary (T-BRNN, T-LSTM, DRNN-LWMA, n-gram, CRF)."""

    kind = "words"
    closed = True

    def __init__(self, vocab: Vocabulary):
        self.vocab = vocab

    @classmethod
    def build(cls, texts: Iterable[Sequence[str]], cfg, model_args: dict[str, Any]) -> "WordInputs":
        vocab = Vocabulary.build(texts, cfg.min_count, cfg.max_vocab)
        if getattr(cfg, "vocabulary", "train") == "train+pretrained":
            vocab = with_pretrained_words(vocab, cfg.pretrained_embeddings)
        return cls(vocab)

    @classmethod
    def from_state(cls, state: dict[str, Any], ck: dict[str, Any]) -> "WordInputs":
        return cls(Vocabulary.from_list(ck["vocab"]))

    def state(self) -> dict[str, Any]:
        return {"kind": self.kind}

    @property
    def input_size(self) -> int:
        return len(self.vocab)

    def digest(self) -> str:
        return self.vocab.digest()

    def encode(self, words: Sequence[str]) -> list[int]:
        return self.vocab.encode(words)

    def tensors(self, ids: np.ndarray, lengths: np.ndarray) -> dict[str, torch.Tensor]:
        import torch

        return {"ids": torch.from_numpy(np.asarray(ids, dtype=np.int64)), "mask": _mask(lengths, ids.shape[1])}

    def describe(self) -> str:
        return f"vocabulary of {len(self.vocab)} words"


class VectorInputs(Inputs):
    """Fixed pretrained word vectors (LMC); the vectors are read from their package,
    not stored in checkpoints (only the set's name)."""

    kind = "vectors"
    closed = True
    PAD, OOV = 0, 1

    def __init__(self, name: str, oov: str = "mean"):
        from punct.models.pretrained import load_vectors

        if oov not in ("mean", "zero"):
            raise ValueError(f"oov must be mean or zero, got {oov!r}")
        self.name = name
        self.oov = oov
        self.vectors = load_vectors(name)
        m = self.vectors.matrix
        default = m.mean(0) if oov == "mean" else np.zeros(m.shape[1], np.float32)
        import torch

        self.table = torch.from_numpy(np.concatenate([np.zeros((1, m.shape[1]), np.float32), default[None], m]).astype(np.float32))
        self._cache: dict[str, int] = {}

    @classmethod
    def build(cls, texts, cfg, model_args: dict[str, Any]) -> "VectorInputs":
        from punct.models.pretrained import report_shared_rows

        inputs = cls(model_args["vectors"], model_args.get("oov_vector", "mean"))
        report_shared_rows(inputs.vectors, Counter(w for t in texts for w in t))
        return inputs

    @classmethod
    def from_state(cls, state: dict[str, Any], ck: dict[str, Any]) -> "VectorInputs":
        return cls(state["vectors"], state.get("oov", "mean"))

    def state(self) -> dict[str, Any]:
        return {"kind": self.kind, "vectors": self.name, "oov": self.oov, "dim": self.input_size}

    @property
    def input_size(self) -> int:
        return self.vectors.dim

    def digest(self) -> str:
        return hashlib.sha1(f"{self.name}/{self.oov}/{self.table.shape}".encode()).hexdigest()[:16]

    def encode(self, words: Sequence[str]) -> list[int]:
        out = []
        cache = self._cache
        for w in words:
            i = cache.get(w)
            if i is None:
                r = self.vectors.row(w)
                i = cache[w] = r + 2 if r >= 0 else self.OOV
            out.append(i)
        return out

    def tensors(self, ids: np.ndarray, lengths: np.ndarray) -> dict[str, torch.Tensor]:
        import torch

        mask = _mask(lengths, ids.shape[1])
        idx = torch.from_numpy(np.asarray(ids, dtype=np.int64)).masked_fill(~mask, self.PAD)
        return {"vectors": self.table[idx], "mask": mask}

    def describe(self) -> str:
        return f"{self.name} vectors ({self.table.shape[0] - 2} rows, {self.input_size} dimensions)"


class _Lexicon:
    """An open lexicon of word types; each type's encoding (an int array) is made once."""

    def __init__(self):
        self.index: dict[str, int] = {}
        self.items: list[np.ndarray] = []

    def ids(self, words: Sequence[str], make) -> list[int]:
        index = self.index
        out = []
        for w in words:
            i = index.get(w)
            if i is None:
                i = index[w] = len(self.items)
                self.items.append(make(w))
            out.append(i)
        return out


class CharInputs(Inputs):
    """Characters of the words, each word followed by one space, the slot where its
    mark goes (Gale and Parthasarathy 2017). Ids 0, 1, 2 are padding, unknown
    character and the space."""

    kind = "chars"
    closed = False
    SPECIALS = ("<pad>", "<unk>", " ")
    PAD, UNK, SPACE = 0, 1, 2

    def __init__(self, chars: Sequence[str]):
        if tuple(chars[:3]) != self.SPECIALS:
            raise ValueError("a character inventory starts with <pad> <unk> and the space")
        self.chars = list(chars)
        self.index = {c: i for i, c in enumerate(self.chars)}
        self.lexicon = _Lexicon()

    @classmethod
    def build(cls, texts, cfg, model_args: dict[str, Any]) -> "CharInputs":
        counts: Counter[str] = Counter()
        for t in texts:
            for w in t:
                counts.update(w)
        counts.pop(" ", None)
        kept = sorted((c for c, n in counts.items() if n >= cfg.min_count), key=lambda c: (-counts[c], c))
        return cls(list(cls.SPECIALS) + kept)

    @classmethod
    def from_state(cls, state: dict[str, Any], ck: dict[str, Any]) -> "CharInputs":
        return cls(state["chars"])

    def state(self) -> dict[str, Any]:
        return {"kind": self.kind, "chars": list(self.chars)}

    @property
    def input_size(self) -> int:
        return len(self.chars)

    def digest(self) -> str:
        return hashlib.sha1("\n".join(self.chars).encode("utf-8")).hexdigest()[:16]

    def _spell(self, w: str) -> np.ndarray:
        get = self.index.get
        return np.array([get(c, self.UNK) for c in w] + [self.SPACE], dtype=np.int64)

    def encode(self, words: Sequence[str]) -> list[int]:
        return self.lexicon.ids(words, self._spell)

    def tensors(self, ids: np.ndarray, lengths: np.ndarray) -> dict[str, torch.Tensor]:
        import torch

        B, T = ids.shape
        items = self.lexicon.items
        rows = [np.concatenate([items[i] for i in ids[b, : lengths[b]]]) if lengths[b] else np.zeros(0, np.int64)
                for b in range(B)]
        C = max(1, max(len(r) for r in rows))
        chars = np.zeros((B, C), np.int64)
        ends = np.zeros((B, T), np.int64)
        for b, r in enumerate(rows):
            chars[b, : len(r)] = r
            n = int(lengths[b])
            if n:
                ends[b, :n] = np.cumsum([len(items[i]) for i in ids[b, :n]]) - 1
        clen = np.array([len(r) for r in rows])
        return {"chars": torch.from_numpy(chars), "char_mask": _mask(clen, C), "word_ends": torch.from_numpy(ends),
                "mask": _mask(lengths, T)}

    def describe(self) -> str:
        return f"{len(self.chars)} characters"


class PieceInputs(Inputs):
    """WordPieces of a packaged transformer's tokenizer, each word tokenized alone
    (the uncased BERT tokenizer splits on spaces first, so this equals tokenizing
    the text); the special tokens are added by the model per window."""

    kind = "wordpieces"
    closed = False

    def __init__(self, encoder: str, digest: str | None = None):
        from punct.models.encoders import load_tokenizer

        self.encoder = encoder
        self.tokenizer = load_tokenizer(encoder)
        self._digest = self.tokenizer.digest
        if digest is not None and digest != self._digest:
            from punct.errors import PunctError

            raise PunctError(f"the installed tokenizer of {encoder} differs from the one the model was trained with")
        self.lexicon = _Lexicon()

    @classmethod
    def build(cls, texts, cfg, model_args: dict[str, Any]) -> "PieceInputs":
        return cls(model_args["encoder"])

    @classmethod
    def from_state(cls, state: dict[str, Any], ck: dict[str, Any]) -> "PieceInputs":
        return cls(state["encoder"], state.get("digest"))

    def state(self) -> dict[str, Any]:
        return {"kind": self.kind, "encoder": self.encoder, "digest": self._digest}

    @property
    def input_size(self) -> int:
        return self.tokenizer.vocab_size

    def digest(self) -> str:
        return self._digest

    def _pieces(self, w: str) -> np.ndarray:
        p = self.tokenizer.encode_word(w)
        return np.array(p or [self.tokenizer.unk_id], dtype=np.int64)

    def encode(self, words: Sequence[str]) -> list[int]:
        return self.lexicon.ids(words, self._pieces)

    def tensors(self, ids: np.ndarray, lengths: np.ndarray) -> dict[str, torch.Tensor]:
        import torch

        B, T = ids.shape
        items = self.lexicon.items
        rows, lasts = [], np.zeros((B, T), np.int64)
        for b in range(B):
            n = int(lengths[b])
            parts = [items[i] for i in ids[b, :n]]
            rows.append(np.concatenate(parts) if parts else np.zeros(0, np.int64))
            if n:
                lasts[b, :n] = np.cumsum([len(p) for p in parts]) - 1
        S = max(1, max(len(r) for r in rows))
        pieces = np.full((B, S), self.tokenizer.pad_id, np.int64)
        for b, r in enumerate(rows):
            pieces[b, : len(r)] = r
        plen = np.array([len(r) for r in rows])
        return {"pieces": torch.from_numpy(pieces), "piece_mask": _mask(plen, S), "word_last": torch.from_numpy(lasts),
                "mask": _mask(lengths, T)}

    def describe(self) -> str:
        return f"{self.encoder} WordPiece tokenizer ({self.input_size} pieces)"


class _FeaturePart:
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
        if all(feature_files(data_dir, n)[1].is_file() for n in sets):
            mats = load_word_features(data_dir, sets)
            names = feature_names(data_dir, sets)
        elif sets == ["pause"]:
            from punct.datadir import load_utterances
            from punct.prosody.pause import PAUSE_FEATURES, pause_features

            if utts is None:
                utts = load_utterances(data_dir, require_labels=False)
            log.warning("%s has no pause.scp: pause features computed from its word times (stage 4 stores them)", data_dir)
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


class FeatureInputs(_FeaturePart, WordInputs):
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


class PieceFeatureInputs(_FeaturePart, PieceInputs):
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


INPUT_KINDS: dict[str, type] = {
    "words": WordInputs,
    "vectors": VectorInputs,
    "chars": CharInputs,
    "wordpieces": PieceInputs,
    "words+feats": FeatureInputs,
    "wordpieces+feats": PieceFeatureInputs,
}


def input_kind(model_cls: type) -> str:
    """What a model class reads (``words``, ``words+feats``, ``chars``, ``wordpieces``,
    ``vectors``): its ``input_kind``, ``words`` when it has none."""
    return getattr(model_cls, "input_kind", "words")


def build_inputs(model_cls: type, texts: Iterable[Sequence[str]], cfg, model_args: dict[str, Any], data_dir=None,
                 vocab: Vocabulary | None = None):
    """The featurizer of ``model_cls``, built from the training texts (lists of words);
    ``words+feats`` and ``wordpieces+feats`` also read the training data directory
    ``data_dir`` and take what a stage-one model read as ``vocab`` (``words+feats``: its
    Vocabulary; ``wordpieces+feats``: its PieceInputs ``state()``) instead of building it."""
    from punct.errors import PunctError

    kind = input_kind(model_cls)
    if kind not in INPUT_KINDS:
        raise ValueError(f"model {model_cls.__name__} has unknown input_kind {kind!r}")
    if not issubclass(INPUT_KINDS[kind], _FeaturePart):
        if getattr(cfg, "features", None):
            raise PunctError(f"model {cfg.model} reads {kind}, not per-word features: remove 'features' from its config")
        return INPUT_KINDS[kind].build(texts, cfg, model_args)
    if getattr(model_cls, "raw_features", False) and cfg.normalize_features:
        raise PunctError(f"model {cfg.model} reads feature values in their own units: set normalize_features: false")
    return INPUT_KINDS[kind].build(texts, cfg, model_args, data_dir=data_dir, vocab=vocab)


def inputs_from_checkpoint(ck: dict[str, Any]):
    """The featurizer stored in a checkpoint (checkpoints without ``inputs`` hold word ids)."""
    state = ck.get("inputs") or {"kind": "words"}
    kind = state.get("kind", "words")
    if kind not in INPUT_KINDS:
        from punct.errors import PunctError

        raise PunctError(f"checkpoint has unknown input kind {kind!r}")
    return INPUT_KINDS[kind].from_state(state, ck)
