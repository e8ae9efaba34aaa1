"""A member presses I'll present (on a week's announcement or card, or on the open-weeks message): they
present that week, or step down when they do. The store decides, in one transaction (the first of two
presses wins); then the week's session is published like any edit (its presenter DM planned, its event and
announcement updated) and the open-weeks message and the nudges follow."""

from __future__ import annotations

from discord.utils import escape_markdown

from bot.client import Interaction
from bot.permissions import require_guild_id
from bot.replies import one_line, send_ephemeral
from bot.services.config.guild import get_config
from bot.services.series import presenters
from bot.services.series.info import Changes
from bot.timeutil import format_club_time
from cogs.series import _publishing as publishing
from cogs.series._background import SeriesBackground

IN_SERVER_ONLY = "This button works in a server, not in DMs."


async def press_present(
    interaction: Interaction, session_id: int, background: SeriesBackground, *, series_id: int | None = None
) -> None:
    """Present the week, or step down; then publish it and refresh the open-weeks message and nudges. A
    week picked from a series' select (``series_id``) is only claimed, never stepped down from."""
    guild_id = require_guild_id(interaction, IN_SERVER_ONLY)
    bot = interaction.client
    await interaction.response.defer(ephemeral=True, thinking=True)
    async with bot.session_factory() as session, session.begin():
        claim = await presenters.toggle_presenter(
            session,
            guild_id,
            session_id,
            interaction.user.id,
            interaction.user.display_name,
            now=bot.clock.now(),
            series_id=series_id,
        )
        config = await get_config(session, guild_id)
    await publishing.publish(bot, guild_id, Changes(saved=[session_id]), config.display_zones)
    await background.refresh_guild(guild_id)
    info = claim.session
    when = format_club_time(info.starts_at, config.display_zones)
    title = escape_markdown(one_line(info.title, 120))
    if claim.outcome == "claimed":
        text = (
            f"🎤 You present **{title}** on {when}. Thank you! The organizers see it on the series; tell them "
            "which paper you will present (or suggest one with `/suggest`). Press again to step down."
        )
    else:
        text = f"OK, you no longer present **{title}** ({when}); the week is open again."
    await send_ephemeral(interaction, text)
