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

__all__ = ["Alignment", "align", "token_class"]

_GAP = -1.0


def token_class(kind: str, text: str) -> str:
    """The alignment class of a token: ``W`` (word), ``N`` (number) or the symbol itself."""
    if kind in ("D", "L", "M"):
        return "W" if kind != "D" else "D"
    if kind == "N":
        return "N"
    return "S" + text


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
        Token-class sequences (see :func:`token_class`), each non-empty.
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
    profile: list[Counter[str]] = [Counter({c: weights[first]}) for c in sequences[first]]
    # rows[i] = column -> token index, for sequences aligned so far
    rows: dict[int, list[int | None]] = {first: list(range(len(sequences[first])))}
    for idx in order[1:]:
        seq = sequences[idx]
        mapping, inserted = _align_to_profile(profile, seq)
        # open new profile columns where the sequence has tokens the profile lacks
        new_profile: list[Counter[str]] = []
        column_of_old: list[int] = []
        seq_cols: list[int | None] = []
        for kind, ref in mapping:
            if kind == "col":
                column_of_old.append(len(new_profile))
                new_profile.append(profile[ref[0]])
                seq_cols.append(ref[1])
            else:  # insert a new column for sequence token ref[1]
                new_profile.append(Counter())
                seq_cols.append(ref[1])
        for i, tok in enumerate(seq_cols):
            if tok is not None:
                new_profile[i][seq[tok]] += weights[idx]
        if inserted:  # without new columns every old column keeps its place: rows stay as they are
            for key, cols in rows.items():
                widened: list[int | None] = [None] * len(new_profile)
                for old_col, tok in enumerate(cols):
                    widened[column_of_old[old_col]] = tok
                rows[key] = widened
        rows[idx] = seq_cols
        profile = new_profile
    width = len(profile)
    return Alignment(width, tuple(tuple(rows[i]) for i in range(n)))


def _column_scores(column: Counter[str], classes: set[str]) -> dict[str, float]:
    """Each class's score against a profile column: the weighted mean of its pair scores."""
    total = sum(column.values())
    if total == 0:
        return dict.fromkeys(classes, 0.0)
    items = list(column.items())
    return {cls: sum(_pair_score(c, cls) * w for c, w in items) / total for cls in classes}


def _align_to_profile(
    profile: list[Counter[str]], seq: Sequence[str]
) -> tuple[list[tuple[str, tuple[int, int | None]]], int]:
    """Needleman-Wunsch of ``seq`` against ``profile``; ties leave gaps at the end.

    Returns the merged column list, each ``("col", (profile_col, token or None))``
    or ``("new", (-1, token))``, and the number of inserted columns.  The DP
    runs on the reversed sequences, so that among equally good alignments the
    leading tokens are matched and the gaps trail (``12:30`` under
    ``12:30:45`` is missing its last two tokens, not its first two).
    """
    p, s = len(profile), len(seq)
    profile = profile[::-1]
    seq = seq[::-1]
    # each profile column is scored once per distinct class of the sequence
    classes = set(seq)
    column_scores = [_column_scores(col, classes) for col in profile]
    score = [[0.0] * (s + 1) for _ in range(p + 1)]
    move = [[""] * (s + 1) for _ in range(p + 1)]
    for i in range(1, p + 1):
        score[i][0] = score[i - 1][0] + _GAP
        move[i][0] = "up"
    for j in range(1, s + 1):
        score[0][j] = score[0][j - 1] + _GAP
        move[0][j] = "left"
    for i in range(1, p + 1):
        # the same recurrence, on local names: this loop is most of suggest's time on long values
        col_score = column_scores[i - 1]
        above, here, moves = score[i - 1], score[i], move[i]
        token_scores = [col_score[cls] for cls in seq]
        for j in range(1, s + 1):
            diag = above[j - 1] + token_scores[j - 1]
            up = above[j] + _GAP  # profile column without a token of seq
            left = here[j - 1] + _GAP  # token of seq in a new column
            best = max(diag, up, left)
            here[j] = best
            moves[j] = "diag" if best == diag else "up" if best == up else "left"
    out: list[tuple[str, tuple[int, int | None]]] = []
    i, j, inserted = p, s, 0
    while i > 0 or j > 0:
        m = move[i][j]
        if m == "diag":
            out.append(("col", (i - 1, j - 1)))
            i, j = i - 1, j - 1
        elif m == "up":
            out.append(("col", (i - 1, None)))
            i -= 1
        else:
            out.append(("new", (-1, j - 1)))
            inserted += 1
            j -= 1
    # the walk from the end of the reversed sequences is the original order
    return [
        (k, (p - 1 - c if c >= 0 else -1, None if t is None else s - 1 - t)) for k, (c, t) in out
    ], inserted
