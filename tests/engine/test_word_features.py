"""Features a model reads, where punct restore and punct decode get them
(punct.engine.word_features): a data directory's stage-4 files, pitch and energy computed
from its wav.scp, or from --audio beside a CTM; the same labels every way."""
import wave

import numpy as np
import pytest

from punct.data.datadir import load_utterances, write_datadir
from punct.engine.vocab import Vocabulary
from punct.errors import PunctError
from punct.text.labels import LABELS
from punct.text.words import Utterance, Word

RATE = 16000
WORDS = "so we grew revenue this quarter and margins held up well thanks".split()
LOUD = {1, 4, 5, 9}  # words spoken loudly: the energy model below puts a mark after them


def _tone(seconds: float, amp: float) -> np.ndarray:
    t = np.arange(int(seconds * RATE)) / RATE
    return amp * np.sin(2 * np.pi * 150 * t)


@pytest.fixture
def call(tmp_path):
    """A data directory of one recording whose words alternate loud and quiet 150 Hz tones
    (0.3 s each, 0.1 s of silence between), with its audio and word times."""
    parts, words, t = [], [], 0.0
    for i, w in enumerate(WORDS):
        parts += [_tone(0.3, 0.5 if i in LOUD else 0.05), np.zeros(int(0.1 * RATE))]
        words.append(Word(text=w, start=round(t, 2), end=round(t + 0.3, 2)))
        t += 0.4
    audio = tmp_path / "call.wav"
    with wave.open(str(audio), "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(RATE)
        f.writeframes((np.concatenate(parts) * 32767).astype("<i2").tobytes())
    data = tmp_path / "data"
    write_datadir(data, [Utterance(id="call", words=words, speaker="spk")])
    (data / "wav.scp").write_text(f"call {audio}\n")
    (tmp_path / "call.ctm").write_text("".join(f"call 1 {w.start:.2f} 0.30 {w.text}\n" for w in words))
    return data, audio


def _energy_model(path):
    """Che et al.'s Pause mapping read off the words' mean energy (z-scored per speaker): a
    boundary after a loud word. It reads the pause and prosody sets, as a PPE model does."""
    from punct.engine import checkpoint
    from punct.engine.inputs import FeatureInputs
    from punct.models import resolved_model_args

    vocab = Vocabulary.build([WORDS], min_count=1)
    inputs = FeatureInputs(vocab, ["pause", "prosody"], ["energy_mean"], normalize=False)
    args = resolved_model_args("che_pause", {"feature_names": ["energy_mean"], "pause_column": "energy_mean"})
    checkpoint.save(path, {"model": "che_pause", "model_args": args, "vocab": vocab.to_list(), "labels": list(LABELS),
                           "state_dict": {}, "inputs": inputs.state(),
                           "train_config": {"slice_length": 8, "batch_size": 4}})
    return path


def _marked(labels):
    return {i for i, lab in enumerate(labels[:-1]) if lab != "O"}  # the last word ends the input anyway


def test_pitch_and_energy_come_from_the_audio_the_files_or_audio_beside_a_ctm(call, tmp_path):
    from punct.bin import prosody_feats
    from punct.engine.decode import decode
    from punct.restore import restore_file

    data, audio = call
    model = _energy_model(tmp_path / "ppe.pt")
    # a data directory with wav.scp: computed now, as stage 4 would
    restored = restore_file(data, tmp_path / "r1", model=model, output_format_name="datadir")
    labels = [w.label for w in restored[0].words]
    assert _marked(labels) == LOUD
    assert [w.label for w in decode(model, data)[0].words] == labels
    # a CTM and its audio file
    by_ctm = restore_file(tmp_path / "call.ctm", tmp_path / "r2.ctm", model=model, audio=audio)
    assert [w.label for w in by_ctm[0].words] == labels
    # or a table of recordings
    (tmp_path / "audio.scp").write_text(f"call {audio}\n")
    by_table = restore_file(tmp_path / "call.ctm", tmp_path / "r3.ctm", model=model, audio=tmp_path / "audio.scp")
    assert [w.label for w in by_table[0].words] == labels
    # stage 4's files, then without the audio at all: the same labels
    exp = tmp_path / "exp"
    assert prosody_feats.main(["--data", str(data), "--out-dir", str(exp / "part.1")]) == 0
    assert prosody_feats.main(["--merge", "1", "--data", str(data), "--out-dir", str(exp)]) == 0
    (data / "wav.scp").unlink()
    assert [w.label for w in decode(model, data)[0].words] == labels
    again = restore_file(data, tmp_path / "r4", model=model, output_format_name="datadir")
    assert [w.label for w in again[0].words] == labels
    assert [u.labels for u in load_utterances(tmp_path / "r4")] == [labels]


def test_a_model_that_reads_prosody_needs_audio_said_in_one_line(call, tmp_path):
    from punct.restore import restore_file

    data, audio = call
    model = _energy_model(tmp_path / "ppe.pt")
    with pytest.raises(PunctError, match=r"pitch and energy need the audio: .* or --audio"):
        restore_file(tmp_path / "call.ctm", tmp_path / "o.ctm", model=model)
    (data / "wav.scp").unlink()
    with pytest.raises(PunctError, match="this data directory has neither prosody.scp nor wav.scp"):
        restore_file(data, tmp_path / "o", model=model, output_format_name="datadir")
    (tmp_path / "two.ctm").write_text((tmp_path / "call.ctm").read_text().replace("call 1 ", "other 1 ", 3)
                                      + (tmp_path / "call.ctm").read_text())
    with pytest.raises(PunctError, match="one audio file for an input of 2 recordings"):
        restore_file(tmp_path / "two.ctm", tmp_path / "o.ctm", model=model, audio=audio)
    (tmp_path / "audio.scp").write_text(f"call {audio}\n")
    with pytest.raises(PunctError, match="recording 'other' of the input has no audio here"):
        restore_file(tmp_path / "two.ctm", tmp_path / "o.ctm", model=model, audio=tmp_path / "audio.scp")
    assert not (tmp_path / "o.ctm").exists() and not (tmp_path / "o").exists()


def test_pauses_skip_nonspeech_tokens_and_their_rows_are_zero():
    from punct.engine.word_features import speech_pauses
    from punct.prosody.pause import PAUSE_FEATURES

    u = Utterance(id="u", words=[Word("a", start=0.0, end=0.3), Word("[noise]", start=0.4, end=0.9),
                                 Word("b", start=1.3, end=1.5)])
    f = speech_pauses([u])
    m = f.by_utt["u"]
    pa = PAUSE_FEATURES.index("pause_after")
    assert f.names == list(PAUSE_FEATURES) and m.shape == (3, len(PAUSE_FEATURES))
    assert m[0, pa] == pytest.approx(1.0) and not m[1].any()


def test_live_refuses_a_model_that_reads_prosody_before_reading(tmp_path, capsys):
    from punct.bin import restore as restore_bin

    model = _energy_model(tmp_path / "ppe.pt")
    (tmp_path / "words.txt").write_text("so we grew revenue\n")
    assert restore_bin.main(["--live", str(tmp_path / "words.txt"), "--model", str(model)]) == 1
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "error: --live gives a model the pauses of the words' times only; this one reads feature sets "
        "['pause', 'prosody'] (pitch and energy need the audio: restore the whole input with --audio instead)")
