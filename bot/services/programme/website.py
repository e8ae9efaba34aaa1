"""The programme's ``website:`` section: checked with the site's own rules, applied, read back."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot.errors import BadInput, Conflict
from bot.services.programme.checks import Checker, Problem, ProgrammeInvalid
from bot.services.site import config as site_config


def _title(text: str) -> str:
    if len(" ".join(text.split())) > site_config.MAX_TITLE:
        raise BadInput(f"is over {site_config.MAX_TITLE} characters")
    return site_config.clean_title(text)


#: Each text field: its cleaner (the site's own), and whether it may be given as nothing (cleared).
TEXTS = {
    "slug": (site_config.clean_slug, False),
    "title": (_title, False),
    "intro": (site_config.clean_markdown, True),
    "about": (site_config.clean_markdown, True),
    "discord_invite": (site_config.clean_invite, True),
}
FIELDS = {"enabled", *TEXTS}


@dataclass(frozen=True)
class ProgrammeWebsite:
    """The section's checked values (only the fields it gives) and the lines a store refusal names."""

    values: dict[str, object]
    lines: dict[str, int | None]


def check_website(checker: Checker, node: Any, line: int | None) -> ProgrammeWebsite | None:
    """The section's values, each checked (problems recorded with their line and field)."""
    if node is None:
        return None
    node = checker.mapping(node, "website", FIELDS, line)
    if node is None:
        return None
    before = len(checker.problems)
    values: dict[str, object] = {}
    lines = {name: checker.line_of(node, name) or line for name in FIELDS}
    if "enabled" in node:
        if isinstance(node["enabled"], bool):
            values["enabled"] = node["enabled"]
        else:
            checker.add(lines["enabled"], "website.enabled", "expected true or false")
    for name, (clean, clears) in TEXTS.items():
        if name in node:
            text = checker.text(node[name], f"website.{name}", lines[name], required=not clears)
            if text is not None or clears:
                values[name] = checker.check(lines[name], f"website.{name}", clean, text)
    if values.get("enabled") is True and "slug" not in node:
        checker.add(lines["enabled"], "website.slug", "is required to turn the site on (e.g. paper-club)")
    if len(checker.problems) > before:
        return None
    return ProgrammeWebsite(values, lines)


async def apply_website(
    session: AsyncSession, guild_id: int, given: ProgrammeWebsite | None, now: datetime
) -> bool:
    """Write the section (caller's transaction); True when anything changed, ProgrammeInvalid if refused."""
    if given is None or not given.values:
        return False
    try:
        return await site_config.set_programme_site(session, guild_id, given.values, now=now)
    except (Conflict, BadInput) as refused:
        raise ProgrammeInvalid(
            [Problem(given.lines.get("slug"), "website.slug", refused.user_message)]
        ) from None


async def dump_website(session: AsyncSession, guild_id: int) -> dict[str, object] | None:
    """The guild's website settings as the section writes them (None when it never set any)."""
    site = await site_config.get_site(session, guild_id)
    if site.slug is None and site.about is None and site.intro is None and site.discord_invite is None:
        return None
    out: dict[str, object] = {"enabled": site.enabled}
    if site.slug is not None:
        out["slug"] = site.slug
    out["title"] = site.title
    optional = {"intro": site.intro, "about": site.about, "discord_invite": site.discord_invite}
    return out | {name: value for name, value in optional.items() if value is not None}
