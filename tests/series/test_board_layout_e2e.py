"""The open-weeks message (/series open) as a layout: each open week a section with its I'll present button,
a select of every open week to claim one from (a forged or foreign pick refused, a week already yours kept),
and an old embed board rewritten as a layout in place, its buttons working before and after."""

from __future__ import annotations

import discord
from sqlalchemy import select

from bot.services.series import store as svc
from cogs.series._buttons import PresentButton
from db.models.series import SeriesWeek
from tests.series.helpers import add_thursdays, configure, from_bot, press, run, settle

SELECT = 3


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


async def test_the_board_is_a_layout_with_a_claim_select(env) -> None:
    await configure(env)
    series_id = await add_thursdays(env)
    await run(env, "series open", {"series": str(series_id)})
    board = _board(env)
    assert board.is_components_v2
    assert board.content == ""
    assert board.embeds == []
    assert board.text_displays[0] == "## Open weeks · Thursday paper club"
    labels = [b["label"] for b in board.buttons]
    select = _select(board)
    assert select["custom_id"] == f"series:claim:{series_id}"
    assert len(select["options"]) == len(labels)
    assert select["options"][1]["label"].startswith("Thursday 10 December")
    # picking a week presents it; the board drops it at once
    week = select["options"][1]["value"]
    reply = await _pick(env, board, week, env.member)
    assert reply.text.startswith("🎤 You present **Thursday paper club** on Thursday 10 December")
    board = env.standin.message(board.id)
    assert "Thu 10 Dec" not in [b["label"] for b in board.buttons]
    assert week not in [o["value"] for o in _select(board)["options"]]


async def test_picks_that_are_not_open_weeks_of_the_series(env) -> None:
    await configure(env)
    series_id = await add_thursdays(env)
    other = await add_thursdays(env, "Friday reading", day="Friday")
    await run(env, "series open", {"series": str(series_id)})
    board = _board(env)
    first = _select(board)["options"][0]["value"]
    await _pick(env, board, first, env.member)
    async with env.bot.session_factory() as db:
        foreign = await db.scalar(select(SeriesWeek.session_id).where(SeriesWeek.series_id == other))
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
    view.add_item(PresentButton.claim(1, "Thu 3 Dec"))
    view.add_item(PresentButton.claim(2, "Thu 10 Dec"))
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
