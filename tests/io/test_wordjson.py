"""punct.io.wordjson: the word JSON of Vosk, Whisper and whisper.cpp read into timed words, punct's
own JSON written and read back, errors named by line."""
import json
import random

import pytest

from punct.errors import PunctError
from punct.io import detect_format, read_any, wordjson
from punct.text.words import Utterance, Word


def dump(tmp_path, obj, name="a.json"):
    p = tmp_path / name
    p.write_text(obj if isinstance(obj, str) else json.dumps(obj), encoding="utf-8")
    return p


VOSK = {"result": [{"conf": 1.0, "end": 0.9, "start": 0.42, "word": "hello"},
                   {"conf": 0.61, "end": 1.5, "start": 0.93, "word": "world"}], "text": "hello world"}

WHISPER = {"text": " Hello, world. How are you?", "language": "en", "segments": [
    {"id": 0, "start": 0.0, "end": 1.6, "text": " Hello, world.", "words": [
        {"word": " Hello,", "start": 0.0, "end": 0.5, "probability": 0.9},
        {"word": " world.", "start": 0.6, "end": 1.1, "probability": 0.8}]},
    {"id": 1, "start": 1.6, "end": 3.0, "text": " How are you?", "words": [
        {"word": " How", "start": 1.6, "end": 1.8, "probability": 0.99},
        {"word": " are", "start": 1.8, "end": 2.0, "probability": 0.99},
        {"word": " you?", "start": 2.0, "end": 2.4, "probability": 0.95}]}]}


def test_vosk_single_list_and_json_lines(tmp_path):
    (u,) = wordjson.read(dump(tmp_path, VOSK, "call.json"))
    assert u.id == "call" and u.texts == ["hello", "world"]
    assert [(w.start, w.end, w.conf) for w in u.words] == [(0.42, 0.9, 1.0), (0.93, 1.5, 0.61)]
    second = {"result": [{"conf": 1.0, "end": 2.5, "start": 2.0, "word": "again"}], "text": "again"}
    (u,) = wordjson.read(dump(tmp_path, [VOSK, {"text": ""}, second]))
    assert [(w.text, w.start) for w in u.words] == [("hello", 0.42), ("world", 0.93), ("again", 2.0)]
    bare = [{"word": "so", "start": 0.1, "end": 0.2}, {"word": "yes", "start": 0.3, "end": 0.4}]
    assert [(w.text, w.end) for w in wordjson.read(dump(tmp_path, bare))[0].words] == [("so", 0.2), ("yes", 0.4)]
    lines = dump(tmp_path, json.dumps(VOSK) + "\n" + json.dumps({"partial": ""}) + "\n" + json.dumps(second) + "\n", "v.jsonl")
    assert detect_format(lines) == "json"
    assert wordjson.read(lines)[0].texts == ["hello", "world", "again"]


def test_vosk_results_printed_one_after_another(tmp_path):
    """A Vosk loop's output as its examples print it (print(rec.Result()), PartialResult() and
    FinalResult()): indented objects one after another, each over several lines; it was an
    'Extra data' error. A syntax error in a later object names its line."""
    second = {"result": [{"conf": 1.0, "end": 2.5, "start": 2.0, "word": "again"}], "text": "again"}
    shown = [json.dumps(x, indent=2, separators=(",", " : ")) for x in ({"partial": "hello"}, VOSK,
                                                                    {"partial": ""}, second, {"text": ""})]
    p = dump(tmp_path, "\n".join(shown) + "\n", "vosk.json")
    (u,) = wordjson.read(p)
    assert [(w.text, w.start, w.end, w.conf) for w in u.words] == [
        ("hello", 0.42, 0.9, 1.0), ("world", 0.93, 1.5, 0.61), ("again", 2.0, 2.5, 1.0)]
    (u,) = read_any(dump(tmp_path, "\n".join(shown), "stream"))  # told by its content
    assert u.texts == ["hello", "world", "again"]
    bad = dump(tmp_path, "\n".join(shown[:2]) + '\n{\n  "result" : [\n    }\n', "bad.json")
    with pytest.raises(PunctError, match="invalid JSON Lines") as e:
        wordjson.read(bad)
    assert e.value.line == len("\n".join(shown[:2]).splitlines()) + 3
    # a stream holds objects: a CTM given as JSON is not a number (its first field) and more
    ctm = dump(tmp_path, "4320211 A 3.24 0.15 good 1.00\n4320211 A 3.39 0.27 morning 1.00\n", "c.json")
    with pytest.raises(PunctError) as e:
        wordjson.read(ctm)
    assert (e.value.message, e.value.line) == ("invalid JSON: Extra data (column 9)", 1)


