"""The open-weeks message (/organize series open) as a layout: each open week a section with its I'll present button
beside its time, the one way to claim it there; the select older messages carried still claims from them (a
forged or foreign pick refused, a week already yours kept); an old embed board rewritten as a layout in
place, its buttons working before and after."""

from __future__ import annotations

import re

import discord
from sqlalchemy import select

from bot.services.series import store as svc
from cogs.series._buttons import ClaimWeekSelect, PresentButton
from db.models.series import SeriesWeek
from tests.series.helpers import add_thursdays, configure, from_bot, press, run, settle

SELECT, SECTION = 3, 9


def _board(env):
    return from_bot(env, env.messages_in(env.announcements))[-1]


def _select(message) -> dict:
    (found,) = [c for c in message.walk_components() if c.get("type") == SELECT]
    return found


async def _pick(env, message, value: str, member):
    result = await env.click(message, _select(message)["custom_id"], member=member, values=[value])
    reply = await result.final()
    await settle(env)
    return reply


async def test_the_board_is_a_layout_with_a_button_beside_each_week(env) -> None:
    await configure(env)
    series_id = await add_thursdays(env)
    await run(env, "organize series open", {"series": str(series_id)})
    board = _board(env)
    assert board.is_components_v2
    assert board.content == ""
    assert board.embeds == []
    assert board.text_displays[0].startswith(
        "## Open weeks · Thursday paper club\nEvery Thursday at 9:30 AM PT"
    )
    assert "Press **I'll present** beside the week you'd like." in board.text_displays[0]
    sections = [c for c in board.walk_components() if c.get("type") == SECTION]
    assert len(sections) == len(board.buttons) == 8
    first = sections[1]
    assert first["components"][0]["content"].startswith("**Thursday 10 December, 9:30 AM PT")
    assert first["components"][0]["content"].endswith("\nno paper yet")
    assert first["accessory"]["label"] == "I'll present"
    assert not [c for c in board.walk_components() if c.get("type") == SELECT]  # one way to claim
    assert not re.search(r"#\d", "\n".join(board.text_displays))  # no series or session ids
    reply = await press(env, board, first["accessory"]["custom_id"], env.member)
    assert reply.text.startswith("🎤 You present **Thursday paper club** on Thursday 10 December")
    board = env.standin.message(board.id)
    assert first["accessory"]["custom_id"] not in [b["custom_id"] for b in board.buttons]


async def test_the_select_of_an_older_message_still_claims_and_refuses_what_is_not_open(env) -> None:
    await configure(env)
    series_id = await add_thursdays(env)
    other = await add_thursdays(env, "Friday reading", day="Friday")
    async with env.bot.session_factory() as db:
        weeks = (
            await db.scalars(
                select(SeriesWeek.session_id)
                .where(SeriesWeek.series_id == series_id)
                .order_by(SeriesWeek.week_date)
            )
        ).all()
        foreign = await db.scalar(select(SeriesWeek.session_id).where(SeriesWeek.series_id == other))
    channel = env.bot.get_channel(env.announcements.id)
    assert isinstance(channel, discord.TextChannel)
    view = discord.ui.View(timeout=None)
    options = [discord.SelectOption(label=f"Week {n}", value=str(week)) for n, week in enumerate(weeks)]
    view.add_item(ClaimWeekSelect(series_id, options).item)
    old = await channel.send("Open weeks", view=view)
    board = env.standin.message(old.id)
    first = str(weeks[0])
    reply = await _pick(env, board, first, env.member)
    assert reply.text.startswith("🎤 You present")
    # a week of another series, no such session, garbage, a week the member already presents (a stale
    # list): each refused
    for value, expected in [
        (str(foreign), "not one of this series' weeks"),
        ("999999", "There is no session #999999"),
        ("not-a-number", "Pick one of the weeks"),
        (first, "You already present"),
    ]:
        reply = await (
            await env.click(board, f"series:claim:{series_id}", member=env.member, values=[value])
        ).final()
        assert reply.flags & (1 << 6), value
        assert expected in reply.text, (value, reply.text)


async def test_an_old_embed_board_is_rewritten_as_a_layout(env) -> None:
    await configure(env)
    series_id = await add_thursdays(env)
    channel = env.bot.get_channel(env.announcements.id)
    assert isinstance(channel, discord.TextChannel)
    view = discord.ui.View(timeout=None)
    view.add_item(PresentButton(1, label="Thu 3 Dec"))
    view.add_item(PresentButton(2, label="Thu 10 Dec"))
    old = await channel.send(embed=discord.Embed(title="Open weeks · Thursday paper club"), view=view)
    async with env.bot.session_factory() as db, db.begin():
        row = await svc.load_series(db, env.guild.id, series_id)
        await svc.record_board(db, row, channel.id, old.id)
    # the old button still claims its week, and the board is rewritten in the same edit
    reply = await press(env, old.id, "series:present:2", env.member)
    assert reply.text.startswith("🎤 You present")
    board = env.standin.message(old.id)
    assert board.is_components_v2
    assert board.embeds == []
    assert "Thu 10 Dec" not in [b["label"] for b in board.buttons]
    edit = env.standin.requests_to("PATCH", rf"/channels/{channel.id}/messages/{old.id}$")[-1]
    assert edit.json["content"] is None
    assert edit.json["embeds"] == []
