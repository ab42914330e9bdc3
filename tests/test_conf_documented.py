"""The house rule for conf/: every value that differs from its dataclass default says why,
in a comment on its own line or in the comment lines just above it."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


def config_class(path: Path, data: dict) -> type:
    """The dataclass a config under conf/ is loaded into (model configs: TrainConfig)."""
    from punct.align.aligner import AlignConfig
    from punct.align.decoder import AsrConfig
    from punct.engine.config import TrainConfig
    from punct.models.joint import JointConfig
    from punct.prosody.pooling import ProsodyConfig

    if "model" in data:
        return TrainConfig
    return {"align.yaml": AlignConfig, "asr.yaml": AsrConfig, "joint.yaml": JointConfig,
            "prosody.yaml": ProsodyConfig}[path.name]


def _defaults(cls: type) -> dict[str, Any]:
    out = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            out[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            out[f.name] = f.default_factory()
    return out


def _documented(lines: list[str], key: str, indent: int) -> bool:
    for i, line in enumerate(lines):
        if re.match(rf"{' ' * indent}{re.escape(key)}\s*:", line):
            return "#" in line or (i > 0 and lines[i - 1].lstrip().startswith("#"))
    return False


def undocumented(path: Path, cls: type | None = None) -> list[str]:
    """``key: value (default ...)`` of every value of PATH that differs from its default
    without a comment; ``model_args`` are checked against the model's own Config, nested
    dataclasses (prosody's ``pitch``) key by key."""
    text = path.read_text(encoding="utf-8")
    lines, data = text.splitlines(), yaml.safe_load(text) or {}
    cls = cls or config_class(path, data)
    out: list[str] = []

    def check(values: dict, defaults: dict[str, Any], indent: int, prefix: str) -> None:
        for k, v in values.items():
            d = defaults.get(k, dataclasses.MISSING)
            if dataclasses.is_dataclass(d) and isinstance(v, dict):
                check(v, _defaults(type(d)), indent + 2, f"{prefix}{k}.")
            elif v != d and not _documented(lines, k, indent):
                out.append(f"{prefix}{k}: {v!r} (default {'none' if d is dataclasses.MISSING else repr(d)})")

    model_args = data.pop("model_args", None) if "model" in data else None
    check(data, _defaults(cls), 0, "")
    if model_args:
        from punct.models import get_model_class

        check(model_args, _defaults(get_model_class(data["model"]).Config), 2, "model_args.")
    return out


CONFS = sorted((ROOT / "conf").glob("*.yaml"))


def test_there_are_configs_of_every_kind():
    names = {p.name for p in CONFS}
    assert {"tbrnn.yaml", "align.yaml", "asr.yaml", "joint.yaml", "prosody.yaml"} <= names


@pytest.mark.parametrize("path", CONFS, ids=lambda p: p.name)
def test_every_changed_value_says_why(path):
    assert undocumented(path) == []


def test_the_check_finds_a_bare_value(tmp_path):
    from punct.engine.config import TrainConfig

    p = tmp_path / "x.yaml"
    p.write_text("# a T-BRNN\nmodel: tbrnn\nmodel_args:\n  hidden_size: 64\n  dropout: 0.3   # less overfitting\n"
                 "lr: 0.5\n# stop early: few epochs fit the budget\npatience: 1\nseed: 1\n")
    assert undocumented(p, TrainConfig) == ["lr: 0.5 (default 0.02)", "model_args.hidden_size: 64 (default 256)"]
