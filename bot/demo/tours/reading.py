"""Tour: the club's programme imported, then "have we read it?", history, a reading list and its BibTeX."""

from __future__ import annotations

from datetime import UTC, datetime
from importlib import resources

from bot.demo.stage import Demo
from bot.services.programme.files import import_text

ORDER = 70  # after the other features' tours: the import then merges with whatever they created


def club_programme() -> str:
    """The club's programme as shipped in the package (so the demo works from any install)."""
    return resources.files("bot.demo").joinpath("club.yaml").read_text(encoding="utf-8")


AFTER_THE_PROGRAMME = datetime(2026, 11, 30, 17, 0, tzinfo=UTC)


async def tour(demo: Demo) -> None:
    """Import the club's programme, search what was read, build a reading list and export it."""
    demo.narrate("An operator imports the club's real programme, examples/club.yaml, into the server")
    if demo.clock.now() < AFTER_THE_PROGRAMME:
        await demo.clock.set(AFTER_THE_PROGRAMME)  # both November sessions have taken place
    text = club_programme()
    guild_id, report = await import_text(
        demo.bot.session_factory, text, suffix=".yaml", guild_id=demo.guild.id
    )
    demo.show(f"  $ paperclub import examples/club.yaml --guild {guild_id}")
    demo.show(f"  imported examples/club.yaml: {report.summary(guild_id)}")

    demo.narrate("A member asks whether the club has read AutoEnv, then browses the history")
    await demo.invoke("reading search", {"query": "AutoEnv"}, member=demo.member)
    page = await (await demo.invoke("reading history", member=demo.member)).final()
    # bot/paging.py: the pages' buttons carry pg:<name>:<arg>:<page>:<p|n>
    await demo.press(page, "pg:reading_history::1:n", member=demo.member)

    demo.narrate(
        "An organizer puts two papers on a new reading list; a member who tries is refused (Discord hides "
        "/organize from members)"
    )
    for member, added in (
        (
            demo.organizer,
            {"paper": "Mind the Sim2Real Gap", "note": "Do simulated users behave like real ones?"},
        ),
        (demo.organizer, {"paper": "https://arxiv.org/abs/2406.12045", "note": "τ-bench"}),
        (demo.member, {"paper": "OMNI"}),
    ):
        await demo.invoke("organize reading add", {"list": "User simulators", **added}, member=member)
    await demo.invoke("reading show", {"list": "User simulators"}, member=demo.member)

    demo.narrate("A member exports the list as BibTeX")
    result = await demo.invoke(
        "reading export", {"format": "bibtex", "list": "User simulators"}, member=demo.member
    )
    final = await result.final()
    bibtex = final.file("user-simulators.bib").decode()
    demo.show("\n".join("  │ " + line for line in bibtex.splitlines()), title="user-simulators.bib")
