"""The restart-proof buttons (bot.views.PersistentButton): every custom_id format and look is pinned, byte for
byte, because buttons on messages posted long ago still carry them; each reads back into the same button."""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot.paging import PageButton
from bot.views import PersistentButton, field
from cogs.series._buttons import PresentButton as SeriesPresentButton
from cogs.sessions.buttons import CalendarButton, RemindMeButton
from cogs.suggestions._components import CreateSessionButton, PresentButton, VoteButton

ALL_BUTTONS: list[type[PersistentButton]] = [
    PageButton,
    RemindMeButton,
    CalendarButton,
    VoteButton,
    PresentButton,
    CreateSessionButton,
    SeriesPresentButton,
]
PRIMARY, SECONDARY, SUCCESS = 1, 2, 3


def emoji(name: str) -> dict[str, Any]:
    return {"emoji": {"id": None, "name": name}}


# (button, its component as sent to Discord): what the code on main sent before the base class.
PINNED: list[tuple[PersistentButton, dict[str, Any]]] = [
    (
        PageButton("reading_list", "42", 3, "n"),
        {"style": SECONDARY, "disabled": False, "label": "Next ▶", "custom_id": "pg:reading_list:42:3:n"},
    ),
    (
        PageButton("sessions", "", 0, "p", disabled=True),
        {"style": SECONDARY, "disabled": True, "label": "◀ Previous", "custom_id": "pg:sessions::0:p"},
    ),
    (
        RemindMeButton(7),
        {
            "style": PRIMARY,
            "disabled": False,
            "label": "Remind me",
            "custom_id": "session:remind:7",
            **emoji("⏰"),
        },
    ),
    (
        CalendarButton(7),
        {"style": SECONDARY, "disabled": False, "label": "Add to calendar", "custom_id": "session:ics:7"}
        | emoji("📅"),
    ),
    (
        VoteButton(12, 3),
        {"style": PRIMARY, "disabled": False, "label": "Upvote · 3", "custom_id": "sugg:vote:12"}
        | emoji("👍"),
    ),
    (
        VoteButton(12, disabled=True),
        {"style": PRIMARY, "disabled": True, "label": "Upvote · 0", "custom_id": "sugg:vote:12"}
        | emoji("👍"),
    ),
    (
        PresentButton(12),
        {"style": SECONDARY, "disabled": False, "label": "I'd present this", "custom_id": "sugg:present:12"}
        | emoji("🎤"),
    ),
    (
        PresentButton(12, 2),
        {
            "style": SECONDARY,
            "disabled": False,
            "label": "I'd present this · 2",
            "custom_id": "sugg:present:12",
        }
        | emoji("🎤"),
    ),
    (
        CreateSessionButton(12),
        {
            "style": SUCCESS,
            "disabled": False,
            "label": "Create a session from it",
            "custom_id": "sugg:session:12",
        }
        | emoji("📅"),
    ),
    # A series week's I'll present (its announcement, its card, the open-weeks message), and Step down.
    (
        SeriesPresentButton(42),
        {"style": PRIMARY, "disabled": False, "label": "I'll present", "custom_id": "series:present:42"}
        | emoji("🙋"),
    ),
    (
        SeriesPresentButton(42, label="Thu 17 Dec"),
        {"style": PRIMARY, "disabled": False, "label": "Thu 17 Dec", "custom_id": "series:present:42"}
        | emoji("🙋"),
    ),
    (
        SeriesPresentButton.step_down(42),
        {
            "style": SECONDARY,
            "disabled": False,
            "label": "Step down as presenter",
            "custom_id": "series:present:42",
        },
    ),
]


def matching(custom_id: str) -> list[tuple[type[PersistentButton], re.Match[str]]]:
    found = []
    for cls in ALL_BUTTONS:
        match = cls.__discord_ui_compiled_template__.fullmatch(custom_id)  # as discord.py dispatches
        if match is not None:
            found.append((cls, match))
    return found


@pytest.mark.parametrize(("button", "component"), PINNED, ids=lambda v: getattr(v, "custom_id", ""))
def test_each_button_is_sent_as_before(button: PersistentButton, component: dict[str, Any]) -> None:
    assert button.to_component_dict() == {"type": 2, **component}


@pytest.mark.parametrize(("button", "component"), PINNED, ids=lambda v: getattr(v, "custom_id", ""))
def test_a_pressed_custom_id_rebuilds_that_button_and_only_that_one(
    button: PersistentButton, component: dict[str, Any]
) -> None:
    ((cls, match),) = matching(component["custom_id"])  # exactly one class answers the press
    assert cls is type(button)
    again = cls.from_match(match)
    assert again.custom_id == button.custom_id
    assert vars(again).keys() >= {spec.name for spec in cls._fields}
    assert all(getattr(again, spec.name) == getattr(button, spec.name) for spec in cls._fields)


@pytest.mark.parametrize(
    ("legacy", "page", "direction"), [("session:list:0:p", 0, "p"), ("session:list:1:n", 1, "n")]
)
def test_session_list_buttons_from_before_the_one_pager_turn_the_sessions_pager(
    legacy: str, page: int, direction: str
) -> None:
    """/session list had its own ◀ ▶ (``session:list:<page>:<p|n>``); PageButton reads them as the "sessions" pager."""
    ((cls, match),) = matching(legacy)
    assert cls is PageButton
    button = PageButton.from_match(match)
    assert (button.name, button.arg, button.page, button.direction) == ("sessions", "", page, direction)
    assert button.custom_id == f"pg:sessions::{page}:{direction}"  # what its page is re-sent with


def test_custom_ids_not_ours_or_malformed_match_no_button() -> None:
    for custom_id in (
        "session:remind:",
        "session:remind:12345678901",
        "sugg:vote:1:2",
        "pg:Bad::0:n",
        "session:list:1234567:n",
        "session:list:1:x",
        "series:present:",
        "series:present:12345678901",
        "x",
    ):
        assert matching(custom_id) == [], custom_id


def test_a_field_value_that_breaks_the_format_is_refused() -> None:
    with pytest.raises(ValueError, match="does not match"):
        PageButton("reading_list", "has:colon", 0, "n")
    with pytest.raises(ValueError, match="100 characters"):
        PageButton("reading_list", "a" * 60, 10**40, "n")
    with pytest.raises(TypeError, match="custom_id fields"):
        RemindMeButton()  # type: ignore[call-arg]


def test_a_field_may_not_shadow_discord_py_or_the_look() -> None:
    for name in ("id", "row", "label"):
        with pytest.raises(TypeError, match="shadow"):
            type(
                "Broken",
                (PersistentButton,),
                {name: field(r"\d+", int), "__module__": __name__},
                prefix="broken",
            )
