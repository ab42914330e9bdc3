"""The per-word features a model reads, as the Restorer feeds them (punct.engine.restorer).

Where they come from (``FeatureSource``), for a model whose featurizer reads feature sets:
- a data directory's feature files (``DIR/pause.scp``, ``DIR/prosody.scp``: stage 4), set
  by set: what ``punct decode`` and ``punct restore DIR`` both use;
- for a set without a file: pauses from the word times (non-speech tokens skipped), pitch
  and energy computed from the audio (``wav.scp`` and ``word_times``, or ``--audio`` beside
  a CTM) as stage 4 computes them (punct.prosody.pooling, ``conf/prosody.yaml``).
A model that needs audio the input lacks gets a PunctError that says what to give.

How a word's row reaches its tokens: a word split into several tokens gives each token its
row with no pause inside the word (the ``*_after`` columns of all but the last token and the
``*_before`` columns of all but the first are 0); a word and the clitic joined to it read as
one token take the last word's row with the first word's ``*_before`` columns.
"""
from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import Sequence

from punct.errors import PunctError
from punct.text.words import Utterance, Word, is_nonspeech

log = logging.getLogger(__name__)

#: the feature set of pitch and energy (punct.bin.prosody_feats writes DIR/prosody.scp)
PROSODY = "prosody"
#: what ``--audio`` names as one audio file rather than a table of recordings
AUDIO_SUFFIXES = frozenset({".wav", ".flac", ".mp3", ".ogg", ".opus", ".m4a", ".sph"})
#: the prosody configuration stage 4 uses, relative to the repository (defaults when absent)
PROSODY_CONFIG = Path(__file__).resolve().parents[2] / "conf" / "prosody.yaml"


@dataclasses.dataclass
class WordFeatures:
    """Raw feature rows of utterances: ``names`` (the columns) and {utterance id: float32
    [n_words, len(names)]}, one row per word of the utterance, non-speech tokens included."""
    names: list[str]
    by_utt: dict


class FeatureSource:
    """Where the features of an input come from (module docstring): ``data_dir`` (a data
    directory: its feature files, else its ``wav.scp``), or ``audio`` (a ``wav.scp``-style
    table of recording -> audio file, or one audio file for an input of one recording)."""

    def __init__(self, data_dir: str | Path | None = None, audio: str | Path | None = None):
        self.data_dir = Path(data_dir) if data_dir is not None else None
        self.audio = Path(audio) if audio is not None else None
        self._cache: dict[tuple, WordFeatures] = {}

    def features(self, sets: Sequence[str], utts: Sequence[Utterance]) -> WordFeatures:
        """The rows of feature sets ``sets`` for ``utts``, side by side in ``sets`` order."""
        key = (tuple(sets), tuple(u.id for u in utts))
        if key not in self._cache:
            self._cache[key] = self._features(list(sets), utts)
        return self._cache[key]

    def _features(self, sets: list[str], utts: Sequence[Utterance]) -> WordFeatures:
        import numpy as np

        from punct.prosody.features import feature_files, read_features

        d = self.data_dir
        parts: dict[str, WordFeatures] = {}
        for s in sets:
            scp = feature_files(d, s)[1] if d is not None else None
            if scp is not None and scp.is_file():
                by_utt, names = read_features(d, s)
                check_rows(by_utt, utts, scp)
                parts[s] = WordFeatures(names, by_utt)
        todo = [s for s in sets if s not in parts]
        unknown = [s for s in todo if s not in ("pause", PROSODY)]
        if unknown:
            raise PunctError(f"this model reads feature set {unknown[0]!r}, which only a data directory's files "
                             "give (run the recipe's stage 4)", d / f"{unknown[0]}.scp" if d is not None else None)
        if "pause" in todo:
            parts["pause"] = speech_pauses(utts)
        if PROSODY in todo:
            if d is not None and (d / "wav.scp").is_file():
                parts[PROSODY] = prosody_from_audio(utts, d)
                check_rows(parts[PROSODY].by_utt, utts, d / "wav.scp")
            elif self.audio is not None:
                parts[PROSODY] = prosody_of_recordings(utts, self.audio)
                check_rows(parts[PROSODY].by_utt, utts, self.audio)
            else:
                raise PunctError(needs_audio(sets) + (" (this data directory has neither prosody.scp nor wav.scp)"
                                                      if d is not None else ""), d)
        if len(sets) == 1:
            return parts[sets[0]]
        names = [c for s in sets for c in parts[s].names]
        by_utt = {u.id: np.concatenate([np.asarray(parts[s].by_utt[u.id], dtype=np.float32) for s in sets], axis=1)
                  for u in utts}
        return WordFeatures(names, by_utt)


