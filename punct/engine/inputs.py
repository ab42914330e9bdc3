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
=========== ======================================= ==========================================

``mask [B,T]`` is True on words; logits are always ``[B,T,len(LABELS)]``, one row
per word, so scoring and decoding are shared. What a featurizer needs to be
rebuilt is ``state()`` (stored in checkpoints under ``inputs``): the vocabulary
for words (also under ``vocab``, as checkpoints always had it), the character
inventory, the tokenizer's package and a digest of its vocabulary, the name
of the vector set. ``input_size`` is what ``build_model`` passes as the
model's ``vocab_size``: the number of word ids, characters, word pieces, or
the vector dimension.

A new input kind is a class here with ``kind``, ``closed`` (ids are a fixed
inventory, so precomputed slices can be cached), ``build``, ``from_state``,
``state``, ``input_size``, ``digest``, ``encode`` and ``tensors``, and one
line in INPUT_KINDS.
"""
from __future__ import annotations

import hashlib
import logging
from collections import Counter
from typing import Any, Iterable, Sequence

import numpy as np
import torch

from punct.engine.vocab import Vocabulary

log = logging.getLogger(__name__)


def _mask(lengths: np.ndarray, T: int) -> torch.Tensor:
    return torch.from_numpy(np.arange(T)[None, :] < np.asarray(lengths)[:, None])


class WordInputs:
    """Word ids of a closed vocabulary (T-BRNN, T-LSTM, DRNN-LWMA, n-gram, CRF)."""

    kind = "words"
    closed = True

    def __init__(self, vocab: Vocabulary):
        self.vocab = vocab

    @classmethod
    def build(cls, texts: Iterable[Sequence[str]], cfg, model_args: dict[str, Any]) -> "WordInputs":
        return cls(Vocabulary.build(texts, cfg.min_count, cfg.max_vocab))

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
        return {"ids": torch.from_numpy(np.asarray(ids, dtype=np.int64)), "mask": _mask(lengths, ids.shape[1])}

    def describe(self) -> str:
        return f"vocabulary of {len(self.vocab)} words"


class VectorInputs:
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
        self.table = torch.from_numpy(np.concatenate([np.zeros((1, m.shape[1]), np.float32), default[None], m]).astype(np.float32))
        self._cache: dict[str, int] = {}

    @classmethod
    def build(cls, texts, cfg, model_args: dict[str, Any]) -> "VectorInputs":
        return cls(model_args["vectors"], model_args.get("oov_vector", "mean"))

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


class CharInputs:
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


class PieceInputs:
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


INPUT_KINDS: dict[str, type] = {
    "words": WordInputs,
    "vectors": VectorInputs,
    "chars": CharInputs,
    "wordpieces": PieceInputs,
}


def input_kind(model_cls: type) -> str:
    return getattr(model_cls, "input_kind", "words")


def build_inputs(model_cls: type, texts: Iterable[Sequence[str]], cfg, model_args: dict[str, Any]):
    """The featurizer of ``model_cls``, built from the training texts (lists of words)."""
    kind = input_kind(model_cls)
    if kind not in INPUT_KINDS:
        raise ValueError(f"model {model_cls.__name__} has unknown input_kind {kind!r}")
    return INPUT_KINDS[kind].build(texts, cfg, model_args)


def inputs_from_checkpoint(ck: dict[str, Any]):
    """The featurizer stored in a checkpoint (checkpoints without ``inputs`` hold word ids)."""
    state = ck.get("inputs") or {"kind": "words"}
    kind = state.get("kind", "words")
    if kind not in INPUT_KINDS:
        from punct.errors import PunctError

        raise PunctError(f"checkpoint has unknown input kind {kind!r}")
    return INPUT_KINDS[kind].from_state(state, ck)
