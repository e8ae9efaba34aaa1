"""Modals with Labels and the new inputs: the rules for opening one and what a member's submit sends back
(shapes from the Component Reference's "Modal Submit Interaction Data Example" of each component)."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from standin import StandIn
from standin.errors import ApiError
from standin.modals import check_modal, open_modal, submission
from standin.render import render_modal
from standin.server import DefaultGuild
from standin.state import GUILD_FORUM, GUILD_TEXT


def opt(value: str, *, default: bool = False) -> dict[str, Any]:
    return {"label": value.title(), "value": value, **({"default": True} if default else {})}


def label(text: str, component: dict[str, Any], description: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": 18, "label": text, "component": component}
    if description:
        out["description"] = description
    return out


FIRST = {
    "custom_id": "suggest",
    "title": "Suggest a paper",
    "components": [
        {"type": 10, "content": "One paper per form."},
        label("Paper", {"type": 4, "custom_id": "paper", "style": 1, "max_length": 20}, "A link or a title"),
        label("Topic", {"type": 3, "custom_id": "topic", "options": [opt("rl"), opt("bench")]}),
        label("Presenter", {"type": 5, "custom_id": "who", "required": False, "min_values": 0}),
        label("Day", {"type": 21, "custom_id": "day", "options": [opt("mon"), opt("thu", default=True)]}),
    ],
}
SECOND = {
    "custom_id": "more",
    "title": "More",
    "components": [
        label("Roles", {"type": 6, "custom_id": "roles", "max_values": 2}),
        label("Where", {"type": 8, "custom_id": "where", "channel_types": [GUILD_TEXT]}),
        label("Anyone", {"type": 7, "custom_id": "any", "max_values": 3}),
        label("Weeks", {"type": 22, "custom_id": "weeks", "options": [opt("w1"), opt("w2"), opt("w3")]}),
        label("I'd present this", {"type": 23, "custom_id": "present"}),
    ],
}
THIRD = {
    "custom_id": "files",
    "title": "Files",
    "components": [
        label("Slides", {"type": 19, "custom_id": "slides", "max_values": 2, "file_types": [".pdf"]}),
        {"type": 1, "components": [{"type": 4, "custom_id": "old", "label": "Old style", "style": 2}]},
    ],
}


def form_errors(data: dict[str, Any]) -> dict[str, Any]:
    with pytest.raises(ApiError) as info:
        check_modal(data)
    assert info.value.body["code"] == 50035
    errors: dict[str, Any] = info.value.body["errors"]["data"]["components"]
    return errors


def test_every_kind_of_input_opens() -> None:
    for form in (FIRST, SECOND, THIRD):
        check_modal(form)


def test_a_modal_has_one_to_five_top_level_components() -> None:
    six = {**FIRST, "components": [*FIRST["components"], {"type": 10, "content": "more"}]}
    with pytest.raises(ApiError) as info:
        check_modal(six)
    assert "Must be between 1 and 5" in str(info.value.body)


def test_a_text_input_in_a_label_has_no_label_of_its_own() -> None:
    inner = {"type": 4, "custom_id": "t", "style": 1, "label": "Twice"}
    errors = form_errors({**FIRST, "components": [label("Paper", inner)]})
    assert errors["0"]["component"]["label"]["_errors"][0]["code"] == "COMPONENT_FIELD_NOT_ALLOWED"
    check_modal({**FIRST, "components": [label("Paper", {**inner, "label": None})]})  # discord.py sends null


def test_no_disabled_input_and_a_required_select_takes_at_least_one() -> None:
    select = {"type": 3, "custom_id": "s", "options": [opt("a")]}
    check_modal({**FIRST, "components": [label("S", {**select, "disabled": False})]})  # as discord.py sends
    errors = form_errors({**FIRST, "components": [label("S", {**select, "disabled": True})]})
    assert "disabled" in errors["0"]["component"]
    errors = form_errors({**FIRST, "components": [label("S", {**select, "min_values": 0})]})
    assert "min_values" in errors["0"]["component"]
    check_modal({**FIRST, "components": [label("S", {**select, "min_values": 0, "required": False})]})
    upload = {"type": 19, "custom_id": "f", "min_values": 0}
    assert "min_values" in form_errors({**FIRST, "components": [label("F", upload)]})["0"]["component"]


def test_custom_ids_are_unique_within_a_modal() -> None:
    twice = [label("A", {"type": 23, "custom_id": "same"}), label("B", {"type": 23, "custom_id": "same"})]
    errors = form_errors({**FIRST, "components": twice})
    assert errors["1"]["component"]["custom_id"]["_errors"][0]["code"] == "COMPONENT_CUSTOM_ID_DUPLICATED"


def test_defaults_fit_the_selects_range(world: DefaultGuild) -> None:
    defaults = [{"id": str(m.id), "type": "user"} for m in world.members[:2]]
    errors = form_errors(
        {**FIRST, "components": [label("U", {"type": 5, "custom_id": "u", "default_values": defaults})]}
    )
    assert "default_values" in errors["0"]["component"]


# -- submitting -----------------------------------------------------------------------------------------------
def submit(
    standin: StandIn, world: DefaultGuild, form: dict[str, Any], values: dict[str, Any], **kw: Any
) -> Any:
    return submission(standin.state, open_modal(form), values, world.general, standin.base_url, **kw)


def test_each_label_comes_back_with_its_answer(standin: StandIn, world: DefaultGuild) -> None:
    rita = world.members[0]
    data = submit(standin, world, FIRST, {"paper": "TMax", "topic": "bench", "who": [rita]})
    assert data["custom_id"] == "suggest"
    assert data["components"] == [
        {"type": 10, "id": 1},
        {"type": 18, "id": 2, "component": {"type": 4, "id": 3, "custom_id": "paper", "value": "TMax"}},
        {"type": 18, "id": 4, "component": {"type": 3, "id": 5, "custom_id": "topic", "values": ["bench"]}},
        {
            "type": 18,
            "id": 6,
            "component": {"type": 5, "id": 7, "custom_id": "who", "values": [str(rita.id)]},
        },
        {
            "type": 18,
            "id": 8,
            "component": {"type": 21, "id": 9, "custom_id": "day", "value": "thu"},
        },  # default
    ]
    assert set(data["resolved"]) == {"users", "members"}
    assert data["resolved"]["users"][str(rita.id)]["username"] == "rita"
    nobody = submit(standin, world, FIRST, {"paper": "TMax", "topic": "rl"})
    assert nobody["components"][3]["component"]["values"] == []  # optional, left empty
    assert "resolved" not in nobody


def second_values(world: DefaultGuild) -> dict[str, Any]:
    return {
        "roles": [world.readers, world.organizers],
        "where": [world.announcements],
        "any": [world.members[0], world.readers],
        "weeks": ["w1", "w3"],
        "present": True,
    }


def test_roles_channels_mentionables_checkboxes(standin: StandIn, world: DefaultGuild) -> None:
    rita = world.members[0]
    values = second_values(world)
    data = submit(standin, world, SECOND, values)
    answers = {row["component"]["custom_id"]: row["component"] for row in data["components"]}
    assert answers["roles"]["values"] == [str(world.readers.id), str(world.organizers.id)]
    assert answers["where"]["values"] == [str(world.announcements.id)]
    assert answers["any"]["values"] == [str(rita.id), str(world.readers.id)]
    assert answers["weeks"] == {
        "type": 22,
        "id": answers["weeks"]["id"],
        "custom_id": "weeks",
        "values": ["w1", "w3"],
    }
    assert answers["present"]["value"] is True
    resolved = data["resolved"]
    assert set(resolved["roles"]) == {str(world.readers.id), str(world.organizers.id)}
    assert set(resolved["channels"]) == {str(world.announcements.id)}
    assert set(resolved["users"]) == set(resolved["members"]) == {str(rita.id)}
    unticked = submit(standin, world, SECOND, {**values, "present": False})
    assert [r["component"]["value"] for r in unticked["components"] if r["component"]["type"] == 23] == [
        False
    ]


async def test_an_uploaded_file_is_an_attachment_the_bot_can_download(
    standin: StandIn, world: DefaultGuild
) -> None:
    data = submit(standin, world, THIRD, {"slides": [("talk.pdf", b"%PDF-1.7")], "old": "notes"})
    [upload, old] = data["components"]
    [attachment_id] = upload["component"]["values"]
    attachment = data["resolved"]["attachments"][attachment_id]
    assert (attachment["filename"], attachment["size"], attachment["ephemeral"]) == ("talk.pdf", 8, True)
    assert attachment["content_type"] == "application/pdf"
    assert old == {
        "type": 1,
        "id": old["id"],
        "components": [{"type": 4, "id": old["components"][0]["id"], "custom_id": "old", "value": "notes"}],
    }
    async with aiohttp.ClientSession() as session, session.get(attachment["url"]) as answer:
        assert await answer.read() == b"%PDF-1.7"


@pytest.mark.parametrize(
    ("form", "values", "why"),
    [
        (FIRST, {"paper": "TMax", "topic": "nope"}, "not one of its options"),
        (FIRST, {"paper": "TMax", "topic": ["rl", "bench"]}, "2 chosen, outside 1…1"),
        (FIRST, {"paper": "", "topic": "rl"}, "required text input left empty"),
        (FIRST, {"paper": "x" * 21, "topic": "rl"}, "21 characters"),
        (FIRST, {"paper": "TMax", "topic": "rl", "day": "sun"}, "not one of its options"),
        (SECOND, {"roles": ["123"]}, "is not a Role"),
        (SECOND, {"weeks": ["w9"]}, "not one of its options"),
        (SECOND, {"weeks": []}, "0 chosen, outside 1…3"),
        (SECOND, {"present": "yes"}, "is checked or not"),
        (THIRD, {"slides": [("talk.png", b"png")]}, r"is not of the types \['.pdf'\]"),
        (THIRD, {"slides": [("a.pdf", b"1"), ("b.pdf", b"2"), ("c.pdf", b"3")]}, "3 chosen, outside 1…2"),
        (THIRD, {"slides": []}, "0 chosen, outside 1…2"),
    ],
)
def test_what_no_client_would_send_is_refused_unless_forged(
    standin: StandIn, world: DefaultGuild, form: dict[str, Any], values: dict[str, Any], why: str
) -> None:
    if form is SECOND:
        values = {**second_values(world), **values}
    with pytest.raises(ValueError, match=why):
        submit(standin, world, form, values)
    if values.get("roles") != ["123"]:  # an id that names nothing cannot be resolved at all
        submit(standin, world, form, values, forged=True)


def test_a_channel_select_offers_only_its_types(standin: StandIn, world: DefaultGuild) -> None:
    assert world.suggestions.type == GUILD_FORUM
    with pytest.raises(ValueError, match="is not of the types"):
        submit(standin, world, SECOND, {**second_values(world), "where": [world.suggestions]})
    forged = submit(
        standin, world, SECOND, {**second_values(world), "where": [world.suggestions]}, forged=True
    )
    assert str(world.suggestions.id) in forged["resolved"]["channels"]


def test_an_unknown_field_is_a_mistake_in_the_test(standin: StandIn, world: DefaultGuild) -> None:
    with pytest.raises(ValueError, match="has no fields"):
        submit(standin, world, FIRST, {"titel": "typo"})


def test_a_modal_renders_its_labels_descriptions_and_choices() -> None:
    shown = render_modal(open_modal(FIRST))
    assert "[form] Suggest a paper" in shown
    assert "│ Paper *" in shown
    assert "│   A link or a title" in shown  # the description under its label
    assert "( ) Mon  (•) Thu" in shown
    assert "{Rl, Bench}" in shown
    assert "│ Presenter\n" in shown  # optional: no star
    second = render_modal(SECOND)
    assert "[ ] W1  [ ] W2  [ ] W3" in second
    assert "[ ] I'd present this" in second
    assert "upload up to 2 files (.pdf)" in render_modal(THIRD)
