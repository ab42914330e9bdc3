"""A Kaldi data directory of five recordings of three segments each, two speakers, every table
punct reads, for the tests of punct.data.splits and punct.bin.datadir_tools (a helper module,
imported as ``tests.data.sample_dirs``)."""
from __future__ import annotations


def make(d, n_reco=5, per_reco=3):
    """Write the data directory ``d``: N_RECO recordings of PER_RECO segments, the first of 5 words, the others of 2."""
    d.mkdir()
    text, labels, u2s, segs, wav, times, written, spk = {}, {}, {}, {}, {}, {}, {}, {}
    for r in range(n_reco):
        reco = f"rec{r}"
        wav[reco] = f"/audio/{reco}.flac"
        for k in range(per_reco):
            u = f"spk{r % 2}-{reco}-{k}"
            text[u] = "a b" if k else "a b c d e"
            labels[u] = "O PERIOD" if k else "O O O O PERIOD"
            u2s[u] = f"spk{r % 2}"
            segs[u] = f"{reco} {k * 2 + r * 0.5:.2f} {k * 2 + 1 + r * 0.5:.2f}"
            times[u] = " ".join(f"{k + i * 0.1:.3f},{k + i * 0.1 + 0.1:.3f}" for i in range(len(text[u].split())))
            written[u] = text[u].upper()  # the per-word spellings a case head learns from
            spk[u] = " ".join(u2s[u] for _ in text[u].split())
    for name, rows in (("text", text), ("labels", labels), ("utt2spk", u2s), ("segments", segs), ("wav.scp", wav),
                       ("word_times", times), ("written", written), ("word_speakers", spk)):
        (d / name).write_text("".join(f"{k} {v}\n" for k, v in sorted(rows.items())))
    s2u = {}
    for u, s in sorted(u2s.items()):
        s2u.setdefault(s, []).append(u)
    (d / "spk2utt").write_text("".join(f"{s} {' '.join(us)}\n" for s, us in sorted(s2u.items())))
    return d
