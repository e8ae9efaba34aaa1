"""Every typed option and form field takes exactly what the bot keeps (or reads): its max_length, as Discord
gets it from the synced commands and the forms the bot opens, is the service's own limit, and that limit fits
the column that keeps it. A new option or field fails here until it is given its limit. Then, through the
real discord.py client, values of exactly the longest length are kept: a 512-character link on a reading
list, in a suggestion, ten of them in a session and one as its sign-up button; a bare one while https://
fits (else the refusal says why); twenty of the longest topics."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from bot import timeutil, when
from bot.demo.botenv import BotEnv
from bot.papers import (
    MAX_DOI_LENGTH,
    MAX_KEY_LENGTH,
    MAX_PAPER_LIST_TEXT,
    MAX_PAPERS_PER_LIST,
    MAX_TITLE_LENGTH,
    MAX_URL_LENGTH,
)
from bot.services.config.guild import (
    MAX_OFFSETS_TEXT,
    MAX_TOPIC,
    MAX_TOPICS,
    MAX_TOPICS_TEXT,
    MAX_ZONES_TEXT,
    get_config,
)
from bot.services.reading.lists import MAX_LIST_NAME, MAX_NOTE
from bot.services.reading.search import MAX_QUERY_LENGTH
from bot.services.reminders.requested import MAX_MESSAGE
from bot.services.series import rules as series_rules
from bot.services.sessions import rules as session_rules
from bot.services.site.config import MAX_ABOUT, MAX_SLUG
from bot.services.suggestions.actions import MAX_NOTE_LENGTH, MAX_REASON_LENGTH
from db.models import ClubSession, GuildSettings, Paper
from db.models.core import SiteSettings
from db.models.reading import ReadingList, ReadingListItem, ReadingSearchQuery
from db.models.reminders import Reminder
from db.models.series import Series, SeriesWeek
from db.models.sessions import PaperAlias
from db.models.suggestions import Suggestion
from standin.state import EPHEMERAL, Message
from tests.cards import card_title
from tests.suggestions.helpers import latest_suggestion_id, use_channel


@dataclass(frozen=True)
class Takes:
    """What an option takes: ``limit`` characters, kept in ``column`` (None: read, never kept as typed)."""

    limit: int
    column: Any = None


def link(column: Any) -> Takes:
    return Takes(MAX_URL_LENGTH, column)


READ = None  # a value the command looks up or parses; nothing is kept as typed
SESSION_FIELDS = {
    "title": Takes(session_rules.MAX_TITLE, ClubSession.title),
    "when": Takes(when.MAX_TEXT),
    "timezone": Takes(timeutil.MAX_ZONE_TEXT, ClubSession.timezone),
    "presenter_name": Takes(session_rules.MAX_PRESENTER_NAME, ClubSession.presenter_name),
    "papers": Takes(MAX_PAPER_LIST_TEXT),  # ten papers, each kept in the papers table (checked below)
    "signup_url": link(ClubSession.signup_url),
    "description": Takes(session_rules.MAX_DESCRIPTION, ClubSession.description),
}
SERIES_REF = Takes(series_rules.MAX_NAME)  # its number or its name
DATE = Takes(series_rules.MAX_DATE_TEXT)
OPTIONS: dict[tuple[str, str], Takes] = {
    **{("organize session add", name): takes for name, takes in SESSION_FIELDS.items()},
    **{("organize session edit", name): takes for name, takes in SESSION_FIELDS.items()},
    ("organize session cancel", "reason"): Takes(session_rules.MAX_CANCEL_REASON, ClubSession.cancel_reason),
    ("organize session recap", "recording_url"): link(ClubSession.recording_url),
    ("organize session recap", "notes_url"): link(ClubSession.notes_url),
    ("organize session recap", "wiki_url"): link(ClubSession.wiki_url),
    ("organize reminder add", "when"): Takes(when.MAX_TEXT),
    ("organize reminder add", "message"): Takes(MAX_MESSAGE, Reminder.message),
    ("remind me", "before"): Takes(timeutil.MAX_OFFSET_TEXT),
    ("organize series add", "name"): Takes(series_rules.MAX_NAME, Series.name),
    ("organize series add", "day"): Takes(20),  # a weekday's name, read
    ("organize series add", "time"): Takes(when.MAX_CLOCK_TEXT),
    ("organize series add", "timezone"): Takes(timeutil.MAX_ZONE_TEXT, Series.timezone),
    ("organize series add", "first"): DATE,
    ("organize series add", "until"): DATE,
    ("organize series add", "signup_url"): link(Series.signup_url),
    ("organize series add", "description"): Takes(session_rules.MAX_DESCRIPTION, Series.description),
    ("organize series skip", "series"): SERIES_REF,
    ("organize series skip", "date"): DATE,
    ("organize series skip", "reason"): Takes(series_rules.MAX_SKIP_REASON, SeriesWeek.skip_reason),
    ("organize series unskip", "series"): SERIES_REF,
    ("organize series unskip", "date"): DATE,
    ("organize series move", "series"): SERIES_REF,
    ("organize series move", "date"): DATE,
    ("organize series move", "when"): Takes(when.MAX_TEXT),
    ("organize series edit", "series"): SERIES_REF,
    ("organize series edit", "day"): Takes(20),
    ("organize series edit", "time"): Takes(when.MAX_CLOCK_TEXT),
    ("organize series edit", "timezone"): Takes(timeutil.MAX_ZONE_TEXT, Series.timezone),
    ("organize series edit", "until"): DATE,
    ("organize series end", "series"): SERIES_REF,
    ("organize series end", "after"): DATE,
    ("organize series open", "series"): SERIES_REF,
    ("series show", "series"): SERIES_REF,
    ("reading show", "list"): Takes(MAX_LIST_NAME),
    ("reading search", "query"): Takes(MAX_QUERY_LENGTH, ReadingSearchQuery.query),
    ("reading export", "list"): Takes(MAX_LIST_NAME),
    ("organize reading add", "list"): Takes(MAX_LIST_NAME, ReadingList.name),
    ("organize reading add", "paper"): link(Paper.url),
    ("organize reading add", "note"): Takes(MAX_NOTE, ReadingListItem.note),
    ("organize reading remove", "list"): Takes(MAX_LIST_NAME),
    ("organize reading remove", "paper"): Takes(MAX_URL_LENGTH),
    ("paper show", "paper"): Takes(MAX_URL_LENGTH),  # a choice's value, an arXiv id, a link or a title; read
    ("organize paper refresh", "paper"): Takes(MAX_URL_LENGTH),  # as /paper show: read, not kept
    ("setup timezone", "zone"): Takes(timeutil.MAX_ZONE_TEXT, GuildSettings.timezone),
    ("setup display_zones", "zones"): Takes(MAX_ZONES_TEXT, GuildSettings.display_zones),
    ("setup reminder_offsets", "offsets"): Takes(MAX_OFFSETS_TEXT, GuildSettings.reminder_offsets),
    ("setup topics", "topics"): Takes(MAX_TOPICS_TEXT, GuildSettings.suggestion_topics),
    ("setup website", "slug"): Takes(MAX_SLUG, SiteSettings.slug),
    ("setup about", "text"): Takes(MAX_ABOUT, SiteSettings.about),
    ("suggest paper", "paper"): link(Paper.url),
    ("suggest paper", "why"): Takes(MAX_REASON_LENGTH, Suggestion.reason),
    ("suggest paper", "topic"): Takes(MAX_TOPIC, Suggestion.topic),
    ("suggest paper", "title"): Takes(MAX_TITLE_LENGTH, Paper.title),
    ("organize paper resolve", "paper"): Takes(MAX_TITLE_LENGTH, PaperAlias.name),
    ("suggest list", "topic"): Takes(MAX_TOPIC),
    ("suggest show", "suggestion"): Takes(100),  # its number, or words of its title (a choice's value)
    ("organize suggestions review", "suggestion"): Takes(100),
    ("organize suggestions review", "note"): Takes(MAX_NOTE_LENGTH, Suggestion.review_note),
    ("suggest withdraw", "suggestion"): Takes(100),
}
# Each form by its title: field custom_id → what it takes (Discord caps a text input at 4,000).
FORMS: dict[str, dict[str, Takes]] = {
    "Suggest a paper": {
        "paper": link(Paper.url),
        "title": Takes(MAX_TITLE_LENGTH, Paper.title),
        "why": Takes(MAX_REASON_LENGTH, Suggestion.reason),
    },
    "New session from a suggestion": {
        "title": Takes(session_rules.MAX_TITLE, ClubSession.title),
        "when": Takes(when.MAX_TEXT),
        "timezone": Takes(timeutil.MAX_ZONE_TEXT, ClubSession.timezone),
    },
    "Edit session #1": {
        "session_edit:title": Takes(session_rules.MAX_TITLE, ClubSession.title),
        "session_edit:when": Takes(when.MAX_TEXT),
        "session_edit:papers": Takes(min(4000, MAX_PAPER_LIST_TEXT)),
        "session_edit:signup_url": link(ClubSession.signup_url),
    },
    "How the club runs": {"site_about:text": Takes(MAX_ABOUT, SiteSettings.about)},
}


def _length(column: Any) -> int | None:
    """A model attribute's column length (None for Text)."""
    return getattr(column.property.columns[0].type, "length", None)


