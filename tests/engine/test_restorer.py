"""punct.engine.restorer: words to the model's tokens and back (clitics, curly apostrophes,
non-speech tokens), streams kept apart by speaker, data directories with segments, pause models
on word times, ensembles, the end of every input ending a sentence, a missing model named."""
import io

import pytest
import torch

from punct.engine.restorer import Restorer, resolve_model, stream_words
from punct.engine.vocab import Vocabulary
from punct.errors import PunctError
from punct.io import read_input
from punct.io.sentences import punctuated
from punct.io.writer import write_output
from punct.restore import restore_file
from punct.text.labels import LABELS, label_id
from punct.text.words import Utterance, Word
from tests.tiny_models import CTM, make_pause_model, make_tiny_model


@pytest.fixture(autouse=True)
def one_thread(one_torch_thread):
    """Windows of a few words run on one torch thread (tests/conftest.py)."""


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "tiny.pt"
    model, vocab = make_tiny_model(path)
    return path, model, vocab


class MarkAfter(torch.nn.Module):
    """COMMA after word id `c`, PERIOD after id `p`, else O."""

    def __init__(self, c, p):
        super().__init__()
        self.c, self.p = c, p

    def forward(self, ids, mask, feats=None):
        logits = torch.zeros(*ids.shape, len(LABELS))
        logits[..., label_id("O")] = 1.0
        logits[..., label_id("COMMA")] = (ids == self.c).float() * 2
        logits[..., label_id("PERIOD")] = (ids == self.p).float() * 3
        return logits


def test_words_to_model_tokens_and_labels_of_last_token():
    vocab = Vocabulary.build([["do", "n't", "stop", "it", "'s"]], min_count=1)
    r = Restorer(MarkAfter(vocab.id("do"), vocab.id("n't")), vocab, window=8)
    ws = [Word("don't", written="DON'T"), Word("stop"), Word("<unk>"), Word("it's"), Word("do")]
    assert [r.model_tokens(w) for w in ws] == [["do", "n't"], ["stop"], ["<unk>"], ["it", "'s"], ["do"]]
    (out,) = r.restore([Utterance("u", ws)], end_sentence=False)
    assert [w.label for w in out.words] == ["PERIOD", "O", "O", "O", "COMMA"]
    assert [punctuated(w) for w in out.words] == ["DON'T.", "stop", "<unk>", "it's", "do,"]
    assert ws[0].label == "O"  # the input is not changed


def test_curly_apostrophes_are_read_as_the_models_words():
    """Typed text and some recognizers write don\u2019t: the model reads the don't of its
    training text (it read the unknown don\u2019t's IWSLT split, do + n't, which it does not
    know together), while the output keeps the input's spelling."""
    vocab = Vocabulary.build([["don't", "stop", "it's", "o'brien"]], min_count=1)
    r = Restorer(MarkAfter(vocab.id("it's"), vocab.id("don't")), vocab, window=8)
    ws = [Word("don\u2019t"), Word("stop"), Word("it\u02bcs"), Word("o\u2018brien"), Word("it`s", written="IT`S")]
    assert [r.model_tokens(w) for w in ws] == [["don't"], ["stop"], ["it's"], ["o'brien"], ["it's"]]
    (out,) = r.restore([Utterance("u", ws)], end_sentence=False)
    assert [punctuated(w) for w in out.words] == ["don\u2019t.", "stop", "it\u02bcs,", "o\u2018brien", "IT`S,"]


