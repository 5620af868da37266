"""Deequ checks: constraints on metrics, grouped in checks with a level, run by a VerificationSuite.

References
----------
Schelter et al., PVLDB 2018, §3.1, Table 1 and Listing 2; ICDE 2019, §II.
"""

from autovalidate.checks.check import (
    Check,
    CheckLevel,
    CheckResult,
    CheckStatus,
    ConstrainableDataType,
)
from autovalidate.checks.constraints import (
    AssertionConstraint,
    Constraint,
    ConstraintResult,
    ConstraintStatus,
    PatternRuleConstraint,
    is_one,
)
from autovalidate.checks.verification import VerificationResult, VerificationSuite

__all__ = [
    "AssertionConstraint",
    "Check",
    "CheckLevel",
    "CheckResult",
    "CheckStatus",
    "ConstrainableDataType",
    "Constraint",
    "ConstraintResult",
    "ConstraintStatus",
    "PatternRuleConstraint",
    "VerificationResult",
    "VerificationSuite",
    "is_one",
]
