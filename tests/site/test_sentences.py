"""A session's sentence (bot/services/site/sentences.py): each thing said once, the club's own words kept,
roles only where the club gave them."""

from __future__ import annotations

from dataclasses import dataclass

from bot.services.site.sentences import Facts, Piece, one_paragraph, plain, sentence


@dataclass(frozen=True)
class P:
    title: str
    id: int | None
    against: bool = False


TMAX, WORLD, T1 = P("TMax", 1), P("Terminal-World", 2, True), P("T1", 3, True)


def said(**facts: object) -> str:
    return plain(
        one_paragraph(sentence(Facts(**{"presenter": None, "papers": (), "paragraphs": (), **facts})))
    )


def linked(**facts: object) -> list[tuple[str, int | None]]:
    pieces = one_paragraph(sentence(Facts(**{"presenter": None, "papers": (), "paragraphs": (), **facts})))
    return [(p.text, p.paper_id) for p in pieces if p.paper_id is not None]


def test_the_clubs_sentence_is_kept_and_its_papers_linked_once() -> None:
    text = (
        "Hamish Ivison presents TMax, read against Terminal-World and T1: where tasks come from; TMax again."
    )
    facts = {"presenter": "Hamish Ivison", "papers": (TMAX, WORLD, T1), "paragraphs": [text]}
    assert said(**facts) == text
    assert linked(**facts) == [("TMax", 1), ("Terminal-World", 2), ("T1", 3)]  # the first mention each


def test_what_the_description_leaves_out_is_said_before_it() -> None:
    tail = "where tasks come from."
    assert said(presenter="Hamish Ivison", papers=(TMAX, WORLD, T1), paragraphs=[tail]) == (
        "Hamish Ivison presents TMax, read against Terminal-World and T1: where tasks come from."
    )
    assert (
        said(
            presenter="Ada",
            papers=(P("Persimmon", 4), P("Turing-RL", 5)),
            paragraphs=["Persimmon and Turing-RL on training simulated users."],
        )
        == "Ada presents: Persimmon and Turing-RL on training simulated users."
    )
    # no roles given: together, never "read against"
    flat = (P("SWE-Bench Verified", 6), P("OSWorld-Verified", 7), P("ComputerRL", 8))
    assert said(papers=flat) == "SWE-Bench Verified, OSWorld-Verified and ComputerRL."
    assert said(presenter="Tom", papers=flat[:1]) == "Tom presents SWE-Bench Verified."


def test_a_retitled_paper_is_still_found_by_its_head_and_words_are_whole() -> None:
    resolved = P("TMax: Scaling Terminal Agents", 1)
    assert linked(papers=(resolved,), paragraphs=["TMax on terminal agents."]) == [("TMax", 1)]
    assert said(presenter="Sam", papers=(resolved, P("OSWorld: Benchmarking Agents", 2))) == (
        "Sam presents TMax and OSWorld."  # named by their heads; their pages give the whole titles
    )
    assert said(papers=(P("Env", 9),), paragraphs=["AutoEnv and Env-X, not the paper."]) == (
        "Env: AutoEnv and Env-X, not the paper."
    )


def test_a_week_of_a_series_says_what_it_lacks() -> None:
    assert said(open_week=True, invite="https://discord.gg/club") == (
        "Open — claim it in the Discord with “I'll present”."
    )
    pieces = one_paragraph(sentence(Facts(None, (), (), open_week=True, invite="https://discord.gg/club")))
    assert Piece("Discord", href="https://discord.gg/club") in pieces
    assert said(presenter="Tom", no_paper_yet=True) == "Tom presents (no paper yet)."
    assert said(papers=(TMAX,), open_week=True) == "TMax. Open — claim it in the Discord with “I'll present”."
