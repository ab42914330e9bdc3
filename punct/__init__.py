"""punct: punctuation restoration for speech recognition output."""

__version__ = "0.1.0"
