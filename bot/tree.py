"""The command tree: one error handler for every slash command, and one log line per interaction."""

from __future__ import annotations

import logging
import time
from typing import Any

import discord
from discord import app_commands

from bot.errors import PaperclubError
from bot.replies import send_ephemeral

log = logging.getLogger("paperclub.interactions")

WRAPPERS = (app_commands.CommandInvokeError, app_commands.TransformerError, app_commands.CheckFailure)
APOLOGY = "Sorry, something went wrong on our side. The organizers can find the details in the bot's log."


def _command_name(interaction: discord.Interaction[Any]) -> str:
    command = interaction.command
    if command is not None:
        return command.qualified_name
    data: dict[str, Any] = dict(interaction.data or {})
    return str(data.get("custom_id") or data.get("name") or interaction.type.name)


def log_outcome(interaction: discord.Interaction[Any], outcome: str) -> None:
    """One log line per interaction, and its count and latency in the bot's metrics (bot/metrics.py)."""
    command, started = _command_name(interaction), interaction.extras.get("paperclub_t0")
    elapsed_ms = (time.perf_counter() - started) * 1000 if started else 0.0
    log.info(
        "interaction command=%s guild=%s user=%s latency_ms=%.1f outcome=%s",
        command,
        interaction.guild_id,
        interaction.user.id,
        elapsed_ms,
        outcome,
    )
    metrics = getattr(interaction.client, "metrics", None)  # a PaperclubBot's; absent on a bare client
    if metrics is not None:
        metrics.interaction(command, outcome, elapsed_ms / 1000)


def unwrap(error: BaseException) -> BaseException:
    """The domain error under discord.py's wrappers, if any."""
    for _ in range(5):
        inner = error.__cause__ or getattr(error, "original", None)
        if inner is None or not isinstance(error, WRAPPERS):
            break
        error = inner
    return error


async def report_error(interaction: discord.Interaction[Any], error: BaseException) -> None:
    """Domain errors become short ephemeral replies; anything else is logged and apologised for."""
    original = unwrap(error)
    if isinstance(original, PaperclubError):
        outcome, reply = f"refused:{type(original).__name__}", original.user_message
    elif isinstance(original, app_commands.TransformerError):
        outcome, reply = "refused:TransformerError", f"I could not understand `{original.value}`."
        if original.type is discord.AppCommandOptionType.channel:  # a kind of channel the option refuses
            kinds = getattr(original.transformer, "channel_types", None) or []
            wanted = " or ".join(str(kind).replace("_voice", "").replace("_", " ") for kind in kinds)
            reply = f"#{original.value} is not a {wanted or 'fitting'} channel; pick one."
    elif isinstance(original, app_commands.CommandOnCooldown):
        outcome, reply = "refused:cooldown", f"Slow down — try again in {original.retry_after:.0f}s."
    elif isinstance(original, app_commands.CheckFailure):
        outcome, reply = "refused:check", "You are not allowed to use this command here."
    else:
        log.error(
            "unhandled error command=%s guild=%s user=%s",
            _command_name(interaction),
            interaction.guild_id,
            interaction.user.id,
            exc_info=(type(original), original, original.__traceback__),
        )
        outcome, reply = "error", APOLOGY
    log_outcome(interaction, outcome)
    try:
        await send_ephemeral(interaction, reply)
    except discord.HTTPException:
        log.warning("could not report an error to the user (interaction %s)", interaction.id)


class PaperclubTree(app_commands.CommandTree[Any]):
    """The bot's command tree: notes when each interaction arrived and answers errors for the member."""

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        """Note when the interaction arrived; let every command run."""
        interaction.extras.setdefault("paperclub_t0", time.perf_counter())
        return True

    async def on_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        """Answer a command's error for the member."""
        await report_error(interaction, error)
