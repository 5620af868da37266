"""Methods compared by AV-bench: the product's FMDV family and the paper's baselines (§5.2).

A method has a ``name`` (the key in ``avbench.json``), ``pattern_based``
(whether it counts for the pattern-applicable subset) and
``fit(train) -> Rule | None`` (``None`` is an abstention).
"""
