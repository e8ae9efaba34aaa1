"""The stand-in's sharding, against discord.py's own AutoShardedClient (no paperclub code): each shard gets
its guilds only (Discord's formula), interactions arrive on the shard that owns the guild, DMs on shard 0,
GET /gateway/bot answers the shard count and session start limit, and the gateway's refusals."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands

from bot.demo.running import connected
from standin import StandIn
from standin.gateway import IDENTIFY, INVALID_SESSION, shard_of

TOKEN = "sandbox-token"


class ShardedBot(discord.AutoShardedClient):
    """A bare sharded bot whose one command says which client and shard answered."""

    def __init__(self, label: str, **options: Any) -> None:
        super().__init__(intents=discord.Intents(guilds=True), **options)
        self.label = label
        self.tree = app_commands.CommandTree(self)
        self.answered: list[tuple[int | None, int | None]] = []  # (guild id, shard id) of each answer

        @self.tree.command(name="where", description="Which shard answers")
        async def where(interaction: discord.Interaction) -> None:
            shard = interaction.guild.shard_id if interaction.guild else None
            self.answered.append((interaction.guild_id, shard))
            await interaction.response.send_message(f"{self.label} shard {shard}", ephemeral=True)

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """No 5-second wait between shards: the stand-in does not enforce the identify rate here."""

    async def setup_hook(self) -> None:
        await self.tree.sync()


@pytest.fixture
async def standin() -> AsyncIterator[StandIn]:
    async with StandIn() as server:
        yield server


async def test_each_shard_gets_only_its_guilds(standin: StandIn) -> None:
    guilds = await standin.create_guilds(9)
    assert sorted(shard_of(g.id, 3) for g in guilds) == [0, 0, 0, 1, 1, 1, 2, 2, 2]  # dealt round-robin
    async with connected(ShardedBot("all", shard_count=3), standin) as client:
        assert {g.id for g in client.guilds} == {g.id for g in guilds}
        for guild in client.guilds:
            assert guild.shard_id == shard_of(guild.id, 3)
    readies = [s for s in standin.gateway.sessions.values()]
    assert sorted(s.shard for s in readies if s.shard) == [(0, 3), (1, 3), (2, 3)]


async def test_two_processes_answer_their_own_guilds_and_dms_go_to_shard_0(standin: StandIn) -> None:
    guilds = await standin.create_guilds(6)
    member = await standin.create_member(guilds[0], "rita")
    first, second = (
        ShardedBot("first", shard_count=2, shard_ids=[0]),
        ShardedBot("second", shard_count=2, shard_ids=[1]),
    )
    async with connected(first, standin), connected(second, standin):
        await standin.wait_shards(2)
        for guild in guilds:
            channel = next(iter(guild.channels.values()))
            response = await (
                await standin.invoke("where", member=guild.members[standin.state.owner.id], channel=channel)
            ).response()
            owner = "first" if shard_of(guild.id, 2) == 0 else "second"
            assert response.content == f"{owner} shard {shard_of(guild.id, 2)}"
        assert sorted(g for g, _ in first.answered) == sorted(g.id for g in guilds if shard_of(g.id, 2) == 0)
        assert sorted(g for g, _ in second.answered) == sorted(g.id for g in guilds if shard_of(g.id, 2) == 1)
        dm = standin.state.dm_channel(member.user)
        response = await (await standin.invoke("where", member=member.user, channel=dm)).response()
        assert response.content == "first shard None"  # no guild: shard 0's connection gets it
        assert len(first.answered) + len(second.answered) == len(guilds) + 1


async def test_get_gateway_bot(standin: StandIn) -> None:
    await standin.create_guilds(2500)
    headers = {"Authorization": f"Bot {TOKEN}"}
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{standin.base_url}/api/v10/gateway/bot", headers=headers) as answer:
            data = await answer.json()
        assert data["url"] == standin.gateway_url
        assert data["shards"] == 3  # one per 1,000 guilds, rounded up
        assert data["session_start_limit"] == {
            "total": 1000,
            "remaining": 1000,
            "reset_after": 86_400_000,
            "max_concurrency": 1,
        }
        standin.shards, standin.gateway.max_concurrency = 6, 16
        async with connected(ShardedBot("six", shard_count=6), standin):
            pass
        async with http.get(f"{standin.base_url}/api/v10/gateway/bot", headers=headers) as answer:
            data = await answer.json()
        assert data["shards"] == 6
        assert data["session_start_limit"]["remaining"] == 1000 - 6
        assert data["session_start_limit"]["max_concurrency"] == 16


@contextlib.asynccontextmanager
async def raw_gateway(standin: StandIn) -> AsyncIterator[aiohttp.ClientWebSocketResponse]:
    async with aiohttp.ClientSession() as http, http.ws_connect(standin.gateway_url) as ws:
        hello = json.loads((await ws.receive()).data)
        assert hello["op"] == 10
        yield ws


async def _identify(ws: aiohttp.ClientWebSocketResponse, **extra: Any) -> None:
    await ws.send_str(
        json.dumps({"op": IDENTIFY, "d": {"token": TOKEN, "intents": 1, "properties": {}, **extra}})
    )


@pytest.mark.parametrize("shard", [[2, 2], [-1, 2], [0, 0], "0,1", [0, 1, 2]])
async def test_an_invalid_shard_is_closed_with_4010(standin: StandIn, shard: Any) -> None:
    async with raw_gateway(standin) as ws:
        await _identify(ws, shard=shard)
        closed = await ws.receive()
    assert closed.type == aiohttp.WSMsgType.CLOSE
    assert closed.data == 4010


async def test_more_than_2500_guilds_on_one_session_is_closed_with_4011(standin: StandIn) -> None:
    guilds = await standin.create_guilds(2501)
    async with raw_gateway(standin) as ws:
        await _identify(ws)
        closed = await ws.receive()
    assert (closed.type, closed.data) == (aiohttp.WSMsgType.CLOSE, 4011)
    async with raw_gateway(standin) as ws:  # two shards hold them
        await _identify(ws, shard=[0, 2])
        ready = json.loads((await ws.receive()).data)
    assert ready["t"] == "READY"
    assert ready["d"]["shard"] == [0, 2]
    assert {int(g["id"]) for g in ready["d"]["guilds"]} == {g.id for g in guilds if shard_of(g.id, 2) == 0}


async def test_identifies_over_max_concurrency_get_invalid_session(standin: StandIn) -> None:
    standin.gateway.enforce_identify_rate = True
    standin.gateway.max_concurrency = 2
    async with raw_gateway(standin) as a, raw_gateway(standin) as b, raw_gateway(standin) as c:
        await _identify(a, shard=[0, 4])
        assert json.loads((await a.receive()).data)["t"] == "READY"
        await _identify(b, shard=[1, 4])  # the other bucket (1 % 2): allowed at once
        assert json.loads((await b.receive()).data)["t"] == "READY"
        await _identify(c, shard=[2, 4])  # bucket 0 again within 5 s
        refused = json.loads((await c.receive()).data)
    assert refused == {"op": INVALID_SESSION, "d": False}
    assert standin.gateway.invalid_sessions == 1


async def test_held_requests_wait_for_the_release(standin: StandIn) -> None:
    world = await standin.create_default_guild()
    held = standin.hold("POST", r"/channels/\d+/messages$")
    async with connected(ShardedBot("one", shard_count=1), standin) as client:
        channel = client.get_partial_messageable(world.general.id)
        sending = asyncio.create_task(channel.send("hello"))
        await standin.wait_until(lambda: held.waiting == 1)
        assert standin.messages_in(world.general) == []
        held.release()
        message = await asyncio.wait_for(sending, 10)
    assert [m.id for m in standin.messages_in(world.general)] == [message.id]
