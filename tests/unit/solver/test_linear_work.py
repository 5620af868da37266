"""Suggest on 10^5 distinct values does linear work: counted, not timed (machines differ)."""

from __future__ import annotations

import random

import autovalidate.solver.fmdv as fmdv
import autovalidate.solver.search as search
import autovalidate.solver.variants as variants
from autovalidate.pattern_inference import suggest_pattern


def test_suggest_on_1e5_distinct_values_does_no_per_pair_work(small_index, monkeypatch):
    rng = random.Random(3)
    values = list(
        {
            f"{rng.randint(1, 12):02d}/{rng.randint(1, 28):02d}/{rng.randint(1000, 9999)}"
            for _ in range(120_000)
        }
    )[:100_000]
    values += ["unknown"] * 2_000 + [f"{i}:{i}" for i in range(500)]  # rare groups to cut away
    calls = {"tokenize": 0, "row_eq": 0, "slot": 0}
    tokenize, slot = fmdv.tokenize, search._slot

    def counting_tokenize(value):
        calls["tokenize"] += 1
        return tokenize(value)

    def counting_slot(tokens):
        calls["slot"] += 1
        return slot(tokens)

    def counting_eq(self, other):
        calls["row_eq"] += 1
        return NotImplemented

    monkeypatch.setattr(fmdv, "tokenize", counting_tokenize)  # the multi-format search's
    monkeypatch.setattr(variants, "tokenize", counting_tokenize)  # the rows'

    monkeypatch.setattr(search, "_slot", counting_slot)
    monkeypatch.setattr(variants.Row, "__eq__", counting_eq)
    constraint = suggest_pattern(values, small_index, m=5, theta=0.1)
    assert constraint is not None and constraint.train_n == len(values)
    assert constraint.validate(["03/04/2019"]).n_nonconforming == 0
    # the lexer runs once per shape, not per value; no row is compared with another;
    # a position's options are computed once per aligned column and retained set
    assert calls["tokenize"] <= 50, calls
    assert calls["row_eq"] == 0, calls
    assert calls["slot"] <= 100, calls
