"""The runner's transport: reminders sent through discord.py under Discord's global limit."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import discord

from bot.hidden_channels import named, usable
from bot.services.reminders.delivery import Outgoing, SendError
from cogs.sessions.buttons import RecapFormButton

SEND_TIMEOUT = 45.0  # seconds; shorter than the claim lease (bot.services.reminders.queue.SENDING_LEASE)
# discord.py paces each route by its headers; the global limit has none until it is exceeded
# (discord-api-docs docs/topics/rate-limits.md, "Global Rate Limit"), so Pace keeps the sends under it.
GLOBAL_REQUESTS_PER_SECOND = 50  # Discord's global limit per bot (0: do not pace)
MARGIN = 0.1  # seconds added to each one-second window: requests take varying times to reach Discord
DMS_CLOSED = 50007
MISSING_ACCESS = 50001
MISSING_PERMISSIONS = 50013


class Pace:
    """At most ``limit`` requests start in any ``period`` seconds (first come, first served)."""

    def __init__(
        self,
        limit: int,
        period: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        if limit < 1 or period <= 0:
            raise ValueError(f"a pace needs at least 1 request per positive period, not {limit}/{period}")
        self.limit, self.period = limit, period
        self._clock, self._sleep = clock, sleep
        self._starts: deque[float] = deque()
        self._turn = asyncio.Lock()

    async def acquire(self) -> None:
        """Wait until one more request may start, and count it as started now."""
        async with self._turn:
            while len(self._starts) >= self.limit:
                wait = self._starts[0] + self.period - self._clock()
                if wait <= 0:
                    self._starts.popleft()
                else:
                    await self._sleep(wait)
            self._starts.append(self._clock())


def global_pace(requests_per_second: int) -> Pace | None:
    """The pace for a bot's global limit of ``requests_per_second`` (0: None, do not pace)."""
    return Pace(requests_per_second, 1.0 + MARGIN) if requests_per_second else None


def classify(error: discord.HTTPException, outgoing: Outgoing) -> SendError:
    """What a failed request means for the reminder: retry later (429, 5xx) or give up (with the fix)."""
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
    """Sends reminders through a discord.py client, paced under the bot's global limit."""

    def __init__(self, client: discord.Client) -> None:
        self.client = client
        self.pace = global_pace(GLOBAL_REQUESTS_PER_SECOND)

    async def _request(self) -> None:
        if self.pace is not None:  # wait for room under the global limit
            await self.pace.acquire()

    async def _destination(self, outgoing: Outgoing) -> discord.abc.Messageable:
        if outgoing.user_id is not None:
            user = self.client.get_user(outgoing.user_id)
            if user is not None and user.dm_channel is not None:  # known: no request to open it
                return user.dm_channel
            await self._request()
            return await self.client.create_dm(discord.Object(outgoing.user_id))
        assert outgoing.channel_id is not None
        channel = self.client.get_channel(outgoing.channel_id)
        if isinstance(channel, discord.abc.GuildChannel | discord.Thread) and not usable(
            channel, "reminders"
        ):  # not asked (Discord would refuse); short enough for /organize reminder list's reason
            raise SendError(
                f"I can't see {named(channel.id)}: Discord hides it from the bot; grant it View Channels there.",
                retryable=False,
            )
        return self.client.get_partial_messageable(outgoing.channel_id, guild_id=outgoing.guild_id)

    async def send(self, outgoing: Outgoing) -> int | None:
        """Post the reminder (opening the member's DM channel first if need be); its message id."""
        try:
            async with asyncio.timeout(SEND_TIMEOUT):
                destination = await self._destination(outgoing)
                await self._request()
                extra: dict[str, Any] = {}
                if outgoing.form_session_id is not None:  # the presenter's DM after the session: its form
                    extra["view"] = discord.ui.View(timeout=None).add_item(
                        RecapFormButton(outgoing.form_session_id)
                    )
                # Only the configured ping role, and only on session reminders; nothing in user text pings.
                mentions = discord.AllowedMentions.none()
                if outgoing.ping_role_id is not None:
                    mentions.roles = [discord.Object(outgoing.ping_role_id)]
                message = await destination.send(
                    outgoing.content, nonce=outgoing.nonce, allowed_mentions=mentions, **extra
                )
        except discord.RateLimited as error:
            raise SendError(f"Rate limited for {error.retry_after:.0f}s.", retryable=True) from error
        except discord.HTTPException as error:
            raise classify(error, outgoing) from error
        except TimeoutError as error:
            raise SendError(f"No answer from Discord within {SEND_TIMEOUT:.0f}s.", retryable=True) from error
        except (aiohttp.ClientError, OSError) as error:
            raise SendError(f"Network error: {type(error).__name__}.", retryable=True) from error
        return message.id
