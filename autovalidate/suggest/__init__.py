"""Constraint suggestion for whole tables: profiles, one function per rule, and the runner.

References
----------
Schelter et al., PVLDB 2018, §3.3 and §5.3; Deequ ``suggestions/`` and
``profiles/ColumnProfiler.scala``; Song & He, SIGMOD 2021 (the pattern rule).
"""

from typing import TYPE_CHECKING

from autovalidate._lazy import attach

if TYPE_CHECKING:  # the names below, imported on first use (autovalidate._lazy)
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

#: Public name -> the module that defines it, imported when the name is first read.
_LAZY = {
    "ColumnProfile": "autovalidate.profiles",
    "ColumnProfiles": "autovalidate.profiles",
    "ConstraintSuggestion": "autovalidate.suggest.rules",
    "ConstraintSuggestionResult": "autovalidate.suggest.runner",
    "ConstraintSuggestionRunBuilder": "autovalidate.suggest.runner",
    "ConstraintSuggestionRunner": "autovalidate.suggest.runner",
    "DEFAULT_CARDINALITY_THRESHOLD": "autovalidate.profiles",
    "DEFAULT_RULES": "autovalidate.suggest.rules",
    "PATTERN_RULE": "autovalidate.suggest.rules",
    "RuleContext": "autovalidate.suggest.rules",
    "SuggestionRule": "autovalidate.suggest.rules",
    "bernoulli_lower_bound": "autovalidate.suggest.rules",
    "categorical_range": "autovalidate.suggest.rules",
    "complete_if_complete": "autovalidate.suggest.rules",
    "determine_type": "autovalidate.profiles",
    "fractional_categorical_range": "autovalidate.suggest.rules",
    "has_max_length": "autovalidate.suggest.rules",
    "has_min_length": "autovalidate.suggest.rules",
    "non_negative_numbers": "autovalidate.suggest.rules",
    "pattern_rule": "autovalidate.suggest.rules",
    "profile_columns": "autovalidate.profiles",
    "retain_completeness": "autovalidate.suggest.rules",
    "retain_type": "autovalidate.suggest.rules",
    "unique_if_approximately_unique": "autovalidate.suggest.rules",
}

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

__getattr__, __dir__ = attach(__name__, _LAZY)
