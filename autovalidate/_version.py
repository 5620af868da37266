"""The package version and the distribution's name, read by ``pyproject.toml`` and by any module.

In a module of its own so that importing it never imports the package root
(the index metadata needs it; the root imports the index: that was a cycle).
"""

__version__ = "0.1.0"

#: The distribution's name on PyPI (``pyproject.toml``'s ``[project] name``): the
#: import package and the command are ``autovalidate``, but PyPI's ``autovalidate``
#: is an unrelated project, so ``pip install`` names this one.
DISTRIBUTION = "autovalidate-lake"


def install_hint(extra: str) -> str:
    """The commands that install an extra, by name and from a checkout.

    ``pip install 'autovalidate-lake[spark]' (from a checkout: pip install -e
    '.[spark]')``: until the distribution is on PyPI, the checkout's form is
    the one that works.
    """
    return f"pip install '{DISTRIBUTION}[{extra}]' (from a checkout: pip install -e '.[{extra}]')"
