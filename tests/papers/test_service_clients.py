"""The services' own Python clients, pointed at our stand-ins, parse every answer the bot relies on: a shape
we invented would fail a client someone else wrote. huggingface_hub (paper info with its totals, the repo
lists by paper, paper search), openreview-py (API v2 and API v1 notes, search), semanticscholar (every
field it asks for by default, batch, title match), arxiv (the full Atom entry, an old-style id, the bare
throttle) and habanero (a Crossref work). The clients are synchronous: each runs in a thread while the
stand-in answers on the test's loop."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import arxiv as arxiv_py
import habanero
import huggingface_hub
import openreview as openreview_py
import pytest
import semanticscholar

from standin.arxiv import ArxivStandin
from standin.crossref import CrossrefStandin
from standin.huggingface import HuggingFaceStandin, repo
from standin.openreview import OpenReviewStandin
from standin.semantic_scholar import SemanticScholarStandin

TMAX = "TMax: Scaling Terminal Agents with Maximal Environments"


@pytest.fixture(autouse=True)
def no_outside_settings(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """No token, telemetry or cache of this machine's reaches the clients."""
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.delenv("HF_TOKEN", raising=False)
    for name in ("OPENREVIEW_USERNAME", "OPENREVIEW_PASSWORD", "OPENREVIEW_TOKEN"):
        monkeypatch.delenv(name, raising=False)


async def test_huggingface_hub_reads_the_paper_its_totals_and_the_repo_lists(
    huggingface: HuggingFaceStandin,
) -> None:
    huggingface.add(
        "2601.00001",
        TMAX,
        authors=["Hamish Ivison"],
        upvotes=87,
        github_repo="https://github.com/example/tmax",
        github_stars=1500,
        project_page="https://tmax.example.org/",
        models=[repo("example/tmax-7b", likes=40, downloads=9000), repo("a/b", 90), repo("c/d", 1)],
        datasets=[repo("example/terminal-tasks", likes=12)],
        spaces=[repo("example/tmax-demo", likes=5)],
        totals={"models": 130},
    )
    api = huggingface_hub.HfApi(endpoint=huggingface.url, token=False)
    info = await asyncio.to_thread(api.paper_info, "2601.00001")
    assert (info.id, info.title, info.upvotes) == ("2601.00001", TMAX, 87)
    assert (info.github_repo, info.github_stars, info.project_page) == (
        "https://github.com/example/tmax",
        1500,
        "https://tmax.example.org/",
    )
    assert (info.num_total_models, info.num_total_datasets) == (130, 1)
    assert info.numTotalSpaces == 1  # read by PaperInfo as a field it has no name for yet
    assert info.published_at == datetime(2026, 1, 2, 17, 59, 59, tzinfo=UTC)  # the month its id names
    assert [a.name for a in info.authors or []] == ["Hamish Ivison"]
    models = await asyncio.to_thread(
        lambda: list(api.list_models(filter="arxiv:2601.00001", sort="likes", limit=2))
    )
    assert [(m.id, m.likes) for m in models] == [("a/b", 90), ("example/tmax-7b", 40)]
    datasets = await asyncio.to_thread(lambda: list(api.list_datasets(filter="arxiv:2601.00001", limit=3)))
    assert [d.id for d in datasets] == ["example/terminal-tasks"]
    spaces = await asyncio.to_thread(lambda: list(api.list_spaces(filter="arxiv:2601.00001", limit=3)))
    assert [s.id for s in spaces] == ["example/tmax-demo"]
    found = await asyncio.to_thread(lambda: list(api.list_papers(query="TMax")))
    assert [(p.id, p.title) for p in found] == [("2601.00001", TMAX)]


async def test_openreview_py_reads_api_v2_and_api_v1(openreview: OpenReviewStandin) -> None:
    openreview.add_submission(
        "tmaxForum1",
        TMAX,
        venue="ICLR 2026 Oral",
        venue_id="ICLR.cc/2026/Conference",
        decision="Accept (Oral)",
    )
    openreview.add_submission(
        "iclr23Frm1",
        "Old But Gold",
        venue="ICLR 2023 poster",
        venue_id="ICLR.cc/2023/Conference",
        decision="Accept: poster",
    )
    v2 = openreview_py.api.OpenReviewClient(baseurl=openreview.url)
    notes = await asyncio.to_thread(v2.get_notes, forum="tmaxForum1")
    submission = next(n for n in notes if n.id == "tmaxForum1")
    assert submission.content["venue"]["value"] == "ICLR 2026 Oral"
    assert submission.content["venueid"]["value"] == "ICLR.cc/2026/Conference"
    decision = next(n for n in notes if any(i.endswith("/-/Decision") for i in n.invitations))
    assert decision.content["decision"]["value"] == "Accept (Oral)"
    hits = await asyncio.to_thread(v2.search_notes, term=TMAX, source="forum", limit=5)
    assert [n.id for n in hits] == ["tmaxForum1"]
    assert await asyncio.to_thread(v2.get_notes, forum="iclr23Frm1") == []  # v1's venue: not on v2

    v1 = openreview_py.Client(baseurl=openreview.v1_url)
    old = await asyncio.to_thread(v1.get_notes, forum="iclr23Frm1")
    submission = next(n for n in old if n.id == "iclr23Frm1")
    assert submission.invitation == "ICLR.cc/2023/Conference/-/Blind_Submission"
    assert (submission.content["venue"], submission.content["venueid"]) == (
        "ICLR 2023 poster",
        "ICLR.cc/2023/Conference",
    )
    decision = next(n for n in old if n.invitation.endswith("/-/Decision"))
    assert decision.content["decision"] == "Accept: poster"
    found = await asyncio.to_thread(v1.search_notes, term="Old But Gold", source="forum", limit=5)
    assert [n.id for n in found] == ["iclr23Frm1"]


