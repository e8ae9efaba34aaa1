"""Organizers' input: the `channel` option (checked once), the edit form, a saved session's reply."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import partial
from typing import Any, Final
from zoneinfo import ZoneInfo

import discord
from discord.utils import escape_markdown

from bot import when
from bot.client import Interaction
from bot.errors import BadInput
from bot.hidden_channels import cannot_see, hidden_from_bot
from bot.papers import MAX_PAPER_LIST_TEXT, MAX_URL_LENGTH, parse_paper_ref
from bot.permissions import (
    STAGE_EVENT_PERMISSIONS,
    VOICE_EVENT_PERMISSIONS,
    ensure_organizer,
    missing_permissions,
)
from bot.replies import one_line, send_ephemeral
from bot.services.config.guild import GuildConfig
from bot.services.sessions import publish, rules
from bot.services.sessions.events import SessionsContext
from bot.services.sessions.info import Overlap, Published, SessionInfo
from bot.text import cut, plural
from bot.timeutil import discord_timestamp
from bot.views import PaperclubModal
from cogs.sessions import _render as render

HeldIn = discord.VoiceChannel | discord.StageChannel  # a `channel` option: Discord offers only these

CHANNEL_HELP: Final = "A voice or stage channel it is held in (default: at the sign-up link)"


def checked_place(guild: discord.Guild | None, channel: HeldIn) -> rules.Place:
    """The channel as a session's place, or BadInput saying why not."""
    if guild is None or channel.guild.id != guild.id:
        raise BadInput("Pick a voice or stage channel of this server.")
    if hidden_from_bot(channel):
        raise BadInput(f"{cannot_see(channel.id)}, or pick another `channel`.")
    stage = isinstance(channel, discord.StageChannel)
    need = STAGE_EVENT_PERMISSIONS if stage else VOICE_EVENT_PERMISSIONS
    missing = missing_permissions(channel.permissions_for(guild.me), need)
    if missing:
        kind = "a stage channel's" if stage else "a voice channel's"
        raise BadInput(
            f"Discord asks for {', '.join(missing)} in <#{channel.id}> before I can make {kind} event, and "
            "the bot does not have them there. Grant them (Server Settings → Roles → the bot's role, or the "
            "channel's Permissions; see the README, “Sessions in a voice or stage channel”), or pick another "
            "channel."
        )
    return rules.Place(channel.id, channel.name)


def reply_lines(published: Published) -> list[str]:
    """The lines a saved session's reply adds: how the input was read, then the warnings."""
    lines = [f"Note: {published.start_note}." if published.start_note else None]
    lines += [reading_note(published.reading), overlap_warning(published.overlaps), *published.warnings]
    return [line for line in lines if line]


def _quoted(text: str) -> str:
    return f"“{escape_markdown(one_line(text, 80))}”"


def reading_note(reading: rules.PaperReading | None) -> str | None:
    """How a typed `papers` text was split, when a comma made it unclear (else None)."""
    if reading is None or not reading.worth_telling:
        return None
    read_as = f"read as {plural(len(reading.items), 'paper')}"
    shown = " · ".join(_quoted(item) for item in reading.items)
    if reading.against:
        against = {item for item in reading.items if parse_paper_ref(item).key in reading.against}
        main = [_quoted(item) for item in reading.items if item not in against]
        rest = [_quoted(item) for item in reading.items if item in against]
        shown = f"{' · '.join(main)}, read against {' · '.join(rest)}"
    if reading.by_commas:
        return (
            f"Papers: {read_as}, split at the commas: {shown}. If that is one title, give it in quotes; "
            "one paper per line or `;` between papers always separates them."
        )
    return f"Papers: {read_as}: {shown}. To give several, put one per line or separate them with `;`."


def overlap_warning(overlaps: Sequence[Overlap]) -> str | None:
    """A heads-up (not a refusal) when the guild has other sessions at the same time."""
    if not overlaps:
        return None
    listed = [
        f"{_quoted(o.title)} ({discord_timestamp(o.starts_at, 'f')})" for o in overlaps[:SHOWN_OVERLAPS]
    ]
    if len(overlaps) > SHOWN_OVERLAPS:
        listed.append(f"{len(overlaps) - SHOWN_OVERLAPS} more")
    sessions = "sessions" if len(overlaps) > 1 else "session"
    return (
        f"Heads up: this overlaps {sessions} {', '.join(listed)}. Both are kept; "
        "move one with `/organize session edit` if that was not meant."
    )


