"""punct.config: a YAML config loaded into its dataclass with command-line overrides; unknown
keys, bad types and bad YAML are one-line errors."""
from dataclasses import dataclass, field

import pytest

from punct.config import load_config, parse_overrides
from punct.errors import PunctError


@dataclass
class Inner:
    units: int = 8


@dataclass
class Cfg:
    lr: float = 0.1
    name: str = "x"
    flag: bool = False
    inner: Inner = field(default_factory=Inner)


def test_load_with_overrides(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("lr: 1\nname: y\ninner:\n  units: 4\n")
    cfg = load_config(p, Cfg, ["flag=true", "inner.units=16"])
    assert cfg.lr == 1.0 and isinstance(cfg.lr, float)
    assert cfg.name == "y" and cfg.flag is True and cfg.inner.units == 16


def test_unknown_key_is_an_error(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("lr: 1\nlearning_rate: 2\n")
    with pytest.raises(PunctError, match=r"c.yaml: unknown key\(s\) learning_rate"):
        load_config(p, Cfg)


def test_bad_type_and_bad_yaml(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("name: [1, 2]\n")
    with pytest.raises(PunctError, match="key 'name' must be str"):
        load_config(p, Cfg)
    p.write_text("lr: 1\n  bad: : indent\n")
    with pytest.raises(PunctError, match=r"c.yaml:\d+: invalid YAML"):
        load_config(p, Cfg)
    with pytest.raises(PunctError, match="not KEY=VALUE"):
        parse_overrides(["lr"])


def test_override_scientific_notation_is_a_float():
    from punct.config import parse_overrides

    assert parse_overrides(["a=1e-6", "b=2.5E3", "c=hello", "d=1e", "e=3"]) == {"a": 1e-6, "b": 2500.0, "c": "hello", "d": "1e", "e": 3}
