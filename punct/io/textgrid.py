"""Praat TextGrids (long and short text formats) through praatio.

Reading: the words are the intervals of a words tier: a tier named ``words``
(or ``word``), or ``<speaker> - words`` as the Montreal Forced Aligner writes
for several speakers; ``tier=`` picks another one. Each words tier becomes one
Utterance (its speaker from the tier name; id ``<file>`` or ``<file>-<speaker>``),
so speakers stay separate. Empty intervals and silence labels (``sil`` ``sp``
``<eps>``) are silences. A mark attached to a word (``hello,``) becomes its label.

Writing: per speaker (or per utterance, when there are several without one) a
punctuated words tier (``hello,``) and a sentence tier (one interval per
sentence, its punctuated text), named ``words``/``sentences`` for a single
utterance, else ``<speaker> - words``/``<speaker> - sentences``. A tier's words
go by start time, except that a word that overlaps the word before it in its
utterance stays after it (``_order_keys``: real CTMs have "as a result" with
"result" starting 0.04 s before "a"). Interval tiers cannot overlap: a word that
starts before the previous one ends is trimmed to start at that end (a warning
counts them); words need times.
"""
from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Iterable

from punct.errors import PunctError
from punct.data.tables import time_problem
from punct.fsutil import atomic_path
from punct.io.sentences import (attach_marks_only, make_word, punctuated, punctuated_line, speaker_of, split_sentences,
                                split_token)
from punct.text.words import Utterance, Word

log = logging.getLogger(__name__)

NAME = "textgrid"
EXTENSIONS = (".textgrid",)

#: Interval labels that mean silence in a words tier (compared in lower case).
SILENCE_LABELS = frozenset({"", "sil", "sp", "spn", "<eps>", "<sil>", "#"})
#: Shortest interval written (praatio drops shorter ones); overlap trimming keeps at least this.
MIN_INTERVAL = 0.001

_WORDS_TIER_RE = re.compile(r"^(?:(?P<spk>.+?)\s+-\s+)?(?:words?)$", re.IGNORECASE)


def sniff(head: str) -> bool:
    """True if HEAD looks like a Praat TextGrid (long or short text format)."""
    return "ooTextFile" in head and "TextGrid" in head


def _decode(path: Path) -> str:
    data = path.read_bytes()
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise PunctError("file has a UTF-16 byte order mark but is not valid UTF-16", path) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise PunctError("not valid UTF-8 (or UTF-16 with a byte order mark)", path, line) from None


def _interval_lines(text: str) -> tuple[dict[tuple[int, int], int], dict[int, tuple[int, int]]]:
    """For the long text format: (tier number, interval number) -> line number, and
    tier number -> (declared number of intervals, line of the declaration)."""
    out = {}
    sizes = {}
    tier = 0
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        m = re.match(r"item \[(\d+)\]:", s)
        if m:
            tier = int(m.group(1))
            continue
        m = re.match(r"intervals \[(\d+)\]:", s)
        if m and tier:
            out[(tier, int(m.group(1)))] = n
            continue
        m = re.match(r"intervals: size = (\d+)", s)
        if m and tier:
            sizes[tier] = (int(m.group(1)), n)
    return out, sizes


_TOKEN_RE = re.compile(r'"(?:[^"]|"")*"|[^\s"]+')


def _short_sizes(text: str) -> dict[int, tuple[int, int]]:
    """For the short text format: tier number -> (declared number of intervals, line)."""
    toks = []
    line = 1
    pos = 0
    for m in _TOKEN_RE.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        toks.append((m.group(), line))
    i = 0
    while i < len(toks) and '"TextGrid"' not in toks[i][0]:
        i += 1
    i += 1 + 3  # xmin xmax <exists>
    if i >= len(toks):
        return {}
    sizes = {}
    try:
        n_tiers = int(toks[i][0])
        i += 1
        for t in range(1, n_tiers + 1):
            cls = toks[i][0].strip('"')
            n, ln = int(toks[i + 4][0]), toks[i + 4][1]
            per = 3 if cls == "IntervalTier" else 2
            sizes[t] = (n, ln)
            i += 5 + per * n
    except (IndexError, ValueError):
        pass
    return sizes


def _cut_off(path: Path, what: str, declared: int, found: int, line: int | None) -> PunctError:
    """The error for a TextGrid with fewer tiers or intervals than it declares (``what``: the tier, or "")."""
    return PunctError(f"{what + ' ' if what else ''}declares {declared} but has {found} (is the file cut off?)", path, line)


