"""The sessions cog's flows' context, as a pressed button or a submitted form reaches it."""

from __future__ import annotations

from bot.client import Interaction
from bot.errors import NotAllowed
from bot.services.sessions.context import SessionsContext


def sessions_context(interaction: Interaction) -> SessionsContext:
    """The sessions cog's context (its buttons work while it is loaded)."""
    context = getattr(interaction.client.get_cog("SessionsCog"), "context", None)
    if not isinstance(context, SessionsContext):
        raise NotAllowed("Sessions are switched off on this bot right now.")
    return context