def test_vosk_alternatives_take_the_best(tmp_path):
    """Vosk with SetMaxAlternatives(n) prints its results as alternatives, the best first."""
    alt = {"alternatives": [{"confidence": 210.5, "result": VOSK["result"], "text": "hello world"},
                            {"confidence": 190.1, "result": [{"word": "yellow", "start": 0.42, "end": 1.5}],
                             "text": "yellow"}]}
    silence = {"alternatives": [{"confidence": 0.0, "text": ""}]}
    (u,) = wordjson.read(dump(tmp_path, "\n".join(json.dumps(x) for x in (alt, silence, alt)), "alt.json"))
    assert [(w.text, w.start, w.end) for w in u.words] == [("hello", 0.42, 0.9), ("world", 0.93, 1.5)] * 2
    with pytest.raises(PunctError, match="no word times"):
        wordjson.read(dump(tmp_path, {"alternatives": [{"confidence": 1.0, "text": "hello"}]}))


def test_whisper_spaces_marks_and_missing_times(tmp_path):
    (u,) = wordjson.read(dump(tmp_path, WHISPER))
    assert [(w.text, w.written, w.label) for w in u.words] == [
        ("hello", "Hello", "COMMA"), ("world", None, "PERIOD"), ("how", "How", "O"), ("are", None, "O"), ("you", None, "QUESTION")]
    assert u.words[4].conf == 0.95
    whisperx = {"segments": [{"start": 0, "end": 2, "text": "It costs 20 dollars.", "speaker": "SPEAKER_00", "words": [
        {"word": "It", "start": 0.1, "end": 0.2, "score": 0.9, "speaker": "SPEAKER_00"},
        {"word": "costs", "start": 0.3, "end": 0.6, "score": 0.9, "speaker": "SPEAKER_00"},
        {"word": "20"},
        {"word": "dollars.", "start": 1.0, "end": 1.4, "score": 0.8, "speaker": "SPEAKER_01"}]}]}
    (u,) = wordjson.read(dump(tmp_path, whisperx))
    assert [(w.text, w.start, w.speaker) for w in u.words] == [
        ("it", 0.1, "SPEAKER_00"), ("costs", 0.3, "SPEAKER_00"), ("20", None, "SPEAKER_00"), ("dollars", 1.0, "SPEAKER_01")]
    assert u.speaker is None


@pytest.mark.parametrize("doc,msg", [
    ({"text": "hello world"}, "no word times (Vosk: call SetWords(True))"),
    ({"segments": [{"start": 0, "end": 1, "text": " Hello."}]}, "segments[0] has no 'words': no word times"),
    ({"result": [{"word": "a", "start": "zero", "end": 1}]}, "result[0]: 'start' is 'zero', not a number"),
    ({"result": [{"word": "a", "start": 2, "end": 1}]}, "result[0]: ends (1.0) before it starts (2.0)"),
    ({"result": [{"start": 0, "end": 1}]}, "result[0]: no word text"),
    ({"segments": []}, "no words"),
    ({"foo": 1}, "unknown JSON layout (foo)"),
    ({"format": "other", "utterances": []}, "unknown format 'other'"),
    ({"utterances": [{"id": "u", "words": [{"text": "two words"}]}]}, "holds white space"),
    ({"utterances": [{"id": "u", "words": [{"text": "a"}]}, {"id": "u", "words": [{"text": "b"}]}]},
     "utterances[1]: utterance id 'u' again (first in utterances[0])"),
    ({"utterances": [{"id": "u", "words": [{"text": "a", "mark": "xyz"}]}]},
     "utterances[0].words[0]: 'mark' 'xyz' is not punctuation"),
    ({"utterances": [{"id": "u", "words": [{"text": "a", "mark": "COMMA"}]}]}, "'mark' 'COMMA' is not punctuation"),
])
def test_errors(tmp_path, doc, msg):
    with pytest.raises(PunctError) as e:
        wordjson.read(dump(tmp_path, doc))
    assert msg in e.value.message


def test_syntax_error_line_and_empty(tmp_path):
    p = dump(tmp_path, '{"result": [\n  {"word": "a", "start": 0, "end": 1},\n  {"word": "b" "start": 1}\n]}')
    with pytest.raises(PunctError, match="invalid JSON") as e:
        wordjson.read(p)
    assert e.value.line == 3
    with pytest.raises(PunctError, match="empty file"):
        wordjson.read(dump(tmp_path, "  \n"))
    jl = dump(tmp_path, json.dumps(VOSK) + "\n" + '{"result": [}\n', "b.jsonl")
    with pytest.raises(PunctError, match="invalid JSON Lines") as e:
        wordjson.read(jl)
    assert e.value.line == 2


