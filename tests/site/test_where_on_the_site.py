"""A session held in a voice channel says where on its page: the channel's name, linked to it on the Discord,
escaped, and the JSON-LD's place (SQLite and PostgreSQL)."""

from __future__ import annotations

from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy import update

from db.models import ClubSession
from tests.site.conftest import GUILD, site_app

ROOM = 1188000000000000001


async def test_a_channel_session_page_names_and_links_its_channel(club) -> None:
    async with club.session_factory() as session, session.begin():
        await session.execute(
            update(ClubSession)
            .where(
                ClubSession.guild_id == GUILD,
                ClubSession.title == "Building data recipes for terminal agents",
            )
            .values(channel_id=ROOM, channel_name="reading <room>")
        )
        session_id = await session.scalar(
            ClubSession.__table__.select()
            .with_only_columns(ClubSession.id)
            .where(ClubSession.channel_id == ROOM)
        )
    async with TestClient(TestServer(site_app(club))) as client:
        html = await (await client.get(f"/paper-club/sessions/{session_id}/")).text()
    link = f"https://discord.com/channels/{GUILD}/{ROOM}"
    assert f'in <a href="{link}" rel="nofollow noopener">#reading &lt;room&gt;</a> on the Discord' in html
    assert f'"url": "{link}"' in html or f'"url":"{link}"' in html
