"""Auto-Validate-by-History (AVH): constraints from history with a bounded false-positive rate.

Tu, He, Cui, Ge, Zhang, Shi, Zhang & Chaudhuri, "Auto-Validate by-History:
Auto-Program Data Quality Constraints to Validate Recurring Data Pipelines",
KDD 2023 (arXiv 2306.02421). Pure functions over arrays of past metric
values; no I/O. :mod:`autovalidate.monitor.avh_batches` builds the candidates
from a metrics repository and runs the chosen program on a batch.

The method, as implemented here:

1. A *candidate constraint* is a metric (a statistic of one batch, or a
   distance between the distributions of two consecutive batches) with a
   statistic over its history. Its history ``x_1 .. x_n`` gives a mean ``mu``
   and an unbiased standard deviation ``s``.
2. *Bounds without distributional assumptions* (AVH §3, its use of
   Chebyshev's and Cantelli's inequalities). For a next value ``X`` of the same
   distribution as the history, with standard deviation ``sigma``:

   * Chebyshev, two-sided: ``P(|X - mu| >= k sigma) <= 1 / k**2``
     (:func:`chebyshev_fpr`);
   * Cantelli, one-sided: ``P(X - mu >= k sigma) <= 1 / (1 + k**2)``, the same
     for ``X - mu <= -k sigma`` (:func:`cantelli_fpr`);
   * where the metric is itself an average of many row values (the mean of a
     column, a completeness ratio), the paper also allows the central limit
     theorem: ``P(|X - mu| >= k sigma) ~ 2 (1 - Phi(k))`` (:func:`normal_fpr`);
     it is an approximation, not a bound, and is used only when asked for.

   ``sigma`` is unknown; it is estimated by ``s * sqrt(1 + 1/n)``: the
   standard deviation of ``X - mean(x_1..x_n)`` for independent values, so
   that the uncertainty of the history's mean is accounted for (a plug-in
   estimate, as in the paper; with few batches the bound holds only
   approximately).

   A history without variation (``s == 0``: a column always complete, batches
   of a fixed size) has two documented treatments (``zero_variance``):

   * ``"rank"`` (the default): no moment bound at all, only bounds that need
     no estimate. A history of exactly equal values gets the constraint "stays
     equal" with the bound ``(n - 1)**(n - 1) / n**n`` (about ``1 / (e n)``;
     :func:`constant_fpr`), which holds when the batches are exchangeable
     without end (independent and identically distributed, or a mixture of
     such); a history that varies by rounding only gets "stays within [min,
     max]" with the exchangeability bound ``P(X outside [min, max]) <= 2 / (n
     + 1)`` (one-sided ``1 / (n + 1)``; :func:`rank_fpr`). Neither is in the
     paper; they keep the product's promise, but at ``delta`` below them
     (0.0150 for ``n = 25``) such a metric cannot be watched.
   * ``"plugin"``: the plug-in estimate taken literally. AVH §3 (its
     Chebyshev, Cantelli and CLT bounds) computes the bounds from the
     history's mean and standard deviation; no correction for their
     estimation error and no special case for ``sigma = 0`` could be found
     in the text of arXiv 2306.02421 retrievable here (its abstract and
     introduction), so this is the literal consequence of the plug-in, not
     a quoted rule: with ``s = 0`` every ``k`` gives the degenerate range
     ``[mu, mu]`` and the bound ``1 / k**2`` can be made as small as asked,
     so the constraint "stays equal to the history's value" is priced at the
     requested ``fpr``. Any departure from a constant history is then an
     alarm, as in Deequ's BatchNormal; the "bound" is no longer a bound (it
     ignores that ``n`` equal values are consistent with a change rate of
     about ``1 / n``).
3. *Differencing* (AVH §3, non-stationary metrics such as row counts): a
   metric that trends over time violates the "same distribution" premise of
   the bounds; its first differences ``x_t - x_{t-1}`` are constrained
   instead. The paper tests stationarity; statsmodels (its augmented
   Dickey-Fuller test) is not a dependency, so :func:`needs_differencing`
   uses a documented simpler rule: the Mann-Kendall trend test (Kendall's tau
   between value and time, ``scipy.stats.kendalltau``), differencing when its
   p-value is below ``alpha`` (default 0.05).
4. *Selection* (AVH §3, the program that maximizes the expected recall
   subject to a false-positive budget ``delta``): a conjunction of
   constraints rejects a clean batch with probability at most the sum of
   their bounds (union bound), so the problem is a budgeted maximum
   coverage: each option (a candidate at one bound) costs its bound and
   covers the synthetic issues its interval rejects; choose options of
   distinct candidates with total cost ``<= delta`` that cover the most issues.
   :func:`select_constraints` runs the cost-effective greedy and returns the
   better of its result and the best single option, the classical
   constant-factor approximation for budgeted maximum coverage (Khuller, Moss
   & Naor, IPL 1999: ``(1 - 1/e) / 2``), the kind of guarantee AVH states.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import stats

from autovalidate.errors import ParameterError

__all__ = [
    "BOUNDS",
    "Interval",
    "Option",
    "ZERO_VARIANCE",
    "Side",
    "ZeroVariance",
    "cantelli_fpr",
    "chebyshev_fpr",
    "constant_fpr",
    "difference",
    "fit_interval",
    "js_divergence",
    "linf_distance",
    "needs_differencing",
    "normal_fpr",
    "psi",
    "rank_fpr",
    "select_constraints",
]

#: Which tail(s) of a metric a constraint bounds.
Side = Literal["both", "upper", "lower"]

#: The bounds :func:`fit_interval` can use.
BOUNDS = ("chebyshev", "cantelli", "clt", "rank", "constant", "plugin")

#: Treatments of a history without variation (see the module docstring).
ZeroVariance = Literal["rank", "plugin"]
ZERO_VARIANCE: tuple[str, ...] = ("rank", "plugin")


def _check_fraction(name: str, value: float) -> None:
    if not 0.0 < value <= 1.0:
        raise ParameterError(f"{name} must be in (0, 1], got {value}")


def chebyshev_fpr(k: float) -> float:
    """Chebyshev's two-sided bound ``P(|X - mu| >= k sigma) <= 1 / k**2``, capped at 1.

    Parameters
    ----------
    k
        Half-width of the interval in standard deviations, ``k > 0``.

    Returns
    -------
    float
        The bound, a fraction in [0, 1].

    Raises
    ------
    ParameterError
        If ``k <= 0``.

    References
    ----------
    Tu et al., KDD 2023, §3 (Chebyshev's inequality for two-sided constraints).
    """
    if not k > 0:
        raise ParameterError(f"k must be > 0, got {k}")
    return min(1.0, 1.0 / (k * k))


def cantelli_fpr(k: float) -> float:
    """Cantelli's one-sided bound ``P(X - mu >= k sigma) <= 1 / (1 + k**2)``.

    Parameters
    ----------
    k
        Distance of the bound from the mean in standard deviations, ``k > 0``.

    Returns
    -------
    float
        The bound, a fraction in (0, 1).

    Raises
    ------
    ParameterError
        If ``k <= 0``.

    References
    ----------
    Tu et al., KDD 2023, §3 (Cantelli's inequality for one-sided constraints).
    """
    if not k > 0:
        raise ParameterError(f"k must be > 0, got {k}")
    return 1.0 / (1.0 + k * k)


def normal_fpr(k: float, side: Side = "both") -> float:
    """The central-limit approximation of the tail beyond ``k`` standard deviations.

    ``2 (1 - Phi(k))`` for ``side="both"``, ``1 - Phi(k)`` for one side. An
    approximation (the metric is an average of many row values), not a bound.

    Raises
    ------
    ParameterError
        If ``k <= 0``.

    References
    ----------
    Tu et al., KDD 2023, §3 (CLT for metrics that are averages).
    """
    if not k > 0:
        raise ParameterError(f"k must be > 0, got {k}")
    tail = float(stats.norm.sf(k))
    return min(1.0, 2.0 * tail) if side == "both" else tail


def rank_fpr(n: int, side: Side = "both") -> float:
    """Distribution-free bound for "stay within [min, max] of ``n`` exchangeable past values".

    A next value exchangeable with the ``n`` past ones is strictly above their
    maximum with probability at most ``1 / (n + 1)``; outside ``[min, max]``
    with probability at most ``2 / (n + 1)``.

    Returns
    -------
    float
        The bound, a fraction in (0, 1].

    Raises
    ------
    ParameterError
        If ``n < 1``.
    """
    if n < 1:
        raise ParameterError(f"n must be >= 1, got {n}")
    return min(1.0, (2.0 if side == "both" else 1.0) / (n + 1))


def constant_fpr(n: int) -> float:
    """Bound for "equals the value that ``n`` past values all had" (exchangeable batches).

    For independent, identically distributed values whose atoms have
    probabilities ``p_a``, the chance that ``n`` values are all equal and the
    next differs is ``sum_a p_a**n (1 - p_a) <= sum_a p_a * max_p p**(n-1) (1 - p)
    <= (n - 1)**(n - 1) / n**n`` (the maximum is at ``p = 1 - 1/n``; about
    ``1 / (e n)``). A sequence of batches that is exchangeable without end is a
    mixture of such sequences (de Finetti's theorem), and the bound, holding for
    every component, holds for the mixture. It is a bound on the joint
    probability "the history was constant and the next value differs", so it
    prices the constraint that is only ever made from a constant history.
    The premise is the one of the other bounds here, applied to the
    constrained series (values, differences or distances): its next value is
    exchangeable with the past ones, and so on for every later batch. Smaller
    than the one-sided rank bound :func:`rank_fpr` for every ``n >= 2``; not in
    the paper.

    Returns
    -------
    float
        The bound, a fraction in (0, 1]: 0.0150 for ``n = 25``, 0.0125 for ``n = 30``;
        it is at most 0.01 from ``n = 38`` on.

    Raises
    ------
    ParameterError
        If ``n < 1``.

    References
    ----------
    de Finetti's theorem: Aldous, "Exchangeability and related topics", École
    d'été de probabilités de Saint-Flour XIII (1983), Springer LNM 1117, 1985, §3.
    """
    if n < 1:
        raise ParameterError(f"n must be >= 1, got {n}")
    return 1.0 if n == 1 else (1.0 - 1.0 / n) ** (n - 1) / n


def _k_for(fpr: float, bound: str, side: Side) -> float:
    if bound == "clt":
        return float(stats.norm.isf(fpr / 2 if side == "both" else fpr))
    if side == "both":  # Chebyshev: 1/k^2 = fpr
        return 1.0 / math.sqrt(fpr)
    return math.sqrt(1.0 / fpr - 1.0) if fpr < 1.0 else 0.0  # Cantelli: 1/(1+k^2) = fpr


@dataclass(frozen=True)
class Interval:
    """A constraint ``lower <= value <= upper`` with the bound on its false-positive rate.

    Attributes
    ----------
    lower, upper
        The accepted range; ``-inf`` / ``inf`` for a one-sided constraint.
    fpr
        Upper bound on the probability that a clean next value falls outside,
        a fraction in [0, 1] (an approximation for ``bound="clt"``).
    bound
        ``"chebyshev"``, ``"cantelli"``, ``"clt"``, ``"rank"``, ``"constant"`` or ``"plugin"``.
    side
        ``"both"``, ``"upper"`` (only an upper limit) or ``"lower"``.
    center, scale, k
        The history's mean, the estimated standard deviation of a next value
        around it, and the interval's half-width in those units (``k`` is
        ``None`` for the rank, constant and plug-in bounds).
    """

    lower: float
    upper: float
    fpr: float
    bound: str
    side: Side
    center: float
    scale: float
    k: float | None

    def contains(self, value: float) -> bool:
        """True when ``value`` satisfies the constraint (NaN never does)."""
        return bool(self.lower <= value <= self.upper)


def fit_interval(
    values: Sequence[float] | np.ndarray,
    fpr: float,
    *,
    side: Side = "both",
    clt: bool = False,
    zero_variance: ZeroVariance = "rank",
) -> Interval:
    """The tightest interval around the history whose false-positive bound is ``fpr``.

    Parameters
    ----------
    values
        Past values of one (stationary) metric, oldest first; at least 2.
    fpr
        Target bound on the false-positive rate, a fraction in (0, 1].
    side
        Constrain both tails (Chebyshev), or only the upper or lower one (Cantelli).
    clt
        Use the normal approximation instead (only for averages).
    zero_variance
        For a history without variation: ``"rank"`` (``[min, max]`` of the
        history, whatever ``fpr`` asked for, the caller compares; with the
        bound :func:`constant_fpr` when its values are exactly equal and
        ``n >= 2``, else the rank bound :func:`rank_fpr`) or ``"plugin"`` (the paper's plug-in
        estimate ``sigma = 0``: the range ``[mu, mu]`` at the requested
        ``fpr``, bound ``"plugin"``; not a guarantee, see the module docstring).

    Returns
    -------
    Interval
        With ``fpr`` equal to the requested one, except for a history without
        variation under ``zero_variance="rank"``.

    Raises
    ------
    ParameterError
        If fewer than 2 values, a value is not finite, ``fpr`` is outside
        (0, 1], or ``zero_variance`` is unknown.

    References
    ----------
    Tu et al., KDD 2023, §3: Chebyshev, Cantelli, CLT with the sample mean
    and standard deviation plugged in.
    """
    _check_fraction("fpr", fpr)
    if zero_variance not in ZERO_VARIANCE:
        raise ParameterError(f"zero_variance must be one of {ZERO_VARIANCE}, got {zero_variance!r}")
    x = np.asarray(values, dtype=float)
    if x.size < 2:
        raise ParameterError(f"an interval needs at least 2 past values, got {x.size}")
    if not np.all(np.isfinite(x)):
        raise ParameterError("past values must be finite")
    n = x.size
    mu = float(x.mean())
    s = float(x.std(ddof=1))
    if s <= 1e-12 * max(1.0, abs(mu)):
        lo, hi = float(x.min()), float(x.max())
        if zero_variance == "plugin":
            return Interval(
                lo if side != "upper" else -math.inf,
                hi if side != "lower" else math.inf,
                fpr,
                "plugin",
                side,
                mu,
                0.0,
                None,
            )
        exact = lo == hi and n >= 2  # exactly constant: priced by constant_fpr
        return Interval(
            lo if side != "upper" else -math.inf,
            hi if side != "lower" else math.inf,
            constant_fpr(n) if exact else rank_fpr(n, side),
            "constant" if exact else "rank",
            side,
            mu,
            0.0,
            None,
        )
    scale = s * math.sqrt(1.0 + 1.0 / n)
    bound = "clt" if clt else ("chebyshev" if side == "both" else "cantelli")
    k = _k_for(fpr, bound, side)
    lo = mu - k * scale if side != "upper" else -math.inf
    hi = mu + k * scale if side != "lower" else math.inf
    return Interval(lo, hi, fpr, bound, side, mu, scale, k)


def difference(values: Sequence[float] | np.ndarray, order: int = 1) -> np.ndarray:
    """The ``order``-th differences ``x_t - x_{t-1}`` of a series (AVH §3, differencing).

    Returns
    -------
    numpy.ndarray
        ``len(values) - order`` values.

    Raises
    ------
    ParameterError
        If ``order < 0``.
    """
    if order < 0:
        raise ParameterError(f"order must be >= 0, got {order}")
    return np.diff(np.asarray(values, dtype=float), n=order)


def needs_differencing(values: Sequence[float] | np.ndarray, alpha: float = 0.05) -> bool:
    """Whether a metric's history trends, so that its differences should be constrained.

    The Mann-Kendall test: Kendall's tau between the values and their time
    order; True when its two-sided p-value is below ``alpha``. Fewer than 4
    values, or a constant series, never trend. A documented substitute for the
    stationarity test of the paper (an augmented Dickey-Fuller test needs
    statsmodels, not a dependency).

    Raises
    ------
    ParameterError
        If ``alpha`` is outside (0, 1].
    """
    _check_fraction("alpha", alpha)
    x = np.asarray(values, dtype=float)
    if x.size < 4 or float(np.ptp(x)) == 0.0:
        return False
    result = stats.kendalltau(np.arange(x.size), x)
    p = float(result.pvalue)
    return not math.isnan(p) and p < alpha


def _distributions(p: dict[str, float], q: dict[str, float]) -> tuple[np.ndarray, np.ndarray]:
    keys = sorted(set(p) | set(q))
    a = np.array([max(0.0, p.get(k, 0.0)) for k in keys], dtype=float)
    b = np.array([max(0.0, q.get(k, 0.0)) for k in keys], dtype=float)
    a = a / a.sum() if a.sum() > 0 else a
    b = b / b.sum() if b.sum() > 0 else b
    return a, b


def linf_distance(p: dict[str, float], q: dict[str, float]) -> float:
    """L-infinity distance between two categorical distributions (bin -> share).

    Shares are renormalized to sum to 1; a bin missing on one side has share 0.

    Returns
    -------
    float
        ``max_bin |p - q|``, a fraction in [0, 1].
    """
    a, b = _distributions(p, q)
    return float(np.max(np.abs(a - b))) if a.size else 0.0


def js_divergence(p: dict[str, float], q: dict[str, float]) -> float:
    """Jensen-Shannon divergence (base 2) between two categorical distributions.

    Returns
    -------
    float
        In [0, 1]; 0 iff the distributions are equal.
    """
    a, b = _distributions(p, q)
    if not a.size:
        return 0.0
    m = (a + b) / 2

    def kl(x: np.ndarray) -> float:
        mask = x > 0
        return float(np.sum(x[mask] * np.log2(x[mask] / m[mask])))

    return max(0.0, 0.5 * kl(a) + 0.5 * kl(b))


def psi(p: dict[str, float], q: dict[str, float], epsilon: float = 1e-4) -> float:
    """Population stability index ``sum (q - p) ln(q / p)``, shares floored at ``epsilon``.

    Returns
    -------
    float
        Non-negative; 0 iff the distributions are equal.
    """
    a, b = _distributions(p, q)
    a, b = np.maximum(a, epsilon), np.maximum(b, epsilon)
    return float(np.sum((b - a) * np.log(b / a)))


@dataclass(frozen=True)
class Option:
    """One candidate constraint at one bound, for :func:`select_constraints`.

    Attributes
    ----------
    candidate
        Identifies the candidate (metric and statistic); at most one option per
        candidate is selected.
    fpr
        Its false-positive bound, the budget it costs, a fraction in [0, 1].
    covers
        The synthetic issues (by index) its interval rejects.
    """

    candidate: str
    fpr: float
    covers: frozenset[int]


def _greedy(options: Sequence[Option], delta: float) -> list[Option]:
    chosen: list[Option] = []
    used: set[str] = set()
    covered: set[int] = set()
    spent = 0.0
    while True:
        best: Option | None = None
        best_key: tuple[float, float, str] | None = None
        for o in options:
            if o.candidate in used or spent + o.fpr > delta + 1e-12:
                continue
            gain = len(o.covers - covered)
            if gain == 0:
                continue
            key = (gain / max(o.fpr, 1e-300), -o.fpr, o.candidate)
            if best_key is None or key > best_key:
                best, best_key = o, key
        if best is None:
            return chosen
        chosen.append(best)
        used.add(best.candidate)
        covered |= best.covers
        spent += best.fpr


def select_constraints(options: Sequence[Option], delta: float) -> list[Option]:
    """Choose options maximizing the issues covered with total ``fpr <= delta`` (AVH §3).

    The union bound makes the conjunction's false-positive rate at most the
    sum of the chosen bounds, so the sum is kept ``<= delta``. Greedy by newly
    covered issues per unit of budget, one option per candidate, compared with
    the single feasible option covering most: a ``(1 - 1/e) / 2``
    approximation of budgeted maximum coverage (Khuller, Moss & Naor 1999).
    The greedy prefers cheap options (wide ranges) and can spend the budget
    on them before the costlier, narrower options that catch milder issues
    fit; so it is also run on the options costing at least ``c``, for every
    cost ``c`` of a feasible option, and the run covering most is returned
    (the unrestricted greedy on ties). Taking the best of more feasible
    solutions keeps the guarantee.

    Parameters
    ----------
    options
        Candidates at their possible bounds.
    delta
        The false-positive budget, a fraction in (0, 1].

    Returns
    -------
    list of Option
        In the order chosen; their ``fpr`` sum to at most ``delta``; options
        covering no issue are never chosen.

    Raises
    ------
    ParameterError
        If ``delta`` is outside (0, 1].
    """
    _check_fraction("delta", delta)
    feasible = [o for o in options if o.fpr <= delta + 1e-12 and o.covers]
    if not feasible:
        return []
    runs = [_greedy(options, delta)]
    # the greedy favours cheap (wide) options and can spend the budget on gross issues
    # only; runs restricted to the costlier options are candidates too
    for floor in sorted({o.fpr for o in feasible}, reverse=True):
        runs.append(_greedy([o for o in feasible if o.fpr >= floor], delta))
    runs.append([max(feasible, key=lambda o: (len(o.covers), -o.fpr, o.candidate))])

    def coverage(run: list[Option]) -> int:
        return len(set().union(*(o.covers for o in run))) if run else 0

    return max(runs, key=coverage)  # the first of the best: the unrestricted greedy on ties
