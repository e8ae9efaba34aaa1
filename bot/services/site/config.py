"""A guild's website settings (on/off, address, title, intro, about, invite), their Markdown, feed tokens."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass, fields
from datetime import datetime
from functools import lru_cache
from typing import Any, Final
from urllib.parse import urlsplit

from markdown_it import MarkdownIt
from sqlalchemy import bindparam, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from bot.errors import BadInput, Conflict
from bot.text import clean_line, visible
from db.models import GuildSettings
from db.models.core import (
    DEFAULT_DISPLAY_ZONES,
    DEFAULT_SUGGESTION_TOPICS,
    DEFAULT_TIMEZONE,
    CalendarToken,
    SiteSettings,
)

MAX_SLUG: Final = 40
MAX_ABOUT: Final = 4000
MAX_TITLE: Final = 100
MAX_INVITE: Final = 200
DEFAULT_TITLE: Final = "Paper club"
_SLUG = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?")
#: An invite link as Discord gives it (discord.gg/CODE or discord.com/invite/CODE; vanity codes have hyphens).
_INVITE = re.compile(r"https://(?:discord\.gg|(?:www\.)?discord\.com/invite)/([A-Za-z0-9-]{2,64})/?")
#: Addresses the web server keeps for itself or other features (health checks, metrics, static files).
RESERVED_SLUGS: Final = frozenset(
    {"healthz", "metrics", "static", "api", "admin", "assets", "favicon.ico", "robots.txt", "well-known"}
)


@dataclass(frozen=True)
class SiteConfig:
    """A guild's website settings as plain values."""

    guild_id: int
    enabled: bool
    slug: str | None
    title: str
    about: str | None
    updated_at: datetime | None = None
    intro: str | None = None  # the home page's opening (Markdown)
    discord_invite: str | None = None  # an invite link, checked (clean_invite)

    @property
    def live(self) -> bool:
        """Whether the site is on and has a slug, so its pages are served."""
        return self.enabled and self.slug is not None


@dataclass(frozen=True)
class LiveSite:
    """An enabled site and the guild settings its pages show (zones, topics), read in one query."""

    site: SiteConfig
    timezone: str = DEFAULT_TIMEZONE
    display_zones: str = DEFAULT_DISPLAY_ZONES
    suggestion_topics: str = DEFAULT_SUGGESTION_TOPICS


_FIELDS: Final = tuple(field.name for field in fields(SiteConfig))  # SiteSettings' columns of the same names


def _config(row: SiteSettings | None, guild_id: int) -> SiteConfig:
    if row is None:
        return SiteConfig(guild_id, False, None, DEFAULT_TITLE, None)
    return SiteConfig(*(getattr(row, name) for name in _FIELDS))


def clean_slug(text: str) -> str:
    """The site's address: 1–40 lower-case letters, digits and hyphens (not at either end)."""
    slug = text.strip().lower()
    if not _SLUG.fullmatch(slug) or "--" in slug:
        raise BadInput(
            f"The address must be 1–{MAX_SLUG} lower-case letters, digits and single hyphens, "
            "not starting or ending with a hyphen, e.g. `paper-club`."
        )
    if slug in RESERVED_SLUGS:
        raise BadInput(f"`{slug}` is kept for the web server itself; pick another address.")
    return slug


def clean_markdown(text: str | None) -> str | None:
    """The intro's or "How it runs"' Markdown, without invisible characters (:func:`check_markdown`)."""
    cleaned = visible(text or "").strip()
    if len(cleaned) > MAX_ABOUT:
        raise BadInput(f"That text is {len(cleaned)} characters; keep it within {MAX_ABOUT}.")
    if cleaned:
        check_markdown(cleaned)
    return cleaned or None


def clean_invite(text: str | None) -> str | None:
    """A Discord invite link (``https://discord.gg/…`` or ``https://discord.com/invite/…``), or None for none."""
    cleaned = (text or "").strip()
    if not cleaned:
        return None
    found = _INVITE.fullmatch(cleaned) if len(cleaned) <= MAX_INVITE else None
    if found is None:
        raise BadInput(
            f"“{cleaned[:60]}” is not a Discord invite; give one like https://discord.gg/CODE "
            "(Server Settings → Invites, or Invite People)."
        )
    return f"https://discord.gg/{found.group(1)}"


def clean_title(text: str | None) -> str:
    """A site title cut to one line and its length limit (the default when empty)."""
    return (clean_line(text or "") or DEFAULT_TITLE)[:MAX_TITLE]


