"""Tour: an organizer adds and announces the demo session; members use its buttons; one may not cancel."""

from __future__ import annotations

from bot.demo import readable
from bot.demo.stage import Demo
from bot.services.sessions.info import SCHEDULED
from bot.services.sessions.members import is_subscribed

ORDER = 20

TITLE = "Demo session: agents in real software"
SIGNUP = "https://lu.ma/paperclub"
SWE_BENCH = "2310.06770"
SWE_BENCH_TITLE = "SWE-bench: Can Language Models Resolve Real-World GitHub Issues?"
SWE_BENCH_AUTHORS = (
    "Carlos E. Jimenez, John Yang, Alexander Wettig, Shunyu Yao, Kexin Pei, Ofir Press, Karthik Narasimhan"
)
OSWORLD = "2404.07972"
OSWORLD_TITLE = "OSWorld: Benchmarking Multimodal Agents for Open-Ended Tasks in Real Computer Environments"
OSWORLD_AUTHORS = (
    "Tianbao Xie, Danyang Zhang, Jixuan Chen, Xiaochuan Li, Siheng Zhao, Ruisheng Cao, "
    "Toh Jing Hua, Zhoujun Cheng, Dongchan Shin, Fangyu Lei, Yitao Liu, Yiheng Xu, Shuyan Zhou, "
    "Silvio Savarese, Caiming Xiong, Victor Zhong, Tao Yu"
)


async def tour(demo: Demo) -> None:
    """Add and announce the demo session; members use its buttons, list what is coming, may not cancel."""
    # what the local sources know of the session's two papers
    demo.env.arxiv.add(
        SWE_BENCH,
        SWE_BENCH_TITLE,
        SWE_BENCH_AUTHORS.split(", "),
        "2,294 software engineering problems from real GitHub issues and their pull requests in 12 Python "
        "repositories: given the codebase and the issue, a model edits the code until the tests pass.",
        "2023-10-10T17:59:00Z",
    )
    demo.env.arxiv.add(
        OSWORLD,
        OSWORLD_TITLE,
        OSWORLD_AUTHORS.split(", "),
        "A real computer environment (Ubuntu, Windows, macOS) with 369 tasks over web and desktop apps, each "
        "with its own set-up and an execution-based check of the result.",
        "2024-04-11T17:56:00Z",
    )
    demo.env.openreview.add_submission(
        "VTF8yNQM66",
        SWE_BENCH_TITLE,
        venue="ICLR 2024 oral",
        venue_id="ICLR.cc/2024/Conference",
        decision="Accept (oral)",
        authors=SWE_BENCH_AUTHORS.split(", "),
    )

    rita, sam, tom = demo.members[:3]

    demo.narrate(
        "An organizer adds the demo's session for Thursday at 9:30 AM club time: two papers given by their "
        "arXiv ids, which arXiv turns into titles"
    )
    await demo.invoke(
        "organize session add",
        {
            "title": TITLE,
            "when": "Thursday 9:30am",
            "presenter": sam,
            "papers": f"arXiv:{SWE_BENCH}\narXiv:{OSWORLD}",
            "signup_url": SIGNUP,
            "description": "Two benchmarks where agents work in real repositories and on real desktops.",
        },
    )
    info = await demo.session_titled(TITLE)
    if [p.title for p in info.papers] != [SWE_BENCH_TITLE, OSWORLD_TITLE]:
        demo.fail(f"stored the papers as {[p.title for p in info.papers]}, not with arXiv's titles")

    demo.narrate(
        "…and announces it: every reader sees the club's three zones and their own time, with Sign up, "
        "Remind me, Keep me out of the recording, Ask the presenter and Add to calendar; the post opens a "
        "discussion thread, and the session has its Discord event"
    )
    await demo.invoke("organize session announce", {"session": info.id})
    info = await demo.session(info.id)
    announcement = demo.message(info.announcement_message_id, "announcement of the session")
    for wanted in (SIGNUP, *(f"session:{kind}:{info.id}" for kind in ("remind", "out", "ask", "ics"))):
        demo.button(announcement, wanted)
    demo.show(announcement, "#announcements")
    thread = demo.channel(info.thread_id, "discussion thread on the announcement")
    if sam.id not in thread.thread_members:
        demo.fail("did not add the presenter to the discussion thread")
    demo.show(f"  (@{sam.display_name}, the presenter, is added to the thread)")
    event = next((e for e in demo.scheduled_events() if int(e["id"]) == info.event_id), None)
    if event is None:
        demo.fail("found no Discord event for the session")
    starts = readable.timestamp_text(int(info.starts_at.timestamp()), "F", demo.clock.now())
    where = (event.get("entity_metadata") or {}).get("location")
    demo.show(f"  📅 {event['name']}\n     {starts} · {where}", "the server's Events")

    demo.narrate("Rita presses Remind me, then Add to calendar (each answer only her)")
    await demo.press(announcement, f"session:remind:{info.id}", member=rita)
    async with demo.bot.session_factory() as db:
        if not await is_subscribed(db, info.id, rita.id):
            demo.fail("left Rita without a reminder")
    await demo.press(announcement, f"session:ics:{info.id}", member=rita)

    demo.narrate(
        "Tom asks to stay out of the recording: only he sees the answer, and Sam gets his name by DM"
    )
    await demo.press(announcement, f"session:out:{info.id}", member=tom)

    demo.narrate(
        "Tom lists what is coming; Rita tries to cancel the session and is refused (Discord hides /organize "
        "from members; the bot checks too)"
    )
    await demo.invoke("session list", member=tom)
    await demo.invoke("organize session cancel", {"session": info.id}, member=rita)
    if (await demo.session(info.id)).status != SCHEDULED:
        demo.fail("let a member cancel the session")
