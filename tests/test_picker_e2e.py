"""The command picker as synced: a member sees only commands a member can use, and every organizer command
sits under a root whose default permissions (Manage Events) hide it from members, its gate kept in code."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sqlalchemy import text

from bot.demo.botenv import BotEnv
from bot.permissions import NOT_ORGANIZER
from standin.components import text_displays
from standin.interactions import InteractionResult

CHAT_INPUT, MESSAGE = 1, 3
MANAGE_EVENTS = 1 << 33
ORGANIZE = "organize"
# What a member's picker holds: its slash commands (sub-commands counted one each) and message commands.
MEMBER_COMMANDS = 20
MEMBER_MESSAGE_COMMANDS = 1


def leaves(command: dict[str, Any], path: list[str]) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Each runnable command under ``command``: its qualified name and its options."""
    subs = [o for o in command.get("options", []) if o.get("type") in (1, 2)]
    if not subs:
        yield " ".join(path), list(command.get("options", []))
    for sub in subs:
        yield from leaves(sub, [*path, sub["name"]])


def synced(env: BotEnv, *, hidden: bool, ctype: int = CHAT_INPUT) -> list[dict[str, Any]]:
    """The synced top-level commands members see (``hidden=False``) or do not see by default."""
    return [
        c
        for c in env.standin.commands()
        if int(c.get("type", 1)) == ctype and (c.get("default_member_permissions") is not None) == hidden
    ]


async def answer(result: InteractionResult) -> str:
    """What the member finally sees (a modal counts as an answer)."""
    first = await result.response()
    if first.modal is not None:
        return f"(modal {first.modal.get('custom_id')})"
    shown = await result.final() if first.deferred else first
    parts = [shown.content, *text_displays(shown.components)]
    for embed in shown.embeds:
        parts += [str(embed.get("title") or ""), str(embed.get("description") or "")]
    return "\n".join(p for p in parts if p)


async def seed(env: BotEnv) -> dict[str, Any]:
    """One of each row a command may need, made as organizers and members make them; the values to fill."""

    async def run(name: str, options: dict[str, Any], member: Any = None) -> str:
        return await answer(await env.invoke(name, options, member=member or env.organizer))

    await run("setup suggestions", {"channel": env.suggestions}, env.admin)
    assert "Added session" in await run("organize session add", {"title": "Ours", "when": "tomorrow 17:00"})
    assert "Thanks!" in await run("suggest paper", {"paper": "https://example.org/ours"}, env.member)
    assert "Added" in await run("organize reading add", {"list": "Ours", "paper": "https://example.org/ours"})
    assert "Added series" in await run(
        "organize series add", {"name": "Ours weekly", "day": "Thursday", "time": "9:30am"}
    )
    assert "Reminder" in await run("organize reminder add", {"when": "tomorrow 9am", "message": "Read it"})
    async with env.bot.session_factory() as db:
        row = lambda sql: db.scalar(text(sql), {"guild": env.guild.id})  # noqa: E731
        ids = {
            table: int(await row(f"SELECT max(id) FROM {table} WHERE guild_id = :guild"))
            for table in ("sessions", "suggestions", "series", "reminders")
        }
    return {
        "session": ids["sessions"],
        "suggestion": str(ids["suggestions"]),
        "series": str(ids["series"]),
        "reminder": ids["reminders"],
        "list": "Ours",
        "paper": "https://example.org/ours",
        "query": "ours",
        "title": "Ours again",
        "when": "tomorrow 18:00",
        "message": "Read it",
        "decision": "shortlist",
        "date": "2026-12-10",
        "name": "Ours weekly",
        "day": "Thursday",
        "time": "9:30am",
    }


async def test_a_member_sees_only_what_a_member_can_use(discord_env: BotEnv) -> None:
    env = discord_env
    fills = await seed(env)
    env.standin.enforce_command_permissions = True
    member_leaves = [leaf for c in synced(env, hidden=False) for leaf in leaves(c, [c["name"]])]
    refused = []
    for name, options in member_leaves:
        required = {o["name"]: fills[o["name"]] for o in options if o.get("required")}
        shown = await answer(await env.invoke(name, required, member=env.member))
        if NOT_ORGANIZER in shown:
            refused.append(name)
    message = await env.standin.post_as(
        env.member, env.general, "Worth a read: https://arxiv.org/abs/2401.12345"
    )
    member_menus = [c["name"] for c in synced(env, hidden=False, ctype=MESSAGE)]
    for name in member_menus:
        result = await env.standin.invoke_message_command(name, message, member=env.member)
        if NOT_ORGANIZER in await answer(result):
            refused.append(name)
    assert refused == []
    assert (len(member_leaves), len(member_menus)) == (MEMBER_COMMANDS, MEMBER_MESSAGE_COMMANDS)


async def test_every_organizer_command_is_hidden_and_still_checked(discord_env: BotEnv) -> None:
    env = discord_env
    fills = await seed(env)
    (root,) = [c for c in synced(env, hidden=True) if c["name"] == ORGANIZE]
    assert int(root["default_member_permissions"]) == MANAGE_EVENTS
    assert root.get("contexts") == [0]  # offered in servers only
    organizer_leaves = list(leaves(root, [root["name"]]))
    env.standin.enforce_command_permissions = True
    for name, options in organizer_leaves:
        required = {o["name"]: fills[o["name"]] for o in options if o.get("required")}
        # Hidden from a member by Discord; a server that shows it to members still has them refused.
        try:
            await env.invoke(name, required, member=env.member)
        except PermissionError:
            pass
        else:
            raise AssertionError(f"/{name} is offered to a member")
        result = await env.standin.invoke(name, required, member=env.member, bypass_permissions=True)
        assert NOT_ORGANIZER in await answer(result), name
    (menu,) = [c for c in synced(env, hidden=True, ctype=MESSAGE)]
    assert int(menu["default_member_permissions"]) == MANAGE_EVENTS
    assert (len(organizer_leaves), len(root["options"])) == (22, 6)
