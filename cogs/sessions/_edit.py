"""/organize session edit: the fields to change as options, or none for a form pre-filled with the session."""

from __future__ import annotations

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
from bot.services.sessions.draft import CLEAR, session_changes
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


async def apply_edit(
    sessions: SessionsContext,
    interaction: Interaction,
    config: GuildConfig,
    session_id: int,
    request: dict[str, Any],
    *,
    session_zone: str | None = None,
) -> None:
    """Check ``request`` (:func:`session_changes`' arguments), save, publish and reply; a `when` without a
    `zone` is read in ``session_zone`` (what the form showed), else in the session's zone as stored."""
    assert interaction.guild_id is not None
    if not interaction.response.is_done():
        await interaction.response.defer(ephemeral=True, thinking=True)
    now = interaction.client.clock.now()
    check = partial(session_changes, now=now, **request)
    stored_zone = "when" in request and "zone" not in request and session_zone is None
    changes = (lambda zone: check(session_zone=zone)) if stored_zone else check(session_zone=session_zone)
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
        self.sessions, self.session_id, self.session_zone = sessions, info.id, info.timezone
        self.presenter_id = info.presenter_id
        papers, count = _papers_input(info), len(info.papers)
        fit = len(papers) <= PAPERS_INPUT_MAX
        self.prefilled = {
            "title": info.title,
            "when": info.starts_at.astimezone(ZoneInfo(info.timezone)).strftime("%Y-%m-%d %H:%M"),
            "papers": papers if fit else "",
            "signup_url": info.signup_url or "",
        }
        too_long = f"The {count} papers are too long to show here. A list typed here replaces them; {CLEAR} removes them."
        self.inputs: dict[str, discord.ui.TextInput[Any]] = {
            name: discord.ui.TextInput(
                custom_id=f"session_edit:{name}",
                default=self.prefilled[name] or None,
                required=name in ("title", "when"),
                max_length=limit,
                style=discord.TextStyle.paragraph if name == "papers" else discord.TextStyle.short,
                placeholder=too_long[:PLACEHOLDER_MAX] if name == "papers" and not fit else None,
            )
            for name, limit in (
                ("title", rules.MAX_TITLE),
                ("when", when.MAX_TEXT),
                ("papers", PAPERS_INPUT_MAX),
                ("signup_url", MAX_URL_LENGTH),
            )
        }
        self.presenter_input: discord.ui.UserSelect[Any] = discord.ui.UserSelect(
            custom_id="session_edit:presenter",
            required=False,
            min_values=0,
            max_values=1,
            default_values=[discord.Object(info.presenter_id)] if info.presenter_id else [],
        )
        guest = (
            f"Now a guest, {info.presenter_name}: pick a member to replace them"
            if (info.presenter_name and not info.presenter_id)
            else "A member of the server; clear it for no presenter"
        )
        fields: list[tuple[str, str | None, discord.ui.Item[Any]]] = [
            ("Title", None, self.inputs["title"]),
            (
                f"When ({info.timezone})",
                "Like Thursday 9:30am or 2026-12-10 09:30, or a pasted <t:…> time",
                self.inputs["when"],
            ),
            ("Presenter", guest, self.presenter_input),
            (
                "Papers (one per line)" if fit else f"Papers: {count} kept unless you type here",
                "arXiv ids or links, DOIs, links or titles",
                self.inputs["papers"],
            ),
            ("Sign-up link", None, self.inputs["signup_url"]),
        ]
        for text, description, item in fields:
            self.add_item(
                discord.ui.Label(
                    text=text[:LABEL_MAX],
                    description=cut(description, DESCRIPTION_MAX) if description else None,
                    component=item,
                )
            )

    def request(self) -> dict[str, Any]:
        """The fields whose text differs from what was pre-filled (emptied: cleared), the presenter picked."""
        request: dict[str, Any] = {}
        for name, text in self.inputs.items():
            if not _same(text.value, self.prefilled[name]):
                request[name] = text.value if text.value.strip() else CLEAR
        picked = self.presenter_input.values
        if picked and picked[0].id != self.presenter_id:
            member = picked[0]
            if not isinstance(member, discord.Member):
                raise BadInput("Pick a member of this server as the presenter.")
            request.update(presenter_id=member.id, presenter_name=member.display_name)
        elif not picked and self.presenter_id is not None:
            request["presenter_name"] = CLEAR
        return request

    async def submitted(self, interaction: Interaction) -> None:
        config = await ensure_organizer(interaction)  # checked again: roles may have changed meanwhile
        request = self.request()
        if not request:
            await send_ephemeral(interaction, f"Nothing changed in session #{self.session_id}.")
            return
        await apply_edit(
            self.sessions, interaction, config, self.session_id, request, session_zone=self.session_zone
        )
