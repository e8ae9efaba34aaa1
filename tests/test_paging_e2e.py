"""The ◀ ▶ page buttons (bot/paging.py) end to end: the footer they add never pushes an embed over
Discord's 6000 characters, and a pager's guard is checked on every press."""

from __future__ import annotations

from typing import Any

import discord

from bot import paging
from bot.errors import NotAllowed
from bot.paging import Page, first_page, register_pager

FIELD_VALUE = "v" * 1000


async def near_full(bot: Any, guild_id: int, arg: str, page: int) -> Page:
    """An embed of 5,990 characters before the pager's 'Page n of 2' footer."""
    embed = discord.Embed(title="Big", description="d" * (5990 - 3 - 5 * (5 + 1000)))
    for n in range(5):
        embed.add_field(name=f"f{n:04d}", value=FIELD_VALUE)
    assert len(embed) == 5990
    return Page(embed=embed, page=min(max(page, 0), 1), pages=2)


async def post_pager(env: Any, name: str) -> Any:
    embed, view = await first_page(env.bot, name, env.guild.id)
    assert len(embed) <= 6000
    assert embed.footer.text == "Page 1 of 2"
    channel = env.bot.get_channel(env.general.id)
    sent = await channel.send(embed=embed, view=view)
    return env.standin.message(sent.id)


def embed_length(embed: dict[str, Any]) -> int:
    return (
        len(embed.get("title") or "")
        + len(embed.get("description") or "")
        + len(embed["footer"]["text"])
        + sum(len(f["name"]) + len(f["value"]) for f in embed.get("fields", []))
    )


async def test_a_near_full_page_still_fits_with_its_footer(discord_env) -> None:
    env = discord_env
    register_pager("near_full", near_full)
    try:
        message = await post_pager(env, "near_full")
        next_id = next(b["custom_id"] for b in message.buttons if b["custom_id"].endswith(":n"))
        turned = await (await env.click(message, next_id)).response()
        (embed,) = turned.embeds
        assert embed["footer"]["text"] == "Page 2 of 2"
        assert embed_length(embed) <= 6000
        assert embed["title"] == "Big"
    finally:
        paging._RENDERERS.pop("near_full", None)


async def test_a_guarded_pager_refuses_before_rendering(discord_env) -> None:
    env = discord_env
    rendered: list[int] = []

    async def only_admins(interaction: discord.Interaction[Any]) -> None:
        if interaction.user.id != env.admin.id:
            raise NotAllowed("Admins only.")

    async def renderer(bot: Any, guild_id: int, arg: str, page: int) -> Page:
        rendered.append(page)
        return await near_full(bot, guild_id, arg, page)

    register_pager("guarded", renderer, guard=only_admins)
    try:
        message = await post_pager(env, "guarded")
        next_id = next(b["custom_id"] for b in message.buttons if b["custom_id"].endswith(":n"))
        rendered.clear()
        refused = await (await env.click(message, next_id, member=env.member)).response()
        assert refused.ephemeral
        assert refused.content == "Admins only."
        assert rendered == []
        turned = await (await env.click(message, next_id, member=env.admin)).response()
        assert turned.embeds[0]["footer"]["text"] == "Page 2 of 2"
        assert rendered == [1]
    finally:
        paging._RENDERERS.pop("guarded", None)
        paging._GUARDS.pop("guarded", None)
