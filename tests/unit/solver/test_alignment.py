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
