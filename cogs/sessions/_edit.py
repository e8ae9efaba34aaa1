"""/session edit: options for the fields to change, or (with none given) a modal pre-filled with the
session's title, time, papers, sign-up link and description."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import discord

from bot.client import Interaction, PaperclubBot
from bot.errors import BadInput
from bot.permissions import ensure_organizer
from bot.replies import send_ephemeral
from bot.services.papers.metadata import fill_missing_metadata
from bot.services.sessions import rules
from bot.services.sessions import store as svc
from bot.services.sessions.info import SessionInfo
from bot.services.setup.config import GuildConfig
from bot.views import PaperclubModal
from cogs.sessions import render
from cogs.sessions.events import sync_event

CLEAR = "-"
FIELD_LABELS = {
    "title": "title",
    "starts_at": "time",
    "timezone": "time zone",
    "presenter_id": "presenter",
    "presenter_name": "presenter",
    "papers": "papers",
    "signup_url": "sign-up link",
    "duration_minutes": "duration",
    "description": "description",
}


@dataclass
class EditRequest:
    """The raw values the organizer typed; None means 'leave as is', '-' clears an optional field."""

    title: str | None = None
    when: str | None = None
    timezone: str | None = None
    presenter: discord.Member | None = None
    presenter_name: str | None = None
    papers: str | None = None
    signup_url: str | None = None
    duration: int | None = None
    description: str | None = None

    def is_empty(self) -> bool:
        return all(value is None for value in vars(self).values())


def _cleared(value: str) -> str | None:
    return None if value.strip() == CLEAR else value


def service_changes(request: EditRequest) -> dict[str, Any]:
    """Keyword arguments for svc.edit_session, except the time (which needs the session's zone)."""
    changes: dict[str, Any] = {}
    if request.title is not None:
        changes["title"] = request.title
    if request.timezone is not None and request.when is None:
        raise BadInput("Give `when` together with `timezone` (the time zone is how `when` is read).")
    if request.presenter is not None:
        if request.presenter_name is not None and request.presenter_name.strip() == CLEAR:
            raise BadInput("Pick a presenter or remove it with presenter_name `-`, not both.")
        changes["presenter_id"] = request.presenter.id
        changes["presenter_name"] = request.presenter_name or request.presenter.display_name
    elif request.presenter_name is not None:
        changes["presenter_id"] = None  # a guest's name replaces a member, '-' removes both
        changes["presenter_name"] = _cleared(request.presenter_name)
    if request.papers is not None:
        text = _cleared(request.papers)
        changes["papers"] = rules.paper_texts(text)
    if request.signup_url is not None:
        changes["signup_url"] = _cleared(request.signup_url)
    if request.description is not None:
        changes["description"] = _cleared(request.description)
    if request.duration is not None:
        changes["duration_minutes"] = request.duration
    return changes


async def apply_edit(
    bot: PaperclubBot,
    interaction: Interaction,
    config: GuildConfig,
    session_id: int,
    request: EditRequest,
) -> None:
    """Validate, save in one transaction, keep the event in step, and reply (ephemerally)."""
    assert interaction.guild_id is not None
    if not interaction.response.is_done():
        await interaction.response.defer(ephemeral=True, thinking=True)
    changes = service_changes(request)
    now = bot.clock.now()
    note = None
    async with bot.session_factory() as session, session.begin():
        if request.when is not None:
            current = await svc.get_session(session, interaction.guild_id, session_id)
            start = rules.resolve_start(request.when, request.timezone, current.timezone, now)
            changes.update(starts_at_utc=start.utc, timezone=start.zone)
            note = start.note
        edit = await svc.edit_session(session, interaction.guild_id, session_id, now=now, **changes)
    info = edit.info
    info = await with_paper_metadata(bot, info)
    lines: list[str] = []
    if not edit.changed:
        lines.append(f"Nothing changed in session #{info.id}.")
    else:
        bot.dispatch("session_saved", info.guild_id, info.id)
        labels = sorted({FIELD_LABELS.get(name, name) for name in edit.changed})
        lines.append(f"Saved session #{info.id}: changed {', '.join(labels)}.")
        if info.is_announced:
            lines.append(
                f"The announcement still shows the old details: run `/session announce session:{info.id}`."
            )
        if interaction.guild is not None:
            warning = await sync_event(bot, interaction.guild, info, config.display_zones)
            if warning:
                lines.append(warning)
    if note:
        lines.append(f"Note: {note}.")
    await reply_with_card(interaction, lines, info, config, now)


async def with_paper_metadata(bot: PaperclubBot, info: SessionInfo) -> SessionInfo:
    """After the session's write has committed: look up its arXiv papers that have no metadata yet
    (a few seconds at most; arXiv trouble only leaves the id labels) and give the session as it now
    stands."""
    stored = await fill_missing_metadata(
        bot.arxiv, bot.session_factory, [paper.id for paper in info.papers], bot.clock.now()
    )
    if not any(paper.title_changed for paper in stored):
        return info
    async with bot.session_factory() as session:
        return await svc.get_session(session, info.guild_id, info.id)


async def reply_with_card(
    interaction: Interaction,
    lines: list[str],
    info: SessionInfo,
    config: GuildConfig,
    now: datetime,
) -> None:
    """The organizer's ephemeral answer: the lines, and the session's card as it now stands."""
    embed = render.session_embed(info, config.display_zones, now=now)
    await send_ephemeral(interaction, "\n".join(lines), embed=embed)


def _local_input(info: SessionInfo) -> str:
    local = info.starts_at.astimezone(ZoneInfo(info.timezone))
    return local.strftime("%Y-%m-%d %H:%M")


def _papers_input(info: SessionInfo) -> str:
    return "\n".join(paper.url or paper.title for paper in info.papers)


class EditSessionModal(PaperclubModal):
    """The common fields, pre-filled; only what the organizer changed is saved."""

    def __init__(self, bot: PaperclubBot, info: SessionInfo) -> None:
        super().__init__(title=f"Edit session #{info.id}"[:45], timeout=900)
        self.bot = bot
        self.session_id = info.id
        self.initial = {
            "title": info.title,
            "when": _local_input(info),
            "papers": _papers_input(info),
            "signup_url": info.signup_url or "",
            "description": info.description or "",
        }
        self.title_input: discord.ui.TextInput[Any] = discord.ui.TextInput(
            label="Title", custom_id="session_edit:title", default=info.title, max_length=rules.MAX_TITLE
        )
        self.when_input: discord.ui.TextInput[Any] = discord.ui.TextInput(
            label=f"When ({info.timezone})"[:45],
            custom_id="session_edit:when",
            default=self.initial["when"],
            max_length=100,
        )
        self.papers_input: discord.ui.TextInput[Any] = discord.ui.TextInput(
            label="Papers (one per line)",
            custom_id="session_edit:papers",
            style=discord.TextStyle.paragraph,
            default=self.initial["papers"][:2000] or None,
            required=False,
            max_length=2000,
        )
        self.signup_input: discord.ui.TextInput[Any] = discord.ui.TextInput(
            label="Sign-up link",
            custom_id="session_edit:signup_url",
            default=info.signup_url,
            required=False,
            max_length=512,
        )
        self.description_input: discord.ui.TextInput[Any] = discord.ui.TextInput(
            label="Description",
            custom_id="session_edit:description",
            style=discord.TextStyle.paragraph,
            default=(info.description or "")[:2000] or None,
            required=False,
            max_length=rules.MAX_DESCRIPTION,
        )
        for item in (
            self.title_input,
            self.when_input,
            self.papers_input,
            self.signup_input,
            self.description_input,
        ):
            self.add_item(item)

    def request(self) -> EditRequest:
        """Only the fields whose text changed; an emptied optional field is cleared."""
        submitted = {
            "title": self.title_input.value,
            "when": self.when_input.value,
            "papers": self.papers_input.value,
            "signup_url": self.signup_input.value,
            "description": self.description_input.value,
        }
        request = EditRequest()
        for name, value in submitted.items():
            if value.strip() == self.initial[name].strip():
                continue
            setattr(request, name, value if value.strip() else CLEAR)
        return request

    async def submitted(self, interaction: Interaction) -> None:
        config = await ensure_organizer(interaction)  # checked again: roles may have changed meanwhile
        request = self.request()
        if request.is_empty():
            await send_ephemeral(interaction, f"Nothing changed in session #{self.session_id}.")
            return
        await apply_edit(self.bot, interaction, config, self.session_id, request)