def _declared_tiers(text: str) -> tuple[int, int] | None:
    """(number of tiers the header declares, its line), in either text format, or None."""
    lines = text.splitlines()
    for n, line in enumerate(lines, 1):
        m = re.match(r"size\s*=\s*(\d+)\s*$", line)  # long format: the unindented size line
        if m:
            return int(m.group(1)), n
        if line.strip() == "<exists>" and n < len(lines):  # short format: the line after <exists>
            try:
                return int(lines[n].strip()), n + 1
            except ValueError:
                return None
    return None


def _bad_number_line(text: str) -> int | None:
    """The first line of the long format whose xmin/xmax/size is not a number (for error messages)."""
    for n, line in enumerate(text.splitlines(), 1):
        m = re.match(r"\s*(?:xmin|xmax|number|(?:intervals: |points: )?size)\s*=\s*(.*?)\s*$", line)
        if m:
            try:
                float(m.group(1))
            except ValueError:
                return n
    return None


def words_tier_speaker(name: str) -> tuple[bool, str | None]:
    """(is a words tier, speaker or None): ``words`` -> (True, None), ``Ann - words`` -> (True, "Ann")."""
    m = _WORDS_TIER_RE.match(name.strip())
    if not m:
        return False, None
    return True, m.group("spk")


def read(path: str | Path, tier: str | None = None) -> list[Utterance]:
    """Read the words tier(s) of a TextGrid into Utterances (see the module docstring)."""
    from praatio.utilities import textgrid_io

    path = Path(path)
    text = _decode(path)
    if not text.strip():
        raise PunctError("empty file (expected a Praat TextGrid)", path)
    if "ooTextFile" not in text[:200] or "TextGrid" not in text[:300]:
        raise PunctError('not a Praat TextGrid (no \'File type = "ooTextFile"\' / \'Object class = "TextGrid"\' header)', path, 1)
    try:
        tg = textgrid_io.parseTextgridStr(text, includeEmptyIntervals=True)
    except Exception as e:  # praatio raises IndexError/ValueError/... on malformed files
        lines, sizes = _interval_lines(text)
        names = re.findall(r'^\s*name\s*=\s*"((?:[^"]|"")*)"', text, re.M)
        for ti, (n, ln) in sorted(sizes.items()):
            found = sum(1 for t, _ in lines if t == ti)
            if found < n:  # a long-format file cut off inside a tier: say so rather than praatio's error
                name = repr(names[ti - 1].replace('""', '"')) if ti <= len(names) else str(ti)
                raise _cut_off(path, f"tier {name}", f"{n} intervals", found, ln) from None
        raise PunctError(f"malformed TextGrid, praatio cannot parse it ({type(e).__name__}: {e})", path,
                         _bad_number_line(text)) from None
    tiers = tg.get("tiers", [])
    lines, sizes = _interval_lines(text)
    if not lines:
        sizes = _short_sizes(text)
    for ti, t in enumerate(tiers, 1):
        if t["class"] == "IntervalTier" and ti in sizes and sizes[ti][0] != len(t["entries"]):
            raise _cut_off(path, f"tier {t['name']!r}", f"{sizes[ti][0]} intervals", len(t["entries"]), sizes[ti][1])
    declared = _declared_tiers(text)
    if declared is not None and declared[0] > len(tiers):
        raise _cut_off(path, "", f"{declared[0]} tiers", len(tiers), declared[1])
    names = [f"{t['name']!r}" + ("" if t["class"] == "IntervalTier" else f" ({t['class']})") for t in tiers]
    chosen = []
    for i, t in enumerate(tiers, 1):
        if t["class"] not in ("IntervalTier", "TextTier"):
            raise PunctError(f"tier {i} ({t['name']!r}) has class {t['class']!r}, not IntervalTier or TextTier", path)
        if t["class"] != "IntervalTier":
            continue
        if tier is not None:
            if t["name"] == tier:
                chosen.append((i, t, None))
            continue
        ok, spk = words_tier_speaker(t["name"])
        if ok:
            chosen.append((i, t, spk))
    if not chosen:
        want = f"interval tier named {tier!r}" if tier else "words tier (an interval tier named 'words' or '<speaker> - words')"
        raise PunctError(f"no {want}; tiers here: {', '.join(names) or 'none'}", path)
    stem = path.name[: -len(".textgrid")] if path.name.lower().endswith(".textgrid") else path.stem
    utts = []
    for ti, t, spk in chosen:
        words: list[Word] = []
        prev_end = None
        for k, (s, e, label) in enumerate(t["entries"], 1):
            where = lines.get((ti, k))
            try:
                start, end = float(s), float(e)
            except ValueError:
                raise PunctError(f"tier {t['name']!r} interval {k}: times {s!r} {e!r} are not numbers", path, where) from None
            for x in (start, end):
                if time_problem(x) is not None:
                    raise PunctError(f"tier {t['name']!r} interval {k}: time {x} {time_problem(x)}", path, where)
            if end < start:
                raise PunctError(f"tier {t['name']!r} interval {k}: ends ({end}) before it starts ({start})", path, where)
            if prev_end is not None and start < prev_end - 1e-9:
                raise PunctError(f"tier {t['name']!r} interval {k}: starts ({start}) before the previous one ends ({prev_end})",
                                 path, where)
            prev_end = end
            label = label.strip()
            if label.lower() in SILENCE_LABELS:
                continue
            tokens = label.split()
            for j, tok in enumerate(tokens):
                core, lab = split_token(tok)
                if not core:
                    attach_marks_only(words, tok)
                    continue
                # a multi-word interval: the first word gets its start, the last its end
                words.append(make_word(core, lab, start=start if j == 0 else None, end=end if j == len(tokens) - 1 else None,
                                       speaker=None))
        if not words:
            log.warning("%s: tier %r has no words", path, t["name"])
            continue
        if spk is None and len(chosen) == 1:
            uid = stem
        else:
            uid = stem + "-" + re.sub(r"\s+", "_", spk or t["name"])
        utts.append(Utterance(id=uid, words=words, recording=stem, speaker=spk))
    if not utts:
        raise PunctError("the words tier has no words (only empty or silence intervals)", path)
    return utts


