"""The runner's :class:`~bot.services.reminders.runner.Transport` for Discord: sending one reminder through discord.py, and sorting failures into "try again later" and "give up".

discord.py already waits out rate limits (429) and retries 5xx answers a few times; what still fails
reaches us as an exception. Every send carries the reminder's nonce, so discord.py also sets
``enforce_nonce`` and a repeat within Discord's window returns the first message instead of a second one.
"""

from __future__ import annotations

import asyncio

import aiohttp
import discord

from bot.services.reminders.delivery import Outgoing
from bot.services.reminders.runner import SendError

SEND_TIMEOUT = 45.0  # seconds; shorter than the claim lease (bot.services.reminders.queue.SENDING_LEASE)
DMS_CLOSED = 50007
MISSING_ACCESS = 50001
MISSING_PERMISSIONS = 50013


def allowed_mentions_for(outgoing: Outgoing) -> discord.AllowedMentions:
    """Only the configured ping role, and only on session reminders; nothing in user text ever pings."""
    if outgoing.ping_role_id is None:
        return discord.AllowedMentions.none()
    return discord.AllowedMentions(
        everyone=False, users=False, replied_user=False, roles=[discord.Object(outgoing.ping_role_id)]
    )


def classify(error: discord.HTTPException, outgoing: Outgoing) -> SendError:
    where = f"<#{outgoing.channel_id}>" if outgoing.channel_id else "the member's DMs"
    if isinstance(error, discord.Forbidden):
        if error.code == DMS_CLOSED:
            return SendError(
                "The member does not accept DMs from the bot (Discord error 50007).", retryable=False
            )
        if error.code in (MISSING_ACCESS, MISSING_PERMISSIONS):
            return SendError(
                f"The bot may not post in {where}; grant it View Channel and Send Messages there.",
                retryable=False,
            )
        return SendError(f"Discord refused the message ({error.code}: {error.text[:120]}).", retryable=False)
    if isinstance(error, discord.NotFound):
        return SendError(f"Discord does not know {where} any more ({error.code}).", retryable=False)
    if error.status == 429 or error.status >= 500:
        return SendError(f"Discord answered {error.status}.", retryable=True)
    return SendError(
        f"Discord refused the message ({error.status} {error.code}: {error.text[:120]}).", retryable=False
    )


class DiscordTransport:
    def __init__(self, client: discord.Client, *, timeout: float = SEND_TIMEOUT) -> None:
        self.client = client
        self.timeout = timeout

    async def _destination(self, outgoing: Outgoing) -> discord.abc.Messageable:
        if outgoing.user_id is not None:
            return await self.client.create_dm(discord.Object(outgoing.user_id))
        assert outgoing.channel_id is not None
        return self.client.get_partial_messageable(outgoing.channel_id, guild_id=outgoing.guild_id)

    async def send(self, outgoing: Outgoing) -> int | None:
        try:
            async with asyncio.timeout(self.timeout):
                destination = await self._destination(outgoing)
                message = await destination.send(
                    outgoing.content, nonce=outgoing.nonce, allowed_mentions=allowed_mentions_for(outgoing)
                )
        except discord.RateLimited as error:
            raise SendError(f"Rate limited for {error.retry_after:.0f}s.", retryable=True) from error
        except discord.HTTPException as error:
            raise classify(error, outgoing) from error
        except TimeoutError as error:
            raise SendError(f"No answer from Discord within {self.timeout:.0f}s.", retryable=True) from error
        except (aiohttp.ClientError, OSError) as error:
            raise SendError(f"Network error: {type(error).__name__}.", retryable=True) from error
        return message.id
