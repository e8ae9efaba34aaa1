"""bot.ids: row numbers typed by members are ASCII digits within the id columns, or not ids at all."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.errors import BadInput, NotFound
from bot.ids import MAX_ID, leading_id, parse_id, require_id, shown_number


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("12", 12),
        ("#12", 12),
        (" # 12 ", 12),
        (12, 12),
        (str(MAX_ID), MAX_ID),
        (MAX_ID, MAX_ID),
        (str(MAX_ID + 1), None),
        (2**63, None),
        ("18446744073709551617", None),  # past 64 bits: SQLite could not even bind it
        ("9" * 5000, None),  # past Python's int() digit limit too
        ("²", None),  # isdigit() is True, int() raises
        ("٣", None),  # isdigit() is True, int() reads 3
        ("１２", None),  # fullwidth digits
        ("0", None),
        ("-5", None),
        (-5, None),
        (0, None),
        (True, None),
        ("12abc", None),
        ("", None),
        ("#", None),
        (None, None),
        (12.0, None),
    ],
)
def test_parse_id(value: object, expected: int | None) -> None:
    assert parse_id(value) == expected


def test_leading_id_takes_a_pasted_choice_name() -> None:
    assert leading_id("#12 · Attention Is All You Need") == 12
    assert leading_id("12") == 12
    assert leading_id("12abc") is None
    assert leading_id("²2 · x") is None
    assert leading_id("99999999999 · x") is None


def test_require_id_says_no_such_row_for_numbers_and_asks_to_pick_otherwise() -> None:
    assert require_id("#7", "session") == 7
    with pytest.raises(NotFound, match=r"There is no session #9999999999999999999… in this server\."):
        require_id("99999999999999999999999", "session")
    with pytest.raises(NotFound, match="There is no reminder #-3 in this server"):
        require_id(-3, "reminder")
    for text in ("²", "٣", "soon", ""):
        with pytest.raises(BadInput, match="Pick a suggestion from the list"):
            require_id(text, "suggestion", pasted_name=True)


def test_shown_number_is_cut() -> None:
    assert shown_number("1" * 4000) == "1" * 19 + "…"
    assert shown_number(12) == "12"


@settings(derandomize=True, database=None, max_examples=500)
@given(st.one_of(st.text(max_size=30), st.integers(), st.from_regex(r"#?\s*[0-9]{1,25}", fullmatch=True)))
def test_fuzz_parse_id_is_none_or_an_id_of_the_same_ascii_digits(value: object) -> None:
    found = parse_id(value)
    if found is None:
        return
    assert 1 <= found <= MAX_ID
    if isinstance(value, str):
        digits = value.strip().lstrip("#").strip()
        assert digits.isascii()
        assert int(digits) == found
