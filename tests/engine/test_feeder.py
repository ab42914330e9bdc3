"""One feeder: punct decode of a data directory and punct restore of the same words give
every word the same label (punct.engine.decode runs punct.engine.restorer's Restorer)."""
import random

import pytest

from punct.io import read_input
from punct.restore import restore_file
from punct.text.words import Utterance, Word
from tests.tiny_models import WORDS, make_tiny_model


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "tiny.pt"
    model, vocab = make_tiny_model(path)
    return path, model, vocab


def test_restore_and_decode_agree_on_a_data_directory(tiny, tmp_path):
    """The same words through punct decode and punct restore (one model, and an ensemble with
    weights and a bias) get the same labels: both run the one inference path."""
    from punct.data.datadir import load_utterances, write_datadir
    from punct.engine.decode import decode, decode_ensemble

    path_a, _, _ = tiny
    path_b = tmp_path / "b.pt"
    make_tiny_model(path_b, seed=5)
    rng = random.Random(4)
    utts = [Utterance(id=f"u{k}", words=[Word(text=rng.choice(WORDS)) for _ in range(rng.randint(1, 60))])
            for k in range(6)]
    data = tmp_path / "data"
    write_datadir(data, utts)

    def restored(end_sentence=True, **kw):
        out = tmp_path / f"out{len(list(tmp_path.iterdir()))}"
        restore_file(data, out, output_format_name="datadir", end_sentence=end_sentence, **kw)
        return [[w.label for w in u.words] for u in load_utterances(out)]

    for end in (True, False):  # with and without the end of each input as a sentence end
        one = [[w.label for w in u.words] for u in decode(path_a, data, end_sentence=end)]
        assert len({x for u in one for x in u}) > 1  # the labels vary, so agreement means something
        assert not end or all(u[-1] in ("PERIOD", "QUESTION") for u in one)
        assert restored(end, model=path_a) == one
        ens = [[w.label for w in u.words]
               for u in decode_ensemble([path_a, path_b], data, weights=[1, 3], bias=[0.3, 0, 0.5], end_sentence=end)]
        assert ens != one
        assert restored(end, model=[path_a, path_b], weights=[1, 3], bias=[0.3, 0, 0.5]) == ens


def test_decode_of_a_data_directory_made_from_a_ctm_labels_it_as_restore_of_the_ctm(tiny, tmp_path):
    """A Kaldi CTM with <unk>, non-speech tokens, curly apostrophes and clitics (two calls):
    punct restore of the CTM and punct decode of a data directory of the same words give
    every word the same label (the one feeder: the same tokens, streams and input ends)."""
    from punct.data.datadir import write_datadir
    from punct.engine.decode import decode

    path, _, _ = tiny
    rng = random.Random(7)
    vocab = WORDS + ["<unk>", "[noise]", "don\u2019t", "it's", "i", "'m"]
    lines = []
    for call in ("call1", "call2"):
        t = 0.0
        for _ in range(150):
            t += rng.choice((0.05, 0.1, 0.9))
            lines.append(f"{call} A {t:.2f} 0.30 {rng.choice(vocab)}\n")
            t += 0.3
    (tmp_path / "in.ctm").write_text("".join(lines))
    data = tmp_path / "data"
    write_datadir(data, read_input(tmp_path / "in.ctm"))
    by_restore = {u.id: [w.label for w in u.words] for u in restore_file(tmp_path / "in.ctm", tmp_path / "out.ctm",
                                                                         model=path)}
    by_decode = {u.id: [w.label for w in u.words] for u in decode(path, data)}
    assert by_decode == by_restore and set(by_decode) == {"call1", "call2"}
    assert len({x for v in by_decode.values() for x in v}) > 2
