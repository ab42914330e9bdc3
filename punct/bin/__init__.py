"""One thin entry point per stage: ``python -m punct.bin.NAME --help``."""
