"""Word-timed JSON: what Vosk and Whisper-style tools emit, and punct's own output.

Read (the kind is told by the keys):

- punct (``{"format": "punct-words-1", "utterances": [{"id", "recording",
  "channel", "speaker", "words": [{"text", "mark", "start", "end", "conf",
  "speaker"}]}]}``): what ``write`` writes; ``text`` is the spelling, ``mark``
  the mark after the word (``""`` ``,`` ``.`` ``?``), times in seconds or null.
- Vosk (``{"result": [{"word", "start", "end", "conf"}], "text"}``), one
  object, a list of them, or one after another as a recognizer loop prints them
  (JSON Lines, or indented over several lines each as ``print(rec.Result())``
  writes them; partial results are skipped): one utterance. Without ``result``
  (``SetWords`` off) the file has no word times: an error. With ``SetMaxAlternatives``
  (``{"alternatives": [{"result", "text", "confidence"}, ...]}``): the first, the best.
- Whisper-style (``{"segments": [{"words": [{"word", "start", "end",
  "probability"}]}]}``; WhisperX adds ``speaker`` and ``score``, and leaves out
  the times of some words): one utterance; the leading space and the marks
  Whisper attaches to a word (``" Hello,"``) are split off, the marks become
  labels. A segment without ``words`` (``word_timestamps`` off) is an error.
- whisper.cpp (``-oj``: ``{"transcription": [{"offsets": {"from", "to"}, "text"}]}`` in
  milliseconds; with ``-ojf`` each segment's ``tokens``, joined into words: ``_whisper_cpp``).
- a bare list of word objects (``[{"word", "start", "end"}]``) or ``{"words": [...]}``.

Words whose times are missing keep None (pause features flag them).
"""
from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, Iterable

from punct.errors import PunctError
from punct.data.tables import time_problem
from punct.fsutil import atomic_write, loads_json
from punct.io.sentences import attach_marks_only, make_word, punctuated_line, spelling, split_token
from punct.text.labels import LABEL_TO_MARK, map_mark
from punct.text.words import Utterance, Word

NAME = "json"
EXTENSIONS = (".json", ".jsonl")
FORMAT_ID = "punct-words-1"

_TEXT_KEYS = ("word", "text", "punctuated_word")
_CONF_KEYS = ("conf", "probability", "confidence", "score")


def sniff(head: str) -> bool:
    """True if HEAD starts as a JSON object or array."""
    return head.lstrip().startswith(("{", "["))


#: white space between the values of a JSON stream
_SPACE = re.compile(r"\s*")


