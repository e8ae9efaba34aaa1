"""bot/services/papers/resolve.py: the scoring of a name against titles, and the merge of the sources'
candidates into one per paper."""

from __future__ import annotations

from bot.services.papers.resolve import AUTO_MIN, Choice, is_unambiguous, rank, similarity
from bot.sources.http import Candidate


def candidate(source: str, title: str, **more: object) -> Candidate:
    return Candidate(
        source=source, source_id=str(more.pop("source_id", title)), title=title, authors=(), **more
    )  # type: ignore[arg-type]


def test_a_short_name_matches_the_title_before_its_colon() -> None:
    assert similarity("TMax", "TMax: Scaling Terminal Agents with RL") == 1.0
    assert similarity("tmax", "TMAX: scaling terminal agents") == 1.0
    assert similarity("Terminal-World", "TerminalWorld: A Benchmark for Terminal Agents") == 1.0
    assert similarity("A Benchmark for Terminal Agents", "A benchmark for terminal agents.") == 1.0
    assert similarity("TMax", "Maximum Likelihood Methods for Terminals") < 0.6


def test_a_number_the_title_lacks_halves_the_score() -> None:
    assert similarity("T1", "T1: Tool Use at Scale") == 1.0
    assert similarity("T1", "T2: Tool Use at Scale") <= 0.25
    assert similarity("GPT-4 report", "GPT-3 report") < 0.5


def test_empty_names_and_titles_score_nothing() -> None:
    assert similarity("", "A title") == 0.0
    assert similarity("!!!", "A title") == 0.0


def test_candidates_merge_by_arxiv_id_then_doi_then_title() -> None:
    found = [
        candidate("semantic_scholar", "TMax: Terminal RL", source_id="s2a", arxiv_id="2501.00001", year=2025),
        candidate("huggingface", "TMax: terminal RL", arxiv_id="2501.00001"),
        candidate(
            "arxiv", "TMax: Terminal RL", arxiv_id="2501.00001", url="https://arxiv.org/abs/2501.00001"
        ),
        candidate("semantic_scholar", "TMaxx: another one", source_id="s2b", doi="10.1/x"),
        candidate("arxiv", "TMaxx: Another One"),
    ]
    ranked = rank("TMax", found)
    assert len(ranked) == 2
    first = ranked[0]
    assert first.arxiv_id == "2501.00001"
    assert first.sources == ("semantic_scholar", "huggingface", "arxiv")
    assert first.s2_id == "s2a"
    assert first.year == 2025
    assert first.url == "https://arxiv.org/abs/2501.00001"
    assert first.score == 1.0
    assert ranked[1].doi == "10.1/x"
    assert ranked[1].sources == ("semantic_scholar", "arxiv")
    assert first.reference == "arXiv:2501.00001"
    assert ranked[1].reference == "doi:10.1/x"


def test_at_most_three_offered_and_weak_matches_dropped() -> None:
    found = [candidate("arxiv", f"TMax {n}: x", arxiv_id=f"2501.0000{n}") for n in range(6)]
    found.append(candidate("arxiv", "Completely unrelated words here", arxiv_id="2501.00009"))
    ranked = rank("TMax", found)
    assert len(ranked) == 3
    assert all("unrelated" not in c.title for c in ranked)


def test_ties_go_to_the_paper_more_sources_found() -> None:
    found = [
        candidate("semantic_scholar", "TMax: one", source_id="a"),
        candidate("huggingface", "TMax: two", arxiv_id="2501.00002"),
        candidate("arxiv", "TMax: two", arxiv_id="2501.00002"),
    ]
    assert rank("TMax", found)[0].arxiv_id == "2501.00002"


def choice(score: float) -> Choice:
    return Choice("t", (), None, None, None, None, None, None, ("arxiv",), score)


def test_unambiguous_means_one_strong_match_and_a_weak_next() -> None:
    assert is_unambiguous([choice(AUTO_MIN)])
    assert is_unambiguous([choice(1.0), choice(0.6)])
    assert not is_unambiguous([choice(1.0), choice(0.61)])
    assert not is_unambiguous([choice(0.89)])
    assert not is_unambiguous([])
