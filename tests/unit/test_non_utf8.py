"""Where a CSV file stops being UTF-8: the line and byte its error names, read in bounded chunks."""

from __future__ import annotations

import pytest

import autovalidate.engines.io as io
from autovalidate.engines.io import first_non_utf8, unreadable_csv


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 7 bytes: multi-byte characters and the bad byte fall across chunk ends."""
    monkeypatch.setattr(io, "_UTF8_CHUNK", 7)


def test_a_character_split_by_a_chunk_end_is_utf8(tmp_path, small_chunks):
    path = tmp_path / "ok.csv"
    text = "name\n" + "".join(f"caf\u00e9 \u20ac{i} \U0001f600\n" for i in range(50))
    path.write_text(text, encoding="utf-8")
    assert first_non_utf8(str(path)) is None


@pytest.mark.parametrize("lines", [0, 1, 2, 3, 40])
def test_the_first_bad_byte_is_found_at_its_line_and_offset(tmp_path, small_chunks, lines):
    head = ("a,\u00e9\n" * lines).encode("utf-8")
    path = tmp_path / "bad.csv"
    path.write_bytes(head + b"ok,caf\xe9\n" + b"x,\xff\n")
    assert first_non_utf8(str(path)) == (lines + 1, len(head) + len(b"ok,caf"))


def test_a_truncated_character_at_the_end_of_the_file_is_not_utf8(tmp_path, small_chunks):
    path = tmp_path / "cut.csv"
    path.write_bytes(b"a\nb\n\xe2\x82")  # the first two bytes of a three-byte character
    assert first_non_utf8(str(path)) == (3, 4)


def test_the_message_says_where_and_how_to_convert(tmp_path):
    path = tmp_path / "latin 1.csv"
    path.write_bytes(b"name\ncaf\xe9\n")
    message = unreadable_csv(str(path), "cannot read csv", "... Invalid unicode ...")
    assert message.startswith("cannot read csv: not UTF-8 (")
    assert "line 2, at byte offset 8" in message
    assert f"iconv -f latin1 -t utf-8 '{path}' > '{tmp_path / 'latin 1.utf8.csv'}'" in message


def test_other_failures_and_other_files_keep_their_message(tmp_path):
    parquet = tmp_path / "t.parquet"
    parquet.write_bytes(b"PAR1\xff\xfe")
    assert unreadable_csv(str(parquet), "cannot be read", "Invalid unicode") == (
        "cannot be read: Invalid unicode"
    )
    csv = tmp_path / "t.csv"
    csv.write_bytes(b"a\n\xff\n")
    assert unreadable_csv(str(csv), "cannot read csv", "CSV Error: too many columns") == (
        "cannot read csv: CSV Error: too many columns"
    )
    assert unreadable_csv("the data", "cannot be read", "Invalid unicode") == (
        "cannot be read: Invalid unicode"
    )