def test_a_clitic_written_apart_joins_the_word_before_when_the_model_knows_the_pair():
    """``I 'm`` is read as the model's one word ``i'm`` (a vocabulary of ASR spelling, without
    ``'m``): the pair's mark goes to the clitic and none to the word before; a clitic the
    model knows, or a pair it does not, stays apart."""
    vocab = Vocabulary.build([["i'm", "here", "don't", "go", "'s"]], min_count=1)
    r = Restorer(MarkAfter(vocab.id("i'm"), vocab.id("go")), vocab, window=8)
    ws = [Word("I", written="I"), Word("'m"), Word("here"), Word("do"), Word("n't"), Word("go"), Word("it"), Word("'s"),
          Word("we"), Word("'re")]
    assert [[w.text for w in u] for u in r._units(ws)] == [["I", "'m"], ["here"], ["do", "n't"], ["go"], ["it"], ["'s"],
                                                         ["we"], ["'re"]]
    (out,) = r.restore([Utterance("u", ws)], end_sentence=False)
    assert [w.label for w in out.words] == ["O", "COMMA", "O", "O", "O", "PERIOD", "O", "O", "O", "O"]
    # the end of the input decides from the posteriors of the pair's last word
    (out,) = r.restore([Utterance("u", ws[:2])])
    assert [w.label for w in out.words] == ["O", "PERIOD"]


def test_streams_keep_speakers_apart():
    a1 = Utterance("a1", [Word("x")], recording="r", speaker="A")
    a2 = Utterance("a2", [Word("y")], recording="r", speaker="A")
    b1 = Utterance("b1", [Word("z")], recording="r", speaker="B")
    lone = Utterance("t", [Word("p", speaker="S1"), Word("q", speaker="S1"), Word("s", speaker="S2")])
    assert [[w.text for w in s] for s in stream_words([a1, a2, b1, lone])] == [["x", "y"], ["z"], ["p", "q", "s"]]
    assert [[w.text for w in s] for s in stream_words([lone], speaker_breaks=True)] == [["p", "q"], ["s"]]
    vocab = Vocabulary.build([["p", "q", "s"]], min_count=1)
    r = Restorer(MarkAfter(-1, -1), vocab, window=8)  # predicts O everywhere
    assert [w.label for w in r.restore([lone], end_sentence=False)[0].words] == ["O", "O", "O"]
    # the end of the input ends a sentence; a speaker change inside it only with speaker_breaks
    assert [w.label for w in r.restore([lone])[0].words] == ["O", "O", "PERIOD"]
    assert [w.label for w in r.restore([lone], speaker_breaks=True)[0].words] == ["O", "PERIOD", "PERIOD"]


def test_missing_default_model_is_a_clear_error(monkeypatch, tmp_path):
    from punct.engine import restorer

    monkeypatch.setattr(restorer, "DEFAULT_MODEL", tmp_path / "models" / "default.pt")
    with pytest.raises(PunctError) as e:
        resolve_model(None)
    assert "--model" in str(e.value) and "models/default.pt" in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(PunctError, match="model file not found"):
        resolve_model(tmp_path / "nope.pt")


def test_datadir_with_segments_ctm(tiny, tmp_path):
    model_path, _, _ = tiny
    d = tmp_path / "data"
    d.mkdir()
    (d / "segments").write_text("s-1 call 10.0 12.0\ns-2 call 12.5 14.0\n")
    (d / "utt2spk").write_text("s-1 s\ns-2 s\n")
    (d / "ctm").write_text("s-1 1 0.10 0.20 good\ns-1 1 0.40 0.20 morning\ns-2 1 0.00 0.30 thank\ns-2 1 0.40 0.20 you\n")
    hyp = restore_file(d, tmp_path / "o.ctm", model=model_path)
    assert [u.id for u in hyp] == ["s-1", "s-2"]
    lines = [line for line in (tmp_path / "o.ctm").read_text().splitlines() if not line.startswith(";;")]
    assert [line.split()[:3] for line in lines] == [["call", "1", "10.10"], ["call", "1", "10.40"], ["call", "1", "12.50"],
                                                     ["call", "1", "12.90"]]
    # the same words as a CTM of the recording (absolute times, as asr_decode writes beside
    # segments) give the same utterances, speakers and output
    (d / "ctm").write_text("call 1 10.10 0.20 good\ncall 1 10.40 0.20 morning\ncall 1 12.50 0.30 thank\n"
                           "call 1 12.90 0.20 you\n")
    again = restore_file(d, tmp_path / "r.ctm", model=model_path)
    assert [(u.id, u.speaker) for u in again] == [("s-1", "s"), ("s-2", "s")]
    assert (tmp_path / "r.ctm").read_text() == (tmp_path / "o.ctm").read_text()
    # and so does the CTM given on its own with the segments file (restore --segments)
    assert [(u.id, u.texts) for u in read_input(d / "ctm", segments=d / "segments")] == \
        [("s-1", ["good", "morning"]), ("s-2", ["thank", "you"])]


