"""Opt-in per-channel rate limits on POST /channels/{id}/messages, and a bare discord.py client honouring them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import aiohttp
import discord
import pytest

from bot.demo.running import connected
from standin import StandIn
from standin.server import DefaultGuild
from tests.standin.helpers import BareBot

pytestmark = pytest.mark.asyncio

MESSAGES = r"^/channels/\d+/messages$"
TOLERANCE = 0.02  # seconds: the request log's wall clock against the limiter's monotonic one


@pytest.fixture
async def client(standin: StandIn) -> AsyncIterator[discord.Client]:
    async with connected(discord.Client(intents=discord.Intents.none()), standin) as bare:
        yield bare


def statuses(standin: StandIn, channel_id: int | None = None) -> list[int]:
    path = rf"^/channels/{channel_id}/messages$" if channel_id else MESSAGES
    return [r.status for r in standin.requests_to("POST", path)]


async def test_off_by_default(standin: StandIn, world: DefaultGuild) -> None:
    assert standin.channel_message_limit is None
    async with aiohttp.ClientSession() as http:
        for i in range(12):
            url = f"{standin.base_url}/api/v10/channels/{world.general.id}/messages"
            async with http.post(url, json={"content": f"m{i}"}) as resp:
                assert resp.status == 200
                assert resp.headers["X-RateLimit-Limit"] == "50"
    assert statuses(standin) == [200] * 12


async def test_headers_429_and_separate_channels(standin: StandIn, world: DefaultGuild) -> None:
    standin.channel_message_limit = (3, 30.0)
    api = f"{standin.base_url}/api/v10"
    general, announcements = world.general.id, world.announcements.id
    async with aiohttp.ClientSession() as http:
        seen: list[tuple[int, str, str, float, float]] = []
        for i in range(3):
            async with http.post(f"{api}/channels/{general}/messages", json={"content": f"m{i}"}) as r:
                h = r.headers
                seen.append(
                    (
                        r.status,
                        h["X-RateLimit-Remaining"],
                        h["X-RateLimit-Bucket"],
                        float(h["X-RateLimit-Reset-After"]),
                        float(h["X-RateLimit-Reset"]) - time.time(),
                    )
                )
                assert h["X-RateLimit-Limit"] == "3"
        assert [(s, rem) for s, rem, *_ in seen] == [(200, "2"), (200, "1"), (200, "0")]
        assert len({bucket for _, _, bucket, _, _ in seen}) == 1
        assert all(29.0 < after <= 30.0 and abs(reset - after) < 1.0 for *_, after, reset in seen)
        bucket = seen[0][2]

        async with http.post(f"{api}/channels/{general}/messages", json={"content": "over"}) as r:
            assert r.status == 429
            assert await r.json() == {
                "message": "You are being rate limited.",
                "retry_after": pytest.approx(30.0, abs=1.0),
                "global": False,
            }
            assert r.headers["X-RateLimit-Scope"] == "user"
            assert "Via" in r.headers
            assert r.headers["X-RateLimit-Remaining"] == "0"
            assert r.headers["X-RateLimit-Bucket"] == bucket
            assert 29 <= int(r.headers["Retry-After"]) <= 30

        # Another channel: same bucket hash (Discord's), its own budget (the major parameter).
        async with http.post(f"{api}/channels/{announcements}/messages", json={"content": "a"}) as r:
            assert r.status == 200
            assert r.headers["X-RateLimit-Remaining"] == "2"
            assert r.headers["X-RateLimit-Bucket"] == bucket

        # Other routes keep the generous defaults.
        async with http.get(f"{api}/channels/{general}/messages") as r:
            assert r.status == 200
            assert r.headers["X-RateLimit-Limit"] == "50"

        standin.advance_clock(30.0)  # the window ends
        async with http.post(f"{api}/channels/{general}/messages", json={"content": "later"}) as r:
            assert r.status == 200
            assert r.headers["X-RateLimit-Remaining"] == "2"

    assert statuses(standin, general) == [200, 200, 200, 429, 200]
    assert [m.content for m in standin.messages_in(general)] == ["m0", "m1", "m2", "later"]


async def test_discord_py_paces_one_channel(
    client: discord.Client, standin: StandIn, world: DefaultGuild
) -> None:
    limit, per = 5, 1.0
    standin.channel_message_limit = (limit, per)
    channel = client.get_partial_messageable(world.general.id)
    started = time.monotonic()
    for i in range(12):
        await channel.send(f"message {i}")
    elapsed = time.monotonic() - started

    assert [m.content for m in standin.messages_in(world.general)] == [f"message {i}" for i in range(12)]
    assert statuses(standin).count(429) == 0  # discord.py waited on the headers instead
    times = [r.time for r in standin.requests_to("POST", MESSAGES) if r.status == 200]
    assert len(times) == 12
    # Windows of 5: the 6th and 11th wait for the previous window to end.
    assert times[5] - times[0] >= per - TOLERANCE
    assert times[10] - times[5] >= per - TOLERANCE
    assert all(b - a < 0.5 for a, b in zip(times[:4], times[1:5], strict=True))  # a window is a burst
    assert 2 * per - TOLERANCE <= elapsed < 2 * per + 1.5


async def test_two_channels_do_not_share_a_budget(
    client: discord.Client, standin: StandIn, world: DefaultGuild
) -> None:
    limit, per = 3, 1.0
    standin.channel_message_limit = (limit, per)
    channels = [world.general.id, world.announcements.id]

    async def post_all(channel_id: int) -> None:
        target = client.get_partial_messageable(channel_id)
        await asyncio.gather(*(target.send(f"{channel_id}-{i}") for i in range(2 * limit)))

    started = time.monotonic()
    await asyncio.gather(*(post_all(c) for c in channels))
    elapsed = time.monotonic() - started

    for channel_id in channels:
        contents = sorted(m.content for m in standin.messages_in(channel_id))
        assert contents == sorted(f"{channel_id}-{i}" for i in range(2 * limit))
        times = [r.time for r in standin.requests_to("POST", rf"^/channels/{channel_id}/messages$")]
        assert times[limit] - times[0] >= per - TOLERANCE
    assert statuses(standin).count(429) == 0
    # Two windows each, side by side; a shared budget would need four.
    assert per - TOLERANCE <= elapsed < 2 * per + 0.5


# ---------------------------------------------------------------- the global limit (opt-in)


async def test_global_limit_per_token_and_its_429(standin: StandIn, world: DefaultGuild) -> None:
    assert standin.global_limit is None  # off by default
    standin.global_limit = (3, 30.0)
    api = f"{standin.base_url}/api/v10"
    bot_a, bot_b = {"Authorization": "Bot token-a"}, {"Authorization": "Bot token-b"}
    async with aiohttp.ClientSession() as http:
        # Any route counts, whatever its own limit: two reads and a post use bot A's three.
        for method, path in (("GET", "/users/@me"), ("GET", f"/channels/{world.general.id}/messages")):
            async with http.request(method, api + path, headers=bot_a) as r:
                assert r.status == 200
        async with http.post(
            f"{api}/channels/{world.general.id}/messages", headers=bot_a, json={"content": "a"}
        ) as r:
            assert r.status == 200

        async with http.post(
            f"{api}/channels/{world.general.id}/messages", headers=bot_a, json={"content": "x"}
        ) as r:
            assert r.status == 429
            assert await r.json() == {
                "message": "You are being rate limited.",
                "retry_after": pytest.approx(30.0, abs=1.0),
                "global": True,
            }
            assert r.headers["X-RateLimit-Global"] == "true"
            assert r.headers["X-RateLimit-Scope"] == "global"
            assert 29 <= int(r.headers["Retry-After"]) <= 30
            assert "Via" in r.headers
            assert "X-RateLimit-Bucket" not in r.headers  # Discord's example global 429 has no route headers

        # Interaction endpoints are not bound to it: a callback still reaches its handler (404: unknown
        # interaction), a followup route too, never a 429.
        async with http.post(f"{api}/interactions/1/nope/callback", headers=bot_a, json={"type": 1}) as r:
            assert r.status != 429
        async with http.post(f"{api}/webhooks/1/nope", headers=bot_a, json={"content": "f"}) as r:
            assert r.status != 429

        # Another bot, and a caller without a token (counted by address), have their own budgets.
        async with http.get(f"{api}/users/@me", headers=bot_b) as r:
            assert r.status == 200
        async with http.get(f"{api}/channels/{world.general.id}/messages") as r:
            assert r.status == 200

        standin.advance_clock(30.0)  # the window ends
        async with http.post(
            f"{api}/channels/{world.general.id}/messages", headers=bot_a, json={"content": "b"}
        ) as r:
            assert r.status == 200
    assert [m.content for m in standin.messages_in(world.general)] == ["a", "b"]


async def test_the_global_limit_comes_before_the_route_limit(standin: StandIn, world: DefaultGuild) -> None:
    standin.global_limit = (1, 30.0)
    standin.channel_message_limit = (2, 30.0)
    api = f"{standin.base_url}/api/v10/channels/{world.general.id}/messages"
    headers = {"Authorization": "Bot token-a"}
    async with aiohttp.ClientSession() as http:
        for expected in (200, 429):
            async with http.post(api, headers=headers, json={"content": "m"}) as r:
                assert r.status == expected
        standin.global_limit = None
        async with http.post(api, headers=headers, json={"content": "m"}) as r:
            assert r.status == 200
            assert (
                r.headers["X-RateLimit-Remaining"] == "0"
            )  # the global refusal did not use the route's budget


async def test_discord_py_waits_out_the_global_limit(
    client: discord.Client, standin: StandIn, world: DefaultGuild
) -> None:
    """Twelve sends at once across four channels, five requests a second allowed: discord.py holds every
    request after a global 429 until its retry_after and retries; each message arrives once."""
    limit, per = 5, 1.0
    channels = [world.general, world.announcements] + [
        await standin.create_channel(world.guild, f"extra-{i}") for i in range(2)
    ]
    standin.global_limit = (limit, per)
    started = time.monotonic()
    await asyncio.gather(
        *(
            client.get_partial_messageable(channels[i % 4].id).send(f"message {i}", nonce=f"n{i}")
            for i in range(12)
        )
    )
    elapsed = time.monotonic() - started

    delivered = sorted(m.content for c in channels for m in standin.messages_in(c))
    assert delivered == sorted(f"message {i}" for i in range(12))  # each exactly once
    posts = standin.requests_to("POST", MESSAGES)
    refused = [r for r in posts if r.status == 429]
    assert refused  # discord.py cannot know the global limit before it is told
    accepted = sorted(r.time for r in posts if r.status == 200)
    # At most `limit` accepted per window: the 6th and the 11th waited for a new one.
    assert accepted[5] - accepted[0] >= per - TOLERANCE
    assert accepted[10] - accepted[5] >= per - TOLERANCE
    assert elapsed >= 2 * per - TOLERANCE


async def test_interactions_are_answered_while_the_global_limit_is_spent(
    bot: BareBot, standin: StandIn, world: DefaultGuild
) -> None:
    standin.global_limit = (2, 60.0)
    api = f"{standin.base_url}/api/v10/users/@me"
    async with aiohttp.ClientSession() as http:
        for _ in range(3):  # the bot's token: its budget is spent
            async with http.get(api, headers={"Authorization": "Bot sandbox-token"}) as r:
                last = r.status
    assert last == 429
    result = await standin.invoke("slow", member=world.members[0])
    assert (await result.response()).type == 5  # deferred, then two followups: all interaction routes
    assert [m.content for m in await result.wait_followups(2)] == ["done slowly", "and one more"]
    answered = [r.status for r in standin.requests if r.path.startswith(("/interactions/", "/webhooks/"))]
    assert answered
    assert 429 not in answered
