from autovalidate.solver.alignment import align


def test_identical_sequences_align_trivially():
    a = align([("D", "S:", "D")] * 3)
    assert a.width == 3 and all(p == (0, 1, 2) for p in a.positions)


def test_shorter_sequence_leaves_trailing_gaps():
    a = align([("D", "S:", "D"), ("D", "S:", "D", "S:", "D")], [5, 3])
    assert a.width == 5
    assert a.positions[0] == (0, 1, 2, None, None)
    assert a.positions[1] == (0, 1, 2, 3, 4)


def test_extra_leading_token_opens_a_column():
    a = align([("W", "S ", "D"), ("S(", "W", "S ", "D")], [9, 1])
    assert a.width == 4
    assert a.positions[0] == (None, 0, 1, 2)


def test_order_is_kept_and_every_column_is_used():
    seqs = [("W", "S-", "D"), ("W",), ("D", "S-", "W", "S-", "N"), ("S#", "W")]
    a = align(seqs)
    for seq, pos in zip(seqs, a.positions, strict=True):
        present = [p for p in pos if p is not None]
        assert present == list(range(len(seq)))
    for col in range(a.width):
        assert any(pos[col] is not None for pos in a.positions)


def test_restricting_to_the_heaviest_equals_aligning_them_alone():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    classes = st.sampled_from(["D", "W", "N", "S-", "S:", "S "])
    seqs = st.lists(st.lists(classes, min_size=1, max_size=7).map(tuple), min_size=1, max_size=6)

    @settings(max_examples=200, deadline=None)
    @given(seqs, st.data())
    def check(sequences, data):
        weights = sorted(
            data.draw(
                st.lists(st.integers(1, 9), min_size=len(sequences), max_size=len(sequences))
            ),
            reverse=True,
        )
        full = align(sequences, weights)
        for k in range(1, len(sequences) + 1):
            assert full.restrict(range(k)) == align(sequences[:k], weights[:k])

    check()
