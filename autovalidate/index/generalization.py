r"""How a column's format generalizes from its first tenth to the rest, learned from the corpus.

Beyond the paper. FMDV's vertical cut (Song & He 2021, §3, Eq. 8-9) prices
each segment of a composite value by the FPR_T of corpus columns whose whole
values have the segment's pattern. That is the right evidence for a value
the corpus has as a column (a date, a ZIP code), and poor evidence for a
part of a machine-generated record: the minutes ``00`` of a timestamp or the
``100`` of ``100-000000775`` are, as columns of their own, numeric columns of
mixed widths (``<digit>{2}`` has FPR_T 0.35 on the shared lake), and a
position whose training tenth showed one text leaves the estimate
unconditioned. Added up over a timestamp's segments, Σ FPR_T exceeds r, and
machine formats get no constraint.

So the index also learns, by simulating the benchmark's protocol on every
corpus column (its first :data:`~autovalidate.patterns.enumeration.TRAIN_FRACTION`
as the training part, the rest as later data), two statistics:

* **Position statistics.** For each token position of the training part's
  most frequent token signature (values of more than one token only), and
  each option of the hierarchy the training texts there share, whether more
  than :data:`FAIL_SHARE` of the later values of that signature break the
  option at that position. Keyed by the token's kind, the option's class
  (``constant``, ``<digit>{k}``, ``<digit>+``, ``<upper>+``, a title-case or
  mixed-run shape...), its width (for fixed widths, bucketed) and the
  number of distinct texts the training part showed at the position (1,
  2-3, 4-10, 11 or more: the issue's strata of a training tenth's
  diversity). This answers, from the corpus, when a position of one text
  may be fixed (a constant), when a width may be fixed, and when a class may
  be narrowed: on the shared lake, a digit run of one text generalized as
  ``<digit>{k}`` breaks later in 1.7% of the positions with k = 2 and 13% with
  k = 1, while a digit constant breaks in 32%.
* **Shape statistics.** Per column, the share of the later values whose token
  signature the training part never showed, keyed by the training part's
  distinct values (the same strata), its number of signatures (1, 2-3, 4+)
  and whether its most frequent signature has a space (words).
* **Signature statistics.** The shape statistics again, per column, keyed
  also by the training part's most frequent signature itself
  (:func:`signature`, ``D-D-D D:D:D`` for a timestamp): what the shape
  statistics' strata average over. A timestamp and a two-word name share a
  stratum (spaced, one training text), yet on the shared lake the first keeps
  its shape and the second often does not. :meth:`GeneralizationStats.shape_risk`
  backs off from the signature to its class (letters or not, spaced or not)
  to the stratum, each level a standardized ratio shrunk toward its parent.
* **Identifier shape statistics.** The shape statistics again, with the
  values read by the identifier lexer
  (:func:`~autovalidate.patterns.tokens.identifier_tokens`: a run of
  letters, digits, ``.``, ``_``, ``~`` and ``-`` is one token), over the
  columns whose training part's most frequent identifier signature has two
  or more tokens: how often a URL's, a path's or an e-mail address's
  skeleton of symbols changes later, whatever its parts' inner symbols do.
* **Repetition statistics.** Per column and separator character (a symbol
  other than a space whose number of occurrences varies between training
  values: the ``_`` of ``a_b``, ``a_b_c``), the share of later values where it
  occurs more often than in any training value, than twice that plus one
  and than ten times that plus nine: how far a list, a path or a dotted name
  grows past what its first tenth showed. Keyed by the training's largest number of occurrences
  (1, 2, 3-4, 5+).

All are sums that add up over partitions, builds and corpora like the
pattern sums (``columns``, ``share_sum``, ``failed``), stored in the index's
``generalization.parquet``. The solver prices a position of a vertical cut
by :meth:`GeneralizationStats.position_risk` and adds a cut solution's
:meth:`GeneralizationStats.shape_risk` once (:mod:`autovalidate.solver.fmdv`).
A stratum with few corpus columns is pooled with its class (a Beta prior of
:data:`PRIOR_COLUMNS` pseudo-columns at the class's rate, as Short_T is in
:mod:`autovalidate.solver.lengths`), so a rare key is not trusted blindly.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple, cast

from autovalidate.nulls import drop_missing
from autovalidate.patterns.enumeration import TRAIN_FRACTION
from autovalidate.patterns.hierarchy import escape_literal, options, representative
from autovalidate.patterns.tokens import Token, identifier_tokens, token_class, tokenize

__all__ = [
    "FAIL_SHARE",
    "GENERALIZATION_COLUMNS",
    "KEY_COLUMNS",
    "PRIOR_COLUMNS",
    "GeneralizationStats",
    "PositionKey",
    "REPEAT_BOUNDS",
    "RepeatKey",
    "repeat_bound",
    "ShapeKey",
    "SignatureKey",
    "diversity_stratum",
    "option_class",
    "signature",
]

#: A position (or a shape) fails when more than this share of the later values
#: break it: about where Fisher's test of a rule learned on 100 values rejects
#: 900 later ones (50 non-conforming of 900, 5.6%, at alpha = 0.01).
FAIL_SHARE = 0.05
#: Pseudo-columns of the Beta prior a key is pooled with (its class's rate).
PRIOR_COLUMNS = 5.0
#: Fewest values a column needs to say anything (a tenth of 10 is one value).
MIN_VALUES = 10
#: Bounds of the diversity strata: 1, 2-3, 4-10, 11 or more distinct texts.
_STRATA = (1, 3, 10)
#: Bounds of the fixed-width buckets: 1, 2, 3-4, 5-8, 9 or more characters.
_WIDTHS = (1, 2, 4, 8)

#: Columns of ``generalization.parquet`` → DuckDB type. ``statistic`` is
#: ``position``, ``shape``, ``identifier`` (keyed as ``shape``), ``signature``
#: (``kind`` then holds the signature,
#: :func:`encode_signature`) or ``repeat`` (``stratum`` then holds the bucket
#: of the training's most repeats, ``signatures`` the bound); the key columns
#: a statistic does not use hold ``''``, ``0`` or false.
GENERALIZATION_COLUMNS: dict[str, str] = {
    "statistic": "VARCHAR",
    "kind": "VARCHAR",
    "option_class": "VARCHAR",
    "width": "INTEGER",
    "stratum": "INTEGER",
    "signatures": "INTEGER",
    "spaced": "BOOLEAN",
    "columns": "BIGINT",
    "share_sum": "DOUBLE",
    "failed": "BIGINT",
}
#: The key columns of the table (the rest are sums).
KEY_COLUMNS = tuple(GENERALIZATION_COLUMNS)[:7]


def diversity_stratum(distinct: int) -> int:
    """The stratum of a number of distinct training texts: 0 (1), 1 (2-3), 2 (4-10), 3 (11+)."""
    return sum(distinct > bound for bound in _STRATA)


def _width_bucket(width: int) -> int:
    """The bucket of a fixed width: 1, 2, 3 (3-4), 5 (5-8) or 9 (9 or more characters)."""
    return (1, 2, 3, 5, 9)[sum(width > bound for bound in _WIDTHS)]


def _repeat_bucket(most: int) -> int:
    """The bucket of a largest number of repeats: 1, 2, 3 (3-4) or 5 (5 or more)."""
    return 1 if most <= 1 else 2 if most == 2 else 3 if most <= 4 else 5


def _signatures_bucket(count: int) -> int:
    return 0 if count <= 1 else 1 if count <= 3 else 2


_ELEMENT = re.compile(r"<([a-z-]+)>(?:\{(\d+)\}|(\+))?")


@lru_cache(maxsize=1 << 14)
def option_class(option: str, constant: bool = False) -> tuple[str, int]:
    """The class of a hierarchy option and its width bucket (0 where the width is free).

    Parameters
    ----------
    option
        A canonical option of one token (:func:`~autovalidate.patterns.hierarchy.options`).
    constant
        The option is the token's own text.

    Returns
    -------
    (class, width)
        ``("constant", 0)``; a single class element as ``("<digit>{k}", bucket)``
        or ``("<digit>+", 0)``; ``<upper>{1}<lower>{k}`` as ``("title{k}", bucket)``
        (``title+``); a signed or decimal number's shape as ``signed{k}`` /
        ``signed+``; any other run shape as ``shape{k}`` / ``shape+``.
    """
    if constant:
        return ("constant", 0)
    elements = _ELEMENT.findall(option)
    rest = _ELEMENT.sub("", option)
    widths = [int(k) for _, k, _ in elements if k]
    fixed = all(k for _, k, _ in elements)
    if len(elements) == 1 and not rest:
        name, k, plus = elements[0]
        if k:
            return (f"<{name}>{{k}}", _width_bucket(int(k)))
        return (f"<{name}>+" if plus else f"<{name}>", 0)
    names = [name for name, _, _ in elements]
    if names == ["upper", "lower"] and elements[0][1] == "1" and not rest:
        return ("title{k}", _width_bucket(sum(widths))) if fixed else ("title+", 0)
    tag = "signed" if rest else "shape"
    return (f"{tag}{{k}}", _width_bucket(sum(widths))) if fixed else (f"{tag}+", 0)


def signature(tokens: Sequence[Token]) -> tuple[str, ...]:
    """A value's shape for the shape statistics: its token classes, repeated units collapsed.

    The classes are :func:`~autovalidate.patterns.tokens.token_class`; a unit
    of a separator (a symbol other than a space) and a token repeated right
    after itself counts once (``a_b_c`` and ``a_b`` have one shape), so that a
    list growing later is the repetition statistics' business, not a new
    shape.
    """
    out: list[str] = []
    for t in tokens:
        out.append(token_class(t.kind, t.text))
        if (
            len(out) >= 4
            and out[-2][0] == "S"
            and not out[-2][1:].isspace()
            and out[-2:] == out[-4:-2]
        ):
            del out[-2:]
    return tuple(out)


#: The bounds the repetition statistics try, as functions of the training's most
#: repeats k: k itself, 2k + 1, and 10k + 9 (an order of magnitude).
REPEAT_BOUNDS: tuple[tuple[int, int], ...] = ((1, 0), (2, 1), (10, 9))


def repeat_bound(most: int, bound: int) -> int:
    """The ``bound``-th of :data:`REPEAT_BOUNDS` for a training's most repeats ``most``."""
    factor, extra = REPEAT_BOUNDS[bound]
    return factor * most + extra


