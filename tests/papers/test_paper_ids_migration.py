"""Migration 0028 on SQLite and PostgreSQL: papers stored before ids were kept as their sources write them
(an old-style arXiv id with its subject class, an upper-cased DOI) are rewritten, and a row whose new key
its guild already holds keeps its own."""

from __future__ import annotations

import pytest
from alembic import command
from sqlalchemy import Connection, text

from db.migrate import alembic_config, upgrade_database
from tests.conftest import StoreInfo

pytestmark = pytest.mark.empty_store

ROWS = [  # id, guild, key, kind, arxiv_id, doi
    (1, 7, "arxiv:math.GT/0309136", "arxiv", "math.GT/0309136", None),
    (2, 7, "doi:10.18653/V1/2020.ACL-MAIN.1", "doi", None, "10.18653/V1/2020.ACL-MAIN.1"),
    (3, 7, "arxiv:2401.12345", "arxiv", "2401.12345", "10.48550/ARXIV.2401.12345"),
    (4, 8, "arxiv:hep-th.XX/9901001", "arxiv", "hep-th.XX/9901001", None),
    (5, 8, "arxiv:hep-th/9901001", "arxiv", "hep-th/9901001", None),  # the guild has it already
]


def _at_0026(connection: Connection) -> None:
    config = alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, "0026")
    for paper_id, guild, key, kind, arxiv_id, doi in ROWS:
        connection.execute(
            text(
                "INSERT INTO papers (id, guild_id, key, kind, title, normalized_title, url, arxiv_id, doi, "
                "created_at, enrich_failures) VALUES (:id, :guild, :key, :kind, :key, :key, :url, :arxiv, "
                ":doi, CURRENT_TIMESTAMP, 0)"
            ),
            {
                "id": paper_id,
                "guild": guild,
                "key": key,
                "kind": kind,
                "url": f"https://arxiv.org/abs/{arxiv_id}" if arxiv_id else None,
                "arxiv": arxiv_id,
                "doi": doi,
            },
        )


async def test_ids_are_rewritten_as_their_sources_write_them(store_info: StoreInfo) -> None:
    engine = store_info.engine()
    try:
        async with engine.begin() as conn:
            await conn.run_sync(_at_0026)
        await upgrade_database(engine)
        async with engine.connect() as conn:
            rows = (
                await conn.execute(text("SELECT id, key, arxiv_id, doi, url FROM papers ORDER BY id"))
            ).all()
    finally:
        await engine.dispose()
    assert [tuple(row) for row in rows] == [
        (1, "arxiv:math/0309136", "math/0309136", None, "https://arxiv.org/abs/math/0309136"),
        (2, "doi:10.18653/v1/2020.acl-main.1", None, "10.18653/v1/2020.acl-main.1", None),
        (
            3,
            "arxiv:2401.12345",
            "2401.12345",
            "10.48550/arxiv.2401.12345",
            "https://arxiv.org/abs/2401.12345",
        ),
        (4, "arxiv:hep-th.XX/9901001", "hep-th.XX/9901001", None, "https://arxiv.org/abs/hep-th.XX/9901001"),
        (5, "arxiv:hep-th/9901001", "hep-th/9901001", None, "https://arxiv.org/abs/hep-th/9901001"),
    ]
