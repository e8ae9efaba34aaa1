"""Tour: a title-only paper of the imported programme ("TMax") resolved with /paper resolve; the pick is
remembered, so the second look answers at once."""

from __future__ import annotations

from typing import Any

ORDER = 75  # after the programme's import (reading, 70), which brings the title-only "TMax"

TMAX = "TMax: Scaling Terminal Agents with Reinforcement Learning"
TMAX_ID = "2511.00001"
LITE = "TMax Lite: Small Terminal Agents"


async def tour(demo: Any) -> None:
    """Tour: a paper card with every source filled, and a title-only name resolved with /paper resolve."""
    env = demo.env
    env.semantic_scholar.add(
        "s2tmax", TMAX, arxiv_id=TMAX_ID, year=2025, venue="ICLR", authors=["Hamish Ivison", "Ada Lovelace"]
    )
    env.semantic_scholar.add("s2lite", LITE, doi="10.5555/tmax-lite", year=2024, authors=["Alan Turing"])
    env.huggingface.add(TMAX_ID, TMAX, authors=["Hamish Ivison", "Ada Lovelace"])
    env.arxiv.add(TMAX_ID, TMAX, ["Hamish Ivison", "Ada Lovelace"])

    demo.narrate("The programme names a paper only as “TMax”: an organizer asks which paper that is")
    offered = await (await demo.invoke("paper resolve", {"paper": "TMax"}, member=demo.organizer)).final()
    await demo.click(offered, "paper:resolve:0", member=demo.organizer, label="Pick 1")

    demo.narrate("The next time, the name resolves at once (no source is asked)")
    await demo.invoke("paper resolve", {"paper": "tmax"}, member=demo.organizer)
