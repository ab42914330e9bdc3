"""Per-word prosodic features: pauses from word times, pitch and energy from audio,
pooled per word and stored per utterance as Kaldi ark/scp (through kaldiio)."""