class PositionKey(NamedTuple):
    """What a position statistic is kept by (see the module docstring)."""

    kind: str
    option_class: str
    width: int
    stratum: int


class ShapeKey(NamedTuple):
    """What a shape statistic is kept by (see the module docstring)."""

    stratum: int
    signatures: int
    spaced: bool


class SignatureKey(NamedTuple):
    """What a signature statistic is kept by: the signature, and the shape key's strata.

    ``signature`` is the training part's most frequent signature,
    :func:`encode_signature`; ``stratum`` and ``signatures`` are those of
    its :class:`ShapeKey` (``spaced`` follows from the signature).
    """

    signature: str
    stratum: int
    signatures: int


def encode_signature(shape: Sequence[str]) -> str:
    """A signature (:func:`signature`) as one string, its classes separated by U+001F.

    A class is ``W``, ``D``, ``N`` or ``S`` and one symbol character
    (:func:`~autovalidate.patterns.tokens.token_class`); the unit separator
    is a control character no symbol token of a signature holds apart from
    its ``S``, so the encoding is one to one.
    """
    return _UNIT.join(shape)


def _signature_class(encoded: str) -> tuple[bool, bool]:
    """The class of an encoded signature: (has a word, has a space)."""
    classes = encoded.split(_UNIT)
    return ("W" in classes, "S " in classes)


