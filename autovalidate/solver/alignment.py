"""Coarse-token alignment of a column's values (Song & He 2021, §3).

Before vertical cuts, the token sequences of all values are aligned so that
"characters in each value map to the aligned sequence".  Multiple sequence
alignment is NP-hard, so, as in the paper, sequences are aligned greedily one
at a time against a growing profile (progressive alignment), most frequent
first; for homogeneous machine-generated values this is usually optimal.

Sequences are aligned on token *classes*: a word (``D``/``L``/``M``), a number
(``N``) or the symbol character itself.  Each pairwise step is a
Needleman-Wunsch alignment of the new sequence against the profile, scoring a
token against a profile column by the weighted agreement with the classes
already aligned there.  A gap in the new sequence marks the value absent at
that column; a gap in the profile opens a new column, absent in every value
aligned so far.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

__all__ = ["Alignment", "align"]

_GAP = -1.0
#: The moves of the alignment DP (small ints: compared once per cell).
_DIAG, _UP, _LEFT = 0, 1, 2


@cache  # few classes (words, numbers, the symbols of a column): a small table
def _pair_score(a: str, b: str) -> float:
    if a == b:
        return 3.0 if a[0] == "S" else 2.0
    kinds = {a[0], b[0]}
    if "S" in kinds:
        return -2.0  # a symbol never lines up with a word or another symbol
    if kinds == {"D", "W"} or kinds == {"D", "N"}:
        return 1.0  # share <alphanum>{k}/<alphanum>+ or <num>
    return -1.0  # a letter word and a decimal share nothing


@dataclass(frozen=True)
class Alignment:
    """An alignment of token-class sequences.

    Attributes
    ----------
    width
        Number of aligned columns.
    positions
        For each input sequence, for each aligned column, the index of the
        sequence's token there, or ``None`` where the sequence has a gap.
    """

    width: int
    positions: tuple[tuple[int | None, ...], ...]

    def restrict(self, keep: Sequence[int]) -> Alignment:
        """The alignment of the sequences ``keep`` alone: their rows, without empty columns."""
        rows = [self.positions[i] for i in keep]
        used = [c for c in range(self.width) if any(r[c] is not None for r in rows)]
        return Alignment(len(used), tuple(tuple(r[c] for c in used) for r in rows))


def align(sequences: Sequence[Sequence[str]], weights: Sequence[int] | None = None) -> Alignment:
    """Greedy progressive multiple-sequence alignment.

    Parameters
    ----------
    sequences
        Token-class sequences (:func:`~autovalidate.patterns.tokens.token_class`), each non-empty.
    weights
        How many values share each sequence; the heaviest is aligned first
        and weighs most in the profile; equal weights keep the input order.
        Since each sequence is aligned against the ones before it only, the
        alignment of the first k sequences in that order is this alignment
        restricted to them (see :meth:`Alignment.restrict`).

    Returns
    -------
    Alignment
        Columns in order; every sequence keeps its tokens in order.

    References
    ----------
    Song & He, SIGMOD 2021, §3 (multi-sequence alignment, greedy one sequence
    at a time); Carrillo & Lipman 1988.
    """
    n = len(sequences)
    if n == 0:
        return Alignment(0, ())
    weights = list(weights) if weights is not None else [1] * n
    order = sorted(range(n), key=lambda i: (-weights[i], i))
    first = order[0]
    profile = [_Column() for _ in sequences[first]]
    for column, cls in zip(profile, sequences[first], strict=True):
        column.add(cls, weights[first])
    # every profile column keeps the id it was opened with, and each sequence
    # records the ids of its tokens' columns: inserting a column then leaves
    # the sequences aligned so far as they are (rewriting them all at every
    # insertion cost O(n^2 width), more than the alignments themselves)
    ids = list(range(len(profile)))
    next_id = len(ids)
    columns_of: dict[int, list[int]] = {first: list(ids)}
    for idx in order[1:]:
        seq = sequences[idx]
        mapping = _align_to_profile(profile, seq)
        new_profile: list[_Column] = []
        new_ids: list[int] = []
        seq_columns: list[int] = []
        for kind, (ref, tok) in mapping:
            if kind == "col":
                column = profile[ref]
                new_ids.append(ids[ref])
            else:  # open a new profile column for a token the profile lacks
                column = _Column()
                new_ids.append(next_id)
                next_id += 1
            new_profile.append(column)
            if tok is not None:
                column.add(seq[tok], weights[idx])
                seq_columns.append(new_ids[-1])
        columns_of[idx] = seq_columns
        profile, ids = new_profile, new_ids
    width = len(profile)
    place = {column_id: c for c, column_id in enumerate(ids)}
    positions = []
    for i in range(n):
        row: list[int | None] = [None] * width
        for tok, column_id in enumerate(columns_of[i]):
            row[place[column_id]] = tok
        positions.append(tuple(row))
    return Alignment(width, tuple(positions))


class _Column:
    """A profile column: the weighted classes aligned there, and the scores asked of it.

    A column is scored again by every later sequence, and most sequences add
    nothing to most columns, so a class's score is kept until the column changes.
    """

    __slots__ = ("counts", "scores")

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.scores: dict[str, float] = {}

    def add(self, cls: str, weight: int) -> None:
        self.counts[cls] += weight
        self.scores.clear()

    def scored(self, classes: set[str]) -> dict[str, float]:
        """Each class's score against the column: the weighted mean of its pair scores."""
        scores = self.scores
        if not classes <= scores.keys():
            total = sum(self.counts.values())
            items = list(self.counts.items())
            for cls in classes - scores.keys():
                scores[cls] = sum(_pair_score(c, cls) * w for c, w in items) / total
        return scores