def _load(path: Path) -> tuple[Any, bool]:
    """The parsed document, and whether it was a stream of JSON values, JSON Lines or
    indented (then a list of (first line, object))."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise PunctError(f"not valid UTF-8 ({e.reason} at byte {e.start})", path) from None
    if not text.strip():
        raise PunctError("empty file (expected JSON)", path)
    try:
        return loads_json(text, path), False
    except json.JSONDecodeError as first:
        # one JSON value after another: JSON Lines, or the indented objects a Vosk loop prints
        # (print(rec.Result()) and PartialResult(), one after another over several lines each)
        decoder = json.JSONDecoder()
        objs = []
        pos = _SPACE.match(text).end()
        while pos < len(text):
            try:
                if text[pos] not in "{[":  # a stream of results, not of numbers or words
                    raise json.JSONDecodeError("Expecting an object", text, pos)
                obj, end = decoder.raw_decode(text, pos)
            except json.JSONDecodeError as e:
                if not objs:
                    raise PunctError(f"invalid JSON: {first.msg} (column {first.colno})", path, first.lineno) from None
                raise PunctError(f"invalid JSON Lines: {e.msg} (column {e.colno})", path, e.lineno) from None
            except RecursionError:  # loads_json checked the depth of the whole text; a last guard
                raise PunctError("JSON nested too deeply to read", path) from None
            objs.append((text.count("\n", 0, pos) + 1, obj))
            pos = _SPACE.match(text, end).end()
        if len(objs) < 2:
            raise PunctError(f"invalid JSON: {first.msg} (column {first.colno})", path, first.lineno) from None
        return objs, True


def _num(obj: dict, key: str, where: str, path: Path, line: int | None) -> float | None:
    v = obj.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise PunctError(f"{where}: {key!r} is {v!r}, not a number", path, line)
    if key in ("start", "end") and time_problem(float(v)) is not None:
        raise PunctError(f"{where}: {key!r} {v!r} {time_problem(float(v))}", path, line)
    return float(v)


def _word_list(items: Any, where: str, path: Path, line: int | None, speaker: str | None = None) -> list[Word]:
    """Words from a list of word objects (Vosk, Whisper, bare)."""
    if not isinstance(items, list):
        raise PunctError(f"{where}: expected a list of words, got {type(items).__name__}", path, line)
    words: list[Word] = []
    for k, it in enumerate(items):
        w_where = f"{where}[{k}]"
        if not isinstance(it, dict):
            raise PunctError(f"{w_where}: expected an object with 'word', 'start', 'end'", path, line)
        token = next((it[key] for key in _TEXT_KEYS if key in it), None)
        if not isinstance(token, str):
            raise PunctError(f"{w_where}: no word text (one of {', '.join(_TEXT_KEYS)})", path, line)
        start = _num(it, "start", w_where, path, line)
        end = _num(it, "end", w_where, path, line)
        if start is not None and end is not None and end < start:
            raise PunctError(f"{w_where}: ends ({end}) before it starts ({start})", path, line)
        if (start is not None and start < 0) or (end is not None and end < 0):
            raise PunctError(f"{w_where}: negative time", path, line)
        conf = None
        for key in _CONF_KEYS:
            if key in it:
                conf = _num(it, key, w_where, path, line)
                break
        spk = it.get("speaker", speaker)
        for j, tok in enumerate(token.split()):
            core, label = split_token(tok)
            if not core:
                attach_marks_only(words, tok)
                continue
            words.append(make_word(core, label, start=start, end=end, conf=conf, speaker=None if spk is None else str(spk)))
    return words


def _special(text: str) -> bool:
    """A whisper.cpp token that is no text: ``[_BEG_]``, ``[_TT_150]``, ``<|endoftext|>``."""
    t = text.strip()
    return (t.startswith("[_") and t.endswith("]")) or (t.startswith("<|") and t.endswith("|>"))


def _whisper_cpp(items: Any, path: Path, line: int | None) -> list[Word]:
    """Words of whisper.cpp's ``-oj`` JSON (``transcription``: segments with ``offsets`` in
    milliseconds). With ``-ojf`` each segment lists its ``tokens``: a token that begins with a
    space begins a word, the others continue it (``" Amer"`` + ``"icans"``), special tokens are
    skipped, a word's times are those of its first and last token and its confidence the least
    ``p``. Without tokens a segment's times are a word's only when it holds one word (``-ml 1``)."""
    if not isinstance(items, list):
        raise PunctError("'transcription' is not a list", path, line)
    out: list[dict[str, Any]] = []
    for s, seg in enumerate(items):
        where = f"transcription[{s}]"
        if not isinstance(seg, dict) or not isinstance(seg.get("text", ""), str):
            raise PunctError(f"{where}: expected an object with 'text' and 'offsets'", path, line)
        tokens = seg.get("tokens")
        if tokens is None:
            if len(seg.get("text", "").split()) > 1:
                raise PunctError(f"{where} holds several words and no 'tokens': no word times (run whisper.cpp with "
                                 "--output-json-full, or --max-len 1 for one word a segment)", path, line)
            tokens = [seg]
        if not isinstance(tokens, list):
            raise PunctError(f"{where}.tokens is not a list", path, line)
        for k, tok in enumerate(tokens):
            t_where = f"{where}.tokens[{k}]" if "tokens" in seg else where
            text = tok.get("text") if isinstance(tok, dict) else None
            offsets = tok.get("offsets") if isinstance(tok, dict) else None
            if not isinstance(text, str) or not isinstance(offsets, dict):
                raise PunctError(f"{t_where}: expected an object with 'text' and 'offsets'", path, line)
            if _special(text) or not text.strip():
                continue
            start = _num(offsets, "from", t_where + ".offsets", path, line)
            end = _num(offsets, "to", t_where + ".offsets", path, line)
            if start is None or end is None or end < start or start < 0:
                raise PunctError(f"{t_where}: offsets {offsets!r} are not a time span in milliseconds", path, line)
            p = _num(tok, "p", t_where, path, line) if "p" in tok else None
            if text.startswith(" ") or not out:
                out.append({"word": text.strip(), "start": start / 1000, "end": end / 1000, "conf": p})
            else:  # the rest of the word before
                w = out[-1]
                w["word"] += text.strip()
                w["end"] = end / 1000
                if p is not None:
                    w["conf"] = p if w["conf"] is None else min(w["conf"], p)
    for w in out:
        if w["conf"] is None:
            del w["conf"]
    return _word_list(out, "transcription", path, line)


def _is_word(x: Any) -> bool:
    """A word object: a word text and a time (Vosk's ``{"text": ...}`` results are not words)."""
    return isinstance(x, dict) and ("word" in x or ("text" in x and ("start" in x or "end" in x)))


def _one_speaker(words: list[Word]) -> str | None:
    spk = {w.speaker for w in words}
    return spk.pop() if len(spk) == 1 else None


def _from_tool(docs: list[tuple[int | None, Any]], path: Path) -> list[Utterance]:
    """Vosk / Whisper / bare word lists -> one utterance."""
    words: list[Word] = []
    for line, doc in docs:
        if isinstance(doc, list) and doc and all(_is_word(x) for x in doc):
            words += _word_list(doc, "words", path, line)
        elif isinstance(doc, dict) and "segments" in doc:
            segs = doc["segments"]
            if not isinstance(segs, list):
                raise PunctError("'segments' is not a list", path, line)
            for s, seg in enumerate(segs):
                if not isinstance(seg, dict):
                    raise PunctError(f"segments[{s}]: not an object", path, line)
                if "words" not in seg:
                    if str(seg.get("text", "")).strip():
                        raise PunctError(f"segments[{s}] has no 'words': no word times (run Whisper with word timestamps on)",
                                         path, line)
                    continue
                spk = seg.get("speaker")
                words += _word_list(seg["words"], f"segments[{s}].words", path, line, None if spk is None else str(spk))
        elif isinstance(doc, dict) and "transcription" in doc:
            words += _whisper_cpp(doc["transcription"], path, line)
        elif isinstance(doc, dict) and "result" in doc:
            words += _word_list(doc["result"], "result", path, line)
        elif isinstance(doc, dict) and "alternatives" in doc:  # Vosk with SetMaxAlternatives: the best first
            alts = doc["alternatives"]
            if not isinstance(alts, list) or not all(isinstance(a, dict) for a in alts):
                raise PunctError("'alternatives' is not a list of objects", path, line)
            if alts and ("result" in alts[0] or str(alts[0].get("text", "")).strip()):
                if "result" not in alts[0]:
                    raise PunctError("'alternatives' without 'result': no word times (Vosk: call SetWords(True))",
                                     path, line)
                words += _word_list(alts[0]["result"], "alternatives[0].result", path, line)
        elif isinstance(doc, dict) and "words" in doc:
            words += _word_list(doc["words"], "words", path, line)
        elif isinstance(doc, dict) and set(doc) <= {"text", "partial"}:
            if str(doc.get("text", "")).strip():
                raise PunctError("'text' without 'result': no word times (Vosk: call SetWords(True))", path, line)
        elif isinstance(doc, list):
            words += _from_tool([(line, d) for d in doc], path)[0].words
        else:
            keys = ", ".join(sorted(doc)) if isinstance(doc, dict) else type(doc).__name__
            raise PunctError(f"unknown JSON layout ({keys}); expected punct, Vosk ('result'), Whisper ('segments') "
                             "or whisper.cpp ('transcription')", path, line)
    stem = path.stem
    return [Utterance(id=stem, words=words, recording=stem, speaker=_one_speaker(words))]


def _from_punct(doc: dict, path: Path) -> list[Utterance]:
    fmt = doc.get("format", FORMAT_ID)
    if fmt != FORMAT_ID:
        raise PunctError(f"unknown format {fmt!r} (expected {FORMAT_ID!r})", path)
    if not isinstance(doc["utterances"], list):
        raise PunctError("'utterances' is not a list", path)
    utts = []
    marks = {v: k for k, v in LABEL_TO_MARK.items()}
    seen: dict[str, int] = {}
    for i, u in enumerate(doc["utterances"]):
        where = f"utterances[{i}]"
        if not isinstance(u, dict) or not isinstance(u.get("id"), str) or not isinstance(u.get("words"), list):
            raise PunctError(f"{where}: expected an object with 'id' and 'words'", path)
        if u["id"] in seen:
            raise PunctError(f"{where}: utterance id {u['id']!r} again (first in utterances[{seen[u['id']]}])", path)
        seen[u["id"]] = i
        words: list[Word] = []
        for k, it in enumerate(u["words"]):
            w_where = f"{where}.words[{k}]"
            if not isinstance(it, dict) or not isinstance(it.get("text"), str) or not it["text"].strip():
                raise PunctError(f"{w_where}: expected an object with a non-empty 'text'", path)
            mark = it.get("mark", "")
            if not isinstance(mark, str):
                raise PunctError(f"{w_where}: 'mark' is not a string", path)
            if any(c.isalnum() for c in mark):  # a word or a label name where a written mark belongs
                raise PunctError(f"{w_where}: 'mark' {mark!r} is not punctuation (write ',' '.' '?' or '')", path)
            label = marks.get(mark)
            if label is None:
                label = map_mark(mark)
            start, end = _num(it, "start", w_where, path, None), _num(it, "end", w_where, path, None)
            if start is not None and end is not None and end < start:
                raise PunctError(f"{w_where}: ends ({end}) before it starts ({start})", path)
            spk = it.get("speaker")
            core = it["text"].strip()
            if any(c.isspace() for c in core):
                raise PunctError(f"{w_where}: 'text' {core!r} holds white space (one word per object)", path)
            words.append(make_word(core, label, start=start, end=end, conf=_num(it, "conf", w_where, path, None),
                                   speaker=None if spk is None else str(spk)))
        spk = u.get("speaker")
        utts.append(Utterance(id=u["id"], words=words, recording=u.get("recording"), channel=str(u.get("channel", "1")),
                              speaker=None if spk is None else str(spk)))
    return utts


def read(path: str | Path) -> list[Utterance]:
    """Read any of the JSON layouts of the module docstring into Utterances."""
    path = Path(path)
    doc, is_lines = _load(path)
    if not is_lines and isinstance(doc, dict) and "utterances" in doc:
        utts = _from_punct(doc, path)
    else:
        utts = _from_tool(doc if is_lines else [(None, doc)], path)
    if not any(u.words for u in utts):
        raise PunctError("no words in the JSON input", path)
    return utts


def _t(x: float | None) -> float | None:
    return None if x is None else round(x, 6)


def to_dict(utts: Iterable[Utterance]) -> dict:
    """punct's JSON document of ``utts`` (see the module docstring)."""
    out = []
    for u in utts:
        words = []
        for w in u.words:
            d: dict[str, Any] = {"text": spelling(w), "mark": LABEL_TO_MARK[w.label], "start": _t(w.start), "end": _t(w.end)}
            if w.conf is not None:
                d["conf"] = _t(w.conf)
            if w.speaker is not None:
                d["speaker"] = w.speaker
            words.append(d)
        out.append({"id": u.id, "recording": u.recording, "channel": u.channel, "speaker": u.speaker,
                    "text": punctuated_line(u.words), "words": words})
    return {"format": FORMAT_ID, "utterances": out}


def write(utts: Iterable[Utterance], path: str | Path) -> None:
    """Write punct's JSON: one word object per line, so large files stay diffable."""
    doc = to_dict(utts)
    with atomic_write(path) as f:
        f.write('{"format": %s, "utterances": [' % json.dumps(doc["format"]))
        for i, u in enumerate(doc["utterances"]):
            head = {k: v for k, v in u.items() if k != "words"}
            f.write(("," if i else "") + "\n  " + json.dumps(head, ensure_ascii=False)[:-1] + ', "words": [')
            for k, w in enumerate(u["words"]):
                f.write(("," if k else "") + "\n    " + json.dumps(w, ensure_ascii=False))
            f.write("\n  ]}")
        f.write("\n]}\n")