def leaves(command: dict[str, Any], path: list[str]) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    subs = [o for o in command.get("options", []) if o.get("type") in (1, 2)]
    if not subs:
        yield " ".join(path), list(command.get("options", []))
    for sub in subs:
        yield from leaves(sub, [*path, sub["name"]])


def text_inputs(components: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Every text input of a modal, in action rows or in Labels."""
    for component in components:
        if component.get("type") == 4:
            yield component
        yield from text_inputs(component.get("components", []))
        if isinstance(component.get("component"), dict):
            yield from text_inputs([component["component"]])


def test_each_limit_fits_the_column_that_keeps_it() -> None:
    for where, takes in [*OPTIONS.items(), *((k, t) for form in FORMS.values() for k, t in form.items())]:
        if takes.column is None:
            continue
        length = _length(takes.column)
        assert length is None or takes.limit <= length, (where, takes, length)
    # the papers table: its key and DOI columns are what parse_paper_ref keeps within
    assert _length(Paper.key) == MAX_KEY_LENGTH
    assert _length(Paper.doi) == MAX_DOI_LENGTH
    assert _length(Suggestion.topic) == MAX_TOPIC


async def test_every_typed_option_takes_what_the_bot_keeps(discord_env: BotEnv) -> None:
    found: dict[tuple[str, str], int | None] = {}
    for command in discord_env.standin.commands():
        for path, options in leaves(command, [command["name"]]):
            for option in options:
                if option.get("type") == 3 and not option.get("choices"):  # typed text, not a fixed choice
                    found[(path, option["name"])] = option.get("max_length")
    assert {where: takes.limit for where, takes in OPTIONS.items()} == found


async def _open_forms(env: BotEnv) -> dict[str, dict[str, Any]]:
    """Each form as the member's client gets it."""
    forms: list[dict[str, Any] | None] = []
    forms.append((await (await env.invoke("suggest paper", {}, member=env.members[0])).response()).modal)
    added = await (
        await env.invoke("organize session add", {"title": "One", "when": "tomorrow 17:00"})
    ).final()
    assert added.text.startswith("Added session #1"), added.text
    forms.append((await (await env.invoke("organize session edit", {"session": 1})).response()).modal)
    forms.append((await (await env.invoke("setup about", {}, member=env.admin)).response()).modal)
    await use_channel(env)
    suggested = await (await env.invoke("suggest paper", {"paper": "A paper"}, member=env.members[0])).final()
    assert suggested.flags & EPHEMERAL, suggested.content
    sid = await latest_suggestion_id(env)
    accepted = await (
        await env.invoke("organize suggestions review", {"suggestion": str(sid), "decision": "accept"})
    ).final()
    forms.append((await (await env.click(accepted, f"sugg:session:{sid}")).response()).modal)
    assert all(form is not None for form in forms)
    return {form["title"]: form for form in forms if form is not None}


async def test_every_form_field_takes_what_the_bot_keeps(discord_env: BotEnv) -> None:
    forms = await _open_forms(discord_env)
    assert set(forms) == set(FORMS)
    for title, form in forms.items():
        fields = {c["custom_id"]: c.get("max_length") for c in text_inputs(form["components"])}
        assert fields == {custom_id: takes.limit for custom_id, takes in FORMS[title].items()}, title


# ---------------------------------------------------------------- the longest values, kept


def long_link(n: int = MAX_URL_LENGTH, *, scheme: str = "https://", tag: str = "") -> str:
    head = f"{scheme}example.org/papers/{tag}"
    return head + "p" * (n - len(head))


async def final(env: BotEnv, name: str, options: dict[str, Any], member: Any = None) -> Message:
    return await (await env.invoke(name, options, member=member or env.organizer)).final()


async def paper_rows(env: BotEnv) -> list[Paper]:
    async with env.bot.session_factory() as session:
        return list(await session.scalars(select(Paper).order_by(Paper.id)))


async def test_a_link_as_long_as_the_option_takes_is_kept_on_a_reading_list(discord_env: BotEnv) -> None:
    env = discord_env
    longest = long_link()
    assert len(longest) == MAX_URL_LENGTH
    reply = await final(env, "organize reading add", {"list": "Long links", "paper": longest})
    assert reply.flags & EPHEMERAL
    assert "too long" not in reply.content, reply.content
    (paper,) = await paper_rows(env)
    assert paper.url == longest  # the link whole; its key, too long for the column, is its digest
    assert paper.key.startswith("url:sha256:")
    assert len(paper.key) <= MAX_KEY_LENGTH
    again = await final(
        env, "organize reading add", {"list": "Long links", "paper": longest.replace("https", "http", 1)}
    )
    assert "already" in again.content, again.content  # the same paper, however it is spelled
    assert len(await paper_rows(env)) == 1


async def test_a_link_as_long_as_the_option_takes_is_kept_in_a_suggestion(discord_env: BotEnv) -> None:
    env = discord_env
    await use_channel(env)
    reply = await final(env, "suggest paper", {"paper": long_link(tag="s")}, member=env.members[0])
    assert reply.content.startswith("Thanks! "), reply.content
    assert "is saved and posted" in reply.content, reply.content
    (paper,) = await paper_rows(env)
    assert paper.url == long_link(tag="s")


async def test_ten_of_the_longest_links_are_kept_in_a_session(discord_env: BotEnv) -> None:
    env = discord_env
    links = [long_link(tag=f"{i}-") for i in range(MAX_PAPERS_PER_LIST)]
    papers = "".join(f"{one}\n" for one in links)
    assert len(papers) == MAX_PAPER_LIST_TEXT
    reply = await final(
        env, "organize session add", {"title": "Long reads", "when": "tomorrow 17:00", "papers": papers}
    )
    assert reply.text.startswith("Added session #1"), reply.text
    assert [p.url for p in await paper_rows(env)] == links


async def test_the_longest_sign_up_link_is_kept_and_makes_its_button(discord_env: BotEnv) -> None:
    env = discord_env
    bare = long_link(MAX_URL_LENGTH - len("https://"), scheme="")
    reply = await final(
        env, "organize session add", {"title": "Bare", "when": "tomorrow 17:00", "signup_url": bare}
    )
    assert reply.text.startswith("Added session #1"), reply.text
    async with env.bot.session_factory() as session:
        row = await session.get(ClubSession, 1)
    assert row is not None
    assert row.signup_url == f"https://{bare}"
    await (await env.invoke("setup announcements", {"channel": env.announcements}, member=env.admin)).final()
    announced = await final(env, "organize session announce", {"session": 1})
    assert announced.flags & EPHEMERAL
    (post,) = [m for m in env.messages_in(env.announcements) if m.buttons]
    assert {b.get("label"): b.get("url") for b in post.buttons}["Sign up"] == f"https://{bare}"
    # one more character fits the option but not the button, once https:// is added: the refusal says so
    refused = await final(env, "organize session edit", {"session": 1, "signup_url": bare + "p"})
    assert refused.flags & EPHEMERAL
    assert "over 512 characters once https:// is added" in refused.content, refused.content


async def test_twenty_of_the_longest_topics_fit_the_option(discord_env: BotEnv) -> None:
    env = discord_env
    topics = [f"{i:02d}" + "t" * (MAX_TOPIC - 2) for i in range(MAX_TOPICS)]
    text = "; ".join(topics)
    assert len(text) <= MAX_TOPICS_TEXT
    reply = await (await env.invoke("setup topics", {"topics": text}, member=env.admin)).final()
    assert card_title(reply) == "Saved."
    async with env.bot.session_factory() as session:
        assert (await get_config(session, env.guild.id)).suggestion_topics == tuple(topics)