def _align_to_profile(
    profile: list[_Column], seq: Sequence[str]
) -> list[tuple[str, tuple[int, int | None]]]:
    """Needleman-Wunsch of ``seq`` against ``profile``; ties leave gaps at the end.

    Returns the merged column list, each ``("col", (profile_col, token or None))``
    or ``("new", (-1, token))``.  The DP runs on the reversed sequences, so
    that among equally good alignments the leading tokens are matched and the
    gaps trail (``12:30`` under ``12:30:45`` is missing its last two tokens,
    not its first two).
    """
    p, s = len(profile), len(seq)
    profile = profile[::-1]
    seq = seq[::-1]
    # each profile column is scored once per distinct class of the sequence
    classes = set(seq)
    column_scores = [col.scored(classes) for col in profile]
    score = [[0.0] * (s + 1) for _ in range(p + 1)]
    move = [[_DIAG] * (s + 1) for _ in range(p + 1)]
    for i in range(1, p + 1):
        score[i][0] = score[i - 1][0] + _GAP
        move[i][0] = _UP
    for j in range(1, s + 1):
        score[0][j] = score[0][j - 1] + _GAP
        move[0][j] = _LEFT
    for i in range(1, p + 1):
        # the recurrence max(diag, up, left), ties to diag then up, written out on
        # local names with the previous cell carried in ``best``: this loop is most of
        # suggest's time on long values, and the builtin max() call doubled its cost
        col_score = column_scores[i - 1]
        above, here, moves = score[i - 1], score[i], move[i]
        token_scores = [col_score[cls] for cls in seq]
        best = here[0]
        for j in range(1, s + 1):
            diag = above[j - 1] + token_scores[j - 1]
            up = above[j] + _GAP  # profile column without a token of seq
            best += _GAP  # left: token of seq in a new column
            if diag >= up and diag >= best:
                best = diag
                moves[j] = _DIAG
            elif up >= best:
                best = up
                moves[j] = _UP
            else:
                moves[j] = _LEFT
            here[j] = best
    out: list[tuple[str, tuple[int, int | None]]] = []
    i, j = p, s
    while i > 0 or j > 0:
        m = move[i][j]
        if m == _DIAG:
            out.append(("col", (i - 1, j - 1)))
            i, j = i - 1, j - 1
        elif m == _UP:
            out.append(("col", (i - 1, None)))
            i -= 1
        else:
            out.append(("new", (-1, j - 1)))
            j -= 1
    # the walk from the end of the reversed sequences is the original order
    return [
        (k, (p - 1 - c if c >= 0 else -1, None if t is None else s - 1 - t)) for k, (c, t) in out
    ]