def needs_audio(sets: Sequence[str]) -> str:
    """The message for a model that reads pitch and energy given an input without audio."""
    return (f"this model reads feature sets {list(sets)}: pitch and energy need the audio: give a data directory "
            "with wav.scp (or stage 4's prosody.scp), or --audio (a wav.scp table, or the audio file of a "
            "one-recording input)")


def check_rows(by_utt: dict, utts: Sequence[Utterance], where) -> None:
    """A PunctError naming ``where`` unless ``by_utt`` ({utterance id: rows}) has one row per
    word of every utterance of ``utts``."""
    for u in utts:
        m = by_utt.get(u.id)
        if m is None or len(m) != len(u.words):
            raise PunctError(f"utterance {u.id!r}: {'no' if m is None else len(m)} feature rows for "
                             f"{len(u.words)} words", where)


def prosody_from_audio(utts: Sequence[Utterance], data_dir: Path) -> WordFeatures:
    """Pitch and energy of every word of ``utts`` from the audio of ``data_dir`` (``wav.scp``,
    ``segments``, ``word_times``, ``utt2spk``), pooled and normalized per speaker as stage 4
    does (punct.prosody.pooling with ``conf/prosody.yaml``)."""
    from punct.config import load_config
    from punct.prosody.pooling import WORD_FEATURES, ProsodyConfig, extract_raw, normalize_all

    if not (data_dir / "word_times").is_file():
        raise PunctError("pitch and energy are pooled over the words' times: this data directory has no word_times",
                         data_dir / "word_times")
    cfg = load_config(PROSODY_CONFIG if PROSODY_CONFIG.is_file() else None, ProsodyConfig, [])
    raw, stats, report = extract_raw(data_dir, cfg)
    spk = {u.id: u.speaker for u in utts if u.speaker is not None}  # as read from utt2spk
    log.info("pitch and energy of %d words computed from %.0f s of audio in %.1f s (stage 4 would store them)",
             report["words"], report["audio_seconds"], report["seconds"])
    return WordFeatures(list(WORD_FEATURES), normalize_all(raw, spk, stats, cfg))


def prosody_of_recordings(utts: Sequence[Utterance], audio: Path) -> WordFeatures:
    """``prosody_from_audio`` for utterances read from a CTM or another timed format, with their
    recordings' audio in ``audio``: a ``<recording> <file or command |>`` table, or one audio
    file when the utterances are of one recording. Times are the recording's (as a CTM's)."""
    import tempfile

    from punct.data.datadir import write_datadir
    from punct.data.tables import write_table

    table = _audio_table(audio, {u.recording if u.recording is not None else u.id for u in utts})
    with tempfile.TemporaryDirectory(prefix="punct-audio-") as tmp:
        d = Path(tmp)
        write_datadir(d, list(utts))
        # one whole-recording "segment" per utterance: its times stay the recording's
        write_table(d / "wav.scp", {u.id: table[u.recording if u.recording is not None else u.id] for u in utts})
        return prosody_from_audio(utts, d)