async def test_semanticscholar_asks_every_default_field_and_parses_the_answers(
    semantic_scholar: SemanticScholarStandin,
) -> None:
    semantic_scholar.add(
        "a" * 40,
        TMAX,
        arxiv_id="2601.00001",
        doi="10.48550/arXiv.2601.00001",
        authors=["Hamish Ivison"],
        year=2026,
        venue="ICLR",
        publication_venue={
            "id": "v1",
            "name": "International Conference on Learning Representations",
            "type": "conference",
        },
        tldr="Terminal agents generalise.",
        citation_count=120,
        open_access_pdf="https://arxiv.org/pdf/2601.00001",
    )
    s2 = semanticscholar.SemanticScholar(api_url=semantic_scholar.url, retry=False)
    paper = await asyncio.to_thread(s2.get_paper, "ARXIV:2601.00001")  # the client's own field list
    assert (paper.paperId, paper.title, paper.year, paper.citationCount) == ("a" * 40, TMAX, 2026, 120)
    assert paper.tldr is not None
    assert paper.tldr.text == "Terminal agents generalise."
    assert paper.publicationVenue is not None
    assert paper.publicationVenue.name == "International Conference on Learning Representations"
    assert paper.openAccessPdf["url"] == "https://arxiv.org/pdf/2601.00001"
    assert paper.externalIds["DOI"] == "10.48550/ARXIV.2601.00001"  # upper-cased, as Semantic Scholar writes
    assert paper.citationStyles["bibtex"].startswith("@")
    assert paper.publicationTypes == ["JournalArticle"]
    assert paper.s2FieldsOfStudy[0]["category"] == "Computer Science"
    assert paper.fieldsOfStudy == ["Computer Science"]
    assert [a.name for a in paper.authors] == ["Hamish Ivison"]
    asked = semantic_scholar.requests[-1].query["fields"].split(",")
    assert {
        "citationStyles",
        "publicationTypes",
        "s2FieldsOfStudy",
        "authors.hIndex",
        "citations.title",
    } <= set(asked)
    batch = await asyncio.to_thread(s2.get_papers, ["ARXIV:2601.00001"])
    assert [p.paperId for p in batch] == ["a" * 40]
    match = await asyncio.to_thread(s2.search_paper, TMAX, match_title=True)
    assert match.paperId == "a" * 40


async def test_arxiv_py_reads_the_full_entry_and_meets_the_bare_throttle(arxiv: ArxivStandin) -> None:
    arxiv.add(
        "2406.12045",
        "Tau-Bench",
        ["Shunyu Yao"],
        "We propose tau-bench.",
        "2024-06-17T17:42:00Z",
        updated="2024-07-01T10:00:00Z",
        categories=["cs.AI", "cs.CL"],
        doi="10.48550/arXiv.2406.12045",
    )
    arxiv.add("math.GT/0309136", "Knots", ["C. Knot"], "", "2003-09-08T10:00:00Z")
    client = arxiv_py.Client(delay_seconds=0, num_retries=0)
    client.query_url_format = arxiv.url + "?{}"

    def fetch(*ids: str) -> list[arxiv_py.Result]:
        return list(client.results(arxiv_py.Search(id_list=list(ids))))

    (tau,) = await asyncio.to_thread(fetch, "2406.12045")
    assert (tau.get_short_id(), tau.title, [a.name for a in tau.authors]) == (
        "2406.12045v1",
        "Tau-Bench",
        ["Shunyu Yao"],
    )
    assert tau.summary.strip() == "We propose tau-bench."
    assert tau.published == datetime(2024, 6, 17, 17, 42, tzinfo=UTC)
    assert tau.updated == datetime(2024, 7, 1, 10, 0, tzinfo=UTC)
    assert (tau.primary_category, tau.categories) == ("cs.AI", ["cs.AI", "cs.CL"])
    assert tau.pdf_url == "http://arxiv.org/pdf/2406.12045v1"
    assert tau.doi == "10.48550/arXiv.2406.12045"
    (knots,) = await asyncio.to_thread(fetch, "math.GT/0309136")
    assert knots.get_short_id() == "math/0309136v1"  # as arXiv writes it
    arxiv.rate_limit_next(1)
    with pytest.raises(arxiv_py.HTTPError) as info:
        await asyncio.to_thread(fetch, "2406.12045")
    assert info.value.status == 429


async def test_habanero_reads_a_crossref_work(crossref: CrossrefStandin) -> None:
    crossref.add(
        "10.1145/3580305.3599000",
        "Terminal-World: A Benchmark of Shell Tasks",
        authors=[("Ada", "Lovelace")],
        container_title="Proceedings of the 32nd ACM SIGKDD Conference",
        year=2025,
    )
    work = await asyncio.to_thread(
        habanero.Crossref(base_url=crossref.url, mailto="club@example.org").works,
        ids="10.1145/3580305.3599000",
    )
    message = work["message"]
    assert (work["status"], work["message-type"]) == ("ok", "work")
    assert message["title"] == ["Terminal-World: A Benchmark of Shell Tasks"]
    assert message["author"][0]["family"] == "Lovelace"
    assert message["container-title"] == ["Proceedings of the 32nd ACM SIGKDD Conference"]
    assert message["issued"]["date-parts"][0][0] == 2025
