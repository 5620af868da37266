"""The package version, read by ``pyproject.toml`` and by any module.

In a module of its own so that importing it never imports the package root
(the index metadata needs it; the root imports the index: that was a cycle).
"""

__version__ = "0.1.0"
