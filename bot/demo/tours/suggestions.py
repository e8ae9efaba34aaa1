"""Tour: two members suggest one paper by different links, members vote, an organizer accepts it."""

from __future__ import annotations

from sqlalchemy import func, select

from bot.demo.stage import Demo
from bot.services.suggestions.queries import card_by_id
from db.models.suggestions import Suggestion
from standin.state import Message

ORDER = 40

ARXIV_ID = "2406.12045"
TITLE = "τ-bench: A Benchmark for Tool-Agent-User Interaction in Real-World Domains"


async def _post(demo: Demo, suggestion_id: int) -> Message:
    async with demo.bot.session_factory() as session:
        card = await card_by_id(session, suggestion_id)
    return demo.message(card.message_id if card else None, f"post of suggestion #{suggestion_id}")


async def tour(demo: Demo) -> None:
    """Suggest a paper twice by different links, vote, shortlist and accept it."""
    arxiv = demo.env.arxiv  # the demo's arXiv is local
    arxiv.add(
        ARXIV_ID,
        TITLE,
        ["Shunyu Yao", "Noah Shinn", "Pedram Razavi", "Karthik Narasimhan"],
        "Existing benchmarks do not test language agents on their interaction with human users or their "
        "ability to follow domain-specific rules. We propose τ-bench, emulating dynamic conversations "
        "between a user simulated by language models and a language agent provided with API tools.",
        "2024-06-17T17:42:00Z",
    )
    arxiv.add(
        "2506.07982",
        "τ²-Bench: Evaluating Conversational Agents in a Dual-Control Environment",
        ["Victor Barres", "Honghua Dong", "Soham Ray", "Xujie Si", "Karthik Narasimhan"],
        "Existing benchmarks for conversational AI agents simulate single-control environments, where only "
        "the AI agent can use tools to interact with the world, while the user remains a passive "
        "information provider. We introduce τ²-bench, where both agent and user act.",
        "2025-06-09T17:52:00Z",
    )
    rita, sam, tom = demo.members[:3]
    demo.narrate(
        "Rita suggests a paper by its arXiv link; the bot fetches its details and posts it in #suggestions"
    )
    await demo.invoke(
        "suggest paper",
        {
            "paper": f"https://arxiv.org/abs/{ARXIV_ID}",
            "why": "The user-simulator half of Tau2-Bench starts here.",
            "topic": "user simulators",
        },
        member=rita,
    )
    suggestion_id = await demo.stored(select(func.max(Suggestion.id)), "found no suggestion in the store")
    post = await _post(demo, suggestion_id)
    demo.show(post, "the forum post in #suggestions, tagged “user simulators”")

    demo.narrate("Sam suggests the same paper by its PDF link: a duplicate, so his vote goes to Rita's")
    await demo.invoke("suggest paper", {"paper": f"arxiv.org/pdf/{ARXIV_ID}v2"}, member=sam)

    demo.narrate("Tom upvotes it on the post, and offers to present it")
    await demo.click(post, f"sugg:vote:{suggestion_id}", member=tom, label="👍 Upvote")
    await demo.click(post, f"sugg:present:{suggestion_id}", member=tom, label="🎤 I'd present this")

    demo.narrate("An organizer shortlists it, then accepts it; Rita hears by DM and the post changes")
    await demo.invoke(
        "organize suggestions review",
        {"suggestion": str(suggestion_id), "decision": "shortlist", "note": "For the user-simulator session"},
    )
    await demo.invoke("organize suggestions review", {"suggestion": str(suggestion_id), "decision": "accept"})
    demo.show(demo.dm_messages(rita)[-1])
    demo.show(await _post(demo, suggestion_id), "the post now")
    await demo.invoke("suggest list", member=sam)

    demo.narrate(
        "Sam shares a paper in #general; Tom right-clicks his message → Apps → Suggest this paper, and the "
        "form comes filled with its link; he ticks I'd present this"
    )
    shared = await demo.post_as(
        sam, demo.general, "Has anyone read this? https://arxiv.org/abs/2506.07982 — user sims for agents"
    )
    opened = await demo.message_command("Suggest this paper", shared, member=tom)
    await demo.submit_modal(opened, {"why": "The sequel: the user acts too.", "volunteer": True}, member=tom)
    latest = await demo.stored(select(func.max(Suggestion.id)), "found no suggestion in the store")
    demo.show(await _post(demo, latest), "Tom's suggestion, linking back to Sam's message")
