"""`paperclub demo` runs offline and prints its tour."""

from __future__ import annotations

import io

from bot.demo.runner import discover_tours, run_demo


async def test_demo_prints_the_tour() -> None:
    out = io.StringIO()
    assert await run_demo(out=out) == 0
    text = out.getvalue()
    assert "@Adam uses /setup ping_role role:@Readers" in text
    assert "Only members with Manage Server can change the club's settings." in text
    assert "Demo finished" in text
    assert "Traceback" not in text


def test_tours_are_ordered() -> None:
    orders = [getattr(m, "ORDER", 100) for m in discover_tours()]
    assert orders == sorted(orders)
    assert orders[0] == 10
