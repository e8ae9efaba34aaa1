"""bot.hidden_channels: the flag wins where discord.py keeps it, the name is never trusted, the bot's own View
Channel decides otherwise; background work logs a hidden channel once while it stays hidden."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import discord
import pytest

from bot.hidden_channels import CHANNEL_OBFUSCATED, cannot_see, hidden_from_bot, named, usable


@dataclass
class FakeGuild:
    id: int = 1
    me: Any = "the bot"


@dataclass
class FakeChannel:
    """What hidden_from_bot reads of a discord.py channel: flags (forums, threads), guild.me, permissions."""

    id: int
    view: bool
    name: str = "reading"
    flags: discord.ChannelFlags | None = None
    guild: FakeGuild = field(default_factory=FakeGuild)

    def permissions_for(self, _member: Any) -> discord.Permissions:
        return discord.Permissions(view_channel=self.view)


def test_the_flag_wins_where_discord_py_keeps_it() -> None:
    flagged = discord.ChannelFlags._from_value(CHANNEL_OBFUSCATED)
    assert CHANNEL_OBFUSCATED == 1 << 17
    assert hidden_from_bot(FakeChannel(10, view=True, flags=flagged))
    assert not hidden_from_bot(FakeChannel(11, view=True, flags=discord.ChannelFlags()))


def test_view_channel_decides_and_the_name_is_never_trusted() -> None:
    assert hidden_from_bot(FakeChannel(12, view=False))
    assert not hidden_from_bot(FakeChannel(13, view=True, name="___hidden___"))


def test_not_judged_before_the_bot_knows_its_own_member() -> None:
    assert not hidden_from_bot(FakeChannel(14, view=False, guild=FakeGuild(me=None)))


def test_a_hidden_channel_is_named_by_its_id() -> None:
    assert named(15) == "<#15> (channel id 15)"
    assert cannot_see(15).startswith("I can't see <#15> (channel id 15): Discord hides it from the bot;")


def test_background_work_logs_once_while_the_channel_stays_hidden(caplog: pytest.LogCaptureFixture) -> None:
    channel = FakeChannel(16, view=False)
    with caplog.at_level(logging.WARNING, logger="paperclub.channels"):
        assert not usable(channel, "reminders")
        assert not usable(channel, "reminders")
        channel.view = True
        assert usable(channel, "reminders")
        channel.view = False
        assert not usable(channel, "reminders")
    said = [r.getMessage() for r in caplog.records if r.name == "paperclub.channels"]
    assert len(said) == 2  # once, and once more after it was seen again
    assert "channel 16 is hidden from the bot" in said[0]
    assert "reminders is skipped" in said[0]