def _open_source(path: str | Path):
    """The praatio TextGrid of ``path`` (the input), or a PunctError naming it."""
    from praatio import textgrid as ptg

    try:
        return ptg.openTextgrid(str(path), includeEmptyIntervals=True, reportingMode="silence")
    except Exception as e:  # praatio's own errors; the input was read once already
        raise PunctError(f"cannot read the input TextGrid again for its other tiers ({e})", path) from None


def _tier_key(w: Word, u: Utterance, many_utts: bool) -> str | None:
    spk = speaker_of(w, u)
    if spk is not None:
        return spk
    return u.id if many_utts else None


def _order_keys(words: list[Word]) -> list[float]:
    """The time each word of an utterance (in its order) is placed by in a tier: its start,
    or, when it starts before the word before it and overlaps it (a recognizer's jitter, not
    a jump back in time), that word's key, so that it stays after it."""
    keys: list[float] = []
    for i, w in enumerate(words):
        key = w.start
        if i and key < keys[-1] and w.end > words[i - 1].start:
            key = keys[-1]
        keys.append(key)
    return keys


def _monotone(words: list[Word]) -> tuple[list[tuple[float, float]], int, float]:
    """Times of ``words`` (in tier order) made non-overlapping; how many changed, and the
    largest shift of a start or an end (seconds)."""
    out = []
    changed = 0
    shift = 0.0
    prev_end = 0.0
    for w in words:
        s, e = w.start, w.end
        if s < prev_end:
            s = prev_end
        if e < s + MIN_INTERVAL:
            e = s + MIN_INTERVAL
        if (s, e) != (w.start, w.end):
            changed += 1
            shift = max(shift, abs(s - w.start), abs(e - w.end))
        out.append((s, e))
        prev_end = e
    return out, changed, shift


def _layers(words: list[Word]) -> list[list[tuple[float, float, Word]]]:
    """``words`` (in tier order) on as few tiers as keep every word's times: each word on the
    first tier whose last interval ends by its start (``overlaps="tiers"``)."""
    layers: list[list[tuple[float, float, Word]]] = []
    for w in words:
        s, e = w.start, max(w.end, w.start + MIN_INTERVAL)
        for layer in layers:
            if layer[-1][1] <= s + 1e-9:
                layer.append((s, e, w))
                break
        else:
            layers.append([(s, e, w)])
    return layers


