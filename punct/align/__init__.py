"""The audio path's speech recognition side, on the English model shipped in the pocketsphinx wheel.

``aligner``  forced alignment of audio to a transcript (word and phone times)
``dictionary`` reading the pronouncing dictionary
``lexicon``  the mapping of transcript tokens onto dictionary words
``g2p``      the letter-to-sound fallback for words missing from the dictionary
``numbers``  spoken words for written numbers
``decoder``  recognition: hypothesis words with times and posteriors
``output``   CTM and TextGrid writers of alignments
``batch``    alignment and decoding of whole data directories

Nothing is imported here: pocketsphinx loads only when an aligner or decoder is built.
"""