_UNIT = "\x1f"


def _family(klass: str) -> str:
    """The family a position class backs off to: fixed widths, free widths, or itself.

    A class of fixed width (``<hex-upper>{k}``, ``title{k}``) breaks when a
    later text is longer or shorter, a class of free width (``<digit>+``,
    ``shape+``) only when its characters change, a constant whenever the
    text does: each family fails in its own way and rate.
    """
    if klass.endswith("{k}"):
        return "*{k}"
    if klass.endswith("+"):
        return "*+"
    return "*" + klass


class RepeatKey(NamedTuple):
    """What a repetition statistic is kept by: the training's most repeats, and the bound tried.

    ``most`` is the bucket (1, 2, 3 for 3-4, 5 for 5 or more) of the largest
    number of times a separator occurs in one training value; ``bound`` the
    position in :data:`REPEAT_BOUNDS` of the bound tried.
    """

    most: int
    bound: int


@dataclass
class GeneralizationStats:
    """The position and shape statistics of a corpus: sums per key, mergeable by addition.

    Attributes
    ----------
    positions
        Key → ``[columns, share_sum, failed]``: corpus positions, the summed
        share (in [0, 1]) of their later same-signature values breaking the
        option, and the positions where that share exceeds :data:`FAIL_SHARE`.
    shapes
        Key → ``[columns, share_sum, failed]``: corpus columns, the summed
        share of their later values with a signature the training part never
        showed, and the columns where it exceeds :data:`FAIL_SHARE`.
    signature_shapes
        :class:`SignatureKey` → ``[columns, share_sum, failed]``: the shape
        statistics' columns again, by their training's most frequent signature.
    identifier_shapes
        :class:`ShapeKey` → ``[columns, share_sum, failed]``: the shape
        statistics of the values read by the identifier lexer.
    repeats
        Key → ``[columns, share_sum, failed]``: corpus separators, the summed
        share of their column's later values with more occurrences than the
        key's bound, and the separators where it exceeds :data:`FAIL_SHARE`.
    """

    positions: dict[PositionKey, list[float]] = field(default_factory=dict)
    shapes: dict[ShapeKey, list[float]] = field(default_factory=dict)
    signature_shapes: dict[SignatureKey, list[float]] = field(default_factory=dict)
    repeats: dict[RepeatKey, list[float]] = field(default_factory=dict)
    identifier_shapes: dict[ShapeKey, list[float]] = field(default_factory=dict)

    # -- building ------------------------------------------------------------

    def add_column(self, values: Iterable[str | None]) -> None:
        """Add one corpus column: its training part (first tenth) against its rest."""
        kept = list(drop_missing(values))
        if len(kept) < MIN_VALUES:
            return
        n_train = math.ceil(len(kept) * TRAIN_FRACTION)
        train, rest = kept[:n_train], kept[n_train:]
        tokens = {v: tokenize(v) for v in set(kept)}
        self._add_repeats(train, rest, tokens)
        identified = _shape_outcome(
            train, rest, {v: signature(identifier_tokens(v)) for v in tokens}
        )
        if identified is not None:
            _add(self.identifier_shapes, identified[0], identified[2])
        outcome = _shape_outcome(train, rest, {v: signature(t) for v, t in tokens.items()})
        if outcome is None:
            return  # one-token values: a whole-column pattern, FPR_T's business
        key, most, new_shape = outcome
        _add(self.shapes, key, new_shape)
        _add(
            self.signature_shapes,
            SignatureKey(encode_signature(most), key.stratum, key.signatures),
            new_shape,
        )
        # positions line up within one token signature (classes in order, nothing collapsed)
        sigs = {v: tuple(token_class(t.kind, t.text) for t in tokens[v]) for v in tokens}
        top = Counter(sigs[v] for v in train).most_common(1)[0][0]
        if len(top) < 2:
            return
        trained = [tokens[v] for v in dict.fromkeys(train) if sigs[v] == top]
        later = Counter(v for v in rest if sigs[v] == top)
        if not later:
            return
        total = sum(later.values())
        for i, head in enumerate(trained[0]):
            if head.kind == "S":
                continue
            texts = {t[i] for t in trained}
            for where, share in _position_outcomes(head.kind, texts, later, tokens, i, total):
                _add(self.positions, where, share)

    def _add_repeats(
        self, train: list[str], rest: list[str], tokens: dict[str, tuple[Token, ...]]
    ) -> None:
        """The repetition statistics of a column (see the module docstring)."""
        counts: dict[str, Counter[str]] = {}
        for v in set(train) | set(rest):
            for t in tokens[v]:
                if t.kind == "S" and not t.text.isspace():
                    counts.setdefault(t.text, Counter())[v] += 1
        for per_value in counts.values():
            seen = {per_value[v] for v in set(train)}
            if len(seen) < 2:
                continue  # the same number in every training value: no repetition shown
            most = max(seen)
            for bound in range(len(REPEAT_BOUNDS)):
                limit = repeat_bound(most, bound)
                share = sum(1 for v in rest if per_value[v] > limit) / len(rest)
                _add(self.repeats, RepeatKey(_repeat_bucket(most), bound), share)

    def merge(self, other: GeneralizationStats) -> GeneralizationStats:
        """Add another's sums into this one (associative and commutative)."""
        for key, sums in other.positions.items():
            _add_sums(self.positions, key, sums)
        for shape, sums in other.shapes.items():
            _add_sums(self.shapes, shape, sums)
        for signed, sums in other.signature_shapes.items():
            _add_sums(self.signature_shapes, signed, sums)
        for repeat, sums in other.repeats.items():
            _add_sums(self.repeats, repeat, sums)
        for shape, sums in other.identifier_shapes.items():
            _add_sums(self.identifier_shapes, shape, sums)
        return self

    # -- storage -------------------------------------------------------------

    def rows(self) -> Iterator[tuple[Any, ...]]:
        """Rows in :data:`GENERALIZATION_COLUMNS` order."""
        for p, (n, share, failed) in self.positions.items():
            yield (
                "position",
                p.kind,
                p.option_class,
                p.width,
                p.stratum,
                0,
                False,
                int(n),
                share,
                int(failed),
            )
        for statistic, table in (("shape", self.shapes), ("identifier", self.identifier_shapes)):
            for s, (n, share, failed) in table.items():
                key = (statistic, "", "", 0, s.stratum, s.signatures, s.spaced)
                yield (*key, int(n), share, int(failed))
        for g, (n, share, failed) in self.signature_shapes.items():
            yield (
                "signature",
                g.signature,
                "",
                0,
                g.stratum,
                g.signatures,
                _signature_class(g.signature)[1],
                int(n),
                share,
                int(failed),
            )
        for r, (n, share, failed) in self.repeats.items():
            yield ("repeat", "", "", 0, r.most, r.bound, False, int(n), share, int(failed))

    @classmethod
    def from_rows(cls, rows: Iterable[Sequence[Any]]) -> GeneralizationStats:
        """The statistics of rows in :data:`GENERALIZATION_COLUMNS` order (repeated keys add up)."""
        out = cls()
        for statistic, kind, klass, width, stratum, sigs, spaced, n, share, failed in rows:
            sums = (n, share, failed)
            if statistic == "position":
                key: Any = PositionKey(str(kind), str(klass), int(width), int(stratum))
                _add_sums(out.positions, key, sums)
            elif statistic == "shape":
                _add_sums(out.shapes, ShapeKey(int(stratum), int(sigs), bool(spaced)), sums)
            elif statistic == "signature":
                signed = SignatureKey(str(kind), int(stratum), int(sigs))
                _add_sums(out.signature_shapes, signed, sums)
            elif statistic == "repeat":
                _add_sums(out.repeats, RepeatKey(int(stratum), int(sigs)), sums)
            elif statistic == "identifier":
                key = ShapeKey(int(stratum), int(sigs), bool(spaced))
                _add_sums(out.identifier_shapes, key, sums)
            else:
                raise ValueError(f"unknown generalization statistic {statistic!r}")
        return out

    # -- estimates -----------------------------------------------------------

    def position_risk(self, kind: str, option: str, constant: bool, distinct: int) -> float:
        """The probability that a position breaks its option later, a fraction in [0, 1].

        Parameters
        ----------
        kind
            The token kind at the position (``D``, ``L``, ``M``, ``N``).
        option
            The hypothesis's option there.
        constant
            The option is the position's one training text.
        distinct
            Distinct texts the training values show at the position.

        Returns
        -------
        float
            ``(failed + PRIOR_COLUMNS · q) / (columns + PRIOR_COLUMNS)`` of the
            key, where q is the failure rate of the option's class over every
            width and stratum of the kind, itself pooled the same way with
            the rate of its family in the kind (fixed widths, free widths:
            :func:`_family`; a fixed-width class of three positions that never
            failed is not free, it backs off to the fixed widths), and 1 where
            the corpus has no position of that class (an option nothing
            supports is never free).
        """
        klass, width = option_class(option, constant)
        return self._position_risk(kind, klass, width, diversity_stratum(distinct))

    @lru_cache(maxsize=4096)  # noqa: B019 - a handful of statistics objects per process
    def _position_risk(self, kind: str, klass: str, width: int, stratum: int) -> float:
        pools = self._pooled_positions()
        pooled = pools.get((kind, klass))
        if not pooled or not pooled[0]:
            return 1.0  # an option nothing in the corpus supports is never free
        whole = pools[(kind, _family(klass))]
        prior = (pooled[2] + PRIOR_COLUMNS * whole[2] / whole[0]) / (pooled[0] + PRIOR_COLUMNS)
        n, _, failed = self.positions.get(PositionKey(kind, klass, width, stratum), (0, 0.0, 0))
        return (failed + PRIOR_COLUMNS * prior) / (n + PRIOR_COLUMNS)

    def shape_risk(self, distinct: int, signatures: int, most: Sequence[str]) -> float:
        """The expected share of later values in a shape the training values never had.

        Parameters
        ----------
        distinct
            Distinct training values (those a horizontal cut retains).
        signatures
            Their token signatures.
        most
            Their most frequent signature (:func:`signature`).

        Returns
        -------
        float
            A fraction in [0, 1]. The stratum's rate ``s`` (the key's mean
            share, pooled with the mean over every key with
            :data:`PRIOR_COLUMNS` pseudo-columns), times two standardized
            ratios that back off from the signature to its class (whether it
            has a word, whether a space) to the stratum:
            ``s · λ_class · λ_signature``. Each ratio is observed over expected
            new-shape shares, ``(O + a) / (E + a)``, where E sums the parent
            level's rate over the level's corpus columns and ``a`` is
            :data:`PRIOR_COLUMNS` columns at the overall mean share: the
            Poisson-Gamma posterior mean of a relative risk (Clayton & Kaldor,
            Biometrics 1987), so a signature of few corpus columns stays near
            its class, and a class near the stratum. The signature's ratio is
            kept per diversity stratum (a constant training tenth and a varied
            one of the same signature differ). A one-token signature, or an
            index without signature statistics, gets ``s``.

        Beyond the paper. Chosen over the stratum alone, the class alone, the
        signature alone, a stratum crossed with the class, and a signature
        ratio over all strata by the held-out Poisson deviance of each
        corpus column's later new-shape share, five folds by source on the
        shared lake (docs/auto-validate.md, "Shapes backed off by signature").
        """
        stratum, bucket = diversity_stratum(distinct), _signatures_bucket(signatures)
        encoded = encode_signature(most)
        klass = _signature_class(encoded)
        base = self._shape_risk(stratum, bucket, klass[1])
        if len(most) < 2 or not self.signature_shapes:
            return base
        by_class, by_signature = self._signature_ratios()
        ratio = by_class.get(klass, 1.0) * by_signature.get((encoded, stratum), 1.0)
        return min(1.0, base * ratio)

    @lru_cache(maxsize=256)  # noqa: B019
    def _shape_risk(self, stratum: int, signatures: int, spaced: bool) -> float:
        n, share, _ = self.shapes.get(ShapeKey(stratum, signatures, spaced), (0, 0.0, 0))
        return (share + PRIOR_COLUMNS * self._shape_mean()) / (n + PRIOR_COLUMNS)

    def _shape_mean(self) -> float:
        total = [sum(v[i] for v in self.shapes.values()) for i in range(2)]
        return total[1] / total[0] if total[0] else 1.0

    def _signature_ratios(
        self,
    ) -> tuple[dict[tuple[bool, bool], float], dict[tuple[str, int], float]]:
        """The class and the per-stratum signature ratios of :meth:`shape_risk`, computed once."""
        cached = self.__dict__.get("_ratios")
        if cached is not None:
            return cast(tuple[dict[tuple[bool, bool], float], dict[tuple[str, int], float]], cached)
        a = PRIOR_COLUMNS * self._shape_mean()
        rows = []
        for key, (n, share, _) in self.signature_shapes.items():
            klass = _signature_class(key.signature)
            expected = n * self._shape_risk(key.stratum, key.signatures, klass[1])
            rows.append((key, klass, share, expected))
        sums: dict[Any, list[float]] = {}
        for _, klass, share, expected in rows:
            _add_sums(sums, klass, (share, expected, 0))
        by_class = {k: _ratio(o, e, a) for k, (o, e, _) in sums.items()}
        sums = {}
        for key, klass, share, expected in rows:
            _add_sums(sums, (key.signature, key.stratum), (share, expected * by_class[klass], 0))
        by_signature = {k: _ratio(o, e, a) for k, (o, e, _) in sums.items()}
        self.__dict__["_ratios"] = (by_class, by_signature)
        return by_class, by_signature

    def identifier_shape_risk(self, distinct: int, signatures: int, spaced: bool) -> float:
        """The expected share of later values in an identifier shape the training never had.

        Parameters
        ----------
        distinct
            Distinct training values (those a horizontal cut retains).
        signatures
            Their identifier signatures (:func:`signature` of
            :func:`~autovalidate.patterns.tokens.identifier_tokens`).
        spaced
            Their most frequent identifier signature has a space.

        Returns
        -------
        float
            A fraction in [0, 1]: the key's mean share, pooled with the mean
            over every identifier key (:data:`PRIOR_COLUMNS` pseudo-columns),
            as the stratum level of :meth:`shape_risk`; 1 where the index has
            no identifier statistics.

        Beyond the paper: the risk of a cut of identifier tokens, each
        ``<unreserved>+``, which only a change of the value's skeleton of
        other symbols (a new shape here) breaks.
        """
        if not self.identifier_shapes:
            return 1.0
        key = ShapeKey(diversity_stratum(distinct), _signatures_bucket(signatures), spaced)
        return self._identifier_shape_risk(key)

    @lru_cache(maxsize=64)  # noqa: B019
    def _identifier_shape_risk(self, key: ShapeKey) -> float:
        table = self.identifier_shapes
        total = [sum(v[i] for v in table.values()) for i in range(2)]
        n, share, _ = table.get(key, (0, 0.0, 0))
        return (share + PRIOR_COLUMNS * total[1] / total[0]) / (n + PRIOR_COLUMNS)

    def repeat_risk(self, most: int, bound: int) -> float:
        """The probability that a separator later occurs more often than a bound, in [0, 1].

        Parameters
        ----------
        most
            The most times the separator occurs in one training value.
        bound
            Which of :data:`REPEAT_BOUNDS`: 0 is ``most`` itself.

        Returns
        -------
        float
            The key's failure rate (the share of separators whose later values
            exceed the bound in more than :data:`FAIL_SHARE` of the rows),
            pooled with the rate over every repetition key of that bound
            (:data:`PRIOR_COLUMNS` pseudo-columns); 1 where the corpus shows none.
        """
        return self._repeat_risk(_repeat_bucket(most), bound)

    @lru_cache(maxsize=64)  # noqa: B019
    def _repeat_risk(self, most: int, bound: int) -> float:
        same = [v for k, v in self.repeats.items() if k.bound == bound]
        total = [sum(v[i] for v in same) for i in (0, 2)]
        prior = total[1] / total[0] if total[0] else 1.0
        n, _, failed = self.repeats.get(RepeatKey(most, bound), (0, 0.0, 0))
        return (failed + PRIOR_COLUMNS * prior) / (n + PRIOR_COLUMNS)

    def _pooled_positions(self) -> dict[tuple[str, str], list[float]]:
        pooled = self.__dict__.get("_pooled")
        if pooled is None:
            pooled = {}
            for key, sums in self.positions.items():
                _add_sums(pooled, (key.kind, key.option_class), sums)
                _add_sums(pooled, (key.kind, _family(key.option_class)), sums)
            self.__dict__["_pooled"] = pooled
        return pooled

    def __hash__(self) -> int:  # the estimates are cached per statistics object
        return id(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GeneralizationStats):
            return NotImplemented
        return (
            self.positions == other.positions
            and self.shapes == other.shapes
            and self.signature_shapes == other.signature_shapes
            and self.repeats == other.repeats
            and self.identifier_shapes == other.identifier_shapes
        )