def write(utts: Iterable[Utterance], path: str | Path, short: bool = False, sentence_tier: bool = True,
          source: str | Path | None = None, overlaps: str = "move") -> None:
    """Write a TextGrid: per speaker a punctuated words tier and a sentence tier. ``source``:
    the TextGrid the words were read from, whose other tiers (phones, say) are kept as they
    are, in their place, and whose time span the output keeps (or extends to its words).
    ``overlaps``: a word that starts before the word before it ends is moved (``move``: the
    module docstring), or put on another words tier of its speaker, ``<speaker> - words 2``
    and on (``tiers``: every word keeps its times)."""
    if overlaps not in ("move", "tiers"):
        raise ValueError(f"overlaps must be move or tiers, not {overlaps!r}")
    from praatio import textgrid as ptg

    path = Path(path)
    utts = list(utts)
    many = len(utts) > 1
    tiers: dict[str | None, list[tuple[tuple, Word]]] = {}
    sents: dict[str | None, list[list[Word]]] = {}
    for n, u in enumerate(utts):
        for k, w in enumerate(u.words):
            if w.start is None or w.end is None:
                raise PunctError(f"word {k + 1} ({w.text!r}) of {u.id} has no times; a TextGrid needs word times", path)
        for k, (w, order) in enumerate(zip(u.words, _order_keys(u.words))):
            tiers.setdefault(_tier_key(w, u, many), []).append(((order, n, k), w))
        for s in split_sentences(u.words, u):
            sents.setdefault(_tier_key(s[0], u, many), []).append(s)
    if not tiers:
        raise PunctError("no words to write", path)
    tg = ptg.Textgrid()
    xmax = 0.0
    built = []
    for key, keyed in tiers.items():
        words = [w for _, w in sorted(keyed, key=lambda x: x[0])]
        times, changed, shift = _monotone(words)
        prefix = "" if key is None else f"{key} - "
        extra = []
        if overlaps == "tiers" and changed:
            layers = _layers(words)
            extra = [(f"{prefix}words {j + 2}", [(s, e, punctuated(w)) for s, e, w in layer])
                     for j, layer in enumerate(layers[1:])]
            log.warning("%s: %d word(s) of %s overlap the word before them: on %d more words tier(s), their times "
                        "kept", path, sum(len(x) for x in layers[1:]), key or "the words tier", len(extra))
            changed = 0
        if changed:
            log.warning("%s: %d word(s) of %s moved or shortened so that its intervals follow one another (an "
                        "interval tier cannot overlap; largest shift %.3f s)", path, changed, key or "the words tier",
                        shift)
        fixed = {id(w): t for w, t in zip(words, times)}
        entries = [(s, e, punctuated(w)) for w, (s, e) in zip(words, times)]
        if extra:
            entries = [(s, e, punctuated(w)) for s, e, w in layers[0]]
        sent_entries = []
        def first(sent):  # a sentence's earliest word: not its first one in a CTM out of time order
            return min(fixed[id(w)][0] for w in sent)

        for sent in sorted(sents.get(key, []), key=first):
            s = first(sent)
            e = max(fixed[id(w)][1] for w in sent)
            if sent_entries and s < sent_entries[-1][1]:
                s = sent_entries[-1][1]
            if e > s:
                sent_entries.append((s, e, punctuated_line(sent)))
        xmax = max(xmax, entries[-1][1], *(e for _, e, _ in sent_entries), *(x[-1][1] for _, x in extra))
        built.append((prefix, entries, sent_entries, extra))
    xmin, kept = 0.0, []
    if source is not None:
        src = _open_source(source)
        xmin, xmax = min(src.minTimestamp, 0.0), max(xmax, src.maxTimestamp)
        kept = list(src.tiers)
    ours = {}
    for prefix, entries, sent_entries, extra in built:
        ours[prefix + "words"] = ptg.IntervalTier(prefix + "words", entries, xmin, xmax)
        for name, more in extra:
            ours[name] = ptg.IntervalTier(name, more, xmin, xmax)
        if sentence_tier:
            ours[prefix + "sentences"] = ptg.IntervalTier(prefix + "sentences", sent_entries, xmin, xmax)
    placed = set()
    for t in kept:  # the source's tiers in their order, ours in the place of those they replace
        if t.name in ours:
            tg.addTier(ours[t.name])
            placed.add(t.name)
        else:
            tg.addTier(t)
    for name, t in ours.items():
        if name not in placed:
            tg.addTier(t)
    try:
        with atomic_path(path) as tmp:
            tg.save(tmp, format="short_textgrid" if short else "long_textgrid", includeBlankSpaces=True,
                    minimumIntervalLength=None, reportingMode="error")
    except Exception as e:
        if isinstance(e, PunctError):
            raise
        raise PunctError(f"cannot write TextGrid: {e}", path) from None
