"""Constraint suggestion for whole tables: profiles, one function per rule, and the runner.

References
----------
Schelter et al., PVLDB 2018, §3.3 and §5.3; Deequ ``suggestions/`` and
``profiles/ColumnProfiler.scala``; Song & He, SIGMOD 2021 (the pattern rule).
"""

from autovalidate.profiles import (
    DEFAULT_CARDINALITY_THRESHOLD,
    ColumnProfile,
    ColumnProfiles,
    determine_type,
    profile_columns,
)
from autovalidate.suggest.rules import (
    DEFAULT_RULES,
    PATTERN_RULE,
    ConstraintSuggestion,
    RuleContext,
    SuggestionRule,
    bernoulli_lower_bound,
    categorical_range,
    complete_if_complete,
    fractional_categorical_range,
    has_max_length,
    has_min_length,
    non_negative_numbers,
    pattern_rule,
    retain_completeness,
    retain_type,
    unique_if_approximately_unique,
)
from autovalidate.suggest.runner import (
    ConstraintSuggestionResult,
    ConstraintSuggestionRunBuilder,
    ConstraintSuggestionRunner,
)

__all__ = [
    "DEFAULT_CARDINALITY_THRESHOLD",
    "DEFAULT_RULES",
    "PATTERN_RULE",
    "ColumnProfile",
    "ColumnProfiles",
    "ConstraintSuggestion",
    "ConstraintSuggestionResult",
    "ConstraintSuggestionRunBuilder",
    "ConstraintSuggestionRunner",
    "RuleContext",
    "SuggestionRule",
    "bernoulli_lower_bound",
    "categorical_range",
    "complete_if_complete",
    "determine_type",
    "fractional_categorical_range",
    "has_max_length",
    "has_min_length",
    "non_negative_numbers",
    "pattern_rule",
    "profile_columns",
    "retain_completeness",
    "retain_type",
    "unique_if_approximately_unique",
]
