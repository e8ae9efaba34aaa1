"""*Add the recording and notes*: the button on the presenter's DM after the session (the reminders' transport
adds it) and on a past session's card, and its form; submitting it does what ``/organize session recap`` does."""

from __future__ import annotations

import discord

from bot.client import Interaction
from bot.papers import MAX_URL_LENGTH
from bot.permissions import guild_config_for, member_is_organizer
from bot.replies import send_ephemeral
from bot.services.sessions import recording
from bot.services.sessions.info import SessionInfo
from bot.views import PaperclubModal, PersistentButton, field
from cogs.sessions._context import sessions_context

FORM_LABEL = "Add the recording and notes"


async def _organizer(interaction: Interaction) -> bool:
    if interaction.guild_id is None or not isinstance(interaction.user, discord.Member):
        return False
    return member_is_organizer(interaction.user, await guild_config_for(interaction))


class RecapModal(PaperclubModal, title="The recording and notes"):
    """Three links, each optional (at least one), as ``/organize session recap`` takes them."""

    def __init__(self, info: SessionInfo) -> None:
        super().__init__(custom_id=f"session:recapform:{info.id}")
        self.session_id = info.id
        self.links: dict[str, discord.ui.TextInput[RecapModal]] = {}
        for name, label, hint, value in (
            ("recording", "Recording link", "Where the recording is (https://…)", info.recording_url),
            ("notes", "Notes link", "The slides or notes (https://…)", info.notes_url),
            ("wiki", "Wiki link", "The papers' wiki page (https://…)", info.wiki_url),
        ):
            text = discord.ui.TextInput[RecapModal](
                custom_id=name, required=False, max_length=MAX_URL_LENGTH, default=value
            )
            self.links[name] = text
            self.add_item(discord.ui.Label(text=label, description=hint, component=text))

    def _value(self, name: str) -> str | None:
        return self.links[name].value.strip() or None

    async def submitted(self, interaction: Interaction) -> None:
        """Save the links as ``/organize session recap`` does, checked again (a submit can be forged)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        info, warnings = await recording.submit(
            sessions_context(interaction),
            self.session_id,
            interaction.user.id,
            guild_id=interaction.guild_id,
            organizer=await _organizer(interaction),
            recording_url=self._value("recording"),
            notes_url=self._value("notes"),
            wiki_url=self._value("wiki"),
            now=interaction.client.clock.now(),
        )
        lines = ["Thank you: saved. The session's page and announcement link them"]
        lines[0] += ", and its thread says so." if info.thread_id is not None else "."
        lines.extend(warnings)
        await send_ephemeral(interaction, "\n".join(lines))


class RecapFormButton(PersistentButton, prefix="session:recap"):
    """Opens the form, for the session's presenter (also from a DM) or an organizer."""

    session_id: int = field(r"\d{1,10}", int)
    label = FORM_LABEL
    emoji = "🎬"
    style = discord.ButtonStyle.secondary

    async def pressed(self, interaction: Interaction) -> None:
        """Open the form for the presenter or an organizer; refuse anyone else."""
        info = await recording.form_session(
            sessions_context(interaction),
            self.session_id,
            interaction.user.id,
            guild_id=interaction.guild_id,
            organizer=await _organizer(interaction),
        )
        await interaction.response.send_modal(RecapModal(info))