def test_datadir_text_with_segments_is_read_in_recordings(tiny, tmp_path):
    """A data directory without a ctm: with segments its utterances get their recordings and
    time order (speaker-first ids sort otherwise), so a speaker's consecutive segments are one
    decoding stream, as when it is read from its ctm."""
    from punct.data.datadir import write_datadir
    from punct.engine.restorer import stream_words

    model_path, _, _ = tiny
    d = tmp_path / "data"
    write_datadir(d, [Utterance("a-call-1", [Word("good"), Word("morning")], speaker="a"),
                      Utterance("a-call-3", [Word("thank"), Word("you")], speaker="a"),
                      Utterance("a-call-4", [Word("bye")], speaker="a"),
                      Utterance("b-call-2", [Word("hello")], speaker="b")])
    assert [len(s) for s in stream_words(read_input(d))] == [2, 2, 1, 1]  # no recording: one stream each
    segments = "a-call-1 call 0.0 2.0\nb-call-2 call 2.0 3.0\na-call-3 call 3.0 4.0\na-call-4 call 4.5 5.0\n"
    (d / "segments").write_text(segments)
    utts = read_input(d)
    assert [u.id for u in utts] == ["a-call-1", "b-call-2", "a-call-3", "a-call-4"]
    assert {u.recording for u in utts} == {"call"}
    assert [[w.text for w in s] for s in stream_words(utts)] == [["good", "morning"], ["hello"], ["thank", "you", "bye"]]
    assert len(restore_file(d, tmp_path / "out.txt", model=model_path)) == 4
    (d / "segments").write_text(segments.replace("a-call-4 call 4.5 5.0\n", ""))
    with pytest.raises(PunctError, match="utterance 'a-call-4' of text is not in segments"):
        read_input(d)


def test_a_pause_model_restores_a_ctm_from_its_word_times(tmp_path):
    """Pause features come from the CTM's times: a period after each word followed by a long
    pause (the last token of a split word carries the word's pause), none elsewhere."""
    make_pause_model(tmp_path / "pause.pt")
    words = "GOOD MORNING AND WELCOME TO THE CALL DON'T WE GREW REVENUE SO".split()
    gap_after = {1, 6, 7}  # MORNING, CALL, DON'T: then a 1 s pause
    t, lines = 0.0, []
    for i, w in enumerate(words):
        lines.append(f"call A {t:.2f} 0.30 {w}\n")
        t += 0.3 + (1.0 if i in gap_after else 0.02)
    (tmp_path / "call.ctm").write_text("".join(lines))
    hyp = restore_file(tmp_path / "call.ctm", tmp_path / "out.ctm", model=tmp_path / "pause.pt")
    labels = [w.label for w in hyp[0].words]
    assert [i for i, lab in enumerate(labels) if lab != "O"] == [1, 6, 7, 11]  # and the last word (recording end)
    assert set(labels) == {"O", "PERIOD"}
    r = Restorer.load(tmp_path / "pause.pt")
    assert r.model_tokens(hyp[0].words[7]) == ["do", "n't"]


