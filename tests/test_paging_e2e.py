"""The ◀ ▶ page buttons (bot/paging.py) end to end: a pager's guard is checked on every press, the registry is
the bot's, old embed pages turn into layouts, and a layout page turns in place with its "Page n of m" line."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from bot.errors import NotAllowed
from bot.layouts import Card
from bot.paging import LayoutPage, layout_view
from tests.sessions.helpers import add_session, run


async def layout_pages(guild_id: int, arg: str, page: int) -> LayoutPage:
    """Two pages drawn as layout cards, with a note after "Page n of m"."""
    page = min(max(page, 0), 1)
    return LayoutPage(Card().heading(f"Layout {page + 1}"), page=page, pages=2, note="3 things")


async def post_pager(env: Any, name: str) -> Any:
    """The first page of the pager ``name``, posted in #general."""
    view = layout_view(name, "", await layout_pages(env.guild.id, "", 0))
    sent = await env.bot.get_channel(env.general.id).send(view=view)
    return env.standin.message(sent.id)


async def test_a_guarded_pager_refuses_before_rendering(discord_env) -> None:
    env = discord_env
    rendered: list[int] = []

    async def only_admins(interaction: discord.Interaction[Any]) -> None:
        if interaction.user.id != env.admin.id:
            raise NotAllowed("Admins only.")

    async def renderer(guild_id: int, arg: str, page: int) -> LayoutPage:
        rendered.append(page)
        return await layout_pages(guild_id, arg, page)

    env.bot.pagers.register("guarded", renderer, guard=only_admins)
    message = await post_pager(env, "guarded")
    next_id = next(b["custom_id"] for b in message.buttons if b["custom_id"].endswith(":n"))
    rendered.clear()
    refused = await (await env.click(message, next_id, member=env.member)).response()
    assert refused.ephemeral
    assert refused.content == "Admins only."
    assert rendered == []
    turned = await (await env.click(message, next_id, member=env.admin)).final()
    assert turned.text_displays[-1] == "-# Page 2 of 2 · 3 things"
    assert rendered == [1]


async def test_the_registry_is_the_bots_and_a_name_is_taken_once(discord_env) -> None:
    env = discord_env
    assert "sessions" in env.bot.pagers  # registered by the sessions cog's cog_load
    with pytest.raises(ValueError, match="already registered"):
        env.bot.pagers.register("sessions", layout_pages)
    with pytest.raises(ValueError, match="bad pager name"):
        env.bot.pagers.register("Not-A-Name", layout_pages)
    old_bot = env.bot
    env.bot.pagers.register("layouts", layout_pages)
    await env.restart_bot()  # a new process: its cogs register again, nothing is left from the old one
    assert env.bot.pagers is not old_bot.pagers
    assert "sessions" in env.bot.pagers
    assert "layouts" not in env.bot.pagers


async def test_an_unloaded_feature_takes_its_pages_away(discord_env) -> None:
    env = discord_env
    for week in range(12):
        await add_session(env, f"Week {week + 1}", f"2026-12-{3 + week % 4 * 7:02d} {9 + week // 4}:30")
    listing = await run(env, "session list", member=env.member)
    next_id = next(b["custom_id"] for b in listing.buttons if "Next" in b["label"])
    assert next_id == "pg:sessions::1:n"
    await env.bot.remove_cog("SessionsCog")  # cog_unload unregisters the pager
    assert "sessions" not in env.bot.pagers
    gone = await (await env.click(listing, next_id, member=env.member)).response()
    assert gone.ephemeral
    assert gone.content == "This list is no longer available."


async def test_session_list_buttons_posted_before_the_one_pager_still_turn_its_pages(discord_env) -> None:
    """/session list's buttons used to be ``session:list:<page>:<p|n>``; messages posted then still page."""
    env = discord_env
    for week in range(12):
        await add_session(env, f"Week {week + 1}", f"2026-12-{3 + week % 4 * 7:02d} {9 + week // 4}:30")
    old = discord.ui.View()
    old.add_item(discord.ui.Button(label="◀ Previous", custom_id="session:list:0:p", disabled=True))
    old.add_item(discord.ui.Button(label="Next ▶", custom_id="session:list:1:n"))
    sent = await env.bot.get_channel(env.general.id).send(embed=discord.Embed(title="Upcoming"), view=old)
    await env.restart_bot()  # the old buttons' own view is gone with the old process
    posted = env.standin.message(sent.id)
    await (await env.click(posted, "session:list:1:n", member=env.member)).response()
    turned = env.standin.message(sent.id)  # the old embed page, rewritten as the layout in the same edit
    assert turned.embeds == []
    assert turned.text_displays[-1] == "-# Page 2 of 2 · 12 upcoming"
    assert turned.text.count("**Week ") == 2
    assert [b["custom_id"] for b in turned.buttons] == [
        "pg:sessions::0:p",
        "pg:sessions::1:n",
    ]


async def test_a_layout_pager_turns_its_pages_in_place(discord_env) -> None:
    env = discord_env
    env.bot.pagers.register("layouts", layout_pages)
    sent = await post_pager(env, "layouts")
    assert sent.is_components_v2
    assert sent.text_displays == ["## Layout 1", "-# Page 1 of 2 · 3 things"]
    turned = await (await env.click(sent, "pg:layouts::1:n", member=env.member)).final()
    assert turned.id == sent.id
    assert turned.text_displays == ["## Layout 2", "-# Page 2 of 2 · 3 things"]
    assert turned.component("pg:layouts::1:n")["disabled"] is True
    assert turned.component("pg:layouts::0:p")["disabled"] is False
