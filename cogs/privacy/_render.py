"""How /privacy looks: what the bot keeps about the caller (a card with *Delete my data…*), the confirmation,
and what the deletion did. Nothing here sends."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import discord

from bot.layouts import Card, escape_line
from bot.services.privacy.actions import Deletion, Overview
from bot.services.privacy.kinds import MEMBER_KINDS

COLOUR = discord.Colour.dark_teal()
ServerName = Callable[[int], str]


def where(scope: int, server_name: ServerName) -> str:
    """ "in Paper Club", or "in every server you share with the bot" (a DM's scope, 0)."""
    return f"in {escape_line(server_name(scope), 100)}" if scope else "in every server you share with the bot"


def overview_card(
    found: Overview, scope: int, server_name: ServerName, ask: discord.ui.Item[Any] | None
) -> discord.ui.LayoutView:
    """Everything the bot keeps about the member, grouped and counted: one server's kinds, or (from a DM)
    each server's counts; the *Delete my data…* button when there is anything."""
    place = where(scope, server_name)
    card = Card(accent=COLOUR).heading("What the bot keeps about you", below=place[:1].upper() + place[1:])
    if found.empty:
        card.text(
            "Nothing: no suggestions, votes, offers to present, reminders or feeds of yours, and no session "
            "names you as its presenter."
        )
        return card.view()
    if scope:
        card.text("\n".join(f"- **{kind.name}** · {n} — {kind.what}" for kind, n in found.in_server(scope)))
    else:
        for guild_id in found.servers:
            counts = " · ".join(f"{kind.name} {n}" for kind, n in found.in_server(guild_id))
            card.text(f"**{escape_line(server_name(guild_id), 100)}** — {counts}", group="servers")
        card.more("servers", "servers")
        card.text("\n".join(f"- **{kind.name}** — {kind.what}" for kind in MEMBER_KINDS))
    card.text(
        "-# Server settings, sessions and reading lists are the club's, not yours. Log lines carry ids, "
        "never what you typed."
    )
    if ask is not None:
        card.row([ask])
    return card.view()


def confirmation(found: Overview, scope: int, server_name: ServerName) -> str:
    """What *Delete my data* will do, kind by kind."""
    servers = [scope] if scope else found.servers
    lines = [f"**Delete your data {where(scope, server_name)}?** This cannot be undone."]
    for kind in MEMBER_KINDS:
        if n := sum(found.counts.get(kind.key, {}).get(g, 0) for g in servers):
            lines.append(f"- **{kind.name}** ({n}): {kind.delete}")
    return "\n".join(lines)


def result_nothing(scope: int, server_name: ServerName) -> str:
    """There is nothing of the member's to delete."""
    return f"There is nothing of yours left to delete {where(scope, server_name)}."


def result(done: Deletion, scope: int, server_name: ServerName) -> str:
    """What the deletion did, kind by kind (what stayed, and why)."""
    if done.nothing:
        return result_nothing(scope, server_name)
    lines = [f"Your data {where(scope, server_name)} is deleted:"]
    for kind in MEMBER_KINDS:
        erased = done.erased[kind.key]
        if erased.count:
            lines.append(f"- **{kind.name}** ({erased.count}): {kind.delete}")
        if erased.kept:
            lines.append(f"- **{kind.name}**: {erased.kept} kept — {kind.kept_note}.")
    return "\n".join(lines)