def test_nonspeech_tokens_are_not_read_and_get_no_mark(tmp_path, tiny):
    """[noise], <sil> ... stay in the output with their times and no mark; the model reads
    the words around them as if they were not there (the same labels, and the pause runs
    from word to word); <unk> is a word."""
    from punct.text.words import is_nonspeech

    assert [is_nonspeech(Word(t)) for t in ("[noise]", "<sil>", "<SPOKEN_NOISE>", "!SIL", "<unk>", "<UNK>", "[",
                                            "word")] == [True, True, True, True, False, False, False, False]
    make_pause_model(tmp_path / "pause.pt")
    words = "GOOD MORNING AND WELCOME TO THE CALL DON'T WE GREW REVENUE SO".split()
    gap_after = {1, 6, 7}
    t, plain, noisy = 0.0, [], []
    for i, w in enumerate(words):
        plain.append(f"call A {t:.2f} 0.30 {w}\n")
        noisy.append(plain[-1])
        if i in gap_after:  # a non-speech token inside the long pause, marked as the input had it
            noisy.append(f"call A {t + 0.6:.2f} 0.40 [NOISE].\n")
        if i == 2:  # and one in the short gap after AND
            noisy.append(f"call A {t + 0.3:.2f} 0.02 <sil>\n")
        t += 0.3 + (1.0 if i in gap_after else 0.02)
    (tmp_path / "plain.ctm").write_text("".join(plain))
    (tmp_path / "noisy.ctm").write_text("".join(noisy))
    for model in (tmp_path / "pause.pt", tiny[0]):
        want = [w.label for w in restore_file(tmp_path / "plain.ctm", None, model=model, stdout=io.StringIO())[0].words]
        if model.name == "pause.pt":  # the pause after MORNING, CALL, DON'T is still the second before the next word
            assert [i for i, lab in enumerate(want) if lab != "O"] == [1, 6, 7, 11]
        hyp = restore_file(tmp_path / "noisy.ctm", tmp_path / "out.ctm", model=model)[0].words
        assert [w.label for w in hyp if not is_nonspeech(w)] == want
        assert {(w.written or w.text, w.label) for w in hyp if is_nonspeech(w)} == {("[NOISE]", "O"), ("<sil>", "O")}
        out = [line for line in (tmp_path / "out.ctm").read_text().splitlines() if not line.startswith(";;")]
        assert len(out) == len(noisy) and "call A 0.92 0.40 [NOISE]" in out


def test_pause_model_on_words_without_times_never_fails(tmp_path):
    make_pause_model(tmp_path / "pause.pt")
    (tmp_path / "t.txt").write_text("good morning and welcome to the call\n")
    hyp = restore_file(tmp_path / "t.txt", tmp_path / "out.txt", model=tmp_path / "pause.pt")
    # no evidence: the acoustic model puts no boundary, but the end of the input ends a sentence
    assert [w.label for w in hyp[0].words][:6] == ["O"] * 6 and hyp[0].words[6].label in ("PERIOD", "QUESTION")


def test_a_model_that_needs_audio_features_is_refused_without_audio(tmp_path):
    make_pause_model(tmp_path / "ppe.pt", sets=("pause", "prosody"), columns=("pause_after",))
    (tmp_path / "t.txt").write_text("good morning and welcome to the call\n")
    with pytest.raises(PunctError, match="pitch and energy need the audio: give a data directory with wav.scp"):
        restore_file(tmp_path / "t.txt", tmp_path / "out.txt", model=tmp_path / "ppe.pt")
    assert not (tmp_path / "out.txt").exists()


def test_ensemble_restore_is_the_argmax_of_the_mean_posteriors(tiny, tmp_path):
    """Two models restore a CTM together: each word takes the label of the weighted mean of the
    posteriors of its last token under each model, each decoded as it would be alone."""
    import numpy as np

    from punct.engine.infer import run_streams
    from punct.engine.restorer import EnsembleRestorer

    path_a, model_a, vocab = tiny
    path_b = tmp_path / "b.pt"
    model_b, _ = make_tiny_model(path_b, seed=5)
    src = tmp_path / "call.ctm"
    src.write_text(CTM)
    (inp,) = read_input(src)
    hyp = restore_file(src, tmp_path / "out.ctm", model=[path_a, path_b], weights=[1, 3])
    r = Restorer(model_a, vocab, window=16)
    toks = [r._encoded(w)[1] for w in inp.words]
    ends = [sum(len(t) for t in toks[: k + 1]) - 1 for k in range(len(toks))]
    stream = [i for t in toks for i in t]
    post = [run_streams(m, [stream], window=16, probs=True)[1][0] for m in (model_a, model_b)]
    mean = 0.25 * post[0] + 0.75 * post[1]
    labels = [w.label for w in hyp[0].words]
    assert labels == [LABELS[int(mean[e].argmax())] for e in ends]
    singles = [[LABELS[int(p[e].argmax())] for e in ends] for p in post]
    assert singles[0] != singles[1] and labels not in singles[:1]
    # the same model twice restores as it does alone
    alone = [w.label for w in Restorer.load(path_a).restore([inp])[0].words]
    twice = [w.label for w in EnsembleRestorer.load([path_a, path_a]).restore([inp])[0].words]
    assert twice == alone
    assert np.isclose(mean.sum(-1), 1.0).all()


