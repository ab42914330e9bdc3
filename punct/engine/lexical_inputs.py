"""The featurizers of the words themselves (punct.engine.inputs lists every kind): word ids
of a closed vocabulary, rows of a pretrained vector set, characters, and the word pieces of a
packaged transformer's tokenizer. Each turns words into one integer id per word (``encode``)
and a batch of id rows into the model's keyword arguments (``tensors``). torch is imported
only where tensors are built: restore's ONNX runtime encodes words without it."""
from __future__ import annotations

import hashlib
import logging
from collections import Counter
from typing import TYPE_CHECKING, Any, Iterable, Sequence

import numpy as np

from punct.engine.vocab import Vocabulary

if TYPE_CHECKING:
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
    """What every featurizer provides (every kind of punct.engine.inputs derives from it);
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
