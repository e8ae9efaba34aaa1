"""The site's privacy page (``/<slug>/privacy/``): what the club's bot keeps, why, for how long, and how it
is seen and deleted, from the one list the bot's /privacy, its deletion and the README read
(bot/services/privacy/kinds.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.privacy.kinds import KINDS, MEMBER, SERVER, WORK
from bot.services.site.config import SiteConfig
from bot.services.site.views import Display, SiteView, site_view
from db.models.privacy import DEFAULT_GRACE_DAYS

GROUPS = (  # (scope, heading, what the deleting line is called)
    (MEMBER, "About you", "Delete my data"),
    (SERVER, "The club's", "Deleted"),
    (WORK, "Records of the bot's work", "Deleted"),
)


@dataclass(frozen=True)
class KindView:
    """One kind of data as the page says it (Markdown texts, the bot's own)."""

    name: str
    what: str
    why: str
    kept: str
    delete: str


@dataclass(frozen=True)
class PrivacyPage:
    """What the privacy page shows: the kinds in their groups (heading, the deleting line's label, kinds)."""

    site: SiteView
    groups: tuple[tuple[str, str, tuple[KindView, ...]], ...]
    grace_days: int


async def privacy_page(
    session: AsyncSession,
    site: SiteConfig,
    now: datetime,
    display: Display | None = None,
    *,
    grace_days: int = DEFAULT_GRACE_DAYS,
) -> PrivacyPage:
    """The page, with the deployment's grace period (GUILD_DATA_GRACE_DAYS) in its texts."""
    view, _ = await site_view(session, site, now, display)
    said = [kind.said(grace_days) for kind in KINDS]
    groups = tuple(
        (
            heading,
            label,
            tuple(KindView(k.name, k.what, k.why, k.kept, k.delete) for k in said if k.scope == scope),
        )
        for scope, heading, label in GROUPS
    )
    return PrivacyPage(view, groups, grace_days)
