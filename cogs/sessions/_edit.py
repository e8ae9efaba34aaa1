"""/organize session edit: the fields to change as options, or none for a form pre-filled with the session."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any, Final
from zoneinfo import ZoneInfo

import discord

from bot import when
from bot.client import Interaction
from bot.errors import BadInput
from bot.papers import MAX_PAPER_LIST_TEXT, MAX_URL_LENGTH
from bot.permissions import ensure_organizer
from bot.replies import send_ephemeral
from bot.services.config.guild import GuildConfig
from bot.services.sessions import publish, rules
from bot.services.sessions.context import SessionsContext
from bot.services.sessions.draft import CLEAR, UNSET, Place, SessionChanges, Unset, session_changes
from bot.services.sessions.info import SessionInfo
from bot.text import cut
from bot.views import PaperclubModal
from cogs.sessions import _render as render
from cogs.sessions.publish import reply_lines

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
    "channel_id": "where",
    "channel_name": "where",
}
# discord-api-docs, Component Reference → Text Input and Label
TEXT_INPUT_MAX: Final = 4000
PLACEHOLDER_MAX: Final = 100
LABEL_MAX: Final = 45
DESCRIPTION_MAX: Final = 100
PAPERS_INPUT_MAX: Final = min(TEXT_INPUT_MAX, MAX_PAPER_LIST_TEXT)


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
    place: Place | None | Unset = UNSET  # a checked channel; None: back to the sign-up link

    def is_empty(self) -> bool:
        given = {name: value for name, value in vars(self).items() if name != "place"}
        return self.place is UNSET and all(value is None for value in given.values())

    def changes(self, now: datetime, session_zone: str | None = None) -> SessionChanges:
        """The checked edit; ``when`` is read in ``timezone``, else in ``session_zone``."""
        return session_changes(
            now=now,
            session_zone=session_zone,
            title=self.title,
            when=self.when,
            zone=self.timezone,
            presenter_id=self.presenter.id if self.presenter else None,
            presenter_name=self.presenter_name or (self.presenter.display_name if self.presenter else None),
            papers=self.papers,
            signup_url=self.signup_url,
            duration=self.duration,
            description=self.description,
            channel=self.place,
        )


async def apply_edit(
    sessions: SessionsContext,
    interaction: Interaction,
    config: GuildConfig,
    session_id: int,
    request: EditRequest,
    *,
    session_zone: str | None = None,
) -> None:
    """Check, save, publish and reply; a `when` without `timezone` is read in ``session_zone`` (what the form
    showed), else in the session's zone as stored."""
    assert interaction.guild_id is not None
    if not interaction.response.is_done():
        await interaction.response.defer(ephemeral=True, thinking=True)
    now = interaction.client.clock.now()
    stored_zone = request.when is not None and request.timezone is None and session_zone is None
    changes = partial(request.changes, now) if stored_zone else request.changes(now, session_zone)
    published = await publish.change(
        sessions, interaction.guild_id, session_id, changes, zones=config.display_zones, now=now
    )
    info = published.info
    lines: list[str] = []
    if not published.changed:
        lines.append(f"Nothing changed in session #{info.id}.")
    else:
        labels = sorted({FIELD_LABELS.get(name, name) for name in published.changed})
        lines.append(f"Saved session #{info.id}: changed {', '.join(labels)}.")
        if info.is_announced:
            lines.append(
                f"The announcement still shows the old details: run `/organize session announce session:{info.id}`."
            )
    lines.extend(reply_lines(published))
    await reply_with_card(interaction, lines, info, config, now)


async def reply_with_card(
    interaction: Interaction,
    lines: list[str],
    info: SessionInfo,
    config: GuildConfig,
    now: datetime,
) -> None:
    """The organizer's ephemeral answer: the lines, and the session's card as it now stands."""
    card = render.session_card(info, config.display_zones, now=now)
    await send_ephemeral(interaction, view=card.view(note="\n".join(lines)))


def _papers_input(info: SessionInfo) -> str:
    """One paper a line, the main ones first, each read against them marked 'vs '."""
    against = set(info.against)
    return "\n".join(
        ("vs " if paper.id in against else "") + (paper.url or paper.title)
        for paper in [*info.main_papers, *info.against_papers]
    )


def _same(submitted: str, prefilled: str) -> bool:
    """Whether a field came back as it was pre-filled (clients may trim it or send CRLF)."""
    return submitted.replace("\r\n", "\n").strip() == prefilled.replace("\r\n", "\n").strip()


