"""/setup: the club's settings for this server (Manage Server to change; organizers may look)."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot import timeutil
from bot.client import Interaction, PaperclubBot
from bot.errors import BadInput, NotAllowed
from bot.layouts import Card, escape, lines
from bot.permissions import IN_SERVER_ONLY, ensure_organizer, manager_only, require_guild_id
from bot.replies import cut, send_ephemeral
from bot.services.config.guild import MAX_OFFSETS_TEXT, MAX_TOPICS_TEXT, MAX_ZONES_TEXT, GuildConfig
from bot.services.setup.actions import Setup, next_steps, reminders_text, zones_text
from bot.services.site.config import MAX_ABOUT, MAX_SLUG
from bot.transformers import timezone_autocomplete
from cogs.series import settings as series_settings
from cogs.setup import _access as access
from cogs.site import settings as site_settings

SAVED = "Saved."
# Each text option takes what its setting keeps (the services' limits).
Zone = app_commands.Range[str, 1, timeutil.MAX_ZONE_TEXT]
Zones = app_commands.Range[str, 1, MAX_ZONES_TEXT]
Offsets = app_commands.Range[str, 1, MAX_OFFSETS_TEXT]
Topics = app_commands.Range[str, 1, MAX_TOPICS_TEXT]
Slug = app_commands.Range[str, 1, MAX_SLUG]
AboutText = app_commands.Range[str, 1, MAX_ABOUT]


def _mention(kind: str, value: int | None) -> str:
    if value is None:
        return "not set"
    return f"<#{value}>" if kind == "channel" else f"<@&{value}>"


def _guild(interaction: Interaction) -> discord.Guild:
    if interaction.guild is None:
        raise NotAllowed(IN_SERVER_ONLY)
    return interaction.guild


def settings_card(
    config: GuildConfig,
    gaps: list[access.Gap],
    *,
    title: str = "Paper club settings",
    website: str | None = None,
    series: str | None = None,
) -> Card:
    """The settings as a layout: what the bot lacks, the set-up commands still to run, every setting."""
    card = Card(accent=discord.Colour.blurple())
    card.heading(title)
    card.text(cut(access.report(gaps), 1500))
    if steps := next_steps(config):
        card.text(lines([f"Next: `{command}` — {what}" for command, what in steps]))
    card.separator()
    card.text(
        lines(
            [
                f"**Announcements channel:** {_mention('channel', config.announcements_channel_id)}",
                f"**Suggestions channel:** {_mention('channel', config.suggestions_channel_id)}",
                f"**Organizer role:** {_mention('role', config.organizer_role_id)}",
                f"**Ping role:** {_mention('role', config.ping_role_id)}",
                f"**Time zone:** {config.timezone}",
                f"**Reminders:** {reminders_text(config)}",
                f"**Times shown in:** {cut(zones_text(config), 1024)}",
                f"**Suggestion topics:** {escape(', '.join(config.suggestion_topics), 1100)}",
            ]
        )
    )
    if website is not None:
        card.text(f"**Website:** {cut(website, 1024)}")
    if series is not None:
        card.text(f"**Series:** {cut(series, 1024)}")
    return card


@app_commands.guild_only()
# Visible to organizers (Manage Events) for /setup show; every change checks Manage Server (manager_only).
@app_commands.default_permissions(manage_events=True)
class SetupCog(
    commands.GroupCog, group_name="setup", group_description="The club's settings for this server"
):
    def __init__(self, bot: PaperclubBot) -> None:
        self.bot = bot
        self.setup = Setup(bot)
        super().__init__()

    async def _change(
        self,
        interaction: Interaction,
        *,
        channel: tuple[discord.abc.GuildChannel, str] | None = None,
        **changes: object,
    ) -> None:
        """Save the changes (refused for a channel the bot cannot post in) and answer with the settings."""
        guild = _guild(interaction)
        if channel is not None and (refusal := access.refusal_for(guild, *channel)) is not None:
            raise BadInput(refusal)
        config = await self.setup.change(guild.id, **changes)
        self.bot.dispatch("guild_settings_changed", guild.id, set(changes))
        card = settings_card(config, access.guild_gaps(guild, config), title=SAVED)
        await send_ephemeral(interaction, view=card.view())

    @app_commands.command(name="show", description="Show the club's settings (organizers)")
    async def show(self, interaction: Interaction) -> None:
        await ensure_organizer(interaction)
        # One read for the whole card (settings, website, series: one statement, outside a transaction).
        overview = await self.setup.overview(require_guild_id(interaction))
        guild = _guild(interaction)
        held_in = await self.setup.channels_in_use(guild.id)
        gaps = access.guild_gaps(guild, overview.config) + access.held_in_gaps(guild, held_in)
        card = settings_card(
            overview.config,
            gaps,
            website=site_settings.show_field(self.bot, overview.site),
            series=series_settings.show_field(overview.series),
        )
        await send_ephemeral(interaction, view=card.view())

    @app_commands.command(name="announcements", description="Channel where sessions are announced")
    @app_commands.describe(channel="A text channel the bot can post in")
    @manager_only()
    async def announcements(self, interaction: Interaction, channel: discord.TextChannel) -> None:
        await self._change(
            interaction, channel=(channel, access.ANNOUNCE), announcements_channel_id=channel.id
        )

    @app_commands.command(
        name="suggestions", description="Channel (text or forum) where suggestions are posted"
    )
    @app_commands.describe(channel="A text or forum channel the bot can post in")
    @manager_only()
    async def suggestions(
        self, interaction: Interaction, channel: discord.TextChannel | discord.ForumChannel
    ) -> None:
        await self._change(interaction, channel=(channel, access.SUGGEST), suggestions_channel_id=channel.id)

    @app_commands.command(name="organizer_role", description="Role whose members may run organizer commands")
    @app_commands.describe(role="Members with this role count as organizers")
    @manager_only()
    async def organizer_role(self, interaction: Interaction, role: discord.Role) -> None:
        await self._change(interaction, organizer_role_id=role.id)

    @app_commands.command(name="ping_role", description="Role pinged by session reminders")
    @app_commands.describe(role="The only role reminders may ping")
    @manager_only()
    async def ping_role(self, interaction: Interaction, role: discord.Role) -> None:
        await self._change(interaction, ping_role_id=role.id)

    @app_commands.command(name="timezone", description="The club's home time zone (times are typed in it)")
    @app_commands.describe(zone="An IANA name such as America/Los_Angeles, or PT, ET, UK, CET, IST, UTC")
    @app_commands.autocomplete(zone=timezone_autocomplete)
    @manager_only()
    async def timezone(self, interaction: Interaction, zone: Zone) -> None:
        await self._change(interaction, timezone=zone)

    @app_commands.command(name="display_zones", description="Zones every session time is shown in")
    @app_commands.describe(zones="e.g. America/Los_Angeles=PT, Europe/London, Asia/Kolkata=IST")
    @manager_only()
    async def display_zones(self, interaction: Interaction, zones: Zones) -> None:
        await self._change(interaction, display_zones=zones)

    @app_commands.command(name="reminder_offsets", description="When session reminders go out, e.g. 24h,1h")
    @app_commands.describe(offsets="Comma-separated times before each session, e.g. 24h,1h")
    @manager_only()
    async def reminder_offsets(self, interaction: Interaction, offsets: Offsets) -> None:
        await self._change(interaction, reminder_offsets=offsets)

    @app_commands.command(name="topics", description="Topics members can file suggestions under")
    @app_commands.describe(topics="Separated by ; e.g. environment generation; verifier soundness; other")
    @manager_only()
    async def topics(self, interaction: Interaction, topics: Topics) -> None:
        await self._change(interaction, suggestion_topics=topics)

    # ------------------------------------------------------------ the club's website (cogs/site/settings.py)

    @app_commands.command(
        name="website", description="Serve the club's public page and calendar feeds (or stop)"
    )
    @app_commands.describe(
        enabled="On: serve this server's page, session pages and feeds; off: serve nothing",
        slug="The address, e.g. paper-club for /paper-club/ (needed the first time)",
    )
    @manager_only()
    async def website(self, interaction: Interaction, enabled: bool, slug: Slug | None = None) -> None:
        await site_settings.set_website(interaction, enabled, slug)

    @app_commands.command(name="about", description='The website\'s "How it runs" text (Markdown)')
    @app_commands.describe(text="One line of Markdown; leave it out for a form that takes several lines")
    @manager_only()
    async def about(self, interaction: Interaction, text: AboutText | None = None) -> None:
        await site_settings.set_about(interaction, text)

    # ------------------------------------------------------------ the series (cogs/series/settings.py)

    @app_commands.command(
        name="series_horizon", description="How many weeks ahead each series has its sessions"
    )
    @app_commands.describe(weeks="1–12 (default 8); each of those weeks gets its session and Discord event")
    @manager_only()
    async def series_horizon(self, interaction: Interaction, weeks: app_commands.Range[int, 1, 12]) -> None:
        await series_settings.set_horizon(interaction, weeks)

    @app_commands.command(
        name="series_nudge", description="Days before an open week the organizers are nudged"
    )
    @app_commands.describe(days="0–28 (default 7; 0: no nudges) before a week with no presenter or no paper")
    @manager_only()
    async def series_nudge(self, interaction: Interaction, days: app_commands.Range[int, 0, 28]) -> None:
        await series_settings.set_nudge_days(interaction, days)
