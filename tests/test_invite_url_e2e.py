"""`paperclub invite-url` as a user runs it (a separate process): the application id from the token's
GET /oauth2/applications/@me on the stand-in, or --client-id without a token; exactly the required set."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from bot.permissions import REQUIRED_PERMISSIONS, invite_url
from standin.server import StandIn

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GabcDE.abcdefghijklmnopqrstuvwxyz0123456789AB"


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}",
        "ARXIV_API_URL": "http://127.0.0.1:9/api/query",
        "LOG_LEVEL": "DEBUG",
        **extra,
    }


async def _run(args: list[str], env: dict[str, str], cwd: Path) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        *args,
        env=env,
        cwd=cwd,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout=60)
    except TimeoutError:
        proc.kill()
        out, err = await proc.communicate()
        raise AssertionError(f"paperclub {' '.join(args)} did not exit:\n{err.decode()[-3000:]}") from None
    return proc.returncode or 0, out.decode(), err.decode()


async def test_invite_url_reads_the_application_id_with_the_token(tmp_path: Path) -> None:
    async with StandIn(bot_permissions=REQUIRED_PERMISSIONS.value) as standin:
        env = _env(tmp_path, DISCORD_TOKEN=TOKEN, DISCORD_API_BASE=standin.base_url)
        code, out, err = await _run(["invite-url"], env, tmp_path)
        assert code == 0, err
        assert out == invite_url(standin.state.application_id) + "\n"
        assert f"permissions={REQUIRED_PERMISSIONS.value}" in out
        (asked,) = standin.requests_to("GET", r"^/oauth2/applications/@me$")
        assert asked.status == 200
        assert TOKEN not in out + err  # even at DEBUG
        assert "WARNING" not in err  # no "Guilds intent seems to be disabled" from discord.py


async def test_invite_url_with_a_client_id_needs_no_token(tmp_path: Path) -> None:
    code, out, err = await _run(["invite-url", "--client-id", "1234567890123"], _env(tmp_path), tmp_path)
    assert code == 0, err
    assert out == invite_url(1234567890123) + "\n"


async def test_invite_url_refuses_what_is_not_an_id_and_a_missing_token(tmp_path: Path) -> None:
    for bad in ("-5", "abc", "²", str(1 << 64)):
        code, out, err = await _run(["invite-url", "--client-id", bad], _env(tmp_path), tmp_path)
        assert code == 2, (bad, out, err)
        assert "is not an application id" in err, bad
        assert out == ""
    code, out, err = await _run(["invite-url"], _env(tmp_path), tmp_path)
    assert code == 2, (out, err)
    assert err.startswith("paperclub: invite-url needs the bot's application id: pass it with --client-id ID")
    assert "General Information → Application ID" in err
    assert "DISCORD_TOKEN" in err
    assert "Traceback" not in err
    assert out == ""