def _audio_table(audio: Path, recos: set[str]) -> dict[str, str]:
    """{recording: audio} of ``--audio``: a table of recordings, or one file for one recording."""
    from punct.fsutil import check_input
    from punct.data.tables import read_wav_scp

    check_input(audio, "audio", "file", empty_ok=False)
    if audio.suffix.lower() in AUDIO_SUFFIXES:
        if len(recos) != 1:
            raise PunctError(f"one audio file for an input of {len(recos)} recordings: give a table of "
                             "'<recording> <audio file>' lines", audio)
        return {next(iter(recos)): str(audio.resolve())}
    table = read_wav_scp(audio)
    missing = sorted(recos - set(table))
    if missing:
        raise PunctError(f"recording {missing[0]!r} of the input has no audio here ({len(missing)} missing)", audio)
    return {r: table[r] for r in recos}


# ---------------------------------------------------------------- rows of words and tokens


def speech_pauses(utts: Sequence[Utterance]) -> WordFeatures:
    """The pause features of every word of ``utts`` from the word times (punct.prosody.pause):
    a pause runs from word to word across non-speech tokens, whose own rows are 0."""
    import numpy as np

    from punct.prosody.pause import PAUSE_FEATURES, pause_features

    speech = [dataclasses.replace(u, words=[w for w in u.words if not is_nonspeech(w)]) for u in utts]
    n_untimed = sum(1 for u in speech for w in u.words if w.start is None or w.end is None)
    n_words = sum(len(u) for u in speech)
    if n_untimed:  # a warning when some words have times and some not; plain text has none
        (log.warning if n_untimed < n_words else log.info)(
            "%d of %d words have no times: the model decides their marks from the words alone", n_untimed, n_words)
    feats = pause_features(speech)
    by_utt = {}
    for u, s in zip(utts, speech):
        if len(s.words) == len(u.words):
            by_utt[u.id] = feats[u.id]
            continue
        m = np.zeros((len(u.words), len(PAUSE_FEATURES)), dtype=np.float32)
        m[[i for i, w in enumerate(u.words) if not is_nonspeech(w)]] = feats[u.id]
        by_utt[u.id] = m
    return WordFeatures(list(PAUSE_FEATURES), by_utt)


def word_rows(inputs, feats: WordFeatures, utts: Sequence[Utterance]) -> dict[int, tuple]:
    """{id(word): (raw row, the model's row: ``inputs.select``)} of every word of ``utts``,
    selected an utterance at a time."""
    out = {}
    for u in utts:
        m = feats.by_utt[u.id]
        sel = inputs.select(m, feats.names)
        out.update((id(w), (m[i], sel[i])) for i, w in enumerate(u.words))
    return out


def given_rows(inputs, names: Sequence[str], rows: dict) -> dict[int, tuple]:
    """``word_rows`` of rows a caller gave ({id(word): raw row of ``names``})."""
    import numpy as np

    if not rows:
        return {}
    keys = list(rows)
    m = np.stack([rows[k] for k in keys]).astype(np.float32)
    sel = inputs.select(m, names)
    return {k: (m[i], sel[i]) for i, k in enumerate(keys)}


def unit_rows(inputs, names: Sequence[str], unit: Sequence[Word], rows: dict) -> tuple:
    """The rows of a unit read as one word (module docstring)."""
    if len(unit) == 1:
        return rows[id(unit[0])]
    import numpy as np

    first, last = rows[id(unit[0])][0], rows[id(unit[-1])][0]
    row = np.array(last, dtype=np.float32)
    for c, name in enumerate(names):
        if name.endswith("_before"):
            row[c] = first[c]
    return row, inputs.select(row[None, :], names)[0]


def token_rows(inputs, names: Sequence[str], rows: tuple, k: int) -> list:
    """The model's rows of the ``k`` tokens of one word whose rows are ``rows`` (module docstring)."""
    import numpy as np

    row, selected = rows
    if k == 1:
        return [selected]
    out = []
    for j in range(k):
        r = np.array(row, dtype=np.float32)
        for side, inner in (("_after", j < k - 1), ("_before", j > 0)):
            if inner:
                for c, name in enumerate(names):
                    if name.endswith(side):
                        r[c] = 0.0
        out.append(inputs.select(r[None, :], names)[0])
    return out
