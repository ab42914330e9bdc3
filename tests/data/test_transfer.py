"""punct.data.transfer: the word alignment (edit distance, bit-parallel and plain DP agreeing,
optimal on random pairs) and the reference marks carried onto hypothesis words."""
import random

import pytest

import punct.data.editdist as E
from punct.data.transfer import AlignOp, align, align_ids, normalize_word, transfer_marks
from punct.text.words import Word


def ops_str(al) -> str:
    """Ops as a compact string: M0:0 S1:1 D2 I:3."""
    out = []
    for o in al.ops:
        if o.op == "ins":
            out.append(f"I:{o.hyp}")
        elif o.op == "del":
            out.append(f"D{o.ref}")
        else:
            out.append(f"{'M' if o.op == 'match' else 'S'}{o.ref}:{o.hyp}")
    return " ".join(out)


@pytest.mark.parametrize(
    "ref,hyp,expected",
    [
        ("a b c", "a b c", "M0:0 M1:1 M2:2"),
        # insertion after a word that carries a mark in the reference
        ("so, we went", "so uh we went", "M0:0 I:1 M1:2 M2:3"),
        # deletion of the word that carries the mark
        ("we grew revenue. did", "we grew did", "M0:0 M1:1 D2 M3:2"),
        # substitutions of the marked word and an insertion: in a run of unmatched
        # words the substitutions go to its end, so the mark stays on the last word
        ("margins improve?", "margin improved too", "I:0 S0:1 S1:2"),
        # deletion and substitution next to each other: the later word is substituted
        ("a b c d", "a x d", "M0:0 D1 S2:1 M3:2"),
        # among equally short alignments the one with more matches wins
        ("a b", "b c", "D0 M1:0 I:1"),
        # a repeated word: the first copy is the one deleted (anchored at the end)
        ("support our, our growth", "support our growth", "M0:0 D1 M2:1 M3:2"),
        ("a a", "a", "D0 M1:0"),
        ("", "a b", "I:0 I:1"),
        ("a b", "", "D0 D1"),
        ("", "", ""),
        ("a b c", "x y z", "S0:0 S1:1 S2:2"),
        # case, marks, quotes, abbreviation dots and cut-off hyphens do not count
        ("hello world", "Hello, \"World.\"", "M0:0 M1:1"),
        ("the us economy", "the- U.S. economy", "M0:0 M1:1 M2:2"),
        # clitics split off (IWSLT style) match the joined form, both ways
        ("we 're here", "we're here", "M0:0 M1:0 M2:1"),
        ("we're here", "we 're here", "M0:0 M0:1 M1:2"),
        ("do n't go", "don't go", "M0:0 M1:0 M2:1"),
        ("it 's fine", "its fine", "D0 S1:0 M2:1"),
    ],
)
def test_alignment_table(ref, hyp, expected):
    al = align(ref.split(), hyp.split())
    assert ops_str(al) == expected


@pytest.mark.parametrize(
    "word,key",
    [("Hello,", "hello"), ("U.S.", "us"), ("p.m.", "pm"), ("4.1", "4.1"), ("the-", "the"), ("COVID-19", "covid-19"),
     ("\u201cWorld\u201d", "world"), ("We\u2019re", "we're"), ("&", "&"), ("20%", "20"), ("'90s", "90s")],
)
def test_normalize_word(word, key):
    assert normalize_word(word) == key


def test_normalizer_can_be_replaced():
    assert ops_str(align(["Hello"], ["hello"])) == "M0:0"
    assert ops_str(align(["Hello"], ["hello"], normalize=lambda w: w)) == "S0:0"


def test_counts_and_wer():
    al = align("a b c d e".split(), "a x c e f g".split())
    assert (al.matches, al.substitutions, al.deletions, al.insertions) == (3, 1, 1, 2)
    assert al.errors == 4 and al.wer == pytest.approx(80.0)
    assert align([], ["a"]).wer is None


# --- exactness against independent implementations ----------------------------


def plain_dp(a, b) -> int:
    """Levenshtein distance, the textbook full table."""
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1]))
        prev = cur
    return prev[-1]


