"""Tour: the title-only "TMax" resolved with /organize paper resolve (remembered), then its card."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from bot.demo.stage import Demo
from db.models import Paper
from standin.huggingface import repo

ORDER = 75  # after the programme's import (reading, 70), which brings the title-only "TMax"

TMAX = "Tmax: A simple recipe for terminal agents"
TMAX_ID = "2606.23321"
TMAX_AUTHORS = "Hamish Ivison, Junjie Oscar Yin, Rulin Shao, Teng Xiao, Nathan Lambert, Hannaneh Hajishirzi"


async def tour(demo: Demo) -> None:
    """Tour: a title-only name resolved with /organize paper resolve, then the paper's card with the sources filled."""
    # what the local sources know of TMax (the counts are the demo's own)
    demo.env.arxiv.add(
        TMAX_ID,
        TMAX,
        TMAX_AUTHORS.split(", "),
        "An open RL recipe for terminal agents: generated terminal environments, outcome-only rewards, and "
        "open data, models and code.",
        "2026-06-22T13:32:52Z",
    )
    demo.env.semantic_scholar.add(
        "tmax-demo",
        TMAX,
        arxiv_id=TMAX_ID,
        year=2026,
        authors=TMAX_AUTHORS.split(", "),
        tldr="Generated terminal environments and a simple outcome-only RL recipe train a 9B terminal agent "
        "that beats much larger open models on Terminal-Bench 2.0.",
        citation_count=12,
        influential_citation_count=2,
        open_access_pdf=f"https://arxiv.org/pdf/{TMAX_ID}",
    )
    demo.env.huggingface.add(
        TMAX_ID,
        TMAX,
        authors=TMAX_AUTHORS.split(", "),
        upvotes=30,
        github_repo="https://github.com/hamishivi/tmax",
        published_at="2026-06-22T13:32:52.000Z",
        models=[repo("allenai/tmax-8b", likes=20), repo("allenai/tmax-sft-8b", likes=5)],
    )

    demo.narrate("The programme names a paper only as “TMax”: an organizer asks which paper that is")
    offered = await (await demo.invoke("organize paper resolve", {"paper": "TMax"})).final()
    await demo.press(offered, "paper:resolve:0")
    tmax = (Paper.guild_id == demo.guild.id, Paper.arxiv_id == TMAX_ID)
    await demo.stored(select(Paper.id).where(*tmax), "left “TMax” without its arXiv id")

    demo.narrate("The next time, the name resolves at once (no source is asked)")
    await demo.invoke("organize paper resolve", {"paper": "tmax"})

    demo.narrate("Seconds later the sources' answers have landed: anyone can look at the paper's card")
    await demo.clock.advance(timedelta(seconds=5))  # the pick made the papers.enrich job due at once
    await demo.invoke("paper show", {"paper": "TMax"}, member=demo.members[0])
    await demo.stored(select(Paper.tldr).where(*tmax), "found no TLDR from Semantic Scholar on the paper")
