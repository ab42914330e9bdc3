"""YAML configs loaded into dataclasses; an unknown key is an error.

``load_config(path, cls, overrides)`` reads a YAML mapping, applies
``key=value`` overrides (dotted keys reach nested dataclasses), and builds
``cls``. Values given as strings on the command line are parsed as YAML
scalars, so ``lr=0.02`` is a float and ``bidirectional=true`` a bool.
"""
from __future__ import annotations

import dataclasses
import typing
from pathlib import Path
from typing import Any, Mapping, Sequence, TypeVar

from punct.errors import PunctError

T = TypeVar("T")


def _yaml():
    import yaml

    return yaml


def parse_overrides(overrides: Sequence[str], where: str = "command line") -> dict[str, Any]:
    """Turn ``["a.b=1", "c=x"]`` into a nested dict ``{"a": {"b": 1}, "c": "x"}``."""
    out: dict[str, Any] = {}
    for item in overrides:
        if "=" not in item:
            raise PunctError(f"override {item!r} is not KEY=VALUE", where)
        key, value = item.split("=", 1)
        node = out
        parts = key.strip().split(".")
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = _scalar(value)
    return out


def _scalar(value: str) -> Any:
    """A command-line value as YAML reads it, except that ``1e-6`` is a float
    (YAML 1.1 wants ``1.0e-6``; people write ``1e-6``)."""
    if value == "":
        return ""
    v = _yaml().safe_load(value)
    if isinstance(v, str):
        try:
            return float(v) if any(c in v for c in ".eE") and v.strip().lower() not in ("nan", "inf", "-inf") else v
        except ValueError:
            return v
    return v


def merge(base: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """Recursively merge ``extra`` into a copy of ``base``."""
    out = dict(base)
    for k, v in extra.items():
        if isinstance(v, Mapping) and isinstance(out.get(k), Mapping):
            out[k] = merge(out[k], v)
        else:
            out[k] = v
    return out


def drop_retired(cls: type, data: Mapping[str, Any], where: str | Path = "config") -> dict[str, Any]:
    """``data`` without the options ``cls`` has retired (its ``RETIRED``: name -> the value every
    run now has) that hold that value; one that holds another value is an error naming it."""
    retired = getattr(cls, "RETIRED", {})
    for key in sorted(set(data) & set(retired)):
        if data[key] != retired[key]:
            raise PunctError(f"option {key} was retired: every run now has {key}: {retired[key]!r}, this config says "
                             f"{data[key]!r} (remove the key)", where)
    return {k: v for k, v in data.items() if k not in retired}


def from_dict(cls: type[T], data: Mapping[str, Any], where: str = "config") -> T:
    """Build dataclass ``cls`` from ``data``; unknown keys and bad types are errors."""
    if not isinstance(data, Mapping):
        raise PunctError(f"expected a mapping for {cls.__name__}, got {type(data).__name__}", where)
    data = drop_retired(cls, data, where)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise PunctError(
            f"unknown key(s) {', '.join(unknown)} for {cls.__name__} (known: {', '.join(sorted(fields))})", where
        )
    hints = typing.get_type_hints(cls)
    kwargs = {}
    for name, value in data.items():
        tp = hints.get(name)
        if dataclasses.is_dataclass(tp) and isinstance(value, Mapping):
            value = from_dict(tp, value, where)
        kwargs[name] = _coerce(value, tp, name, where)
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as e:
        raise PunctError(f"{cls.__name__}: {e}", where) from None


def _coerce(value: Any, tp: Any, name: str, where: str) -> Any:
    if tp is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if tp in (int, float, str, bool) and value is not None and not isinstance(value, tp):
        raise PunctError(f"key {name!r} must be {tp.__name__}, got {value!r}", where)
    if tp is int and isinstance(value, bool):
        raise PunctError(f"key {name!r} must be int, got {value!r}", where)
    return value


def load_yaml(path: str | Path) -> dict[str, Any]:
    """Read a YAML mapping; a syntax error names the file and line."""
    path = Path(path)
    if not path.is_file():
        raise PunctError("config file not found", path)
    yaml = _yaml()
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as e:
        line = getattr(getattr(e, "problem_mark", None), "line", None)
        raise PunctError(f"invalid YAML: {getattr(e, 'problem', e)}", path, None if line is None else line + 1) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise PunctError("a config must be a YAML mapping", path)
    return data


def load_config(path: str | Path | None, cls: type[T], overrides: Sequence[str] = ()) -> T:
    """Load ``cls`` from YAML ``path`` (None: defaults) with ``key=value`` overrides."""
    data = load_yaml(path) if path is not None else {}
    data = merge(data, parse_overrides(overrides))
    return from_dict(cls, data, str(path) if path is not None else "config")


def to_dict(obj: Any) -> dict[str, Any]:
    """A dataclass as a plain dict (for saving the resolved config)."""
    return dataclasses.asdict(obj)


def dump_yaml(data: Mapping[str, Any]) -> str:
    """DATA as YAML text, keys in their given order."""
    return _yaml().safe_dump(dict(data), sort_keys=False, allow_unicode=True)