def bitparallel(a, b) -> int:
    """Levenshtein distance by Myers' bit-vector algorithm (global form, Hyyrö 2001)."""
    m = len(a)
    if m == 0:
        return len(b)
    peq: dict = {}
    for i, c in enumerate(a):
        peq[c] = peq.get(c, 0) | (1 << i)
    mask, high = (1 << m) - 1, 1 << (m - 1)
    vp, vn, score = mask, 0, m
    for c in b:
        eq = peq.get(c, 0)
        xv = eq | vn
        xh = (((eq & vp) + vp) ^ vp) | eq
        hp = vn | ~(xh | vp)
        hn = vp & xh
        if hp & high:
            score += 1
        elif hn & high:
            score -= 1
        hp = ((hp << 1) | 1) & mask
        hn = (hn << 1) & mask
        vp = (hn | ~(xv | hp)) & mask
        vn = hp & xv
    return score


def mutate(rng, a, rate, vocab):
    b = []
    for x in a:
        r = rng.random()
        if r < rate / 3:
            continue
        if r < 2 * rate / 3:
            b.append(rng.randrange(vocab))
            continue
        b.append(x)
        if r < rate:
            b.append(rng.randrange(vocab))
    return b


def check_ops(ops, a, b):
    """Ops walk both sequences in order, and match exactly where the items are equal."""
    i = j = 0
    for op, x, y in ops:
        if op in ("match", "sub"):
            assert (x, y) == (i, j) and (a[x] == b[y]) == (op == "match")
            i, j = i + 1, j + 1
        elif op == "del":
            assert x == i
            i += 1
        else:
            assert op == "ins" and y == j
            j += 1
    assert (i, j) == (len(a), len(b))


def test_bitparallel_reference_agrees_with_plain_dp():
    rng = random.Random(5)
    for _ in range(200):
        a = [rng.randrange(4) for _ in range(rng.randint(0, 12))]
        b = [rng.randrange(4) for _ in range(rng.randint(0, 12))]
        assert bitparallel(a, b) == plain_dp(a, b)


@pytest.mark.parametrize("base_cells", [E.BASE_CELLS, 16])
def test_small_random_pairs_are_optimal(monkeypatch, base_cells):
    """Many ties (tiny vocabularies); a tiny BASE_CELLS forces the band and Hirschberg splits."""
    monkeypatch.setattr(E, "BASE_CELLS", base_cells)
    rng = random.Random(11)
    for _ in range(300):
        vocab = rng.choice([2, 3, 10, 100])
        a = [rng.randrange(vocab) for _ in range(rng.randint(0, 30))]
        b = mutate(rng, a, rng.choice([0.1, 0.5, 1.0]), vocab) if rng.random() < 0.8 else \
            [rng.randrange(vocab) for _ in range(rng.randint(0, 30))]
        ops = align_ids(a, b)
        check_ops(ops, a, b)
        assert sum(op != "match" for op, _, _ in ops) == plain_dp(a, b), (a, b)


@pytest.mark.parametrize("base_cells", [E.BASE_CELLS, 4096])
def test_long_pair_matches_reference_distance(monkeypatch, base_cells):
    monkeypatch.setattr(E, "BASE_CELLS", base_cells)
    rng = random.Random(3)
    a = [rng.randrange(400) for _ in range(3000)]
    b = mutate(rng, a, 0.2, 400)
    b[1000:1000] = [rng.randrange(400) for _ in range(150)]  # a burst of insertions shifts the diagonal
    del b[2000:2080]
    ops = align_ids(a, b)
    check_ops(ops, a, b)
    assert sum(op != "match" for op, _, _ in ops) == bitparallel(a, b)


def test_words_align_the_same_as_ids():
    rng = random.Random(8)
    a = [f"w{rng.randrange(50)}" for _ in range(500)]
    b = [f"w{x}" for x in mutate(rng, [int(w[1:]) for w in a], 0.3, 50)]
    assert align(a, b).errors == bitparallel(a, b)


