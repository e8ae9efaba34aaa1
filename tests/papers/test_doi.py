"""The DOI clients against their stand-ins: Crossref (polite pool by mailto, 10/s or 5/s) and DataCite
(arXiv's 10.48550 DOIs, JSON:API, 1,000 or 500 per 5 minutes), unknown DOIs, trouble, hostile values."""

from __future__ import annotations

import pytest

from bot.sources import clean
from bot.sources.doi import POLITE_LIMIT, CrossrefClient, DataCiteClient
from bot.sources.http import SourceUnavailable
from bot.sources.pace import Pacer
from standin.crossref import CrossrefStandin
from standin.datacite import DataCiteStandin
from standin.http_service import hostile_text
from tests.papers.helpers import VirtualTimer, assert_clean

MAILTO = "club@example.org"
DOI = "10.1145/3580305.3599000"


def seed_crossref(standin: CrossrefStandin) -> None:
    standin.add(
        DOI,
        "Terminal-World: A Benchmark of Shell Tasks",
        authors=[("Ada", "Lovelace"), {"name": "The Terminal Consortium", "sequence": "additional"}],
        container_title="Proceedings of the 32nd ACM SIGKDD Conference",
        year=2025,
    )


async def test_crossref_work(crossref: CrossrefStandin, timer: VirtualTimer) -> None:
    seed_crossref(crossref)
    client = CrossrefClient(crossref.url, mailto=MAILTO, timer=timer)
    try:
        record = await client.record(DOI.upper())
        assert await client.record("10.9999/nothing-here") is None  # 404 "Resource not found."
        assert await client.record("not a doi") is None
    finally:
        await client.close()
    assert record is not None
    assert (record.source, record.doi, record.year) == ("crossref", DOI, 2025)
    assert record.title == "Terminal-World: A Benchmark of Shell Tasks"
    assert record.authors == ("Ada Lovelace", "The Terminal Consortium")
    assert record.venue == "Proceedings of the 32nd ACM SIGKDD Conference"
    assert record.url == f"https://doi.org/{DOI}"
    first = crossref.requests[0]
    assert first.query == {"mailto": MAILTO}
    assert f"mailto:{MAILTO}" in first.headers["user-agent"]
    assert len(crossref.requests) == 2


@pytest.mark.parametrize(("mailto", "per_second"), [(MAILTO, 10), (None, 5)])
async def test_crossref_keeps_to_its_pools_rate(
    crossref: CrossrefStandin, timer: VirtualTimer, mailto: str | None, per_second: int
) -> None:
    seed_crossref(crossref)
    client = CrossrefClient(crossref.url, mailto=mailto, timer=timer)
    try:
        for _ in range(3 * per_second):
            assert await client.record(DOI) is not None
    finally:
        await client.close()
    assert crossref.refused_too_fast == []
    assert timer.elapsed == pytest.approx(2.0)
    starts = [seen.at for seen in crossref.requests]
    assert all(sum(1 for t in starts if a <= t < a + 1.0) <= per_second for a in starts)


async def test_crossref_public_pool_is_modelled(crossref: CrossrefStandin, timer: VirtualTimer) -> None:
    """The check above can fail: a client paced for the polite pool, sent to the public one, is refused
    (and waits the refusal out)."""
    seed_crossref(crossref)
    client = CrossrefClient(crossref.url, timer=timer, retries=0)
    client.pacer = Pacer(POLITE_LIMIT, timer)  # asks the public pool at the polite pool's pace
    try:
        for _ in range(6):  # the sixth within a second is refused once
            assert await client.record(DOI) is not None
        assert [seen.status for seen in crossref.requests].count(429) == 1
    finally:
        await client.close()
    assert len(crossref.refused_too_fast) == 1