class EndModel(torch.nn.Module):
    """O after every word, QUESTION before PERIOD after word id `q`, PERIOD before QUESTION elsewhere."""

    def __init__(self, q):
        super().__init__()
        self.q = q

    def forward(self, ids, mask, feats=None):
        logits = torch.zeros(*ids.shape, len(LABELS))
        logits[..., label_id("O")] = 5.0
        logits[..., label_id("QUESTION")] = (ids == self.q).float() * 2 - 1
        return logits


@pytest.mark.parametrize("fmt, ext", [("text", ".txt"), ("ctm", ".ctm"), ("json", ".json"), ("textgrid", ".TextGrid")])
def test_the_end_of_every_input_ends_a_sentence(tmp_path, fmt, ext):
    """The last word of a text, a JSON transcript, each CTM recording and each TextGrid speaker takes
    PERIOD or QUESTION (as the posteriors there favour), the other words keep the model's O."""
    vocab = Vocabulary.build([["so", "what", "is", "next", "thank", "you"]], min_count=1)
    r = Restorer(EndModel(vocab.id("next")), vocab, window=4)

    def utt(uid, text, rec, spk=None, t0=0.0):
        return Utterance(uid, [Word(x, start=t0 + k, end=t0 + k + 0.5) for k, x in enumerate(text.split())],
                         recording=rec, speaker=spk)

    if fmt == "ctm":  # two recordings
        utts = [utt("a", "so what is next", "a"), utt("b", "thank you so what", "b")]
    elif fmt == "textgrid":  # two speakers' tiers of one recording
        utts = [utt("r-A", "so what is next", "r", "A"), utt("r-B", "thank you so what", "r", "B", 0.2)]
    else:
        utts = [utt("r", "thank you so what is next", "r")]
    src = tmp_path / f"in{ext}"
    write_output(utts, src, fmt)
    inp = read_input(src)
    out = r.restore(inp)
    got = {tuple(w.text for w in u.words): [w.label for w in u.words] for u in out}
    want = {tuple(u.texts): ["O"] * (len(u) - 1) + ["QUESTION" if u.words[-1].text == "next" else "PERIOD"]
            for u in utts}
    assert got == want
    assert all(lab == "O" for u in r.restore(inp, end_sentence=False) for lab in u.labels)


def test_the_end_of_input_in_an_ensemble_and_the_command(tiny, tmp_path, monkeypatch, capsys):
    from punct.bin.restore import main
    from punct.engine.restorer import EnsembleRestorer

    model_path, model, vocab = tiny
    inp = [Utterance("u", [Word(x) for x in "we grew revenue so what is next thank you".split()])]
    for r in (EnsembleRestorer([Restorer(model, vocab, window=16)] * 2), Restorer(model, vocab, window=16)):
        assert r.restore(inp)[0].words[-1].label in ("PERIOD", "QUESTION")
    eb = EnsembleRestorer([Restorer(EndModel(vocab.id("what")), vocab, window=4)], bias=[0, 0, 0])
    assert eb.restore(inp)[0].words[-1].label == "PERIOD"
    eq = EnsembleRestorer([Restorer(EndModel(vocab.id("what")), vocab, window=4)], bias=[0, 0, 2.5])
    assert eq.restore(inp)[0].words[-1].label == "QUESTION"  # the bias moves the choice between the two
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"what is next\n")))
    assert main(["-", "--model", str(model_path)]) == 0
    assert capsys.readouterr().out.rstrip()[-1] in ".?"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"what is next\n")))
    assert main(["-", "--model", str(model_path), "--no-end-sentence"]) == 0
    out = capsys.readouterr().out
    assert out.split()[:3] == [x.rstrip(",.?") for x in out.split()][:2] + [out.split()[2]]
