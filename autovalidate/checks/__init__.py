"""Deequ checks: constraints on metrics, grouped in checks with a level, run by a VerificationSuite.

Checks saved as data (JSON files) are constraint suites (:mod:`.spec`).

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
from autovalidate.checks.spec import Assertion, CheckSpec, ConstraintSpec, ConstraintSuite
from autovalidate.checks.verification import VerificationResult, VerificationSuite

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
    "PatternRuleConstraint",
    "VerificationResult",
    "VerificationSuite",
    "is_one",
]
