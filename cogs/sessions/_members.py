"""The members' buttons on an announcement: *Keep me out of the recording* (and, in its answer, *Always keep
me out*) and *Ask the presenter* with its form. Every answer is ephemeral: nobody else sees who pressed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime

import discord
from discord.utils import escape_markdown

from bot import timeutil
from bot.client import Interaction
from bot.permissions import require_guild_id
from bot.replies import one_line, send_ephemeral
from bot.services.sessions import members
from bot.services.sessions.members import ForPresenter, RecordingChoice
from bot.text import CONTENT_LIMIT, cut
from bot.views import PaperclubModal, PaperclubView, PersistentButton, field
from cogs.sessions._context import sessions_context
from db.models.session_members import MAX_QUESTION

IN_SERVER_ONLY = "This button works in a server, not in DMs."
NAMED, ANONYMOUS = "named", "anonymous"
NOTES_CHANGED = "session_presenter_notes"
"""(guild_id, session_id or None for every session of the server): what the presenter gets changed; the
reminders feature plans the presenter's DMs that carry it."""


def _store(interaction: Interaction) -> members.Store:
    return sessions_context(interaction).store


def _title(title: str) -> str:
    return escape_markdown(one_line(title, 150))


def recording_text(choice: RecordingChoice) -> str:
    """The answer to either recording button."""
    title = _title(choice.title)
    if choice.out and choice.always:
        state = f"You stay out of the recording of **{title}**, and of every session here."
    elif choice.always:
        state = (
            f"You stay out of every recording here, **{title}** included. "
            "*Keep me out* changes nothing while that is on."
        )
    elif choice.out:
        state = (
            f"You stay out of the recording of **{title}**: the presenter gets your name before it starts."
        )
    else:
        state = f"OK, you are not kept out of the recording of **{title}**."
    return f"{state}\nOnly the presenter and the organizers see who asked; it is deleted a week after the session."


Toggle = Callable[[members.Store, int, int, int, str, datetime], Awaitable[RecordingChoice]]


async def _recording_press(interaction: Interaction, toggle: Toggle, session_id: int, *, every: bool) -> None:
    """Either recording button: the member's choice toggled, the reminders told, the answer only theirs."""
    guild_id = require_guild_id(interaction, IN_SERVER_ONLY)
    user, now = interaction.user, interaction.client.clock.now()
    choice = await toggle(_store(interaction), guild_id, session_id, user.id, user.display_name, now)
    interaction.client.dispatch(NOTES_CHANGED, guild_id, None if every else session_id)
    always = AlwaysOutButton(
        choice.session_id, label="Stop keeping me out of every recording" if choice.always else None
    )
    view = PaperclubView(timeout=None)
    view.add_item(always)
    await send_ephemeral(interaction, recording_text(choice), view=view)


class AlwaysOutButton(PersistentButton, prefix="session:outall"):
    """The member's standing choice: out of every recording of the server, or not any more."""

    session_id: int = field(r"\d{1,10}", int)
    label = "Always keep me out"
    style = discord.ButtonStyle.secondary

    async def pressed(self, interaction: Interaction) -> None:
        await _recording_press(interaction, members.keep_out_always, self.session_id, every=True)


class KeepOutButton(PersistentButton, prefix="session:out"):
    """Keeps the presser out of the session's recording, or takes that back."""

    session_id: int = field(r"\d{1,10}", int)
    label = "Keep me out of the recording"
    emoji = "🙈"
    style = discord.ButtonStyle.secondary

    async def pressed(self, interaction: Interaction) -> None:
        await _recording_press(interaction, members.keep_out, self.session_id, every=False)


class AskModal(PaperclubModal, title="Ask the presenter"):
    """The question, and whether the presenter sees who asked."""

    def __init__(self, session_id: int) -> None:
        super().__init__(custom_id=f"session:askform:{session_id}")
        self.session_id = session_id
        self.question = discord.ui.TextInput[AskModal](
            custom_id="question", style=discord.TextStyle.paragraph, max_length=MAX_QUESTION
        )
        self.add_item(
            discord.ui.Label(
                text="Your question",
                description="The presenter gets it by DM before the session",
                component=self.question,
            )
        )
        self.named = discord.ui.Select[AskModal](
            custom_id="named",
            options=[
                discord.SelectOption(label="Anonymous: no name", value=ANONYMOUS, default=True),
                discord.SelectOption(label="Show my name to the presenter", value=NAMED),
            ],
        )
        self.add_item(discord.ui.Label(text="Who asks", component=self.named))

    async def submitted(self, interaction: Interaction) -> None:
        guild_id = require_guild_id(interaction, IN_SERVER_ONLY)
        named = (self.named.values or [ANONYMOUS])[0] == NAMED
        title = await members.ask(
            _store(interaction),
            guild_id,
            self.session_id,
            interaction.user.id,
            text=self.question.value,
            name=interaction.user.display_name if named else None,
            now=interaction.client.clock.now(),
        )
        interaction.client.dispatch(NOTES_CHANGED, guild_id, self.session_id)
        who = "with your name" if named else "without your name"
        await send_ephemeral(
            interaction,
            f"Thanks: the presenter of **{_title(title)}** gets your question {who} before the session.",
        )


class AskButton(PersistentButton, prefix="session:ask"):
    """Opens the form for a question to the presenter."""

    session_id: int = field(r"\d{1,10}", int)
    label = "Ask the presenter"
    emoji = "❓"
    style = discord.ButtonStyle.secondary

    async def pressed(self, interaction: Interaction) -> None:
        require_guild_id(interaction, IN_SERVER_ONLY)
        await interaction.response.send_modal(AskModal(self.session_id))


def for_presenter_text(found: ForPresenter) -> str:
    """The organizers' private view of what the presenter gets (within one message)."""
    lines = [
        f"**{_title(found.title)}** (session #{found.session_id}, {timeutil.discord_timestamp(found.starts_at, 'F')})"
    ]
    if found.names:
        names = ", ".join(escape_markdown(name) for name in found.names)
        lines.append(f"🙈 Keep out of the recording ({len(found.names)}): {names}")
    else:
        lines.append("🙈 Nobody asked to stay out of the recording.")
    if not found.questions:
        lines.append("❓ No questions yet.")
    else:
        lines.append(f"❓ Questions ({len(found.questions)}):")
        for question in found.questions:
            who = escape_markdown(question.name) if question.name else "anonymous"
            lines.append(f"• {escape_markdown(cut(' '.join(question.text.split()), 300))} — {who}")
    text = "\n".join(lines)
    return text if len(text) <= CONTENT_LIMIT else cut(text, CONTENT_LIMIT - 40) + "\n…more than fit here."
