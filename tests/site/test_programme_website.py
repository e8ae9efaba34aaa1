"""A programme file's ``website`` section: the club's page from the file alone, checked like the rest (each
refusal names its line and field, and nothing of the file is written), exported and read back."""

from __future__ import annotations

import pytest
import yaml
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.services.programme.checks import ProgrammeInvalid
from bot.services.programme.files import export_text, import_text
from bot.services.site import config as site_config
from tests.reading.conftest import snapshot

GUILD = 31
WEBSITE = """\
website:
  enabled: true
  slug: reading-group
  title: Reading group
  intro: |
    A paper a week. **It is open**: see [the wiki](https://wiki.example.org/club).
  about: |
    - **Format.** An hour.
  discord_invite: https://discord.gg/reading-group
sessions:
  - title: Kick-off
    starts_at: 2026-01-08 09:30
"""


def with_field(name: str, value: str) -> str:
    """The file with one website field's value replaced (its line stays where it was)."""
    lines = WEBSITE.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(f"  {name}:"))
    lines[at] = f"  {name}: {value}"
    if name in ("intro", "about"):
        del lines[at + 1]
    return "\n".join(lines) + "\n"


async def test_the_section_turns_the_site_on_and_round_trips(
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    _, report = await import_text(session_factory, WEBSITE, suffix=".yaml", guild_id=GUILD)
    assert report.website_changed
    async with session_factory() as session:
        site = await site_config.get_site(session, GUILD)
    assert site.live
    assert (site.slug, site.title) == ("reading-group", "Reading group")
    assert site.intro == "A paper a week. **It is open**: see [the wiki](https://wiki.example.org/club)."
    assert site.about == "- **Format.** An hour."
    assert site.discord_invite == "https://discord.gg/reading-group"

    exported = await export_text(session_factory, GUILD, suffix=".yaml")
    assert yaml.safe_load(exported)["website"] == {
        "enabled": True,
        "slug": "reading-group",
        "title": "Reading group",
        "intro": site.intro,
        "about": site.about,
        "discord_invite": site.discord_invite,
    }
    before = await snapshot(session_factory)
    _, again = await import_text(session_factory, exported, suffix=".yaml", guild_id=GUILD)
    assert not again.changed_anything
    assert await snapshot(session_factory) == before
    as_json = await export_text(session_factory, GUILD, suffix=".json")
    _, from_json = await import_text(session_factory, as_json, suffix=".json", guild_id=GUILD)
    assert not from_json.changed_anything

    # What the section leaves out stays; a field given as nothing clears it; off keeps the address.
    changed = "website:\n  enabled: false\n  intro:\n"
    _, report = await import_text(session_factory, changed, suffix=".yaml", guild_id=GUILD)
    assert report.website_changed
    async with session_factory() as session:
        site = await site_config.get_site(session, GUILD)
    assert (site.enabled, site.slug, site.intro, site.about) == (
        False,
        "reading-group",
        None,
        "- **Format.** An hour.",
    )


@pytest.mark.parametrize(
    ("field", "value", "line", "message"),
    [
        ("discord_invite", "https://discord.example.com/invite/x", 9, "is not a Discord invite"),
        ("discord_invite", "https://evil.example/discord.gg/club", 9, "is not a Discord invite"),
        ("discord_invite", "javascript:alert(1)", 9, "is not a Discord invite"),
        ("intro", "A paper a week <script>alert(1)</script>", 5, "holds raw HTML (“<script>”)"),
        ("intro", '"<img src=x onerror=alert(1)>"', 5, "holds raw HTML"),
        ("intro", "'[the wiki](javascript:alert(1))'", 5, "links to “javascript:alert(1)”"),
        ("about", "'<javascript:alert(1)>'", 7, "links to “javascript:alert(1)”"),
        ("slug", "paper/club", 3, "lower-case letters, digits and single hyphens"),
        ("slug", "..", 3, "lower-case letters, digits and single hyphens"),
        ("slug", "../admin", 3, "lower-case letters, digits and single hyphens"),
        ("slug", "metrics", 3, "is kept for the web server itself"),
        ("enabled", "yes", 2, "expected true or false"),
        ("title", "x" * 101, 4, "is over 100 characters"),
    ],
)
async def test_bad_values_are_refused_with_line_and_field_and_nothing_is_written(
    session_factory: async_sessionmaker[AsyncSession], field: str, value: str, line: int, message: str
) -> None:
    before = await snapshot(session_factory)
    with pytest.raises(ProgrammeInvalid) as refused:
        await import_text(session_factory, with_field(field, value), suffix=".yaml", guild_id=GUILD)
    (problem,) = refused.value.problems
    assert (problem.line, problem.where) == (line, f"website.{field}")
    assert message in problem.message
    assert await snapshot(session_factory) == before  # not the session either: all or nothing
    async with session_factory() as session:
        assert not (await site_config.get_site(session, GUILD)).live


async def test_turning_on_needs_an_address_and_an_address_another_server_holds_is_refused(
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    no_slug = "website:\n  enabled: true\n"
    with pytest.raises(ProgrammeInvalid) as refused:
        await import_text(session_factory, no_slug, suffix=".yaml", guild_id=GUILD)
    assert [str(p) for p in refused.value.problems] == [
        "line 2: website.slug: is required to turn the site on (e.g. paper-club)"
    ]
    await import_text(session_factory, WEBSITE, suffix=".yaml", guild_id=GUILD)
    before = await snapshot(session_factory)
    with pytest.raises(ProgrammeInvalid) as taken:
        await import_text(session_factory, WEBSITE, suffix=".yaml", guild_id=GUILD + 1)
    assert [str(p) for p in taken.value.problems] == [
        "line 3: website.slug: the address `reading-group` is taken by another server; pick another"
    ]
    assert await snapshot(session_factory) == before