def _shape_outcome(
    train: list[str], rest: list[str], shapes: dict[str, tuple[str, ...]]
) -> tuple[ShapeKey, tuple[str, ...], float] | None:
    """A column's shape key, its training's most frequent shape, and its later new-shape share.

    ``shapes``: every value's :func:`signature` (by either lexer). The share
    is of the later values in a shape the training never had; None where the
    training's most frequent shape is a single token.
    """
    seen = Counter(shapes[v] for v in train)
    most = seen.most_common(1)[0][0]
    if len(most) < 2:
        return None
    new_shape = sum(1 for v in rest if shapes[v] not in seen) / len(rest)
    key = ShapeKey(diversity_stratum(len(set(train))), _signatures_bucket(len(seen)), "S " in most)
    return key, most, new_shape


def _ratio(observed: float, expected: float, prior: float) -> float:
    """A standardized ratio shrunk toward 1: ``(O + a) / (E + a)``; 1 where both sides are 0."""
    return (observed + prior) / (expected + prior) if expected + prior > 0 else 1.0


def _add(table: dict[Any, list[float]], key: Any, share: float) -> None:
    _add_sums(table, key, (1, share, share > FAIL_SHARE))


def _add_sums(table: dict[Any, list[float]], key: Any, sums: Sequence[float]) -> None:
    entry = table.get(key)
    if entry is None:
        table[key] = [sums[0], sums[1], sums[2]]
    else:
        entry[0] += sums[0]
        entry[1] += sums[1]
        entry[2] += sums[2]


