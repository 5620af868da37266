"""Deequ checks: constraints on metrics, grouped in checks with a level, run by a VerificationSuite.

Checks saved as data (JSON files) are constraint suites (:mod:`.spec`).

References
----------
Schelter et al., PVLDB 2018, §3.1, Table 1 and Listing 2; ICDE 2019, §II.
"""

from typing import TYPE_CHECKING

from autovalidate._lazy import attach

if TYPE_CHECKING:  # the names below, imported on first use (autovalidate._lazy)
    from autovalidate.checks.check import Check, CheckResult, ConstrainableDataType
    from autovalidate.checks.constraints import (
        AssertionConstraint,
        Constraint,
        ConstraintResult,
        ConstraintStatus,
        DriftConstraint,
        FreshnessConstraint,
        PatternRuleConstraint,
        ReferenceConstraint,
        SchemaConstraint,
        is_one,
    )
    from autovalidate.checks.levels import CheckLevel, CheckStatus
    from autovalidate.checks.spec import Assertion, CheckSpec, ConstraintSpec, ConstraintSuite
    from autovalidate.checks.verification import (
        VerificationResult,
        VerificationSuite,
        schema_of,
    )

#: Public name -> the module that defines it, imported when the name is first read.
_LAZY = {
    "Assertion": "autovalidate.checks.spec",
    "AssertionConstraint": "autovalidate.checks.constraints",
    "Check": "autovalidate.checks.check",
    "CheckLevel": "autovalidate.checks.levels",
    "CheckResult": "autovalidate.checks.check",
    "CheckSpec": "autovalidate.checks.spec",
    "CheckStatus": "autovalidate.checks.levels",
    "ConstrainableDataType": "autovalidate.checks.check",
    "Constraint": "autovalidate.checks.constraints",
    "ConstraintResult": "autovalidate.checks.constraints",
    "ConstraintSpec": "autovalidate.checks.spec",
    "ConstraintStatus": "autovalidate.checks.constraints",
    "ConstraintSuite": "autovalidate.checks.spec",
    "DriftConstraint": "autovalidate.checks.constraints",
    "FreshnessConstraint": "autovalidate.checks.constraints",
    "PatternRuleConstraint": "autovalidate.checks.constraints",
    "ReferenceConstraint": "autovalidate.checks.constraints",
    "SchemaConstraint": "autovalidate.checks.constraints",
    "VerificationResult": "autovalidate.checks.verification",
    "VerificationSuite": "autovalidate.checks.verification",
    "is_one": "autovalidate.checks.constraints",
    "schema_of": "autovalidate.checks.verification",
}

__all__ = [
    "Assertion",
    "AssertionConstraint",
    "Check",
    "CheckLevel",
    "CheckResult",
    "CheckSpec",
    "CheckStatus",
    "ConstrainableDataType",
    "Constraint",
    "ConstraintResult",
    "ConstraintSpec",
    "ConstraintStatus",
    "ConstraintSuite",
    "DriftConstraint",
    "FreshnessConstraint",
    "PatternRuleConstraint",
    "ReferenceConstraint",
    "SchemaConstraint",
    "VerificationResult",
    "VerificationSuite",
    "is_one",
    "schema_of",
]

__getattr__, __dir__ = attach(__name__, _LAZY)