FIELD_LABELS = {
    "starts_at": "time",
    "timezone": "time zone",
    "presenter_id": "presenter",
    "presenter_name": "presenter",
    "signup_url": "sign-up link",
    "duration_minutes": "duration",
    "channel_id": "where",
    "channel_name": "where",
}
# discord-api-docs, Component Reference → Text Input and Label
TEXT_INPUT_MAX: Final = 4000
PLACEHOLDER_MAX: Final = 100
LABEL_MAX: Final = 45
DESCRIPTION_MAX: Final = 100
SHOWN_OVERLAPS: Final = 3
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
    """Check ``request`` (:func:`rules.session_changes`' arguments), save, publish and reply."""
    assert interaction.guild_id is not None
    await interaction.response.defer(ephemeral=True, thinking=True)
    now = interaction.client.clock.now()
    check = partial(rules.session_changes, now=now, **request)
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
    interaction: Interaction, lines: list[str], info: SessionInfo, config: GuildConfig, now: datetime
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
        too_long = f"The {count} papers are too long to show here. A list typed here replaces them; {rules.CLEAR} removes them."
        self.presenter_input: discord.ui.UserSelect[Any] = discord.ui.UserSelect(
            custom_id="session_edit:presenter",
            required=False,
            min_values=0,
            default_values=[discord.Object(info.presenter_id)] if info.presenter_id else [],
        )
        guest = (
            f"Now a guest, {info.presenter_name}: pick a member to replace them"
            if (info.presenter_name and not info.presenter_id)
            else "A member of the server; clear it for no presenter"
        )
        papers_label = "Papers (one per line)" if fit else f"Papers: {count} kept unless you type here"
        self.inputs: dict[str, discord.ui.TextInput[Any]] = {}
        for name, text, description, limit in (
            ("title", "Title", None, rules.MAX_TITLE),
            (
                "when",
                f"When ({info.timezone})",
                "Like Thursday 9:30am or 2026-12-10 09:30, or a pasted <t:…> time",
                when.MAX_TEXT,
            ),
            ("presenter", "Presenter", guest, 0),
            ("papers", papers_label, "arXiv ids or links, DOIs, links or titles", PAPERS_INPUT_MAX),
            ("signup_url", "Sign-up link", None, MAX_URL_LENGTH),
        ):
            item: discord.ui.Item[Any] = self.presenter_input
            if name != "presenter":
                item = self.inputs[name] = discord.ui.TextInput(
                    custom_id=f"session_edit:{name}",
                    default=self.prefilled[name] or None,
                    required=name in ("title", "when"),
                    max_length=limit,
                    style=discord.TextStyle.paragraph if name == "papers" else discord.TextStyle.short,
                    placeholder=too_long[:PLACEHOLDER_MAX] if name == "papers" and not fit else None,
                )
            description = cut(description, DESCRIPTION_MAX) if description else None
            self.add_item(discord.ui.Label(text=text[:LABEL_MAX], description=description, component=item))

    def request(self) -> dict[str, Any]:
        """The fields whose text differs from what was pre-filled (emptied: cleared), the presenter picked."""
        request: dict[str, Any] = {}
        for name, text in self.inputs.items():
            if not _same(text.value, self.prefilled[name]):
                request[name] = text.value if text.value.strip() else rules.CLEAR
        picked = self.presenter_input.values
        if picked and picked[0].id != self.presenter_id:
            member = picked[0]
            if not isinstance(member, discord.Member):
                raise BadInput("Pick a member of this server as the presenter.")
            request.update(presenter_id=member.id, presenter_name=member.display_name)
        elif not picked and self.presenter_id is not None:
            request["presenter_name"] = rules.CLEAR
        return request

    async def submitted(self, interaction: Interaction) -> None:
        """Save what was changed, as the command's options would."""
        config = await ensure_organizer(interaction)  # checked again: roles may have changed meanwhile
        request = self.request()
        if not request:
            await send_ephemeral(interaction, f"Nothing changed in session #{self.session_id}.")
            return
        await apply_edit(
            self.sessions, interaction, config, self.session_id, request, session_zone=self.session_zone
        )
