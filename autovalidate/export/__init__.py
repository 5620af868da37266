"""Export a constraint suite to the tools pipelines already run.

One module per target, each stating its mapping (regex dialect and anchoring,
letter classes, tolerance) in its docstring and in the file it writes:

* :mod:`~autovalidate.export.gx`: a Great Expectations 1.x expectation suite (JSON);
* :mod:`~autovalidate.export.soda`: SodaCL checks (YAML);
* :mod:`~autovalidate.export.dqdl`: AWS Glue Data Quality rules (DQDL);
* :mod:`~autovalidate.export.dbt`: a dbt ``schema.yml`` with dbt-expectations tests;
* :mod:`~autovalidate.export.pandera`: a pandera DataFrameSchema (YAML).

The regex of a pattern constraint is translated construct by construct
(:mod:`~autovalidate.export.regex`); a Fisher-tested rule becomes the fixed
bound each tool takes (:mod:`~autovalidate.export.tolerance`). A constraint a
target cannot express is listed as skipped, with the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from autovalidate.errors import ParameterError
from autovalidate.export import dbt, dqdl, gx, pandera, soda
from autovalidate.export.base import Skipped, SuiteExport

if TYPE_CHECKING:
    from autovalidate.checks.spec import ConstraintSuite

__all__ = ["TARGETS", "Skipped", "SuiteExport", "export_suite"]

#: Target name -> its export function.
TARGETS: dict[str, Callable[..., SuiteExport]] = {
    "gx": gx.export,
    "soda": soda.export,
    "dqdl": dqdl.export,
    "dbt": dbt.export,
    "pandera": pandera.export,
}


def export_suite(
    suite: ConstraintSuite,
    target: str,
    *,
    name: str,
    rename: Mapping[str, str] | None = None,
) -> SuiteExport:
    """Write ``suite`` in a target's format.

    Parameters
    ----------
    suite
        The constraint suite (:meth:`~autovalidate.ConstraintSuite.load`).
    target
        One of :data:`TARGETS`: ``gx``, ``soda``, ``dqdl``, ``dbt``, ``pandera``.
    name
        The dataset, model or suite name the export refers to.
    rename
        Suite column -> the column's name in the target's data.

    Returns
    -------
    SuiteExport
        The file's text, the skipped constraints and the approximations.

    Raises
    ------
    ParameterError
        If the target is unknown.
    """
    if target not in TARGETS:
        raise ParameterError(f"unknown export target {target!r}; expected one of {list(TARGETS)}")
    return TARGETS[target](suite, name=name, rename=rename)