async def get_site(session: AsyncSession, guild_id: int) -> SiteConfig:
    """The guild's website settings (the defaults when it has none)."""
    return _config(await session.get(SiteSettings, guild_id), guild_id)


_SITE = SiteSettings.__table__.c
_GUILD = GuildSettings.__table__.c
#: Built once: every page request runs it first (the site's on/off check and what its pages need).
_LIVE_SITE = (
    select(
        *(_SITE[name] for name in _FIELDS), _GUILD.timezone, _GUILD.display_zones, _GUILD.suggestion_topics
    )
    .select_from(SiteSettings.__table__.outerjoin(GuildSettings.__table__, _GUILD.guild_id == _SITE.guild_id))
    .where(_SITE.slug == bindparam("slug"), _SITE.enabled.is_(True))
)


async def live_site(session: AsyncSession, slug: str) -> LiveSite | None:
    """The enabled site at ``/<slug>/`` with its guild's display settings, in one query (None: none)."""
    if not _SLUG.fullmatch(slug):
        return None
    row = (await (await session.connection()).execute(_LIVE_SITE, {"slug": slug})).first()
    if row is None:
        return None
    site = SiteConfig(*row[: len(_FIELDS)])
    if row.timezone is None:  # no guild_settings row: the defaults
        return LiveSite(site)
    return LiveSite(site, row.timezone, row.display_zones, row.suggestion_topics)


async def _taken(session: AsyncSession, guild_id: int, slug: str) -> bool:
    """Whether another server's site has the address ``slug``."""
    other = select(SiteSettings.guild_id).where(SiteSettings.slug == slug, SiteSettings.guild_id != guild_id)
    return await session.scalar(other) is not None


async def _row(session: AsyncSession, guild_id: int, now: datetime) -> SiteSettings:
    row = await session.get(SiteSettings, guild_id)
    if row is None:
        row = SiteSettings(guild_id=guild_id, enabled=False, title=DEFAULT_TITLE, created_at=now)
        session.add(row)
    return row


async def set_website(
    session: AsyncSession,
    guild_id: int,
    *,
    enabled: bool,
    slug: str | None,
    title: str | None,
    now: datetime,
) -> SiteConfig:
    """Turn the site on or off; ``slug`` (checked) sets or changes its address. Conflict if it is taken."""
    wanted = clean_slug(slug) if slug is not None and slug.strip() else None
    row = await _row(session, guild_id, now)
    if wanted is None and enabled and row.slug is None:
        raise BadInput("Give the site an address with `slug`, e.g. `paper-club` (it becomes /paper-club/).")
    if wanted is not None and wanted != row.slug:
        if await _taken(session, guild_id, wanted):
            raise Conflict(f"The address `{wanted}` is taken by another server; pick another.")
        row.slug = wanted
    row.enabled = enabled
    if title is not None:
        row.title = clean_title(title)
    row.updated_at = now
    try:
        await session.flush()
    except IntegrityError as error:  # a racing server took the same slug between our check and the write
        if "slug" not in str(error.orig):
            raise
        raise Conflict(f"The address `{wanted}` was just taken by another server; pick another.") from None
    return _config(row, guild_id)


async def set_programme_site(
    session: AsyncSession, guild_id: int, values: dict[str, object], *, now: datetime
) -> bool:
    """Apply the programme file's ``website`` section; True when anything changed."""
    row = await _row(session, guild_id, now)
    slug = values.get("slug")
    if isinstance(slug, str) and slug != row.slug and await _taken(session, guild_id, slug):
        raise Conflict(f"the address `{slug}` is taken by another server; pick another")
    changed = False
    for name, value in values.items():
        if getattr(row, name) != value:
            setattr(row, name, value)
            changed = True
    if values.get("enabled") and row.slug is None:
        raise BadInput("give the site an address with `slug`, e.g. `paper-club`")
    if changed:
        row.updated_at = now
        await session.flush()
    return changed


async def set_about(session: AsyncSession, guild_id: int, text: str | None, *, now: datetime) -> SiteConfig:
    """Set (or, with nothing, clear) the "How it runs" text."""
    about = clean_markdown(text)
    row = await _row(session, guild_id, now)
    row.about = about
    row.updated_at = now
    await session.flush()
    return _config(row, guild_id)


def site_url(base: str | None, config: SiteConfig, path: str = "") -> str | None:
    """The address of ``path`` on the site at ``base`` (PUBLIC_URL or the bot's own server), when it is on."""
    if base is None or not config.live:
        return None
    return f"{base.rstrip('/')}/{config.slug}/{path}"


# ---------------------------------------------------- calendar feeds: a token shown once, its SHA-256 kept

