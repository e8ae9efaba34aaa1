"""The bot's permission set is defined once (bot.permissions.REQUIRED_PERMISSIONS): the README's invite
(names, integer, URL) says the same, and the set holds what today's Discord needs for what the bot does."""

from __future__ import annotations

import re
from pathlib import Path

import discord

from bot.permissions import REQUIRED_PERMISSIONS, invite_url, permission_names

README = Path(__file__).resolve().parents[2] / "README.md"


def _invite_step() -> str:
    text = README.read_text(encoding="utf-8")
    section = text.split("## Setting up the Discord application", 1)[1].split("\n## ", 1)[0]
    match = re.search(r"^3\. \*\*Invite\*\*.*?(?=^\d\. )", section, re.S | re.M)
    assert match, "the README's invite step is missing"
    return match.group(0)


def test_the_readme_invite_is_the_required_set() -> None:
    step = _invite_step()
    integers = set(re.findall(r"permissions integer `(\d+)`", step))
    assert integers == {str(REQUIRED_PERMISSIONS.value)}
    urls = re.findall(r"`(https://discord\.com/oauth2/authorize\?[^`]+)`", step)
    assert urls == [invite_url("YOUR_APP_ID")]
    listed = re.search(r"these permissions: (.*?) \(permissions integer", step, re.S)
    assert listed, step
    names = [name.strip() for name in " ".join(listed.group(1).split()).split(",")]
    assert names == permission_names(REQUIRED_PERMISSIONS)


def test_the_set_follows_the_february_2026_rules() -> None:
    # Creating scheduled events needs Create Events (1 << 44) since 23 February 2026.
    assert REQUIRED_PERMISSIONS.create_events
    assert REQUIRED_PERMISSIONS.value & (1 << 44)
    # The bot edits and cancels only its own events (Create Events covers those) and pins nothing.
    assert not REQUIRED_PERMISSIONS.manage_events
    assert not REQUIRED_PERMISSIONS.pin_messages
    # Nothing the bot does needs these; an invite asking for them would be taken for a grab.
    for flag in ("administrator", "manage_guild", "manage_roles", "manage_messages", "mention_everyone"):
        assert not getattr(REQUIRED_PERMISSIONS, flag), flag


def test_invite_url_shape() -> None:
    url = invite_url(1234567890)
    assert url == (
        "https://discord.com/oauth2/authorize?client_id=1234567890"
        f"&scope=bot+applications.commands&permissions={REQUIRED_PERMISSIONS.value}"
    )
    assert discord.Permissions(REQUIRED_PERMISSIONS.value) == REQUIRED_PERMISSIONS
