"""The Hugging Face client against its stand-in: the paper page with its totals and the most liked repos
from the documented list routes, not indexed, search (its 250-character query, a refusal), the
500-per-5-minutes window (RateLimit headers), totals that are not counts, 5xx, slow, garbage and hostile
links."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.sources import clean
from bot.sources.http import SourceUnavailable
from bot.sources.huggingface import TOP_REPOS, HuggingFaceClient
from standin.http_service import hostile_text
from standin.huggingface import HuggingFaceStandin, repo
from tests.papers.helpers import VirtualTimer, assert_clean

TMAX = "TMax: Scaling Terminal Agents with Maximal Environments"


def seed(standin: HuggingFaceStandin) -> None:
    standin.add(
        "2601.00001",
        TMAX,
        authors=["Hamish Ivison", "Ada Lovelace"],
        upvotes=87,
        github_repo="https://github.com/example/tmax",
        github_stars=1500,
        project_page="https://tmax.example.org/",
        models=[
            repo("example/tmax-7b", likes=40, downloads=9000),
            repo("example/tmax-1b", 3),
            repo("a/b", 90),
        ],
        datasets=[repo("example/terminal-tasks", likes=12)],
        spaces=[repo("example/tmax-demo", likes=5), repo("x/y", 1), repo("p/q", 2), repo("r/s", 0)],
    )


@pytest.fixture
async def client(huggingface: HuggingFaceStandin, timer: VirtualTimer) -> AsyncIterator[HuggingFaceClient]:
    seed(huggingface)
    hub = HuggingFaceClient(huggingface.url, timer=timer, timeout=2.0)
    yield hub
    await hub.close()


async def test_paper_page_with_links(client: HuggingFaceClient, huggingface: HuggingFaceStandin) -> None:
    paper = await client.paper("2601.00001")
    assert paper is not None
    assert (paper.arxiv_id, paper.title, paper.authors) == (
        "2601.00001",
        TMAX,
        ("Hamish Ivison", "Ada Lovelace"),
    )
    assert paper.upvotes == 87
    assert paper.github_repo == "https://github.com/example/tmax"
    assert paper.project_page == "https://tmax.example.org/"
    assert paper.url == "https://huggingface.co/papers/2601.00001"
    assert paper.models.count == 3
    assert [r.repo_id for r in paper.models.top] == [
        "a/b",
        "example/tmax-7b",
        "example/tmax-1b",
    ]  # most liked
    assert paper.models.top[1].downloads == 9000
    assert paper.datasets.count == 1
    assert paper.datasets.top[0].path == "datasets/example/terminal-tasks"  # what enrichment stores
    assert paper.models.top[1].path == "example/tmax-7b"
    assert paper.spaces.count == 4
    assert len(paper.spaces.top) == TOP_REPOS
    assert paper.spaces.top[0].path == "spaces/example/tmax-demo"
    assert [(seen.path, seen.query) for seen in huggingface.requests] == [
        ("/api/papers/2601.00001", {}),
        *(
            (f"/api/{kind}", {"filter": "arxiv:2601.00001", "sort": "likes", "limit": "3"})
            for kind in ("models", "datasets", "spaces")
        ),
    ]


async def test_counts_come_from_the_totals_and_only_kinds_there_are_listed(
    client: HuggingFaceClient, huggingface: HuggingFaceStandin
) -> None:
    """The paper's totals are the counts (the lists are asked only for the few most liked, and only for a
    kind the paper has); a paper the Hub gives no totals for has unknown counts."""
    huggingface.add("2602.00002", "Models only", models=[repo("m/a", 1)], totals={"models": 120})
    paper = await client.paper("2602.00002")
    assert paper is not None
    assert (paper.models.count, paper.datasets.count, paper.spaces.count) == (120, 0, 0)
    assert [seen.path for seen in huggingface.requests] == ["/api/papers/2602.00002", "/api/models"]
    huggingface.add("2602.00003", "No totals")
    for field in ("numTotalModels", "numTotalDatasets", "numTotalSpaces"):
        del huggingface.papers["2602.00003"].page[field]
    bare = await client.paper("2602.00003")
    assert bare is not None
    assert (bare.models.count, bare.datasets.count, bare.spaces.count) == (None, None, None)


@pytest.mark.parametrize("total", [-3, "5", 2.5, True])
async def test_totals_that_are_not_counts_refuse_the_answer(
    client: HuggingFaceClient,
    huggingface: HuggingFaceStandin,
    caplog: pytest.LogCaptureFixture,
    total: object,
) -> None:
    """Bad input: nothing is read from such an answer, a warning says why (the paper is asked again later)."""
    huggingface.add("2602.00004", "Odd", github_repo="https://github.com/a/b", totals={"datasets": total})
    with (
        caplog.at_level("WARNING", logger="paperclub.sources"),
        pytest.raises(SourceUnavailable, match="count"),
    ):
        await client.paper("2602.00004")
    assert "numTotalDatasets" in caplog.text


async def test_not_indexed_is_none_without_asking_for_repos(
    client: HuggingFaceClient, huggingface: HuggingFaceStandin
) -> None:
    assert await client.paper("2699.99999") is None
    assert [seen.path for seen in huggingface.requests] == ["/api/papers/2699.99999"]
    assert await client.paper("../../api/whoami") is None  # not an arXiv id: never sent
    assert len(huggingface.requests) == 1


async def test_repos_citing_a_paper_not_indexed(
    client: HuggingFaceClient, huggingface: HuggingFaceStandin
) -> None:
    huggingface.citing["2604.00004"] = {"models": [repo("m/one", 2)], "datasets": [], "spaces": []}
    assert [r.repo_id for r in await client.top("models", "2604.00004")] == ["m/one"]
    assert await client.top("datasets", "2604.00004") == ()
    assert await client.top("spaces", "2699.99999") == ()
    assert await client.top("users", "2604.00004") == ()  # not a kind: never sent


async def test_search_candidates(client: HuggingFaceClient, huggingface: HuggingFaceStandin) -> None:
    found = await client.search("TMax")
    assert len(found) == 1
    (candidate,) = found
    assert (candidate.source, candidate.source_id, candidate.arxiv_id) == (
        "huggingface",
        "2601.00001",
        "2601.00001",
    )
    assert (candidate.title, candidate.year) == (TMAX, 2026)  # its id's month
    assert candidate.authors == ("Hamish Ivison", "Ada Lovelace")
    assert await client.search("no such words") == []
    assert huggingface.requests[0].query == {"q": "TMax", "limit": "5"}
    assert await client.search("TMax " + "word " * 100) == []  # cut to the 250 characters the Hub takes
    assert len(huggingface.requests[-1].query["q"]) == 250


async def test_a_refused_search_is_not_no_candidates(
    client: HuggingFaceClient, huggingface: HuggingFaceStandin, caplog: pytest.LogCaptureFixture
) -> None:
    huggingface.fail_next(1, status=400)
    with (
        caplog.at_level("WARNING", logger="paperclub.sources"),
        pytest.raises(SourceUnavailable, match="400"),
    ):
        await client.search("TMax")
    assert "refused a paper search (HTTP 400)" in caplog.text


async def test_the_five_minute_window_is_kept(huggingface: HuggingFaceStandin, timer: VirtualTimer) -> None:
    """260 papers are 520 requests: past the anonymous 500 per 5 minutes, a background client (one that may
    wait out a window) waits for the next window instead of being refused; an interactive one (10 s at
    most) says the source is unavailable until then."""
    for n in range(260):  # each with one model: the page, and the list of its most liked models
        huggingface.add(f"2605.{n:05d}", f"Paper {n}", models=[repo(f"m/{n}")])
    hub = HuggingFaceClient(huggingface.url, timer=timer)
    try:
        for n in range(250):
            assert await hub.paper(f"2605.{n:05d}", max_wait=600) is not None
        with pytest.raises(SourceUnavailable, match="allows the next request in 300 s") as info:
            await hub.paper("2605.00000")  # a command's lookup: 10 s at most
        assert info.value.retry_at is not None
        for n in range(250, 260):
            assert await hub.paper(f"2605.{n:05d}", max_wait=600) is not None
    finally:
        await hub.close()
    assert huggingface.refused_too_fast == []
    assert len(huggingface.requests) == 520
    assert timer.elapsed >= 300.0
    last_window = [seen for seen in huggingface.requests if seen.at >= huggingface.requests[0].at + 300]
    assert len(last_window) == 20


async def test_the_window_is_modelled_so_an_unpaced_client_is_refused(
    huggingface: HuggingFaceStandin, timer: VirtualTimer
) -> None:
    seed(huggingface)
    clients = [HuggingFaceClient(huggingface.url, timer=timer, retries=0) for _ in range(2)]
    try:
        for _ in range(250):
            for hub in clients:
                await hub.top("models", "2601.00001")
        with pytest.raises(SourceUnavailable, match="wait"):  # refused; the window's end is past 10 s
            await clients[0].top("models", "2601.00001")
    finally:
        for hub in clients:
            await hub.close()
    assert len(huggingface.refused_too_fast) == 1
    assert huggingface.requests[-1].status == 429


async def test_ratelimit_header_reset_is_waited_for(
    client: HuggingFaceClient, huggingface: HuggingFaceStandin, timer: VirtualTimer
) -> None:
    huggingface.rate_limit_next(1, retry_after=7)  # answered with RateLimit: "api";r=0;t=7, no Retry-After
    assert await client.paper("2601.00001") is not None
    assert 7.0 in timer.slept
    huggingface.rate_limit_next(1, retry_after=250)
    with pytest.raises(SourceUnavailable) as info:
        await client.paper("2601.00001")
    assert info.value.retry_at is not None
    assert client.blocked_for == pytest.approx(250, abs=1)


async def test_5xx_slow_and_garbage(huggingface: HuggingFaceStandin, timer: VirtualTimer) -> None:
    seed(huggingface)
    hub = HuggingFaceClient(huggingface.url, timer=timer, timeout=0.2)
    try:
        huggingface.fail_next(1, status=500)
        assert await hub.paper("2601.00001") is not None
        huggingface.mode = "down"
        with pytest.raises(SourceUnavailable, match="HTTP 503"):
            await hub.paper("2601.00001")
        huggingface.mode = "slow"
        with pytest.raises(SourceUnavailable, match="no answer within"):
            await hub.search("TMax")
        huggingface.mode = "garbage"
        with pytest.raises(SourceUnavailable, match="not JSON"):
            await hub.paper("2601.00001")
        huggingface.mode = "wrong_types"
        with pytest.raises(SourceUnavailable):
            await hub.search("TMax")  # the list became an object
        with pytest.raises(SourceUnavailable, match="not a count"):
            await hub.paper("2601.00001")  # the totals became strings: nothing read
    finally:
        await hub.close()


async def test_hostile_values(client: HuggingFaceClient, huggingface: HuggingFaceStandin) -> None:
    huggingface.add(
        "2603.00003",
        hostile_text(10_000, "Evil"),
        authors=[hostile_text(300)],
        upvotes=-5,
        github_repo="javascript:alert(1)",
        project_page="https://github.com@evil.example/",
        models=[repo("../../etc/passwd"), repo("ok/model", likes="many"), repo(hostile_text(40)), repo(7)],
    )
    paper = await client.paper("2603.00003")
    assert paper is not None
    assert_clean(paper.title, clean.TITLE_MAX)
    assert len(paper.authors) == 1
    assert len(paper.authors[0]) <= clean.NAME_MAX
    assert paper.upvotes is None
    assert paper.github_repo is None
    assert paper.project_page is None
    assert [r.repo_id for r in paper.models.top] == ["ok/model"]
    assert paper.models.top[0].likes is None
