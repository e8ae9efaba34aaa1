"""Tour: a title-only paper of the imported programme ("TMax") resolved with /paper resolve; the pick is
remembered, so the second look answers at once; once the sources' answers land (arXiv, Semantic Scholar,
Hugging Face, and OpenReview found by the paper's title), /paper show's card."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from standin.huggingface import repo

ORDER = 75  # after the programme's import (reading, 70), which brings the title-only "TMax"

TMAX = "TMax: Scaling Terminal Agents with Reinforcement Learning"
TMAX_ID = "2511.00001"
LITE = "TMax Lite: Small Terminal Agents"


async def tour(demo: Any) -> None:
    """Tour: a paper card with every source filled, and a title-only name resolved with /paper resolve."""
    env = demo.env
    env.semantic_scholar.add(
        "s2tmax",
        TMAX,
        arxiv_id=TMAX_ID,
        year=2025,
        venue="ICLR",
        authors=["Hamish Ivison", "Ada Lovelace"],
        tldr="Terminal agents trained with RL on thousands of generated tasks beat their SFT teachers.",
        citation_count=38,
        influential_citation_count=6,
        open_access_pdf=f"https://arxiv.org/pdf/{TMAX_ID}",
    )
    env.semantic_scholar.add("s2lite", LITE, doi="10.5555/tmax-lite", year=2024, authors=["Alan Turing"])
    env.huggingface.add(
        TMAX_ID,
        TMAX,
        authors=["Hamish Ivison", "Ada Lovelace"],
        upvotes=41,
        github_repo="https://github.com/example/tmax",
        project_page="https://tmax.example.org/",
        models=[repo("example/tmax-7b", likes=40, downloads=9000), repo("example/tmax-1b", 3)],
        datasets=[repo("example/terminal-tasks", likes=12)],
    )
    env.arxiv.add(TMAX_ID, TMAX, ["Hamish Ivison", "Ada Lovelace"])
    env.openreview.add_submission(
        "tmaxForum26",
        TMAX,
        venue="ICLR 2026 Oral",
        venue_id="ICLR.cc/2026/Conference",
        decision="Accept (Oral)",
        reviews=["A review's text, which the bot never reads."],
        authors=["Hamish Ivison", "Ada Lovelace"],
    )

    demo.narrate("The programme names a paper only as “TMax”: an organizer asks which paper that is")
    offered = await (await demo.invoke("paper resolve", {"paper": "TMax"}, member=demo.organizer)).final()
    await demo.click(offered, "paper:resolve:0", member=demo.organizer, label="Pick 1")

    demo.narrate("The next time, the name resolves at once (no source is asked)")
    await demo.invoke("paper resolve", {"paper": "tmax"}, member=demo.organizer)

    demo.narrate("Two minutes later the sources' answers have landed: anyone can look at the paper's card")
    await demo.clock.advance(timedelta(minutes=2, seconds=1))  # the papers.enrich job's next slot
    await demo.invoke("paper show", {"paper": "TMax"}, member=demo.members[0])
