"""The CLI's Discord commands against the stand-in, as separate processes (the way a user runs them)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from bot.permissions import REQUIRED_PERMISSIONS
from standin.server import StandIn
from tests.cards import card_title

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GabcDE.abcdefghijklmnopqrstuvwxyz0123456789AB"


def _env(standin: StandIn, tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "DISCORD_TOKEN": TOKEN,
        "DISCORD_API_BASE": standin.base_url,
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}",
        "LOG_LEVEL": "DEBUG",
        # Nothing leaves this machine: arXiv at a closed local port (the CLI commands here never need it).
        "ARXIV_API_URL": "http://127.0.0.1:9/api/query",
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
        raise AssertionError(
            f"paperclub {' '.join(args)} did not exit; its log ends:\n{err.decode()[-3000:]}"
        ) from None
    return proc.returncode or 0, out.decode(), err.decode()


async def test_sync_commands_pushes_the_tree(tmp_path: Path) -> None:
    async with StandIn(bot_permissions=REQUIRED_PERMISSIONS.value) as standin:
        await standin.create_default_guild()
        code, out, err = await _run(["sync-commands"], _env(standin, tmp_path), tmp_path)
        assert code == 0, err
        assert out.startswith("synced ")
        names = {c["name"] for c in standin.commands()}
        assert "setup" in names
        assert TOKEN not in out + err  # even at DEBUG


async def test_run_answers_commands_and_never_logs_the_token(tmp_path: Path) -> None:
    async with StandIn(bot_permissions=REQUIRED_PERMISSIONS.value) as standin:
        world = await standin.create_default_guild()
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            "run",
            env=_env(standin, tmp_path),
            cwd=tmp_path,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            await standin.wait_until(lambda: bool(standin.commands()), timeout=60)
            await standin.wait_connected(timeout=30)
            result = await standin.invoke("setup show", member=world.admin)
            response = await result.response(timeout=30)
            assert card_title(response) == "Paper club settings"
            seen: list[str] = []
            assert proc.stderr is not None
            while not any("interaction command=setup show" in line for line in seen):
                raw = await asyncio.wait_for(proc.stderr.readline(), timeout=30)
                assert raw, "the bot exited early:\n" + "".join(seen)
                seen.append(raw.decode())
        finally:
            out, err = await _stopped(proc)
        logs = "".join(seen) + out.decode() + err.decode()
        assert "outcome=ok" in logs
        assert TOKEN not in logs
        assert "aiosqlite" not in logs  # LOG_LEVEL=DEBUG is the bot's debug log, not every statement


async def _run_until_answered(standin: StandIn, env: dict[str, str], cwd: Path) -> str:
    """`paperclub run` until it answered /setup show; returns its log."""
    world = await standin.create_default_guild()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "run", env=env, cwd=cwd, stderr=asyncio.subprocess.PIPE
    )
    try:
        await standin.wait_until(lambda: bool(standin.commands()), timeout=60)
        await standin.wait_connected(timeout=30)
        result = await standin.invoke("setup show", member=world.admin)
        response = await result.response(timeout=30)
        assert card_title(response) == "Paper club settings"
    finally:
        _, err = await _stopped(proc)
    return err.decode()


async def _stopped(proc: asyncio.subprocess.Process) -> tuple[bytes, bytes]:
    """SIGTERM, as systemd stops the bot: it must exit within 30 s (else it is killed, and the test fails
    without leaving the process behind)."""
    proc.terminate()
    try:
        return await asyncio.wait_for(proc.communicate(), timeout=30)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise AssertionError("paperclub run did not exit within 30 s of SIGTERM") from None


async def test_run_with_a_versioned_base_finds_the_announced_gateway(tmp_path: Path) -> None:
    """DISCORD_API_BASE in discord.py's own form, and a gateway that is only where GET /gateway says."""
    async with StandIn(gateway_path="/elsewhere/") as standin:
        env = _env(standin, tmp_path, DISCORD_API_BASE=f"{standin.base_url}/api/v10", LOG_LEVEL="INFO")
        logs = await _run_until_answered(standin, env, tmp_path)
    assert f"gateway from GET {standin.base_url}/api/v10/gateway: {standin.gateway_url}" in logs
    # the start is quiet: no voice-library warnings (the bot uses no voice), no alembic lines
    assert "PyNaCl" not in logs
    assert "davey" not in logs
    assert "alembic" not in logs
    assert "WARNING" not in logs


@pytest.mark.parametrize("command", ["run", "sync-commands"])
async def test_dev_guild_the_bot_is_not_in_is_one_line(command: str, tmp_path: Path) -> None:
    async with StandIn() as standin:
        await standin.create_default_guild()
        code, out, err = await _run([command], _env(standin, tmp_path, DEV_GUILD_ID="999"), tmp_path)
    assert code == 2
    assert "Traceback" not in out + err
    last = err.strip().splitlines()[-1]
    assert last.startswith("paperclub: DEV_GUILD_ID is 999, but the bot cannot sync commands to that server")
    assert last.endswith("or unset DEV_GUILD_ID.")


@pytest.mark.parametrize("command", ["run", "sync-commands"])
async def test_unreachable_discord_is_one_line(command: str, tmp_path: Path) -> None:
    async with StandIn() as standin:  # only for its address: the bot is sent to a closed port instead
        env = _env(standin, tmp_path, DISCORD_API_BASE="http://127.0.0.1:9", LOG_LEVEL="ERROR")
    code, out, err = await _run([command], env, tmp_path)
    assert code == 1
    assert err.count("\n") == 1, err
    assert err.startswith(
        "paperclub: cannot reach the Discord API at http://127.0.0.1:9/api/v10 (DISCORD_API_BASE) ("
    )
    assert err.rstrip().endswith("check DISCORD_API_BASE and that the server is running.")
    assert "DATABASE_URL" not in err
    assert TOKEN not in out + err
