"""Run a function right after a module is first imported, without importing it ourselves.

Why: PettingZoo's registry (``pettingzoo.make("aec", id)``) knows only the ids registered in the
running interpreter, and it has no plug-in entry points (1.27). Registering ours from ``import
kabu_envs`` would import pettingzoo and gymnasium there, which the cheap import path forbids (a game's
record must be readable without them). So ``import kabu_envs`` leaves a one-shot finder on
``sys.meta_path`` that, when ``pettingzoo.env_registry.registration`` is imported by anyone, lets the
normal import finish and then registers our ids; if it is already imported, the ids are registered
at once.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any


class _AfterImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: wraps the real loader of ``name`` so that ``callback`` runs after it."""

    def __init__(self, name: str, callback: Callable[[], None]) -> None:
        self.name, self.callback = name, callback

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name:
            return None
        if self in sys.meta_path:  # one shot: later imports of the name go the normal way
            sys.meta_path.remove(self)
        spec = None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if find is not None and (spec := find(fullname, path, target)) is not None:
                break
        loader: Any = spec.loader if spec is not None else None
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        run, callback = loader.exec_module, self.callback

        def exec_module(module: ModuleType) -> None:
            run(module)
            callback()

        loader.exec_module = exec_module
        return spec


def after_import(name: str, callback: Callable[[], None]) -> None:
    """Call ``callback`` once ``name`` is imported: now if it already is, else right after its import."""
    if name in sys.modules:
        callback()
        return
    if not any(isinstance(f, _AfterImport) and f.name == name for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport(name, callback))
