"""punct: punctuation restoration for speech recognition output.

``punct.restore(text)``, ``punct.restore_words(words)``, ``punct.load(model)`` and the
classes ``punct.Restorer`` and ``punct.RestoredWord`` come from punct.api, imported on
first use: ``import punct`` stays cheap (no torch, no numpy).

``punct.restore`` is also the name of a submodule (punct/restore.py, the command's path):
the name gives that module, made callable, so ``punct.restore("so how are you")`` calls
``punct.api.restore`` and ``punct.restore.restore_file`` (or ``import punct.restore as rs``)
is still the module, whichever was used first.
"""
from __future__ import annotations

import logging
import sys
import types
from typing import Any

__version__ = "0.1.0"

#: names of punct.api re-exported here, imported when first asked for
_API = ("restore_words", "load", "Restorer", "RestoredWord")

__all__ = ["__version__", "restore", *_API]


class _CallableModule(types.ModuleType):
    """The module punct.restore, callable as the API's ``punct.restore(text)``."""

    def __call__(self, text: str, model: Any = None, capitalize: bool = False, case: bool = True) -> str:
        """``text`` punctuated on one line (punct.api.restore): ``punct.restore("so how are you")``."""
        from punct.api import restore

        return restore(text, model=model, capitalize=capitalize, case=case)


class _Package(types.ModuleType):
    """The package, whose ``restore`` attribute is always the callable submodule (the
    import system sets it when the submodule is loaded; the setter keeps it)."""

    @property
    def restore(self) -> Any:
        mod = self.__dict__.get("restore")
        if mod is None:  # the import system stores it through the setter too
            import importlib

            mod = importlib.import_module("punct.restore")
        if type(mod) is types.ModuleType:
            mod.__class__ = _CallableModule
        return mod

    @restore.setter
    def restore(self, value: Any) -> None:
        self.__dict__["restore"] = value


sys.modules[__name__].__class__ = _Package
# a library's logs show only where the application configures logging (the command does)
logging.getLogger(__name__).addHandler(logging.NullHandler())


def __getattr__(name: str) -> Any:
    if name in _API:
        from punct import api

        return getattr(api, name)
    raise AttributeError(f"module 'punct' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), "restore", *_API})
