"""Bad input on every slash command, through the real discord.py client: each string option gets the
longest value Discord allows, only whitespace, zero-width characters, mentions, markdown, a huge number and
non-ASCII digits; every autocomplete gets the same; every row option gets another server's ids. Nothing
may crash (the generic apology, a logged unhandled error, no answer), ping (a message sent without
`allowed_mentions` parse []) or be refused by Discord (the stand-in answering a request with 4xx)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import text

from bot.demo.botenv import BotEnv
from bot.text import visible
from bot.tree import APOLOGY
from standin.components import text_displays
from standin.interactions import InteractionResult

STORED_TEXT = [
    ("sessions", "title"),
    ("sessions", "presenter_name"),
    ("sessions", "description"),
    ("papers", "title"),
    ("reading_lists", "name"),
    ("reading_list_items", "note"),
    ("reminders", "message"),
    ("suggestions", "reason"),
    ("guild_settings", "suggestion_topics"),
    ("series", "name"),
    ("series", "description"),
    ("series_weeks", "skip_reason"),
]
FOREIGN_GUILD = 424242
FOREIGN_TITLE = "Foreign session"
# Run last: they end the rows the other commands use.
LAST = ("suggest withdraw", "organize session cancel", "organize series end")
# What a command needs besides the row to get as far as looking the row up.
ROW_EXTRA: dict[str, dict[str, Any]] = {
    "organize session recap": {"recording_url": "https://example.org/recording"},
    "organize session edit": {"title": "Changed"},
}
# Options whose value is not typed text (a choice list) or that the sweep fills itself.
SKIP_OPTIONS = {"format", "repeat", "status", "sort", "decision"}


@pytest.fixture
def bot_settings_overrides(bot_settings_overrides: dict[str, Any]) -> dict[str, Any]:
    return {**bot_settings_overrides, "suggestions_per_day": 1000}


def hostile_values(env: BotEnv, max_length: int | None) -> list[str]:
    longest = max_length or 200
    values = [
        "x" * longest,
        "   ",
        "\u200b",
        f"@everyone @here <@&{env.world.readers.id}> <@{env.member.id}>",
        "**b** __u__ ~~s~~ ||sp|| `c` [l](https://e.org) \\ > q # h",
        "9" * min(longest, 40),
        "²",
        "\u202eevil",
    ]
    return [v[:longest] for v in values]


def leaves(command: dict[str, Any], path: list[str]) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    subs = [o for o in command.get("options", []) if o.get("type") in (1, 2)]
    if not subs:
        yield " ".join(path), list(command.get("options", []))
    for sub in subs:
        yield from leaves(sub, [*path, sub["name"]])


def commands(env: BotEnv) -> list[tuple[str, list[dict[str, Any]]]]:
    found = [leaf for cmd in env.standin.commands() for leaf in leaves(cmd, [cmd["name"]])]
    return sorted(found, key=lambda leaf: leaf[0] in LAST)


def valid(env: BotEnv, ids: dict[str, int]) -> dict[str, Any]:
    """A valid value for each option the sweep needs to fill (rows of our server)."""
    return {
        "title": "Ours",
        "when": "tomorrow 17:00",
        "session": ids["session"],
        "message": "Read it",
        "reminder": ids["reminder"],
        "list": "Ours",
        "paper": "https://example.org/ours",
        "query": "ours",
        "suggestion": str(ids["suggestion"]),
        "decision": "shortlist",
        "channel": env.general,
        "role": env.world.readers,
        "zone": "UTC",
        "zones": "UTC",
        "offsets": "1h",
        "topics": "Benchmarks, Simulators",
        "enabled": True,  # /setup website (its slug and /setup about's text are swept)
        "name": "Ours weekly",
        "day": "Thursday",
        "time": "9:30am",
        "series": str(ids["series"]),
        "date": "2026-12-10",
        "weeks": 8,
        "days": 7,
    }


async def answer(result: InteractionResult) -> str:
    """What the member finally sees (a modal counts as an answer)."""
    first = await result.response()
    if first.modal is not None:
        return f"(modal {first.modal.get('custom_id')})"
    shown = await result.final() if first.deferred else first
    parts = [shown.content, *text_displays(shown.components)]
    for embed in shown.embeds:
        parts += [str(embed.get("title") or ""), str(embed.get("description") or "")]
        parts += [f"{f['name']}: {f['value']}" for f in embed.get("fields", [])]
    parts += [f"[file {a.get('filename')}]" for a in shown.attachments]
    return "\n".join(p for p in parts if p)


async def seed(env: BotEnv, title: str) -> dict[str, int]:
    async def run(name: str, options: dict[str, Any], member: Any = None) -> str:
        return await answer(await env.invoke(name, options, member=member or env.organizer))

    await run("setup announcements", {"channel": env.announcements}, env.admin)
    await run("setup suggestions", {"channel": env.suggestions}, env.admin)
    await run("setup topics", {"topics": "Benchmarks, Simulators"}, env.admin)
    added = await run(
        "organize session add", {"title": title, "when": "tomorrow 17:00", "papers": "2401.12345"}
    )
    assert added.startswith("Added session #"), added
    reminded = await run("organize reminder add", {"when": "tomorrow 9am", "message": title})
    assert reminded.startswith("⏰ Reminder **#"), reminded
    suggested = await run(
        "suggest paper", {"paper": f"https://example.org/{len(title)}", "title": title}, env.member
    )
    assert suggested.startswith("Thanks!"), suggested
    listed = await run("organize reading add", {"list": title, "paper": "https://example.org/ours"})
    assert listed.startswith("Added"), listed
    weekly = await run(
        "organize series add", {"name": f"{title} weekly", "day": "Thursday", "time": "9:30am"}
    )
    assert weekly.startswith("Added series #"), weekly
    async with env.bot.session_factory() as db:
        row = lambda sql: db.scalar(text(sql), {"guild": env.guild.id})  # noqa: E731
        return {
            "session": int(await row("SELECT max(id) FROM sessions WHERE guild_id = :guild")),
            "reminder": int(
                await row("SELECT max(id) FROM reminders WHERE guild_id = :guild AND kind = 'custom'")
            ),
            "suggestion": int(await row("SELECT max(id) FROM suggestions WHERE guild_id = :guild")),
            "series": int(await row("SELECT max(id) FROM series WHERE guild_id = :guild")),
        }


async def move_to_another_server(env: BotEnv) -> None:
    async with env.bot.session_factory() as db, db.begin():
        # (the search index too: the app never moves a row between servers, so no trigger follows it)
        for table in (
            *("sessions", "reminders", "suggestions", "reading_lists", "papers", "reading_search"),
            *("series", "series_weeks", "series_settings"),
        ):
            await db.execute(text(f"UPDATE {table} SET guild_id = :foreign"), {"foreign": FOREIGN_GUILD})


class Watch:
    """Everything the bot sent since the last look, checked for refusals and open mentions."""

    def __init__(self, env: BotEnv, caplog: pytest.LogCaptureFixture) -> None:
        self.env, self.caplog, self.seen = env, caplog, 0
        self.findings: list[str] = []
        self.messages = 0  # message bodies checked for open mentions

    def check(self, what: str, shown: str) -> None:
        if shown == APOLOGY:
            self.findings.append(f"{what}: the generic apology")
        for record in self.caplog.records:
            if record.levelno >= logging.ERROR:
                self.findings.append(f"{what}: logged {record.getMessage()[:120]}")
        self.caplog.clear()
        for request in self.env.requests[self.seen :]:
            if request.status >= 400:
                self.findings.append(f"{what}: {request.method} {request.path} answered {request.status}")
            body = request.json if isinstance(request.json, dict) else {}
            if body.get("type") == 9:  # opening a modal: a form, not a message (nothing in it can ping)
                continue
            data = body.get("data") if isinstance(body.get("data"), dict) else body
            if ("content" in data or "embeds" in data or "components" in data) and request.method in (
                "POST",
                "PATCH",
            ):
                self.messages += 1
                mentions = data.get("allowed_mentions")
                if (
                    mentions is None
                    or mentions.get("parse")
                    or mentions.get("roles")
                    or mentions.get("users")
                ):
                    self.findings.append(f"{what}: {request.method} {request.path} may ping: {mentions}")
        self.seen = len(self.env.requests)


async def test_bad_input_on_every_command(discord_env: BotEnv, caplog: pytest.LogCaptureFixture) -> None:
    env = discord_env
    caplog.set_level(logging.ERROR)
    await seed(env, FOREIGN_TITLE)
    await move_to_another_server(env)
    ids = await seed(env, "Ours")
    watch = Watch(env, caplog)
    watch.check("seed", "")
    fills = valid(env, ids)
    tried = 0
    for name, options in commands(env):
        member = env.member if name in ("suggest paper", "remind me") else env.organizer
        member = env.admin if name.startswith("setup ") else member
        required = {o["name"]: fills[o["name"]] for o in options if o.get("required")}
        if name == "organize series add":  # its name, day and time are given together (none of them: a form)
            required = {key: fills[key] for key in ("name", "day", "time")}
        for option in options:
            if option["type"] != 3 or option["name"] in SKIP_OPTIONS:
                continue
            for value in hostile_values(env, option.get("max_length")):
                what = f"/{name} {option['name']}={value[:30]!r}"
                fill = {**required, "title": f"Ours {tried}"} if "title" in required else required
                if name == "suggest paper":  # a new paper each time, or it is a duplicate
                    fill = {"paper": f"https://example.org/sweep/{tried}"}
                shown = await answer(await env.invoke(name, {**fill, option["name"]: value}, member=member))
                assert shown, what
                assert FOREIGN_TITLE not in shown, what
                watch.check(what, shown)
                tried += 1
                if option.get("autocomplete"):
                    choices = await env.autocomplete(
                        name, option["name"], value, options=required, member=member
                    )
                    assert len(choices) <= 25, what
                    assert all(1 <= len(c["name"]) <= 100 for c in choices), (what, choices)
                    assert not any(FOREIGN_TITLE in c["name"] for c in choices), what
                    watch.check(f"{what} (autocomplete)", "")
        # Numbers at both ends of what Discord lets a member send.
        for option in options:
            if option["type"] == 4 and option["name"] not in ("session", "reminder"):
                for value in (option["min_value"], option["max_value"]):
                    what = f"/{name} {option['name']}={value}"
                    shown = await answer(
                        await env.invoke(name, {**required, option["name"]: value}, member=member)
                    )
                    assert shown, what
                    watch.check(what, shown)
                    tried += 1
        # Another server's rows, by number: never shown, never changed. (Reminders are numbered per server:
        # "#1" is this server's own first reminder, so another server's cannot be named at all.)
        for option in options:
            if option["name"] in ("session", "suggestion", "series"):
                foreign = 1 if option["type"] == 4 else "1"
                values = {**required, **ROW_EXTRA.get(name, {}), option["name"]: foreign}
                shown = await answer(await env.invoke(name, values, member=member))
                what = f"/{name} {option['name']}=<another server's #1>"
                assert FOREIGN_TITLE not in shown, what
                assert shown.startswith("There is no "), (what, shown)
                watch.check(what, shown)
    assert tried > 300
    assert watch.messages > tried  # every reply, and the posts they made, were looked at
    assert watch.findings == []
    async with env.bot.session_factory() as db:
        kept = await db.scalar(
            text("SELECT count(*) FROM sessions WHERE guild_id = :g AND title = :t AND status = 'scheduled'"),
            {"g": FOREIGN_GUILD, "t": FOREIGN_TITLE},
        )
    assert kept == 1
    # Member text is stored without invisible characters (zero-width, direction overrides), and never
    # as nothing but them.
    async with env.bot.session_factory() as db:
        for table, column in STORED_TEXT:
            for (value,) in (await db.execute(text(f"SELECT {column} FROM {table}"))).all():
                assert value is None or value == visible(value), (table, column, value)
                assert value is None or value.strip(), (table, column, value)


# Each text field of the forms, by modal custom_id: field -> (max length, what the rest of the form needs).
FORM_FIELDS: dict[str, dict[str, int]] = {
    "sugg:modal:suggest": {"paper": 512, "title": 300, "why": 1000},
    "reading:modal:add": {"paper": 512, "new_list": 100, "note": 300},
}


async def test_bad_input_in_the_forms_and_message_commands(
    discord_env: BotEnv, caplog: pytest.LogCaptureFixture
) -> None:
    """Hostile text in every field of the suggestion and reading-list forms, opened from messages whose
    own text is hostile: nothing crashes, pings or is refused by Discord; what is stored is visible text."""
    env = discord_env
    caplog.set_level(logging.ERROR)
    await seed(env, "Ours")
    watch = Watch(env, caplog)
    watch.check("seed", "")
    mentions = f"@everyone @here <@&{env.world.readers.id}> <@{env.member.id}>"
    bodies = [
        f"{mentions} https://example.org/a **bold** [x](https://example.org/b) ||spoiler||",
        "https://example.org/" + "x" * 1900,
        "\u200b https://arxiv.org/abs/2401.12345 \u202e",
        " ".join(f"https://example.org/many/{i}" for i in range(40)),
    ]
    tried = 0
    for body in bodies:
        posted = await env.standin.post_as(env.member, env.general, body)
        for menu, modal_id, member in (
            ("Suggest this paper", "sugg:modal:suggest", env.member),
            ("Add to reading list", "reading:modal:add", env.organizer),
        ):
            for field, limit in FORM_FIELDS[modal_id].items():
                for value in hostile_values(env, limit):
                    what = f"{menu} {field}={value[:30]!r}"
                    opened = await env.invoke_message_command(menu, posted, member=member)
                    first = await opened.response()
                    if first.modal is None:  # refused, ephemerally
                        watch.check(what, first.content)
                        tried += 1
                        continue
                    kinds = {
                        c["component"]["custom_id"]: c["component"]["type"]
                        for c in first.modal["components"]
                        if c.get("type") == 18
                    }
                    if kinds.get(field) != 4:
                        continue  # the paper is a select here (several links)
                    extra = {"new_list": f"Sweep {tried}"} if modal_id == "reading:modal:add" else {}
                    if modal_id == "sugg:modal:suggest" and field != "paper":
                        extra = {"paper": f"https://example.org/sweep/form/{tried}"}
                    values = {**extra, field: value}
                    shown = await answer(await env.submit_modal(first, values, member=member, forged=True))
                    assert shown, what
                    watch.check(what, shown)
                    tried += 1
    assert tried > 40
    assert watch.findings == []
    async with env.bot.session_factory() as db:
        for table, column in STORED_TEXT:
            for (value,) in (await db.execute(text(f"SELECT {column} FROM {table}"))).all():
                assert value is None or value == visible(value), (table, column, value)
                assert value is None or value.strip(), (table, column, value)