async def test_crossref_trouble_and_hostile(crossref: CrossrefStandin, timer: VirtualTimer) -> None:
    seed_crossref(crossref)
    crossref.add(
        "10.1/evil",
        hostile_text(10_000),
        authors=[(hostile_text(80), hostile_text(80))],
        container_title=hostile_text(3_000),
        year="MMXXV",
        url="javascript:alert(1)",
    )
    client = CrossrefClient(crossref.url, timer=timer, timeout=0.2)
    try:
        record = await client.record("10.1/evil")
        assert record is not None
        assert_clean(record.title, clean.TITLE_MAX)
        assert_clean(record.venue, clean.VENUE_MAX)
        assert len(record.authors[0]) <= clean.NAME_MAX
        assert record.year is None
        assert record.url is None

        crossref.rate_limit_next(1, retry_after=2)
        assert await client.record(DOI) is not None
        assert 2.0 in timer.slept
        for mode, reason in (("down", "HTTP 503"), ("garbage", "not JSON")):
            crossref.mode = mode
            with pytest.raises(SourceUnavailable, match=reason):
                await client.record(DOI)
        crossref.mode = "wrong_types"
        scrambled = await client.record(DOI)
        assert scrambled is not None
        assert (scrambled.title, scrambled.authors, scrambled.year) == (None, (), None)
        # Slow: the retry finds the timed-out request still running at Crossref, past the public pool's
        # one at a time, and is refused (429), as Crossref would, until the call's wait runs out.
        crossref.mode = "slow"
        with pytest.raises(SourceUnavailable, match="no answer within|429|wait"):
            await client.record(DOI)
    finally:
        await client.close()


ARXIV_DOI = "10.48550/arXiv.2106.15928"  # DataCite registers arXiv's DOIs


def seed_datacite(standin: DataCiteStandin) -> None:
    standin.add(
        ARXIV_DOI,
        "Reinfection and low cross-immunity as drivers of epidemic resurgence",
        creators=["Prete, Carlos A.", {"name": "The Modelling Group", "nameType": "Organizational"}],
        year=2021,
    )


async def test_datacite_arxiv_doi(datacite: DataCiteStandin, timer: VirtualTimer) -> None:
    seed_datacite(datacite)
    datacite.add("10.48550/arXiv.2401.00002", "Schema 4.5", publisher={"name": "arXiv"}, year="2024")
    client = DataCiteClient(datacite.url, mailto=MAILTO, timer=timer)
    try:
        record = await client.record(ARXIV_DOI)
        newer = await client.record("10.48550/arXiv.2401.00002")
        assert await client.record("10.48550/arXiv.2699.99999") is None  # JSON:API 404
    finally:
        await client.close()
    assert record is not None
    assert (record.source, record.doi, record.year, record.venue) == (
        "datacite",
        "10.48550/arxiv.2106.15928",
        2021,
        "arXiv",
    )
    assert record.authors == ("Carlos A. Prete", "The Modelling Group")
    assert record.url == "https://arxiv.org/abs/2106.15928"
    assert newer is not None
    assert (newer.venue, newer.year) == ("arXiv", 2024)
    assert datacite.requests[0].query == {"mailto": MAILTO}
    assert datacite.requests[0].path == "/dois/10.48550/arXiv.2106.15928"


@pytest.mark.parametrize(("mailto", "quota"), [(MAILTO, 1000), (None, 500)])
async def test_datacite_keeps_to_its_five_minute_quota(
    datacite: DataCiteStandin, timer: VirtualTimer, mailto: str | None, quota: int
) -> None:
    seed_datacite(datacite)
    client = DataCiteClient(datacite.url, mailto=mailto, timer=timer)
    try:
        for _ in range(quota + 5):
            await client.record(ARXIV_DOI, max_wait=600)
    finally:
        await client.close()
    assert datacite.refused_too_fast == []
    assert timer.elapsed >= 300.0


async def test_datacite_trouble(datacite: DataCiteStandin, timer: VirtualTimer) -> None:
    seed_datacite(datacite)
    client = DataCiteClient(datacite.url, timer=timer, timeout=0.2)
    try:
        datacite.rate_limit_next(1, retry_after=900)
        with pytest.raises(SourceUnavailable) as info:
            await client.record(ARXIV_DOI)
        assert info.value.retry_at is not None
        assert client.blocked_for == pytest.approx(900)
        timer.advance(900)
        for mode, reason in (("down", "HTTP 503"), ("slow", "no answer within"), ("garbage", "not JSON")):
            datacite.mode = mode
            with pytest.raises(SourceUnavailable, match=reason):
                await client.record(ARXIV_DOI)
        datacite.mode = "wrong_types"
        scrambled = await client.record(ARXIV_DOI)
        assert scrambled is not None
        assert scrambled.title is None
        assert scrambled.year is None
    finally:
        await client.close()
