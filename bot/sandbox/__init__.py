"""A local Discord stand-in (REST v10 + gateway) that the unmodified discord.py client can talk to."""

from bot.sandbox.interactions import InteractionResult, Response
from bot.sandbox.server import DefaultGuild, StandIn
from bot.sandbox.state import Channel, Guild, Member, Message, Role, User

__all__ = [
    "Channel",
    "DefaultGuild",
    "Guild",
    "InteractionResult",
    "Member",
    "Message",
    "Response",
    "Role",
    "StandIn",
    "User",
]
