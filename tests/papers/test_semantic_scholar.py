"""The Semantic Scholar client against its stand-in: shapes, unknown papers, batches of 500, title search,
the 1 request/s keyed limit, the shared pool's 429s, Retry-After, 5xx, slow, garbage and hostile text."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest

from bot.sources import clean
from bot.sources.http import SourceUnavailable
from bot.sources.semantic_scholar import (
    ATTRIBUTION_TEXT,
    ATTRIBUTION_URL,
    PAPER_FIELDS,
    SemanticScholarClient,
    paper_page_url,
)
from standin.http_service import hostile_text, scramble
from standin.semantic_scholar import SemanticScholarStandin
from tests.papers.conftest import S2_KEY
from tests.papers.helpers import VirtualTimer, assert_clean, gaps, one

TMAX = "TMax: Scaling Terminal Agents with Maximal Environments"


def seed(standin: SemanticScholarStandin) -> None:
    standin.add(
        "a" * 40,
        TMAX,
        arxiv_id="2601.00001",
        doi="10.48550/arXiv.2601.00001",
        corpus_id=42,
        authors=["Hamish Ivison", "Ada Lovelace"],
        year=2026,
        venue="ICLR",
        publication_venue={
            "id": "v1",
            "name": "International Conference on Learning Representations",
            "type": "conference",
            "alternate_names": ["ICLR"],
            "url": "https://iclr.cc/",
        },
        tldr="Terminal agents trained on many environments generalise.",
        citation_count=120,
        influential_citation_count=12,
        open_access_pdf="https://arxiv.org/pdf/2601.00001",
    )
    standin.add("b" * 40, "Terminal-World: A Benchmark of Shell Tasks", arxiv_id="2602.00002", year=2025)


@pytest.fixture
async def client(
    semantic_scholar: SemanticScholarStandin, timer: VirtualTimer
) -> AsyncIterator[SemanticScholarClient]:
    seed(semantic_scholar)
    s2 = SemanticScholarClient(semantic_scholar.base, api_key=S2_KEY, timer=timer, timeout=2.0)
    yield s2
    await s2.close()


async def test_a_paper_by_arxiv_id_with_every_field(
    client: SemanticScholarClient, semantic_scholar: SemanticScholarStandin
) -> None:
    paper = await one(client, "ARXIV:2601.00001")
    assert paper is not None
    assert paper.paper_id == "a" * 40
    assert paper.title == TMAX
    assert paper.authors == ("Hamish Ivison", "Ada Lovelace")
    assert (paper.year, paper.venue) == (2026, "International Conference on Learning Representations")
    assert paper.tldr == "Terminal agents trained on many environments generalise."
    assert (paper.citation_count, paper.influential_citation_count) == (120, 12)
    assert paper.open_access_pdf == "https://arxiv.org/pdf/2601.00001"
    assert (paper.arxiv_id, paper.doi) == (
        "2601.00001",
        "10.48550/arxiv.2601.00001",  # sent upper-cased; DOIs are case-insensitive, kept lower-case
    )
    assert paper.url == f"https://www.semanticscholar.org/paper/{'a' * 40}"
    (seen,) = semantic_scholar.requests
    assert (seen.path, seen.body) == ("/graph/v1/paper/batch", {"ids": ["ARXIV:2601.00001"]})
    assert seen.query["fields"] == PAPER_FIELDS
    assert seen.headers["x-api-key"] == "present"
    assert seen.headers["user-agent"].startswith("paperclub-bot/")


async def test_by_doi_and_unknown_is_none(client: SemanticScholarClient) -> None:
    paper = await one(client, "DOI:10.48550/ARXIV.2601.00001")
    assert paper is not None
    assert paper.title == TMAX
    assert await one(client, "ARXIV:2699.99999") is None
    assert await one(client, "CorpusId:42") is not None


def test_attribution_links_back_with_utm_source() -> None:
    assert "Semantic Scholar" in ATTRIBUTION_TEXT
    assert ATTRIBUTION_URL.startswith("https://www.semanticscholar.org/")
    assert "utm_source=api" in ATTRIBUTION_URL


async def test_paper_page_link_carries_utm_source(client: SemanticScholarClient) -> None:
    paper = await one(client, "ARXIV:2601.00001")
    assert paper is not None
    assert paper_page_url(paper) == f"https://www.semanticscholar.org/paper/{'a' * 40}?utm_source=api"


async def test_batch_keeps_order_and_nulls_for_unknown_ids(
    client: SemanticScholarClient, semantic_scholar: SemanticScholarStandin
) -> None:
    found = await client.papers(["ARXIV:2602.00002", "ARXIV:2699.99999", "ARXIV:2601.00001"])
    assert [p.title if p else None for p in found] == [
        "Terminal-World: A Benchmark of Shell Tasks",
        None,
        TMAX,
    ]
    (seen,) = semantic_scholar.requests
    assert (seen.method, seen.path, seen.query["fields"]) == ("POST", "/graph/v1/paper/batch", PAPER_FIELDS)


async def test_batches_of_500_at_one_request_per_second(
    client: SemanticScholarClient, semantic_scholar: SemanticScholarStandin, timer: VirtualTimer
) -> None:
    ids = ["ARXIV:2601.00001"] + [f"ARXIV:2699.{n:05d}" for n in range(1199)]
    found = await client.papers(ids)
    assert len(found) == 1200
    assert found[0] is not None
    assert found[1:] == [None] * 1199
    assert [len(seen.body["ids"]) for seen in semantic_scholar.requests] == [500, 500, 200]
    assert all(gap >= 1.0 for gap in gaps([seen.at for seen in semantic_scholar.requests]))
    assert semantic_scholar.refused_too_fast == []
    assert timer.elapsed == pytest.approx(2.0)


async def test_the_keyed_limit_is_modelled_so_an_unpaced_client_is_refused(
    semantic_scholar: SemanticScholarStandin, timer: VirtualTimer
) -> None:
    """The check above can fail: two clients (two pacers) on one key go faster than 1 request/s (the
    second is refused, and waits the refusal out)."""
    seed(semantic_scholar)
    first = SemanticScholarClient(semantic_scholar.base, api_key=S2_KEY, timer=timer, retries=0)
    second = SemanticScholarClient(semantic_scholar.base, api_key=S2_KEY, timer=timer, retries=0)
    try:
        assert await one(first, "ARXIV:2601.00001") is not None
        assert await one(second, "ARXIV:2601.00001") is not None
        assert [seen.status for seen in semantic_scholar.requests] == [200, 429, 200]
    finally:
        await first.close()
        await second.close()
    assert len(semantic_scholar.refused_too_fast) == 1


async def test_many_single_lookups_keep_to_one_per_second(
    client: SemanticScholarClient, semantic_scholar: SemanticScholarStandin, timer: VirtualTimer
) -> None:
    for _ in range(5):
        await one(client, "ARXIV:2601.00001")
    assert semantic_scholar.refused_too_fast == []
    assert min(gaps([seen.at for seen in semantic_scholar.requests])) >= 1.0
    assert timer.elapsed == pytest.approx(4.0)


async def test_a_wrong_key_is_unavailable_and_the_key_never_shows(
    semantic_scholar: SemanticScholarStandin,
) -> None:
    seed(semantic_scholar)
    client = SemanticScholarClient(semantic_scholar.base, api_key="not-the-key-zz9")
    try:
        with pytest.raises(SourceUnavailable, match="403") as info:
            await one(client, "ARXIV:2601.00001")
    finally:
        await client.close()
    assert "not-the-key-zz9" not in str(info.value)


async def test_anonymous_pool_429s_are_ridden_out(
    semantic_scholar: SemanticScholarStandin, timer: VirtualTimer
) -> None:
    seed(semantic_scholar)
    client = SemanticScholarClient(semantic_scholar.base, timer=timer)
    semantic_scholar.rate_limit_next(1, retry_after=None)  # the shared pool is busy; no Retry-After
    try:
        paper = await one(client, "ARXIV:2601.00001")
    finally:
        await client.close()
    assert paper is not None
    assert [seen.status for seen in semantic_scholar.requests] == [429, 200]
    assert semantic_scholar.requests[0].headers["x-api-key"] == ""
    assert timer.slept
    assert timer.slept[0] == pytest.approx(1.0)
    assert semantic_scholar.refused_too_fast == []


async def test_a_busy_shared_pool_at_random(
    semantic_scholar: SemanticScholarStandin, timer: VirtualTimer
) -> None:
    """Half the anonymous requests refused at random: with two retries most lookups still land; the rest
    raise SourceUnavailable, never anything else."""
    seed(semantic_scholar)
    semantic_scholar.anonymous_refusals = 0.5
    client = SemanticScholarClient(semantic_scholar.base, timer=timer, retries=2)
    outcomes = []
    try:
        for _ in range(12):
            try:
                outcomes.append(await one(client, "ARXIV:2601.00001") is not None)
            except SourceUnavailable:
                outcomes.append(False)
    finally:
        await client.close()
    assert sum(outcomes) >= 8
    assert semantic_scholar.refused_too_fast == []
    assert any(seen.status == 429 for seen in semantic_scholar.requests)


async def test_retry_after_short_waits_long_refuses_until_then(
    client: SemanticScholarClient, semantic_scholar: SemanticScholarStandin, timer: VirtualTimer
) -> None:
    semantic_scholar.rate_limit_next(1, retry_after=3)
    assert await one(client, "ARXIV:2601.00001") is not None
    assert 3.0 in timer.slept

    semantic_scholar.rate_limit_next(1, retry_after=600)
    with pytest.raises(SourceUnavailable) as info:
        await one(client, "ARXIV:2601.00001")
    assert info.value.source == "semantic_scholar"
    assert info.value.retry_at is not None
    assert (info.value.retry_at - timer.wall()).total_seconds() == pytest.approx(600, abs=2)
    asked = len(semantic_scholar.requests)
    with pytest.raises(SourceUnavailable, match="wait"):
        await client.papers(["ARXIV:2601.00001"])
    assert len(semantic_scholar.requests) == asked  # refused without asking again
    timer.advance(601)
    assert await one(client, "ARXIV:2601.00001") is not None


async def test_5xx_is_retried_once_then_unavailable(
    client: SemanticScholarClient, semantic_scholar: SemanticScholarStandin
) -> None:
    semantic_scholar.fail_next(1, status=502)
    assert await one(client, "ARXIV:2601.00001") is not None
    semantic_scholar.mode = "down"
    before = len(semantic_scholar.requests)
    with pytest.raises(SourceUnavailable, match="HTTP 503"):
        await one(client, "ARXIV:2601.00001")
    assert len(semantic_scholar.requests) - before == 2


async def test_slow_answers_time_out(semantic_scholar: SemanticScholarStandin, timer: VirtualTimer) -> None:
    seed(semantic_scholar)
    semantic_scholar.mode = "slow"
    client = SemanticScholarClient(semantic_scholar.base, api_key=S2_KEY, timer=timer, timeout=0.2, retries=0)
    try:
        with pytest.raises(SourceUnavailable, match="no answer within 0.2 s"):
            await one(client, "ARXIV:2601.00001")
    finally:
        await client.close()


async def test_a_command_is_not_held_behind_a_slow_batch(
    semantic_scholar: SemanticScholarStandin, timer: VirtualTimer
) -> None:
    """A lookup with a short max_wait gives up waiting for its turn instead of queueing behind a batch."""
    seed(semantic_scholar)
    semantic_scholar.mode = "slow"
    client = SemanticScholarClient(semantic_scholar.base, api_key=S2_KEY, timer=timer, timeout=5.0, retries=0)
    batch = asyncio.create_task(client.papers(["ARXIV:2601.00001"], max_wait=600))
    try:
        await asyncio.sleep(0.05)
        with pytest.raises(SourceUnavailable, match="busy with other requests"):
            await one(client, "ARXIV:2601.00001", max_wait=0.2)
        assert len(semantic_scholar.requests) == 1
    finally:
        await semantic_scholar.stop()  # releases the slow answer
        with contextlib.suppress(SourceUnavailable):
            await batch
        await client.close()


async def test_garbage_is_unavailable(
    client: SemanticScholarClient, semantic_scholar: SemanticScholarStandin
) -> None:
    semantic_scholar.mode = "garbage"
    with pytest.raises(SourceUnavailable, match="not JSON"):
        await one(client, "ARXIV:2601.00001")
    with pytest.raises(SourceUnavailable):
        await client.papers(["ARXIV:2601.00001"])
    assert len(semantic_scholar.requests) == 2  # garbage is not retried


async def test_wrong_types_never_crash(
    client: SemanticScholarClient, semantic_scholar: SemanticScholarStandin
) -> None:
    semantic_scholar.mode = "wrong_types"
    stored = semantic_scholar.find("ARXIV:2601.00001")
    assert stored is not None
    answer = scramble(semantic_scholar._shape(stored, PAPER_FIELDS.split(",")), semantic_scholar.keep_types)
    paper = client._paper(answer)  # a batch entry: paperId kept, every other value of the wrong type
    assert paper.paper_id == "a" * 40
    assert (paper.title, paper.tldr, paper.year, paper.citation_count, paper.url) == (
        None,
        None,
        None,
        None,
        None,
    )
    assert paper.authors == ()
    assert (paper.arxiv_id, paper.doi) == (None, None)
    with pytest.raises(SourceUnavailable):
        await client.papers(["ARXIV:2601.00001"])  # the batch's list became an object
    assert await client.search("terminal") == []
    assert await client.match_title(TMAX) is None


async def test_hostile_text_is_cut_and_cleaned_never_escaped(
    client: SemanticScholarClient, semantic_scholar: SemanticScholarStandin
) -> None:
    semantic_scholar.add(
        "c" * 40,
        hostile_text(10_000, "Evil"),
        arxiv_id="2603.00003",
        authors=[hostile_text(500), 7, None],
        venue=hostile_text(5_000),
        tldr=hostile_text(10_000),
        open_access_pdf="javascript:alert(1)",
        url="https://user:pw@www.semanticscholar.org/paper/x",
        citation_count=True,
        year="soon",
    )
    paper = await one(client, "ARXIV:2603.00003")
    assert paper is not None
    assert_clean(paper.title, clean.TITLE_MAX)
    assert_clean(paper.tldr, clean.TLDR_MAX)
    assert_clean(paper.venue, clean.VENUE_MAX)
    assert len(paper.authors) == 1
    assert len(paper.authors[0]) <= clean.NAME_MAX
    assert paper.title is not None
    assert "@everyone" in paper.title
    assert paper.open_access_pdf is None
    assert paper.url is None
    assert paper.citation_count is None
    assert paper.year is None


async def test_match_title_and_search(
    client: SemanticScholarClient, semantic_scholar: SemanticScholarStandin
) -> None:
    match = await client.match_title("TMax scaling terminal agents with maximal environments")
    assert match is not None
    assert (match.source, match.source_id, match.title) == ("semantic_scholar", "a" * 40, TMAX)
    assert (match.arxiv_id, match.year, match.venue) == ("2601.00001", 2026, "ICLR")
    assert await client.match_title("totalGarbageNonsense") is None  # 404 "Title match not found"
    assert await client.match_title("   ") is None

    found = await client.search("terminal world", limit=5)
    assert [c.source_id for c in found] == ["b" * 40, "a" * 40]  # the stand-in's relevance: shared words
    assert [c.title for c in await client.search("terminal world", limit=1)] == [
        "Terminal-World: A Benchmark of Shell Tasks"
    ]
    assert await client.search("nothing like it") == []
    searches = [seen for seen in semantic_scholar.requests if seen.path == "/graph/v1/paper/search"]
    assert searches[0].query["limit"] == "5"


async def test_a_long_query_is_cut_before_it_is_sent(
    client: SemanticScholarClient, semantic_scholar: SemanticScholarStandin
) -> None:
    await client.search("terminal " * 500)
    assert len(semantic_scholar.requests[-1].query["query"]) <= clean.QUERY_MAX
