"""AV-bench's census of failing rules and what abstaining on them could buy."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from benchmarks.avbench.failures import CAUSES, cause, census, failures, frontier
from benchmarks.avbench.protocol import Case, CaseScore, Rule


@dataclass
class _Segment:
    optional: bool = False
    branch: int | None = None


@dataclass
class _Constraint:
    fpr: float
    pattern: str = "<letter>+"
    segments: tuple[_Segment, ...] = field(default_factory=lambda: (_Segment(),))


def _case(i: int, train: list[str], test: list[str]) -> Case:
    return Case(i, "src", f"t{i}", 0, "c", tuple(train + test), len(train))


def _rule(regex: str, fpr: float = 0.01, missing: tuple[str, ...] = ()) -> Rule:
    return Rule(
        "regex", regex, regex=regex, decision="constraint", constraint=_Constraint(fpr),
        missing=missing,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("train", "test", "regex", "expected"),
    [
        # the horizontal cut left one training value out; later it is common
        (["✔"] * 9 + ["×"], ["×"] * 5 + ["✔"] * 5, "✔", "tolerated"),
        # a second word the training never had
        (["Scored", "Unscored"], ["Not Scored"] * 3, "[A-Za-z]+", "new shape"),
        # a region with one more part than any training value: the list's unit repeats
        (["us-east-1", "eu-west-2"], ["us-gov-east-1"] * 3, "[a-z]+-[a-z]+-[0-9]+", "more parts"),
        # a dotted name with one more part than any training value
        (["a.b", "a.b.c"], ["a.b.c.d"] * 2 + ["a.b"], r"[a-z]+(\.[a-z]+){0,2}", "more parts"),
        # the classes of a training value, a narrower case class broken
        (["Apple", "Dell"], ["HP", "Dell"], "[A-Z][a-z]+", "same shape"),
    ],
)
def test_each_failing_rule_gets_the_cause_most_of_its_rejected_values_show(
    train, test, regex, expected
):
    assert cause(_case(0, train, test), _rule(regex)) == expected


def test_a_cause_counts_what_the_rule_counts_and_needs_a_rejected_value():
    case = _case(0, ["Apple", "Dell"], ["NULL", "NULL", "  ", "HP"])
    # the null token and the blank value are not counted: "HP" decides
    assert cause(case, _rule("[A-Z][a-z]+", missing=("NULL",))) == "same shape"
    with pytest.raises(ValueError, match="rejects no later value"):
        cause(_case(1, ["Apple"], ["Dell"]), _rule("[A-Z][a-z]+"))


def test_census_counts_failing_rules_only_by_cause_and_slice():
    cases = [
        _case(0, ["Apple", "Dell"], ["HP"]),  # repetitive, same shape
        _case(1, ["Scored", "Unscored", "Pending", "Late"], ["Not Scored"]),  # varied
        _case(2, ["Apple", "Dell"], ["Asus"]),  # holds
        _case(3, ["x"], ["y"]),  # abstention
    ]
    rules = [_rule("[A-Z][a-z]+"), _rule("[A-Za-z]+"), _rule("[A-Z][a-z]+"), None]
    scores = [CaseScore(0, 0.0), CaseScore(0, 0.0), CaseScore(1, 0.5), CaseScore(1, 0.0)]
    found = census(cases, rules, scores, repetitive=[0, 2, 3])
    assert found["rules"] == 3 and found["failing"] == 2
    assert list(found["causes"]) == list(CAUSES)
    assert found["causes"]["same shape"] == {"repetitive": 1, "varied": 0, "total": 1}
    assert found["causes"]["new shape"] == {"repetitive": 0, "varied": 1, "total": 1}
    assert found["causes"]["tolerated"]["total"] == found["causes"]["more parts"]["total"] == 0


def _run(fprs: list[float], failing: set[int], recall: float = 0.8):
    cases = [_case(i, ["Apple", "Dell"], ["HP"]) for i in range(len(fprs))]
    rules = [_rule("[A-Z][a-z]+", fpr) for fpr in fprs]
    scores = [CaseScore(0, 0.0) if i in failing else CaseScore(1, recall) for i in range(len(fprs))]
    return cases, rules, scores


def test_frontier_finds_the_group_whose_abstention_raises_f1():
    # 20 rules; the four with the highest estimate all fail
    fprs = [i / 100 for i in range(20)]
    cases, rules, scores = _run(fprs, failing={16, 17, 18, 19})
    front = frontier(cases, rules, scores)
    assert front["precision"] == pytest.approx(16 / 20)
    assert front["recall"] == pytest.approx(16 * 0.8 / 20)
    # s* = P^2 r / (P^2 r + R^2), r the mean recall of the holding rules
    p, r = 16 / 20, 16 * 0.8 / 20
    assert front["break_even"] == pytest.approx(p * p * 0.8 / (p * p * 0.8 + r * r))
    best = front["best"]
    assert best["abstained"] == 4 and best["failing"] == 4
    assert best["precision"] == pytest.approx(1.0)
    assert best["recall"] == pytest.approx(front["recall"])
    assert best["f1"] > front["f1"]
    assert front["best_at_target"] == best  # precision 1 reaches the target too
    assert front["most_failing"] == pytest.approx(0.4)  # of the groups of 10 or more rules


def test_frontier_cannot_buy_precision_where_failures_look_like_holding_rules():
    # every feature equal: the only groups are all rules or none, and abstaining on
    # all of them loses every rule's recall
    cases, rules, scores = _run([0.01] * 20, failing={3, 11})
    front = frontier(cases, rules, scores)
    assert front["best"]["abstained"] == 20
    assert front["best"]["f1"] == 0.0 < front["f1"]
    assert front["best_at_target"]["recall"] == 0.0


def test_failures_bundles_the_census_and_the_frontier():
    cases, rules, scores = _run([0.01, 0.02, 0.03], failing={2})
    found = failures(cases, rules, scores, repetitive=[0, 1, 2])
    assert found["census"]["failing"] == 1
    assert found["census"]["causes"]["same shape"]["repetitive"] == 1
    assert found["frontier"]["precision"] == pytest.approx(2 / 3)