TOKEN_BYTES: Final = 32
_TOKEN: Final = re.compile(r"[A-Za-z0-9_-]{32,64}")


def token_hash(token: str) -> str:
    """The SHA-256 hex digest a calendar token is stored as."""
    return hashlib.sha256(token.encode("ascii")).hexdigest()


@dataclass(frozen=True)
class Issued:
    """A feed token just made (``token`` is shown to its owner once), or the date of the existing one."""

    token: str | None
    created_at: datetime
    replaced: bool = False


async def issue(session: AsyncSession, guild_id: int, user_id: int, *, now: datetime, reset: bool) -> Issued:
    """The member's feed: a new token when there is none (or ``reset``); else the existing one's date."""
    row = await session.scalar(
        select(CalendarToken).where(CalendarToken.guild_id == guild_id, CalendarToken.user_id == user_id)
    )
    if row is not None and not reset:
        return Issued(None, row.created_at)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    if row is None:
        session.add(
            CalendarToken(guild_id=guild_id, user_id=user_id, token_hash=token_hash(token), created_at=now)
        )
    else:
        row.token_hash = token_hash(token)
        row.created_at = now
    await session.flush()
    return Issued(token, now, replaced=row is not None)


async def owner_of(session: AsyncSession, guild_id: int, token: str) -> int | None:
    """The member whose feed ``token`` opens in this guild, or None (also for malformed tokens)."""
    if not _TOKEN.fullmatch(token):
        return None
    wanted = token_hash(token)
    row = await session.scalar(select(CalendarToken).where(CalendarToken.token_hash == wanted))
    if row is None or row.guild_id != guild_id or not hmac.compare_digest(row.token_hash, wanted):
        return None
    return row.user_id


SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
#: What no link may hold: C0 controls, space and DEL (one regex scan, not a Python loop per character).
_CONTROL_OR_SPACE = re.compile(r"[\x00-\x20\x7f]")


def safe_link(url: str | None) -> str | None:
    """The URL when its scheme is http(s) (with a host) or mailto, else None. Parsed, never string-matched."""
    if not url:
        return None
    text = url.strip()
    if _CONTROL_OR_SPACE.search(text):
        return None
    try:
        parts = urlsplit(text)
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    needed = parts.path if scheme == "mailto" else parts.hostname  # an address, or a host
    return text if scheme in SAFE_SCHEMES and needed else None


def _link_open(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    tokens[idx].attrSet("rel", "nofollow noopener")
    return str(renderer.renderToken(tokens, idx, options, env))


@lru_cache(maxsize=1)
def _renderer() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.disable("image")
    md.validateLink = lambda url: safe_link(url) is not None  # type: ignore[method-assign]
    md.add_render_rule("link_open", _link_open)
    return md


@lru_cache(maxsize=256)
def render_markdown(text: str | None) -> str:
    """Safe HTML for ``text`` (empty for none), cached: the home page's one costly step."""
    if not text:
        return ""
    return _renderer().render(text)


@lru_cache(maxsize=1)
def _checker() -> MarkdownIt:
    """A parser that keeps what the renderer drops (raw HTML, any link), so :func:`check_markdown` sees it."""
    md = MarkdownIt("commonmark", {"html": True, "linkify": False, "typographer": False})
    md.disable("image")
    md.validateLink = lambda url: True  # type: ignore[method-assign]
    return md


def _tokens(tokens: list[Any]) -> Any:
    for token in tokens:
        yield token
        yield from _tokens(token.children or [])


def check_markdown(text: str) -> None:
    """BadInput when ``text`` holds raw HTML or a link other than http(s) or mailto (dropped when shown)."""
    for token in _tokens(_checker().parse(text)):
        if token.type in ("html_block", "html_inline"):
            tag = " ".join(token.content.split())[:40]
            raise BadInput(
                f"The text holds raw HTML (“{tag}”): write Markdown instead (**bold**, [text](https://…))."
            )
        if token.type == "link_open":
            href = str(token.attrGet("href") or "")
            if safe_link(href) is None:
                raise BadInput(f"The text links to “{href[:40]}”: only http(s) and mailto links are allowed.")


def plain_text(text: str | None) -> str:
    """The words of Markdown ``text`` on one line, without its markup (for a link preview's description)."""
    if not text:
        return ""
    parts = []
    for block in _renderer().parse(text):
        for token in block.children or []:
            parts.append(token.content if token.type in ("text", "code_inline") else "")
            parts.append(" " if token.type in ("softbreak", "hardbreak") else "")
        parts.append(" ")
    return " ".join("".join(parts).split())