def _position_outcomes(
    kind: str,
    texts: set[Token],
    later: Counter[str],
    tokens: dict[str, tuple[Token, ...]],
    i: int,
    total: int,
) -> Iterator[tuple[PositionKey, float]]:
    """Per class of the options the training texts share at position i: the share broken later.

    Options other than the constant depend only on a token's representative
    (:func:`~autovalidate.patterns.hierarchy.representative`), so each later
    token is read once per representative. Where several options of a
    position fall in one class (``<digit>{4}``, ``<hex-lower>{4}`` and
    ``<alphanum>{4}`` are all fixed width 4), each is counted: every option is
    a hypothesis the solver may price.
    """
    only = next(iter(texts)) if len(texts) == 1 else None
    shared: set[str] | None = None
    for shape in {representative(t) for t in texts}:
        opts = set(options(shape))
        opts.discard(escape_literal(shape.text))
        shared = opts if shared is None else shared & opts
    candidates = sorted(shared or ())
    constant = escape_literal(only.text) if only is not None else None
    broken = Counter[str]()
    by_rep: Counter[Token] = Counter()
    same_text = 0
    for value, weight in later.items():
        token = tokens[value][i]
        by_rep[representative(token)] += weight
        if only is not None and token.text == only.text:
            same_text += weight
    for rep, weight in by_rep.items():
        have = set(options(rep))
        for o in candidates:
            if o not in have:
                broken[o] += weight
    stratum = diversity_stratum(len(texts))
    if constant is not None:
        yield PositionKey(kind, "constant", 0, stratum), 1.0 - same_text / total
    for o in candidates:
        klass, width = option_class(o)
        yield PositionKey(kind, klass, width, stratum), broken[o] / total
