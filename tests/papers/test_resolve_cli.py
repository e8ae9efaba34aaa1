"""``paperclub papers resolve`` as a user runs it (a separate process) against Hugging Face's stand-in: after
``paperclub import examples/club.yaml``, ``--auto`` resolves only the unambiguous name; the walk reads its
answers from the terminal."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from standin.huggingface import HuggingFaceStandin

ROOT = Path(__file__).resolve().parents[2]
GUILD = "616161"
TMAX = "TMax: Scaling Terminal Agents with Reinforcement Learning"


def _env(hf: HuggingFaceStandin, tmp_path: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}",
        "PAPER_SOURCES": "huggingface",
        "HUGGINGFACE_API_URL": hf.url,
        "ARXIV_API_URL": "http://127.0.0.1:9/api/query",  # never asked (off), never the network
    }


async def _run(args: list[str], env: dict[str, str], stdin: str = "") -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        *args,
        env=env,
        cwd=ROOT,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(stdin.encode()), timeout=120)
    return proc.returncode or 0, out.decode(), err.decode()


async def test_auto_then_the_walk_from_the_terminal(tmp_path: Path) -> None:
    async with HuggingFaceStandin() as hf:
        hf.add("2511.00001", TMAX)
        hf.add("2511.00004", "Terminal-World: Benchmarking Terminal Agents")
        hf.add("2511.00005", "Terminal World Models: Many Terminals")
        env = _env(hf, tmp_path)
        code, _, err = await _run(["import", str(ROOT / "examples" / "club.yaml"), "--guild", GUILD], env)
        assert code == 0, err
        code, out, err = await _run(["papers", "resolve", "--guild", GUILD, "--auto"], env)
        assert code == 0, err
        assert f"resolved: {TMAX!r} (arXiv:2511.00001)" in out
        assert "'Terminal-World'\n  skipped: ambiguous: next match" in out
        assert out.rstrip().endswith("1 resolved, 0 marked none of these, 32 skipped")
        code, out, err = await _run(["papers", "resolve", "--guild", GUILD], env, stdin="1\n")
        assert code == 0, err
        assert "'TMax'" not in out  # remembered: not offered again
        assert "  1. Terminal-World: Benchmarking Terminal Agents" in out
        assert "resolved: 'Terminal-World: Benchmarking Terminal Agents'" in out
        assert out.rstrip().endswith("1 resolved, 0 marked none of these, 31 skipped")
