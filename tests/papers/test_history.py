"""The club's history with a paper (bot/services/papers/queries.py), read by /paper show and the paper's page:
papers have roles only where someone gave them (`vs`, `against:`, the edit form); otherwise they were read
together, and nothing says one was read against another."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.services.papers.queries import SessionRead, paper_history
from bot.services.programme.files import import_text
from db.models import Paper

GUILD = 12
PROGRAMME = """\
sessions:
  - title: Verifiers and trustworthy evals
    starts_at: 2026-05-19
    papers: [SWE-Bench Verified, OSWorld-Verified, ComputerRL]
  - title: Tool-graph environment synthesis
    starts_at: 2026-04-07
    papers: [Tau-Bench, Tau2-Bench]
    against: [AutoForge, ScaleEnv]
"""


async def _read(factory: async_sessionmaker[AsyncSession], title: str) -> SessionRead:
    async with factory() as session:
        paper_id = await session.scalar(select(Paper.id).where(Paper.title == title))
        assert paper_id is not None
        (read,) = (await paper_history(session, GUILD, paper_id)).sessions
    return read


async def test_roles_only_where_given(session_factory: async_sessionmaker[AsyncSession]) -> None:
    await import_text(session_factory, PROGRAMME, suffix=".yaml", guild_id=GUILD)
    osworld = await _read(session_factory, "OSWorld-Verified")  # no roles: read with the others
    assert tuple(t for _, t in osworld.against) == ()
    assert tuple(t for _, t in osworld.together) == ("SWE-Bench Verified", "ComputerRL")
    assert osworld.main
    assert osworld.date_only
    first = await _read(session_factory, "SWE-Bench Verified")  # being first says nothing
    assert tuple(t for _, t in first.against) == ()
    assert tuple(t for _, t in first.together) == ("OSWorld-Verified", "ComputerRL")
    tau = await _read(
        session_factory, "Tau-Bench"
    )  # "Tau-Bench and Tau2-Bench against AutoForge and ScaleEnv"
    assert tau.main
    assert tuple(t for _, t in tau.against) == ("AutoForge", "ScaleEnv")
    assert tuple(t for _, t in tau.together) == ("Tau2-Bench",)
    forge = await _read(session_factory, "AutoForge")
    assert not forge.main
    assert tuple(t for _, t in forge.against) == ("Tau-Bench", "Tau2-Bench")
    assert tuple(t for _, t in forge.together) == ("ScaleEnv",)
