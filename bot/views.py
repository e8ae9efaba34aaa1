"""Base view and modal: errors go through the same handler as slash commands, and each press is logged."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord

from bot.tree import log_outcome, report_error

if TYPE_CHECKING:
    from bot.client import Interaction


class PaperclubView(discord.ui.View):
    """A view whose errors become ephemeral replies (domain errors) or a logged apology."""

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        interaction.extras.setdefault("paperclub_t0", time.perf_counter())
        return True

    async def on_error(
        self, interaction: discord.Interaction[Any], error: Exception, item: discord.ui.Item[Any]
    ) -> None:
        await report_error(interaction, error)


class PaperclubModal(discord.ui.Modal):
    async def on_error(  # type: ignore[override]  # discord.py's stub differs from its runtime call
        self, interaction: Interaction, error: Exception, /
    ) -> None:
        await report_error(interaction, error)


async def guarded(interaction: Interaction, handler: Callable[[], Awaitable[None]]) -> None:
    """Run a dynamic (restart-proof) button's handler with the one error handler.

    discord.py only logs errors raised in a DynamicItem's callback, leaving the member without an
    answer; here domain errors become ephemeral replies and anything else is logged and apologised for.
    """
    interaction.extras.setdefault("paperclub_t0", time.perf_counter())
    try:
        await handler()
    except Exception as error:  # noqa: BLE001  the one handler: domain errors to the member, others logged
        await report_error(interaction, error)
    else:
        log_component(interaction)


def log_component(interaction: Interaction, outcome: str = "ok") -> None:
    log_outcome(interaction, outcome)
