"""Format-drift recall: a catalog of realistic format mutations (``BENCHMARK.md``).

The paper's recall asks whether a rule rejects *other* columns.  Drift recall
asks whether it rejects the column's own values after a realistic format
change: the upstream change or bug that a validation pattern exists to catch.

* Each mutation kind is a named function ``kind(value, rng) -> str | None``
  (None: the kind does not apply to that value).  ``rng`` is a
  :class:`random.Random`; :func:`mutations` seeds one per (case index, kind),
  so a case's mutated values never depend on the other kinds or cases.
* :func:`sample` takes the deterministic sample of up to ``SAMPLE_SIZE`` test
  values of a case (seeded by the case index).
* A mutated value counts only if its :func:`shape` (each letter as upper or
  lower, each digit as a digit, every other character as itself) occurs in no
  value of the column: it is then a format the column never had.

* :func:`drift_recall` scores every method: the drift recall of C_i is the
  fraction of its counted mutated values whose full match fails (value level,
  :func:`.protocol.full_match_verdicts`), 0 where the method abstains or its
  rule fails C_i.test (the paper's squashing).
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from benchmarks.avbench.protocol import Case, Rule, full_match_verdicts

__all__ = [
    "KINDS",
    "drift_recall",
    "SAMPLE_SIZE",
    "mutations",
    "sample",
    "shape",
]

SAMPLE_SIZE = 20
#: Separators a value may use, and that a separator swap may put in instead.
SEPARATORS = "-_/.:,;| "
#: A look-alike letter for each digit (OCR and typing confusions).
LOOKALIKE = {
    "0": "O",
    "1": "l",
    "2": "Z",
    "3": "E",
    "4": "A",
    "5": "S",
    "6": "G",
    "7": "T",
    "8": "B",
    "9": "g",
}
_DIGIT_RUN = re.compile(r"[0-9]+")
_DECIMAL_POINT = re.compile(r"(?<=[0-9])\.(?=[0-9])")
# year first (YYYY-MM-DD) and year last (DD/MM/YYYY or MM/DD/YYYY), same separator twice
# (not part of a longer dotted number such as a version 2021.1.1.0)
_NOT_AFTER = r"(?<![0-9])(?<![0-9][-/.])"
_NOT_BEFORE = r"(?![0-9])(?!\2[0-9])"
_YEAR_FIRST = re.compile(
    _NOT_AFTER + r"([12][0-9]{3})([-/.])([0-9]{1,2})\2([0-9]{1,2})" + _NOT_BEFORE
)
_YEAR_LAST = re.compile(
    _NOT_AFTER + r"([0-9]{1,2})([-/.])([0-9]{1,2})\2([12][0-9]{3})" + _NOT_BEFORE
)

Mutation = Callable[[str, random.Random], "str | None"]


def shape(value: str) -> str:
    """The exact shape: letters become ``A``/``a`` by case, digits ``9``, other characters stay."""
    out = []
    for ch in value:
        if ch.isalpha():
            out.append("A" if ch.isupper() else "a")
        elif ch.isdigit():
            out.append("9")
        else:
            out.append(ch)
    return "".join(out)


def _separators(value: str) -> list[str]:
    return sorted({ch for ch in value if ch in SEPARATORS})


def separator_swap(value: str, rng: random.Random) -> str | None:
    """Every occurrence of one separator replaced by another (``2021-01-02`` -> ``2021/01/02``)."""
    present = _separators(value.strip())
    if not present:
        return None
    old = rng.choice(present)
    new = rng.choice([s for s in SEPARATORS if s != old])
    return value.replace(old, new)


def lost_padding(value: str, rng: random.Random) -> str | None:
    """The leading zeros of one zero-padded digit run dropped (``007`` -> ``7``)."""
    runs = [m for m in _DIGIT_RUN.finditer(value) if len(m.group()) > 1 and m.group()[0] == "0"]
    if not runs:
        return None
    m = rng.choice(runs)
    return value[: m.start()] + (m.group().lstrip("0") or "0") + value[m.end() :]


def case_swap(value: str, rng: random.Random) -> str | None:
    """Letter case swapped (``a3f9`` -> ``A3F9``, ``Berlin`` -> ``bERLIN``)."""
    swapped = value.swapcase()
    return swapped if swapped != value else None


def truncation(value: str, rng: random.Random) -> str | None:
    """The first half of the value (a field cut short)."""
    return value[: len(value) // 2] if len(value) >= 2 else None


def whitespace(value: str, rng: random.Random) -> str | None:
    """A leading or a trailing space (untrimmed input)."""
    return " " + value if rng.random() < 0.5 else value + " "


def digit_to_letter(value: str, rng: random.Random) -> str | None:
    """One digit replaced by its look-alike letter (``O`` for ``0``, ``l`` for ``1``, ...)."""
    positions = [k for k, ch in enumerate(value) if ch in LOOKALIKE]
    if not positions:
        return None
    k = rng.choice(positions)
    return value[:k] + LOOKALIKE[value[k]] + value[k + 1 :]


def decimal_comma(value: str, rng: random.Random) -> str | None:
    """Decimal points between digits turned into commas (``3.14`` -> ``3,14``: a locale change)."""
    mutated = _DECIMAL_POINT.sub(",", value)
    return mutated if mutated != value else None


def quoted(value: str, rng: random.Random) -> str | None:
    """The value wrapped in double or single quotes (a CSV export quoting its fields)."""
    q = rng.choice(('"', "'"))
    return q + value + q


def _edit_field(value: str, rng: random.Random, repeat: bool) -> str | None:
    """Split on one separator the value has (random choice), then drop or repeat one field."""
    present = _separators(value)
    if not present:
        return None
    sep = rng.choice(present)
    parts = value.split(sep)
    k = rng.randrange(len(parts))
    return sep.join(parts[: k + 1] + parts[k:] if repeat else parts[:k] + parts[k + 1 :])


def field_dropped(value: str, rng: random.Random) -> str | None:
    """One field of a delimited value dropped (``a-b-c`` -> ``a-c``)."""
    return _edit_field(value, rng, repeat=False)


def field_repeated(value: str, rng: random.Random) -> str | None:
    """One field of a delimited value repeated (``a-b-c`` -> ``a-b-b-c``)."""
    return _edit_field(value, rng, repeat=True)


def _plausible(day: str, month: str) -> bool:
    return 1 <= int(month) <= 12 and 1 <= int(day) <= 31


def date_order(value: str, rng: random.Random) -> str | None:
    """A date's parts in another order (``YYYY-MM-DD`` <-> ``DD-MM-YYYY``, separator kept).

    Year first becomes day-month-year; year last (``DD/MM/YYYY`` or
    ``MM/DD/YYYY``) becomes year first with the other two parts reversed.

    Dates are found anywhere in the value (timestamps keep their time part);
    a match counts as a date when its month is 1-12 and its day 1-31 (as day
    first or as month first for the year-last forms).
    """
    m = _YEAR_FIRST.search(value)
    if m and _plausible(m.group(4), m.group(3)):
        year, sep, month, day = m.groups()
        return value[: m.start()] + sep.join((day, month, year)) + value[m.end() :]
    m = _YEAR_LAST.search(value)
    if m and (_plausible(m.group(1), m.group(3)) or _plausible(m.group(3), m.group(1))):
        first, sep, second, year = m.groups()
        return value[: m.start()] + sep.join((year, second, first)) + value[m.end() :]
    return None


#: The catalog, by name (the order of the reports).
KINDS: dict[str, Mutation] = {
    "separator_swap": separator_swap,
    "lost_padding": lost_padding,
    "case_swap": case_swap,
    "truncation": truncation,
    "whitespace": whitespace,
    "digit_to_letter": digit_to_letter,
    "decimal_comma": decimal_comma,
    "quoted": quoted,
    "field_dropped": field_dropped,
    "field_repeated": field_repeated,
    "date_order": date_order,
}


def sample(idx: int, test: Sequence[str], size: int = SAMPLE_SIZE) -> list[str]:
    """The deterministic sample of up to ``size`` test values of case ``idx`` (in test order)."""
    chosen = sorted(random.Random(idx).sample(range(len(test)), min(size, len(test))))
    return [test[k] for k in chosen]


def mutations(idx: int, test: Sequence[str], column: Iterable[str]) -> dict[str, list[str]]:
    """The counted mutated values of case ``idx``, by kind.

    Parameters
    ----------
    idx
        The case index (the seed).
    test
        The case's test values (the sample is drawn from them).
    column
        Every value of the column: a mutated value whose shape occurs among
        them is not counted.

    Returns
    -------
    dict
        Kind -> counted mutated values (one per sampled value at most; a kind
        with none is present with an empty list).
    """
    known = {shape(v) for v in column}
    chosen = sample(idx, test)
    out: dict[str, list[str]] = {}
    for name, mutate in KINDS.items():
        rng = random.Random(f"{idx}/{name}")
        kept = []
        for value in chosen:
            mutated = mutate(value, rng)
            if mutated is not None and shape(mutated) not in known:
                kept.append(mutated)
        out[name] = kept
    return out


def drift_recall(
    cases: Sequence[Case],
    runs: dict[str, list[Rule | None]],
    precision: dict[str, list[int]],
) -> tuple[dict[str, Any], dict[str, list[float]]]:
    """Drift recall of every method on B, and the total per case (for the per-case CSV).

    Parameters
    ----------
    cases
        The query set B.
    runs
        Method name -> its rule for each case (None: abstention).
    precision
        Method name -> P_A(C_i) of each case (1 if the rule passes C_i.test).

    Returns
    -------
    (report, per_case)
        ``report["methods"][name][subset]`` with subset ``all`` (every case
        with a counted mutated value), ``with_rule`` (those where the method
        gives a rule) and ``passing`` (those where its rule passes its own
        test: drift recall unsquashed, what the rules themselves reject):
        ``total`` (mean of the per-case fraction rejected over
        all kinds) and ``kinds`` (per kind, the mean over the cases with a
        counted value of that kind), with ``cases`` and ``kind_cases``;
        ``report["counted"]`` the counted mutated values and cases per kind.
        ``per_case[name][i]`` is the total drift recall of case i (NaN if it
        has no counted mutated value).
    """
    muts = [mutations(c.idx, c.test, c.values) for c in cases]
    checks = [
        (rule, v)
        for name, rules in runs.items()
        for i, rule in enumerate(rules)
        if rule is not None and precision[name][i]
        for vs in muts[i].values()
        for v in vs
    ]
    verdicts = full_match_verdicts(checks)
    report: dict[str, Any] = {
        "sample_size": SAMPLE_SIZE,
        "counted": {
            k: {
                "values": sum(len(m[k]) for m in muts),
                "cases": sum(1 for m in muts if m[k]),
            }
            for k in KINDS
        },
        "methods": {},
    }
    per_case: dict[str, list[float]] = {}
    for name, rules in runs.items():
        total: list[float] = []
        kinds: dict[str, list[float | None]] = {k: [] for k in KINDS}
        for i, rule in enumerate(rules):
            key = rule.key() if rule is not None and precision[name][i] else None
            rejected = counted = 0
            for k, values in muts[i].items():
                bad = 0 if key is None else sum(1 for v in values if not verdicts[(key, v)])
                kinds[k].append(bad / len(values) if values else None)
                rejected += bad
                counted += len(values)
            total.append(rejected / counted if counted else math.nan)
        per_case[name] = total
        with_rule = [i for i, r in enumerate(rules) if r is not None]
        report["methods"][name] = {
            "all": _means(total, kinds, range(len(rules))),
            "with_rule": _means(total, kinds, with_rule),
            "passing": _means(total, kinds, [i for i in with_rule if precision[name][i]]),
        }
    return report, per_case


def _means(
    total: list[float], kinds: dict[str, list[float | None]], chosen: Iterable[int]
) -> dict[str, Any]:
    rows = list(chosen)
    totals = [total[i] for i in rows if not math.isnan(total[i])]
    out: dict[str, Any] = {
        "total": sum(totals) / len(totals) if totals else math.nan,
        "cases": len(totals),
        "kinds": {},
        "kind_cases": {},
    }
    for k, per in kinds.items():
        xs = [x for x in (per[i] for i in rows) if x is not None]
        out["kinds"][k] = sum(xs) / len(xs) if xs else math.nan
        out["kind_cases"][k] = len(xs)
    return out