# --- mark transfer ----------------------------------------------------------------


def words(spec: str) -> list[Word]:
    """'so/COMMA we grew' -> Words with labels."""
    out = []
    for tok in spec.split():
        text, _, lab = tok.partition("/")
        out.append(Word(text, lab or "O"))
    return out


@pytest.mark.parametrize(
    "ref,hyp,labels,stats",
    [
        # identical words: every mark carried
        ("a/COMMA b c/PERIOD", "a b c", "COMMA O PERIOD", dict(carried=2, moved=0, dropped=0, on_deleted=0)),
        # the marked word is substituted: the mark stays on the substitute
        ("we grew revenue/PERIOD", "we grew revenues", "O O PERIOD", dict(carried=1, moved=0, dropped=0)),
        # the marked word is deleted: the mark moves to the preceding hypothesis word
        ("we grew revenue/PERIOD did", "we grew did", "O PERIOD O", dict(carried=0, moved=1, dropped=0, on_deleted=1)),
        # an inserted word gets no mark
        ("so/COMMA we", "so uh we", "COMMA O O", dict(carried=1, insertions=1)),
        # a deleted first word: no preceding word, the mark is dropped
        ("yes/COMMA we did/PERIOD", "we did", "O PERIOD", dict(carried=1, dropped_no_word=1, on_deleted=1)),
        # a moved comma meets a period: the stronger wins, the comma is lost
        ("improve/PERIOD uh/COMMA they", "improve they", "PERIOD O", dict(carried=1, moved=0, dropped_merged=1)),
        # a moved question mark beats the comma already there
        ("so/COMMA right/QUESTION they", "so they", "QUESTION O", dict(carried=0, moved=1, dropped_merged=1)),
        # everything deleted
        ("a/COMMA b/PERIOD", "", "", dict(dropped_no_word=2, deletions=2)),
        # everything inserted
        ("", "a b", "O O", dict(marks=0, insertions=2)),
        # clitic styles differ: the mark after "'re" lands on "we're"
        ("we 're/COMMA here/PERIOD", "we're here", "COMMA PERIOD", dict(carried=2, matches=3)),
    ],
)
def test_transfer_table(ref, hyp, labels, stats):
    r, h = words(ref), words(hyp)
    out, st = transfer_marks(r, h)
    assert " ".join(w.label for w in out) == labels
    for k, v in stats.items():
        assert getattr(st, k) == v, k
    assert st.carried + st.moved + st.dropped == st.marks == sum(w.label != "O" for w in r)


def test_transfer_keeps_times_and_speakers_and_replaces_hyp_labels():
    ref = words("hello/COMMA world/PERIOD")
    hyp = [Word("hello", "QUESTION", 0.5, 0.9, 0.8, "A"), Word("word", "O", 1.0, 1.4, None, "A")]
    out, st = transfer_marks(ref, hyp)
    assert [(w.text, w.label, w.start, w.end, w.conf, w.speaker) for w in out] == [
        ("hello", "COMMA", 0.5, 0.9, 0.8, "A"), ("word", "PERIOD", 1.0, 1.4, None, "A")]
    assert hyp[0].label == "QUESTION"  # the input is not modified
    assert (st.substitutions, st.deletions, st.insertions, st.ref_words, st.hyp_words) == (1, 0, 0, 2, 2)
    assert st.wer == pytest.approx(50.0)


def test_transfer_stats_add_up():
    a = transfer_marks(words("a/COMMA b"), words("a"))[1]
    b = transfer_marks(words("c d/PERIOD"), words("x c d y"))[1]
    s = a + b
    assert (s.ref_words, s.marks, s.carried, s.deletions, s.insertions) == (4, 2, 2, 1, 2)
    assert s.to_dict()["wer"] == pytest.approx(75.0)


def test_alignop_fields():
    al = align(["a"], ["b"])
    assert al.ops == [AlignOp("sub", 0, 0)]
    assert al.hyp_of_ref() == [0]
    assert align(["a", "b"], ["a"]).hyp_of_ref() == [0, None]