def test_punct_round_trip_random(tmp_path):
    rng = random.Random(11)
    utts = []
    for i in range(4):
        words = []
        t = 0.0
        for _ in range(rng.randint(1, 50)):
            t = round(t + rng.random(), 3)
            timed = rng.random() > 0.1
            core = rng.choice(["okay", "Yes", "IBM", "naïve", "<unk>", "x&y"])
            words.append(Word(core.lower(), rng.choice(["O", "COMMA", "PERIOD", "QUESTION"]),
                              t if timed else None, round(t + 0.25, 3) if timed else None, rng.choice([None, 0.75]),
                              rng.choice([None, "S1", "S2"]), written=core if core != core.lower() else None))
        utts.append(Utterance(f"u{i}", words, recording=rng.choice([None, "rec"]), channel=rng.choice(["1", "A"]),
                              speaker=rng.choice([None, "S1"])))
    p = tmp_path / "out.json"
    wordjson.write(utts, p)
    json.loads(p.read_text())  # valid JSON
    assert read_any(p) == utts


#: whisper.cpp's -ojf output (abridged from its JSON writer): segments in milliseconds, tokens with p
WHISPER_CPP_FULL = {
    "systeminfo": "AVX = 1", "model": {"type": "base"}, "params": {"model": "ggml-base.en.bin", "language": "en"},
    "result": {"language": "en"},
    "transcription": [
        {"timestamps": {"from": "00:00:00,000", "to": "00:00:02,000"}, "offsets": {"from": 0, "to": 2000},
         "text": " And so my fellow Americans,", "tokens": [
             {"text": "[_BEG_]", "offsets": {"from": 0, "to": 0}, "id": 50363, "p": 0.9},
             {"text": " And", "offsets": {"from": 0, "to": 320}, "id": 400, "p": 0.8},
             {"text": " so", "offsets": {"from": 320, "to": 500}, "id": 370, "p": 0.95},
             {"text": " my", "offsets": {"from": 500, "to": 700}, "id": 616, "p": 0.99},
             {"text": " fellow", "offsets": {"from": 700, "to": 1100}, "id": 5891, "p": 0.97},
             {"text": " Amer", "offsets": {"from": 1100, "to": 1500}, "id": 1, "p": 0.7},
             {"text": "icans", "offsets": {"from": 1500, "to": 1900}, "id": 2, "p": 0.6},
             {"text": ",", "offsets": {"from": 1900, "to": 2000}, "id": 11, "p": 0.9},
             {"text": "[_TT_100]", "offsets": {"from": 2000, "to": 2000}, "id": 50463, "p": 0.1}]},
        {"timestamps": {"from": "00:00:02,000", "to": "00:00:03,000"}, "offsets": {"from": 2000, "to": 3000},
         "text": " ask not", "tokens": [
             {"text": " ask", "offsets": {"from": 2000, "to": 2400}, "id": 3, "p": 0.9},
             {"text": " not", "offsets": {"from": 2400, "to": 2900}, "id": 4, "p": 0.9}]}]}


def test_whisper_cpp_tokens_are_joined_into_timed_words(tmp_path):
    (u,) = wordjson.read(dump(tmp_path, WHISPER_CPP_FULL))
    assert [(w.text, w.start, w.end, w.label) for w in u.words] == [
        ("and", 0.0, 0.32, "O"), ("so", 0.32, 0.5, "O"), ("my", 0.5, 0.7, "O"), ("fellow", 0.7, 1.1, "O"),
        ("americans", 1.1, 2.0, "COMMA"), ("ask", 2.0, 2.4, "O"), ("not", 2.4, 2.9, "O")]
    assert u.words[4].conf == pytest.approx(0.6)


def test_whisper_cpp_without_tokens_is_read_one_word_a_segment_or_says_what_to_run(tmp_path):
    one = {"transcription": [{"offsets": {"from": 0, "to": 400}, "text": " hello"},
                             {"offsets": {"from": 400, "to": 900}, "text": " world."}]}
    (u,) = wordjson.read(dump(tmp_path, one))
    assert [(w.text, w.start, w.end, w.label) for w in u.words] == [("hello", 0.0, 0.4, "O"), ("world", 0.4, 0.9, "PERIOD")]
    plain = {"transcription": [{"offsets": {"from": 0, "to": 2000}, "text": " And so my fellow Americans"}]}
    with pytest.raises(PunctError, match=r"transcription\[0\] holds several words and no 'tokens'.*--output-json-full"):
        wordjson.read(dump(tmp_path, plain))
    with pytest.raises(PunctError, match="or whisper.cpp \\('transcription'\\)"):
        wordjson.read(dump(tmp_path, {"foo": 1}))
