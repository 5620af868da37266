"""Identifiers: a vertical cut of ``<unreserved>+`` runs, priced by the corpus's identifier shapes.

URLs, paths and e-mail addresses change their parts' inner symbols from row
to row (``careem-bike``, ``en_ae``, ``v1.2``): to the fine lexer every such
row is a new format, and the solver abstained. Read by the identifier lexer
(:func:`~autovalidate.patterns.tokens.identifier_tokens`) their skeleton of
other symbols holds, and where the corpus's columns kept theirs, the solver
falls back to it. Each test builds a small real index (local writer, Parquet,
DuckDB) from look-alike columns.
"""

from __future__ import annotations

import random
import string

import pytest
import regex

from autovalidate.solver.fmdv import solve
from tests.unit.solver.test_positions import _index, _numbers

HOSTS = ["www.example-news.com", "blog.example.org", "example.io", "api.sub_domain.net"]


def _slug(rng: random.Random) -> str:
    words = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 7))) for _ in range(4)]
    return rng.choice("-_.~")[: rng.randint(0, 1)].join(words[: rng.randint(1, 4)])


def _url(rng: random.Random, query: bool = False) -> str:
    path = "/".join(_slug(rng) for _ in range(rng.randint(1, 3)))
    return f"https://{rng.choice(HOSTS)}/{path}/" + (f"?id={rng.randint(1, 99)}" if query else "")


@pytest.fixture(scope="module")
def urls_index(tmp_path_factory):
    """A corpus whose URL columns keep their skeleton from the first tenth to the rest."""
    rng = random.Random(1)
    columns = [[_url(rng) for _ in range(200)] for _ in range(40)]
    columns += [_numbers(rng) for _ in range(40)]
    with _index(tmp_path_factory.mktemp("urls"), columns) as index:
        yield index


def test_urls_whose_slugs_change_their_inner_symbols_get_an_identifier_rule(urls_index):
    rng = random.Random(7)
    values = [_url(rng) for _ in range(1000)]
    solution = solve(values[:100], urls_index, method="fmdv-vh")
    assert solution is not None and "<unreserved>+" in solution.pattern
    assert all(regex.fullmatch(solution.regex, v) for v in values[100:])
    for other in ["https://example.io/a b/", "https://example.io/p/?id=3", "mailto:x@y.org", ""]:
        assert not regex.fullmatch(solution.regex, other), other
    assert not regex.fullmatch(solution.regex, "the quick brown fox, jumps over; the lazy dog!")


def test_the_corpus_decides_whether_a_skeleton_holds(tmp_path):
    # the corpus's URL columns grow a query string after their first tenth
    rng = random.Random(2)
    columns = [[_url(rng, query=i >= 20) for i in range(200)] for _ in range(40)]
    columns += [_numbers(rng) for _ in range(40)]
    with _index(tmp_path, columns) as index:
        rng = random.Random(7)
        values = [_url(rng) for _ in range(100)]
        assert solve(values, index, method="fmdv-vh") is None


def test_values_with_whitespace_or_one_identifier_get_no_identifier_rule(urls_index):
    rng = random.Random(5)
    spaced = [f"{_slug(rng)} {_slug(rng)}/{_slug(rng)}" for _ in range(100)]
    hosts = [f"{_slug(rng)}.{rng.choice(['com', 'org', 'io'])}" for _ in range(100)]
    for values in (spaced, hosts):
        solution = solve(values, urls_index, method="fmdv-vh")
        assert solution is None or "<unreserved>" not in solution.pattern, solution.pattern


def test_a_feasible_fine_cut_is_kept(urls_index):
    # one host, paths of plain lower-case words: the fine lexer's cut stands
    rng = random.Random(9)
    words = ["".join(rng.choices(string.ascii_lowercase, k=5)) for _ in range(30)]
    values = [f"https://example.io/{rng.choice(words)}/" for _ in range(100)]
    solution = solve(values, urls_index, method="fmdv-vh")
    assert solution is not None and "<unreserved>" not in solution.pattern
