"""Public names of a package imported on first use (PEP 562), so importing it costs little.

``autovalidate --help`` imports the package and the command modules; were
``autovalidate/__init__.py`` to import every public name up front, each command
would pay for scipy, pyarrow and the engines before parsing its arguments.
A package lists its public names and their modules; :func:`attach` returns the
module-level ``__getattr__`` and ``__dir__`` that import a name's module when
the name is first read (as ``lazy_loader.attach`` does), and caches the value.
Type checkers read the same names from an ``if TYPE_CHECKING:`` import block.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["attach"]


def attach(
    package: str, exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``, whose ``exports`` map name -> module.

    Raises
    ------
    AttributeError
        From ``__getattr__``, for a name that is not exported.
    """

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *exports})

    return __getattr__, __dir__
