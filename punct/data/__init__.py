"""Kaldi data directories and what is made of them: the tables of a data directory
(``tables``: scp, utt2spk, segments), the directory itself (``datadir``), its cuts for parallel
jobs (``splits``), and the carrying of reference marks onto hypothesis words by edit-distance
alignment (``transfer``, its dynamic programme in ``editdist``). Each name is imported from
the module it lives in.
"""