class EditSessionModal(PaperclubModal):
    """The common fields pre-filled, the presenter a user select; only what was changed is saved."""

    def __init__(self, sessions: SessionsContext, info: SessionInfo) -> None:
        super().__init__(title=f"Edit session #{info.id}"[:LABEL_MAX], timeout=900)
        self.sessions = sessions
        self.session_id = info.id
        self.session_zone = info.timezone
        self.presenter_id = info.presenter_id
        papers = _papers_input(info)
        self.papers_fit = len(papers) <= PAPERS_INPUT_MAX
        self.prefilled = {
            "title": info.title,
            "when": info.starts_at.astimezone(ZoneInfo(info.timezone)).strftime("%Y-%m-%d %H:%M"),
            "papers": papers if self.papers_fit else "",
            "signup_url": info.signup_url or "",
        }
        self.title_input: discord.ui.TextInput[Any] = discord.ui.TextInput(
            custom_id="session_edit:title", default=info.title, max_length=rules.MAX_TITLE
        )
        self.when_input: discord.ui.TextInput[Any] = discord.ui.TextInput(
            custom_id="session_edit:when", default=self.prefilled["when"], max_length=when.MAX_TEXT
        )
        self.presenter_input: discord.ui.UserSelect[Any] = discord.ui.UserSelect(
            custom_id="session_edit:presenter",
            required=False,
            min_values=0,
            max_values=1,
            default_values=[discord.Object(info.presenter_id)] if info.presenter_id else [],
        )
        count = len(info.papers)
        self.papers_input: discord.ui.TextInput[Any] = discord.ui.TextInput(
            custom_id="session_edit:papers",
            style=discord.TextStyle.paragraph,
            default=self.prefilled["papers"] or None,
            placeholder=None
            if self.papers_fit
            else (
                f"The {count} papers are too long to show here. A list typed here replaces them; {CLEAR} removes them."
            )[:PLACEHOLDER_MAX],
            required=False,
            max_length=PAPERS_INPUT_MAX,
        )
        self.signup_input: discord.ui.TextInput[Any] = discord.ui.TextInput(
            custom_id="session_edit:signup_url",
            default=info.signup_url,
            required=False,
            max_length=MAX_URL_LENGTH,
        )
        guest = (
            f"Now a guest, {info.presenter_name}: pick a member to replace them"
            if (info.presenter_name and not info.presenter_id)
            else "A member of the server; clear it for no presenter"
        )
        fields: list[tuple[str, str | None, discord.ui.Item[Any]]] = [
            ("Title", None, self.title_input),
            (
                f"When ({info.timezone})",
                "Like Thursday 9:30am or 2026-12-10 09:30, or a pasted <t:…> time",
                self.when_input,
            ),
            ("Presenter", guest, self.presenter_input),
            (
                "Papers (one per line)" if self.papers_fit else f"Papers: {count} kept unless you type here",
                "arXiv ids or links, DOIs, links or titles",
                self.papers_input,
            ),
            ("Sign-up link", None, self.signup_input),
        ]
        for text, description, item in fields:
            self.add_item(
                discord.ui.Label(
                    text=text[:LABEL_MAX],
                    description=cut(description, DESCRIPTION_MAX) if description else None,
                    component=item,
                )
            )

    def request(self) -> EditRequest:
        """The fields whose text differs from what was pre-filled (emptied: cleared); a presenter unpicked is
        removed."""
        submitted = {
            "title": self.title_input.value,
            "when": self.when_input.value,
            "papers": self.papers_input.value,
            "signup_url": self.signup_input.value,
        }
        request = EditRequest()
        for name, value in submitted.items():
            if _same(value, self.prefilled[name]):
                continue
            setattr(request, name, value if value.strip() else CLEAR)
        picked = self.presenter_input.values
        if picked and picked[0].id != self.presenter_id:
            member = picked[0]
            if not isinstance(member, discord.Member):
                raise BadInput("Pick a member of this server as the presenter.")
            request.presenter = member
        elif not picked and self.presenter_id is not None:
            request.presenter_name = CLEAR
        return request

    async def submitted(self, interaction: Interaction) -> None:
        config = await ensure_organizer(interaction)  # checked again: roles may have changed meanwhile
        request = self.request()
        if request.is_empty():
            await send_ephemeral(interaction, f"Nothing changed in session #{self.session_id}.")
            return
        await apply_edit(
            self.sessions, interaction, config, self.session_id, request, session_zone=self.session_zone
        )
