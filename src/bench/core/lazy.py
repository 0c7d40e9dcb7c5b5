"""Names of a package imported from their modules on first use (PEP 562).

A package's ``__init__`` runs before any of its submodules; listing its names there would import
every submodule (pydantic, numpy) for whoever needs one of them. ``bench.core``, ``bench.stats``
and ``bench.reports`` export their names through this instead: ``bench --help`` stays free of
pydantic, and a run's summary free of numpy."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, where: Mapping[str, str], namespace: dict[str, Any]
) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: ``name`` comes from ``package.<where[name]>``,
    imported when first asked for, then kept in ``namespace`` (the package's globals)."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    return __getattr__


__all__ = ["lazy_exports"]
