"""Per-word feature matrices of a data directory, stored as Kaldi ark/scp (kaldiio).

A feature set NAME of data directory DIR is three files:

``DIR/NAME.ark``    binary Kaldi archive: per utterance a float32 matrix
                    [n_words, n_feats], row i belonging to word i of ``text``
``DIR/NAME.scp``    ``<utt> <absolute path of NAME.ark>:<byte offset>``, sorted
                    like every data directory file (LC_ALL=C), the key set of ``text``
``DIR/NAME.names``  the column names, one a line (n_feats lines)

plus ``DIR/NAME.done`` once all three are complete (punct.fsutil.mark_done).
The pause features are ``pause`` (punct.bin.pause_feats); the audio path adds
``prosody``. ``load_word_features(DIR, ["pause", "prosody"])`` concatenates
sets column-wise and checks every matrix against the word counts of ``text``.
If the directory was moved, a scp path that no longer exists is looked up as
``NAME.ark`` next to the scp.

A word's acoustic evidence is *missing* when one of MISSING_COLUMNS is set
(``missing_words``): it has no times, the pause after it cannot be measured
(the next word is untimed), or its frames are silent. Models that read
features fall back to the words alone for such words.
"""
from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from punct.errors import PunctError
from punct.fsutil import atomic_write


#: Flag columns (of punct.prosody.pause and punct.prosody.pooling) that mark a
#: word whose acoustic evidence is missing; see ``missing_words``.
MISSING_COLUMNS: tuple[str, ...] = ("untimed", "pause_after_unknown", "silent")


def missing_words(feats: np.ndarray, names: Sequence[str]) -> np.ndarray:
    """Bool [n_words]: True where any MISSING_COLUMNS flag of ``feats`` [n_words, len(names)] is set."""
    feats = np.asarray(feats)
    if feats.ndim != 2 or feats.shape[1] != len(names):
        raise ValueError(f"features of shape {feats.shape} for {len(names)} names")
    cols = [i for i, n in enumerate(names) if n in MISSING_COLUMNS]
    if not cols:
        return np.zeros(feats.shape[0], dtype=bool)
    return (feats[:, cols] > 0.5).any(axis=1)


def feature_files(datadir: str | Path, name: str) -> tuple[Path, Path, Path]:
    """(ark, scp, names) paths of feature set ``name`` of ``datadir``."""
    d = Path(datadir)
    return d / f"{name}.ark", d / f"{name}.scp", d / f"{name}.names"


def write_features(datadir: str | Path, name: str, feats: Mapping[str, np.ndarray], names: Sequence[str]) -> None:
    """Write feature set ``name`` (ark, scp, names) of ``datadir``, each file atomically.

    ``feats`` maps utterance ids to [n_words, len(names)] matrices (stored as float32).
    The scp is renamed into place last, so a reader never sees it point into a half-written ark.
    """
    from kaldiio.matio import write_array

    ark, scp, names_path = feature_files(datadir, name)
    names = list(names)
    if not names or any(not n or any(c.isspace() for c in n) for n in names):
        raise PunctError(f"feature names must be non-empty and without white space: {names}", names_path)
    keys = sorted(feats, key=lambda k: k.encode("utf-8"))
    offsets = {}
    with atomic_write(ark, "wb", encoding=None) as f:
        for k in keys:
            if not k or any(c.isspace() for c in k):
                raise PunctError(f"invalid utterance id {k!r}", ark)
            m = np.asarray(feats[k], dtype=np.float32)
            if m.ndim != 2 or m.shape[1] != len(names):
                raise PunctError(f"utterance {k}: matrix of shape {m.shape}, expected [n_words, {len(names)}]", ark)
            if not np.isfinite(m).all():
                raise PunctError(f"utterance {k}: features hold NaN or infinity", ark)
            f.write((k + " ").encode("utf-8"))
            offsets[k] = f.tell()
            write_array(f, m)
    with atomic_write(names_path) as f:
        f.write("".join(n + "\n" for n in names))
    abs_ark = ark.resolve()
    with atomic_write(scp) as f:
        for k in keys:
            f.write(f"{k} {abs_ark}:{offsets[k]}\n")


def read_names(datadir: str | Path, name: str) -> list[str]:
    """The column names of feature set ``name``."""
    _, _, names_path = feature_files(datadir, name)
    if not names_path.is_file():
        raise PunctError("file not found", names_path)
    names = [line.strip() for line in names_path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not names:
        raise PunctError("no feature names", names_path)
    return names


def read_features(datadir: str | Path, name: str) -> tuple[dict[str, np.ndarray], list[str]]:
    """({utt: float32 [n_words, n_feats]}, column names) of feature set ``name``."""
    feats, names, _ = _read(datadir, name)
    return feats, names


def _read(datadir: str | Path, name: str) -> tuple[dict[str, np.ndarray], list[str], dict[str, int]]:
    import kaldiio

    from punct.data.tables import read_table

    ark, scp, _ = feature_files(datadir, name)
    names = read_names(datadir, name)
    out = {}
    lines = {}
    for key, vals, lineno in read_table(scp, min_fields=1, allow_empty_value=False):
        lines[key] = lineno
        if len(vals) != 1 or ":" not in vals[0]:
            raise PunctError(f"expected '<utt> <ark>:<offset>', got {' '.join(vals)!r}", scp, lineno)
        where, _, offset = vals[0].rpartition(":")
        if not Path(where).is_file() and ark.is_file():
            where = str(ark)  # the directory was moved: the ark next to the scp
        try:
            m = kaldiio.load_mat(f"{where}:{offset}")
        except Exception as e:  # kaldiio raises several types for a bad offset or file
            raise PunctError(f"cannot read features of {key} from {vals[0]}: {e}", scp, lineno) from None
        m = np.asarray(m, dtype=np.float32)
        if m.ndim != 2 or m.shape[1] != len(names):
            raise PunctError(f"{key}: matrix of shape {m.shape}, but {len(names)} names in {name}.names", scp, lineno)
        out[key] = m
    return out, names, lines


def feature_names(datadir: str | Path, names: Sequence[str]) -> list[str]:
    """The column names of ``load_word_features(datadir, names)``, in its order."""
    return [c for n in names for c in read_names(datadir, n)]


def load_word_features(datadir: str | Path, names: Sequence[str]) -> dict[str, np.ndarray]:
    """{utt: float32 [n_words, total columns]}: feature sets ``names`` of ``datadir`` side by side.

    Every set must cover exactly the utterances of ``datadir/text`` with one row per word.
    """
    from punct.data.tables import read_table

    d = Path(datadir)
    if not names:
        raise PunctError("no feature sets named", d)
    counts = {k: (len(v), n) for k, v, n in read_table(d / "text")}
    parts: dict[str, list[np.ndarray]] = {k: [] for k in counts}
    for name in names:
        feats, _, lines = _read(d, name)
        scp = feature_files(d, name)[1]
        missing = sorted(set(counts) - set(feats))
        extra = sorted(set(feats) - set(counts))
        if missing:
            raise PunctError(f"no features for utterance {missing[0]!r} of text ({len(missing)} missing)", scp)
        if extra:
            raise PunctError(f"utterance {extra[0]!r} is not in text", scp)
        for k, m in feats.items():
            if m.shape[0] != counts[k][0]:
                raise PunctError(f"{k}: {m.shape[0]} feature rows for {counts[k][0]} words in text", scp, lines[k])
            parts[k].append(m)
    return {k: np.concatenate(v, axis=1) if len(v) > 1 else v[0] for k, v in parts.items()}
