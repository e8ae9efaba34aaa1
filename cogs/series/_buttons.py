"""The I'll present button, on each open week's announcement and card (added through
cogs/sessions/announcement_buttons.py) and on the open-weeks message (/series open). A PersistentButton with
the week's session id in its custom_id, so it keeps working after a restart; the first member to press it
presents that week, pressing again steps down (the cog handles the press: cogs/series/_claims.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import discord

from bot.client import Interaction
from bot.errors import NotAllowed
from bot.services.sessions.info import SessionInfo
from bot.views import PersistentButton, field

if TYPE_CHECKING:
    from cogs.series._cog import SeriesCog


class PresentButton(PersistentButton, prefix="series:present"):
    """Claims the week for the presser, or gives it back when they present it."""

    session_id: int = field(r"\d{1,10}", int)
    label = "I'll present"
    emoji = "🙋"
    style = discord.ButtonStyle.success

    @classmethod
    def claim(cls, session_id: int, label: str | None = None) -> PresentButton:
        """An open week's button (``label``: the week's date, on the open-weeks message)."""
        return cls(session_id, label=label)

    @classmethod
    def step_down(cls, session_id: int) -> PresentButton:
        """The presenting member's button: they give the week back."""
        button = cls(session_id, label="Step down as presenter")
        button.item.style = discord.ButtonStyle.secondary
        button.item.emoji = None
        return button

    async def pressed(self, interaction: Interaction) -> None:
        """Hand the press to the series cog."""
        cog = cast("SeriesCog | None", interaction.client.get_cog("SeriesCog"))
        if cog is None:
            raise NotAllowed("The series are switched off on this bot right now.")
        await cog.press_present(interaction, self.session_id)


def present_button(info: SessionInfo) -> PresentButton | None:
    """The button for a week's announcement or card: I'll present while open, Step down while a member
    presents (only they may press it); none for a session of no series or with a guest presenter."""
    if info.series_id is None or info.is_cancelled:
        return None
    if info.presenter_id is None and not info.presenter_name:
        return PresentButton.claim(info.id)
    if info.presenter_id is not None:
        return PresentButton.step_down(info.id)
    return None
