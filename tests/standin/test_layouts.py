"""Components V2 messages as the stand-in checks them: each rule accepted at its boundary and refused
past it with the error Discord gives (pure functions and raw requests; the real client is in
test_layouts_e2e.py)."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest
from multidict import MultiDict

from standin import StandIn
from standin.components import LEGACY_FIELD_USED, assign_ids, edited_flags
from standin.errors import ApiError
from standin.limits import check_commands, check_edit, check_message
from standin.openapi import load_spec
from standin.render import render_message
from standin.server import DefaultGuild
from standin.state import IS_COMPONENTS_V2, Message

V2 = IS_COMPONENTS_V2


def text(content: str = "hello") -> dict[str, Any]:
    return {"type": 10, "content": content}


def button(custom_id: str, label: str = "Go") -> dict[str, Any]:
    return {"type": 2, "style": 1, "label": label, "custom_id": custom_id}


def section(*texts: str, accessory: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": 9, "components": [text(t) for t in texts], "accessory": accessory or button("b")}


def errors_of(body: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    with pytest.raises(ApiError) as info:
        check_message(body, **kwargs)
    assert info.value.status == 400
    assert info.value.body["code"] == 50035
    assert info.value.body["message"] == "Invalid Form Body"
    errors: dict[str, Any] = info.value.body["errors"]
    return errors


def codes(errors: dict[str, Any], *path: str | int) -> list[str]:
    node = errors
    for part in path:
        node = node[str(part)]
    return [e["code"] for e in node["_errors"]]


def spec_pointers(body: dict[str, Any]) -> list[str]:
    _, violations = load_spec().check("POST", "/channels/1/messages", MultiDict(), body, has_body=True)
    return [v.pointer for v in violations]


# -- the flag and the legacy fields -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("content", "hi"),
        ("embeds", [{"title": "t"}]),
        ("poll", {"question": {"text": "q"}, "answers": [{"poll_media": {"text": "a"}}]}),
        ("sticker_ids", ["1"]),
    ],
)
def test_a_v2_message_has_nothing_but_components(field: str, value: Any) -> None:
    errors = errors_of({"flags": V2, "components": [text()], field: value})
    assert codes(errors, field) == [LEGACY_FIELD_USED]
    assert "cannot be used when using MessageFlags.IS_COMPONENTS_V2" in errors[field]["_errors"][0]["message"]


def test_empty_legacy_fields_beside_v2_are_no_content() -> None:
    check_message({"flags": V2, "components": [text()], "content": None, "embeds": [], "tts": False})
    check_message({"flags": V2 | 64, "components": [text()]})  # ephemeral V2 is fine


def test_without_the_flag_only_action_rows_are_top_level() -> None:
    errors = errors_of({"components": [text()]})
    assert codes(errors, "components", 0, "type") == ["UNION_TYPE_CHOICES"]
    assert spec_pointers({"components": [text()]}) == []  # the spec cannot tell (spec_quirks: Looser)


# -- totals -------------------------------------------------------------------------------------------------
def container(*children: dict[str, Any]) -> dict[str, Any]:
    return {"type": 17, "components": list(children)}


def test_forty_components_counting_nested_ones() -> None:
    check_message({"flags": V2, "components": [container(*[text(f"t{i}") for i in range(39)])]})  # 1 + 39
    errors = errors_of({"flags": V2, "components": [container(*[text(f"t{i}") for i in range(40)])]})
    assert errors["components"]["_errors"] == [
        {"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 40 or fewer in length."}
    ]
    # A section counts itself, its texts and its accessory; a row itself and its buttons.
    sections = [section(f"s{i}", accessory=button(f"b{i}")) for i in range(12)]  # 36
    row = {"type": 1, "components": [button("r1"), button("r2"), button("r3")]}  # 4
    check_message({"flags": V2, "components": [*sections, row]})
    row["components"].append(button("r4"))
    assert "components" in errors_of({"flags": V2, "components": [*sections, row]})


def test_four_thousand_characters_over_all_text_displays() -> None:
    check_message({"flags": V2, "components": [text("a" * 2000), container(text("b" * 2000))]})
    errors = errors_of({"flags": V2, "components": [text("a" * 2000), container(text("b" * 2001))]})
    assert codes(errors, "components") == ["BASE_TYPE_MAX_LENGTH"]
    assert "4000" in errors["components"]["_errors"][0]["message"]
    # Only text displays count: button labels and alt text do not.
    thumbnail = {"type": 11, "media": {"url": "https://example.org/t.png"}, "description": "d" * 1000}
    check_message(
        {
            "flags": V2,
            "components": [
                section("x" * 3900, accessory=button("b", "L" * 80)),
                section("y" * 100, accessory=thumbnail),
            ],
        }
    )


def test_custom_ids_are_unique_across_the_whole_layout() -> None:
    body = {
        "flags": V2,
        "components": [
            container(section("paper", accessory=button("vote:1"))),
            {"type": 1, "components": [button("vote:1")]},
        ],
    }
    errors = errors_of(body)
    assert codes(errors, "components", 1, "components", 0, "custom_id") == ["COMPONENT_CUSTOM_ID_DUPLICATED"]


def test_a_row_in_a_layout_holds_five_buttons_or_one_select() -> None:
    select = {"type": 3, "custom_id": "s", "options": [{"label": "a", "value": "a"}]}
    errors = errors_of({"flags": V2, "components": [{"type": 1, "components": [select, button("b")]}]})
    assert codes(errors, "components", 0, "components") == ["COMPONENT_LAYOUT_WIDTH_EXCEEDED"]


# -- the shapes Discord's API description holds ------------------------------------------------------------
def test_the_description_holds_each_components_shape() -> None:
    def v2(*components: dict[str, Any]) -> list[str]:
        return spec_pointers({"flags": V2, "components": list(components)})

    assert v2(section("one"), section("a", "b", "c")) == []
    assert v2(section("a", "b", "c", "d")) == ["/body/components/0/components"]  # 1 to 3 text displays
    assert v2({"type": 9, "components": [], "accessory": button("b")}) == ["/body/components/0/components"]
    assert v2({"type": 9, "components": [text()]}) == ["/body/components/0"]  # the accessory is required
    select = {"type": 3, "custom_id": "s", "options": [{"label": "a", "value": "a"}]}
    assert v2(section("a", accessory=select)) == ["/body/components/0/accessory/type"]  # button or thumbnail
    # a section's children are text displays
    assert "/body/components/0/components/0/type" in v2(
        {"type": 9, "components": [button("x")], "accessory": button("b")}
    )
    assert v2(container(container(text()))) == ["/body/components/0/components/0/type"]
    assert v2({"type": 11, "media": {"url": "https://example.org/t.png"}}) == ["/body/components/0/type"]
    assert v2({"type": 18, "label": "L", "component": {"type": 4, "custom_id": "t", "style": 1}}) == [
        "/body/components/0/type"  # labels are for modals
    ]
    item = {"media": {"url": "https://example.org/a.png"}}
    assert v2({"type": 12, "items": [item] * 10}) == []
    assert v2({"type": 12, "items": [item] * 11}) == ["/body/components/0/items"]
    assert v2({"type": 12, "items": []}) == ["/body/components/0/items"]
    assert v2({**container(text()), "accent_color": 0x1000000}) == ["/body/components/0/accent_color"]
    assert v2({"type": 14, "spacing": 3}) == ["/body/components/0/spacing"]


async def post(standin: StandIn, method: str, path: str, body: Any) -> tuple[int, Any]:
    async with (
        aiohttp.ClientSession() as session,
        session.request(method, f"{standin.base_url}/api/v10{path}", json=body) as answer,
    ):
        return answer.status, await answer.json()


async def test_a_shape_the_description_refuses_is_answered_50035(
    standin: StandIn, world: DefaultGuild
) -> None:
    status, body = await post(
        standin,
        "POST",
        f"/channels/{world.general.id}/messages",
        {"flags": V2, "components": [section("a", "b", "c", "d")]},
    )
    assert (status, body["code"], body["message"]) == (400, 50035, "Invalid Form Body")
    assert "components" in body["errors"]["components"]["0"]
    [violation] = standin.take_violations()
    assert violation.pointer == "/body/components/0/components"


# -- component ids ------------------------------------------------------------------------------------------
def test_ids_are_filled_in_reading_order_around_the_ones_given() -> None:
    tree = [container({**text("a"), "id": 2}, section("b", accessory={**button("x"), "id": 0}))]
    assign_ids(tree)
    inner = tree[0]["components"]
    assert [tree[0]["id"], inner[0]["id"], inner[1]["id"]] == [1, 2, 3]
    assert [inner[1]["components"][0]["id"], inner[1]["accessory"]["id"]] == [4, 5]  # 0 counts as empty
    errors = errors_of({"flags": V2, "components": [{**text("a"), "id": 7}, {**text("b"), "id": 7}]})
    assert codes(errors, "components", 1, "id") == ["COMPONENT_ID_DUPLICATED"]


# -- the flag for life, and converting an old post ---------------------------------------------------------
def stored(flags: int = 0, **payload: Any) -> Message:
    return Message(payload={"id": "1", "channel_id": "2", "author": {"id": "3"}, "flags": flags, **payload})


def edit_errors(message: Message, body: dict[str, Any]) -> dict[str, Any]:
    with pytest.raises(ApiError) as info:
        check_edit(message, body)
    assert info.value.body["code"] == 50035
    errors: dict[str, Any] = info.value.body["errors"]
    return errors


def test_the_flag_can_be_set_by_an_edit_but_never_removed() -> None:
    assert edited_flags(V2 | 64, 0) == V2 | 64  # asked away: still set (and ephemeral is not the edit's)
    assert edited_flags(0, V2 | 4) == V2 | 4
    assert edited_flags(V2, None) == V2
    layout = stored(V2, content="", embeds=[], components=[text()])
    check_edit(layout, {"flags": 0, "components": [text("new")]})  # the flag stays; the edit is V2's
    assert codes(edit_errors(layout, {"flags": 0, "content": "back to text"}), "content") == [
        LEGACY_FIELD_USED
    ]
    assert codes(edit_errors(layout, {"content": "x", "components": []}), "content") == [LEGACY_FIELD_USED]


def test_an_old_embed_post_converts_in_one_edit_that_clears_content_and_embeds() -> None:
    old = stored(0, content="Next session", embeds=[{"title": "Session 3"}], components=[])
    check_edit(old, {"flags": V2, "content": None, "embeds": [], "components": [text("# Session 3")]})
    errors = edit_errors(old, {"flags": V2, "components": [text()]})
    assert set(errors) == {"content", "embeds"}  # both were used and neither was reset
    # embeds: null does not reset them (discord-api-docs#7787); [] does.
    assert set(edit_errors(old, {"flags": V2, "content": None, "embeds": None, "components": [text()]})) == {
        "embeds"
    }
    embeds_only = stored(0, content="", embeds=[{"title": "t"}])
    check_edit(embeds_only, {"flags": V2, "embeds": [], "components": [text()]})  # content was not used


async def test_an_edit_over_http_converts_and_keeps_the_flag(standin: StandIn, world: DefaultGuild) -> None:
    channel = f"/channels/{world.general.id}/messages"
    status, created = await post(standin, "POST", channel, {"content": "Old", "embeds": [{"title": "Card"}]})
    assert status == 200
    path = f"{channel}/{created['id']}"
    status, refused = await post(standin, "PATCH", path, {"flags": V2, "components": [text("# Card")]})
    assert (status, refused["code"]) == (400, 50035)
    assert set(refused["errors"]) == {"content", "embeds"}
    layout = {"flags": V2, "content": None, "embeds": [], "components": [container(text("# Card"))]}
    status, converted = await post(standin, "PATCH", path, layout)
    assert status == 200
    assert converted["flags"] & V2
    assert (converted["content"], converted["embeds"]) == ("", [])
    message = standin.message(int(created["id"]))
    assert message.is_components_v2
    assert message.text_displays == ["# Card"]
    assert [c["id"] for c in message.walk_components()] == [1, 2]  # filled in, as Discord does
    status, kept = await post(standin, "PATCH", path, {"flags": 0, "components": [text("again")]})
    assert status == 200
    assert kept["flags"] & V2
    assert message.text == "again"


# -- context menu commands ----------------------------------------------------------------------------------
def test_fifteen_message_commands_and_fifteen_user_commands() -> None:
    menus = [{"type": t, "name": f"Menu {t}.{i}"} for t in (2, 3) for i in range(15)]
    check_commands(menus)
    with pytest.raises(ApiError) as info:
        check_commands([*menus, {"type": 3, "name": "One more"}])
    assert "15 or fewer" in str(info.value.body)


# -- rendering ------------------------------------------------------------------------------------------------
def test_a_layout_renders_as_a_member_sees_it() -> None:
    card = container(
        text("# Session 3\n-# Thursday"),
        {"type": 14},
        section(
            "**Attention Is All You Need**", accessory={"type": 2, "style": 5, "label": "arXiv", "url": "u"}
        ),
        section("TMax", accessory={"type": 11, "media": {"url": "https://example.org/t.png"}}),
        {"type": 12, "items": [{"media": {"url": "https://example.org/a.png"}, "description": "fig"}]},
        {"type": 1, "components": [button("signup", "Sign up")]},
    )
    shown = render_message(stored(V2, author={"id": "3", "username": "PaperClub"}, components=[card]))
    lines = shown.splitlines()
    assert any(line.strip("│ ") == "Session 3" for line in lines)
    assert any(set(line.strip("│ ")) == {"═"} for line in lines)  # the heading, underlined
    assert "(Thursday)" in shown
    assert any(
        "**Attention Is All You Need**" in line and line.rstrip().endswith("[ arXiv ↗ ]") for line in lines
    )
    assert any(line.startswith("  │ TMax") and "[image: https://example.org/t.png]" in line for line in lines)
    assert "[image: https://example.org/a.png] — fig" in shown
    assert "[ Sign up ]" in shown
    accent = render_message(stored(V2, author={"id": "3"}, components=[{**card, "accent_color": 0x5865F2}]))
    assert "■ #5865F2" in accent


async def test_mentions_in_text_displays_follow_allowed_mentions(
    standin: StandIn, world: DefaultGuild
) -> None:
    rita = world.members[0]
    body = {"flags": V2, "components": [container(text(f"Presenting: {rita.mention}"))]}
    path = f"/channels/{world.general.id}/messages"
    status, pinged = await post(standin, "POST", path, {**body, "allowed_mentions": {"parse": ["users"]}})
    assert status == 200
    assert [u["id"] for u in pinged["mentions"]] == [str(rita.id)]
    status, quiet = await post(standin, "POST", path, {**body, "allowed_mentions": {"parse": []}})
    assert (status, quiet["mentions"]) == (200, [])
