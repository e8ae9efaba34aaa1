"""A local Discord stand-in (REST v10 + gateway) that the unmodified discord.py client can talk to."""

from standin.interactions import InteractionResult, Response
from standin.server import DefaultGuild, StandIn
from standin.state import Channel, Guild, Member, Message, Role, User

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
