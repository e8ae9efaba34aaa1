"""`paperclub data delete --guild ID [--dry-run]` and `paperclub data export --guild ID --user ID` on both
stores: what would go, all of one server and nothing of another, a member's data as JSON; a server the
store does not know is said so and nothing is touched."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from bot.cli import main
from bot.services.privacy import servers
from bot.services.privacy.kinds import MEMBER_KINDS
from db.engine import create_engine, create_session_factory
from tests.conftest import StoreInfo
from tests.privacy.seed import seed

G1, G2, UNKNOWN = 9301, 9302, 9399
RITA, SAM = 701, 702


def _run(work: Any) -> Any:
    return asyncio.run(work)


async def _seeded(url: str) -> None:
    engine = create_engine(url)
    try:
        async with create_session_factory(engine)() as session, session.begin():
            await seed(session, G1, RITA, SAM)
            await seed(session, G2, RITA, SAM)
    finally:
        await engine.dispose()


async def _holdings(url: str) -> dict[int, dict[str, int]]:
    engine = create_engine(url)
    try:
        async with create_session_factory(engine)() as session:
            return {g: await servers.holdings(session, g) for g in (G1, G2)}
    finally:
        await engine.dispose()


@pytest.fixture
def store(store_info: StoreInfo, monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> str:
    monkeypatch.chdir(tmp_path)  # no stray .env
    monkeypatch.delenv("LOG_LEVEL", raising=False)
    monkeypatch.setenv("DATABASE_URL", store_info.url)
    _run(_seeded(store_info.url))
    return store_info.url


def test_delete_a_server_after_a_dry_run(store: str, capsys: pytest.CaptureFixture[str]) -> None:
    before = _run(_holdings(store))
    assert main(["data", "delete", "--guild", str(G1), "--dry-run"]) == 0
    said = capsys.readouterr().out
    assert said.startswith(f"would delete from server {G1}: ")
    assert f"{before[G1]['sessions']} sessions" in said
    assert "(nothing deleted: --dry-run)" in said
    assert _run(_holdings(store)) == before
    assert main(["data", "delete", "--guild", str(G1)]) == 0
    assert capsys.readouterr().out.startswith(f"deleted every row of server {G1}: ")
    assert _run(_holdings(store)) == {G1: {}, G2: before[G2]}
    assert main(["data", "delete", "--guild", str(G1)]) == 1  # nothing left of it: said so
    assert f"the store holds nothing of server {G1}" in capsys.readouterr().err


def test_a_server_the_store_does_not_know(store: str, capsys: pytest.CaptureFixture[str]) -> None:
    before = _run(_holdings(store))
    for command in (["delete"], ["delete", "--dry-run"], ["export", "--user", str(RITA)]):
        assert main(["data", *command, "--guild", str(UNKNOWN)]) == 1
        err = capsys.readouterr().err
        assert err.strip() == (
            f"paperclub: the store holds nothing of server {UNKNOWN}: nothing was touched (check the id: "
            "Developer Mode → right-click the server → Copy Server ID)"
        )
    assert _run(_holdings(store)) == before
    with pytest.raises(SystemExit) as usage:
        main(["data", "export", "--guild", str(G1), "--user", "rita"])
    assert usage.value.code == 2
    assert "not a user id: 'rita'" in capsys.readouterr().err


def test_export_a_members_data_as_json(store: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["data", "export", "--guild", str(G1), "--user", str(RITA)]) == 0
    exported = json.loads(capsys.readouterr().out)
    assert (exported["guild_id"], exported["user_id"]) == (str(G1), str(RITA))
    assert [k["kind"] for k in exported["kinds"]] == [kind.name for kind in MEMBER_KINDS]
    rows = {k["kind"]: k["rows"] for k in exported["kinds"]}
    assert rows["Votes"]
    assert {r["user_id"] for r in rows["Votes"]} == {RITA}
    assert {r["guild_id"] for r in rows["Suggestions"]} == {G1}
    assert {r["submitter_id"] for r in rows["Suggestions"]} == {RITA}
    assert main(["data", "export", "--guild", str(G1), "--user", "999"]) == 0  # nobody's: empty rows
    assert all(k["rows"] == [] for k in json.loads(capsys.readouterr().out)["kinds"])
