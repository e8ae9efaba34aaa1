"""Full-text search of sessions, papers and reading lists (SQLite FTS5, PostgreSQL tsvector), saved queries."""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Literal

from sqlalchemy import bindparam, delete, func, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from bot.errors import BadInput
from bot.papers import parse_paper_ref
from bot.text import clean_line
from db.models import ClubSession, Paper, SessionPaper
from db.models.reading import ReadingList, ReadingListItem, ReadingSearchQuery

MARK_OPEN, MARK_CLOSE = "\x02", "\x03"  # around matched words in snippets (renderers make them bold)
MAX_QUERY_LENGTH = 200
MAX_TERMS = 16
MAX_RESULTS = 250  # over it: "over 250", the best among the newest matches (a common word costs no more)
SAVED_QUERY_DAYS = 90

# PostgreSQL's english stop words (the Snowball list), dropped from queries on both stores.
STOPWORDS = frozenset(
    """
    i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers
    herself it its itself they them their theirs themselves what which who whom this that these those am is
    are was were be been being have has had having do does did doing a an the and but if or because as until
    while of at by for with about against between into through during before after above below to from up
    down in out on off over under again further then once here there when where why how all any both each
    few more most other some such no nor not only own same so than too very s t can will just don should now
    """.split()  # noqa: SIM905  the list as text: one word per gap
)
_WORD = re.compile(r"[^\W_]+")

# SQLite: the MAX_RESULTS + 1 newest matches (rowid order, so it stops early), each scored, the page sorted
# by score; ranking every match of a common word would cost time for results nobody pages to.
SQLITE_PAGE = text(
    "SELECT kind, ref_id, rowid, total FROM ("
    "  SELECT kind, ref_id, rowid, score, count(*) OVER () AS total FROM ("
    "    SELECT rowid, kind, ref_id, bm25(reading_search, 0.0, 0.0, 0.0, 10.0, 4.0, 4.0, 2.0, 8.0) AS score"
    "    FROM reading_search WHERE reading_search MATCH :q AND guild_id = :g"
    "    ORDER BY rowid DESC LIMIT :cap))"
    "ORDER BY score, rowid DESC LIMIT :limit OFFSET :offset"
)
SQLITE_COUNT = text(
    "SELECT count(*) FROM (SELECT 1 FROM reading_search "
    "WHERE reading_search MATCH :q AND guild_id = :g LIMIT :cap)"
)
# One forward pass over the matches between the page's lowest and highest row ids (cheaper than seeking
# each id in every segment); `+` keeps the IN list a plain filter.
SQLITE_SNIPPETS = text(
    "SELECT rowid, snippet(reading_search, -1, :mo, :mc, '…', 16) FROM reading_search "
    "WHERE reading_search MATCH :q AND rowid BETWEEN :lo AND :hi AND +rowid IN :ids"
).bindparams(bindparam("ids", expanding=True))
PG_PAGE = text(
    "SELECT n.kind, n.ref_id, n.id, count(*) OVER () AS total,"
    "  ts_rank(n.tsv, to_tsquery('english', :q), 1) AS score FROM ("
    "    SELECT id, kind, ref_id, tsv FROM reading_search"
    "    WHERE guild_id = :g AND tsv @@ to_tsquery('english', :q) ORDER BY id DESC LIMIT :cap) AS n "
    "ORDER BY score DESC, n.id DESC LIMIT :limit OFFSET :offset"
)
PG_COUNT = text(
    "SELECT count(*) FROM (SELECT 1 FROM reading_search "
    "WHERE guild_id = :g AND tsv @@ to_tsquery('english', :q) LIMIT :cap) AS m"
)
PG_SNIPPETS = text(
    "SELECT id, ts_headline('english', coalesce(nullif(concat_ws(' · ', nullif(body, ''), "
    "nullif(papers, ''), nullif(people, '')), ''), title), to_tsquery('english', :q), :hl) "
    "FROM reading_search WHERE id IN :ids"
).bindparams(bindparam("ids", expanding=True))
PG_HEADLINE = f"StartSel={MARK_OPEN}, StopSel={MARK_CLOSE}, MaxWords=24, MinWords=8, MaxFragments=2"
SQLITE_SUGGEST = text(
    "SELECT kind, ref_id, title FROM reading_search "
    "WHERE reading_search MATCH :q AND guild_id = :g AND kind IN ('paper', 'list') "
    "ORDER BY bm25(reading_search, 0.0, 0.0, 0.0, 10.0, 1.0, 1.0, 1.0, 1.0), rowid DESC LIMIT :limit"
)
PG_SUGGEST = text(
    "SELECT kind, ref_id, title FROM reading_search "
    "WHERE guild_id = :g AND kind IN ('paper', 'list') AND tsv @@ to_tsquery('english', :q) "
    "ORDER BY ts_rank(tsv, to_tsquery('english', :q), 1) DESC, id DESC LIMIT :limit"
)


HitKind = Literal["session", "paper", "list"]


@dataclass(frozen=True)
class SessionBrief:
    """The session a search hit links to."""

    id: int
    title: str
    starts_at: datetime
    timezone: str


@dataclass(frozen=True)
class SearchHit:
    """One ranked result. ``snippet`` marks matched words with MARK_OPEN/MARK_CLOSE."""

    kind: HitKind
    ref_id: int
    title: str
    snippet: str
    url: str | None = None
    starts_at: datetime | None = None
    timezone: str | None = None
    presenter: str | None = None
    read_in: tuple[SessionBrief, ...] = ()
    on_lists: tuple[str, ...] = ()
    list_size: int | None = None


@dataclass(frozen=True)
class IndexRow:
    """One index row of a page (its snippet already marked), before hydrate() loads what it is."""

    kind: HitKind
    ref_id: int
    snippet: str


@dataclass(frozen=True)
class SearchTerms:
    """The plain words searched for (lower case, no stop words, no repeats, at most MAX_TERMS)."""

    words: tuple[str, ...]
    text: str


def words_of(text: str) -> list[str]:
    """Letters-and-digits runs, case-folded (NFKC first, so full-width and ligatures fold too)."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def parse_query(text: str) -> SearchTerms:
    """A member's query checked and reduced to plain words (a pasted id or link to the part indexed)."""
    cleaned = clean_line(text)
    if not cleaned:
        raise BadInput("Type something to search for: a paper, a topic, a presenter or a list name.")
    if len(cleaned) > MAX_QUERY_LENGTH:
        raise BadInput(
            f"That search is {len(cleaned)} characters; keep it under {MAX_QUERY_LENGTH} (a few words do best)."
        )
    try:
        ref = parse_paper_ref(cleaned)
        source = (ref.arxiv_id or ref.doi or ref.url or cleaned) if ref.kind != "title" else cleaned
    except BadInput:
        source = cleaned
    words = [w for w in dict.fromkeys(words_of(source)) if w not in STOPWORDS]
    return SearchTerms(tuple(words[:MAX_TERMS]), cleaned)


def fts5_expression(words: tuple[str, ...], *, any_word: bool = False, prefix_last: bool = False) -> str:
    """An FTS5 MATCH expression of quoted plain words (words hold only letters and digits)."""
    parts = [f'"{w}"' for w in words]
    if prefix_last and parts:
        parts[-1] += " *"
    return (" OR " if any_word else " ").join(parts)


def tsquery_expression(
    words: tuple[str, ...], *, any_word: bool = False, prefix_last: bool = False, weights: str = ""
) -> str:
    """A to_tsquery() expression of quoted lexemes (words hold only letters and digits)."""
    parts = [f"'{w}'" + (":" + weights if weights else "") for w in words]
    if prefix_last and parts:
        parts[-1] = f"'{words[-1]}':*{weights}"
    return (" | " if any_word else " & ").join(parts)


def is_sqlite(session: AsyncSession) -> bool:
    """Whether the store is SQLite (else PostgreSQL)."""
    return session.get_bind().dialect.name == "sqlite"


@dataclass(frozen=True)
class SearchPage:
    """One page of search hits for a query."""

    query: str
    hits: list[SearchHit]
    total: int
    page: int
    pages: int
    more_than_total: bool = False  # over MAX_RESULTS matches (``total`` is then MAX_RESULTS)
    any_word: bool = False  # no result had every word: these match some of them
    only_common_words: bool = False


async def _ranked(
    session: AsyncSession, guild_id: int, expression: str, *, limit: int, offset: int
) -> tuple[list[tuple[HitKind, int, int]], int]:
    """A page of (kind, ref id, index id), best first among the MAX_RESULTS + 1 newest, and how many matched."""
    statement, count = (SQLITE_PAGE, SQLITE_COUNT) if is_sqlite(session) else (PG_PAGE, PG_COUNT)
    params = {"q": expression, "g": guild_id, "cap": MAX_RESULTS + 1}
    rows = (await session.execute(statement, {**params, "limit": limit, "offset": offset})).all()
    if rows:
        return [(kind, int(ref_id), int(index_id)) for kind, ref_id, index_id, *_ in rows], int(rows[0][3])
    if offset == 0:  # the window count is over every (capped) match: none at all
        return [], 0
    return [], int((await session.execute(count, params)).scalar_one())


async def _snippets(session: AsyncSession, expression: str, index_ids: list[int]) -> dict[int, str]:
    if not index_ids:
        return {}
    if is_sqlite(session):
        params = {"lo": min(index_ids), "hi": max(index_ids), "mo": MARK_OPEN, "mc": MARK_CLOSE}
        result = await session.execute(SQLITE_SNIPPETS, {"q": expression, "ids": index_ids, **params})
    else:
        result = await session.execute(PG_SNIPPETS, {"q": expression, "ids": index_ids, "hl": PG_HEADLINE})
    return {int(index_id): snippet or "" for index_id, snippet in result.all()}


async def ranked_page(
    session: AsyncSession, guild_id: int, terms: SearchTerms, *, page: int = 0, per_page: int = 5
) -> tuple[list[IndexRow], SearchPage]:
    """The store's search: one page of index rows for all the words (else any of them), with snippets,
    and the page they make (its hits not loaded yet)."""
    expression_of = fts5_expression if is_sqlite(session) else tsquery_expression
    page = max(page, 0)
    limit = max(1, min(per_page, MAX_RESULTS - page * per_page))
    any_word = False
    expression = expression_of(terms.words)
    ranked, total = await _ranked(session, guild_id, expression, limit=limit, offset=page * per_page)
    if total == 0 and len(terms.words) > 1:
        any_word = True
        expression = expression_of(terms.words, any_word=True)
        ranked, total = await _ranked(session, guild_id, expression, limit=limit, offset=page * per_page)
    more = total > MAX_RESULTS
    total = min(total, MAX_RESULTS)
    pages = max(1, -(-total // per_page))
    if total and not ranked:  # asked past the last page (e.g. an old button): show the last one
        page = pages - 1
        limit = min(per_page, total - page * per_page)
        ranked, _ = await _ranked(session, guild_id, expression, limit=limit, offset=page * per_page)
    snippets = await _snippets(session, expression, [index_id for *_, index_id in ranked])
    rows = [IndexRow(kind, ref_id, snippets.get(index_id, "")) for kind, ref_id, index_id in ranked]
    return rows, SearchPage(terms.text, [], total, min(page, pages - 1), pages, more, any_word)


async def search(
    session: AsyncSession, guild_id: int, query: str, *, page: int = 0, per_page: int = 5
) -> SearchPage:
    """One page of ranked hits for `query` (validated here; BadInput on empty or over-long)."""
    terms = parse_query(query)
    if not terms.words:
        return SearchPage(terms.text, [], 0, 0, 1, only_common_words=True)
    rows, found = await ranked_page(session, guild_id, terms, page=page, per_page=per_page)
    return replace(found, hits=await hydrate(session, rows))


async def save_query(session: AsyncSession, guild_id: int, query: str, now: datetime) -> int:
    """An id for `query` that page buttons can carry (reused for the same text; old ones pruned)."""
    text_ = " ".join(query.split())[:MAX_QUERY_LENGTH]
    row = await session.scalar(
        select(ReadingSearchQuery).where(
            ReadingSearchQuery.guild_id == guild_id, ReadingSearchQuery.query == text_
        )
    )
    if row is not None:
        row.created_at = now
        return row.id
    cutoff = now - timedelta(days=SAVED_QUERY_DAYS)
    await session.execute(delete(ReadingSearchQuery).where(ReadingSearchQuery.created_at < cutoff))
    row = ReadingSearchQuery(guild_id=guild_id, query=text_, created_at=now)
    session.add(row)
    await session.flush()
    return row.id


async def saved_query(session: AsyncSession, guild_id: int, query_id: int) -> str | None:
    """The text of a saved search of the guild, or None."""
    row = await session.get(ReadingSearchQuery, query_id)
    return row.query if row is not None and row.guild_id == guild_id else None


async def hydrate(session: AsyncSession, rows: list[IndexRow]) -> list[SearchHit]:
    """Turn index rows into hits with where each belongs (sessions that read a paper, its lists)."""
    ids: dict[str, list[int]] = defaultdict(list)
    for row in rows:
        ids[row.kind].append(row.ref_id)
    sessions: dict[int, ClubSession] = {}
    if ids["session"]:
        found = await session.scalars(select(ClubSession).where(ClubSession.id.in_(ids["session"])))
        sessions = {s.id: s for s in found}
    papers: dict[int, Paper] = {}
    read_in: dict[int, list[SessionBrief]] = defaultdict(list)
    on_lists: dict[int, list[str]] = defaultdict(list)
    if ids["paper"]:
        papers = {p.id: p for p in await session.scalars(select(Paper).where(Paper.id.in_(ids["paper"])))}
        for paper_id, sid, title, starts_at, zone in await session.execute(
            select(
                SessionPaper.paper_id,
                ClubSession.id,
                ClubSession.title,
                ClubSession.starts_at,
                ClubSession.timezone,
            )
            .join(ClubSession, ClubSession.id == SessionPaper.session_id)
            .where(SessionPaper.paper_id.in_(ids["paper"]), ClubSession.status != "cancelled")
            .order_by(ClubSession.starts_at.desc())
        ):
            read_in[paper_id].append(SessionBrief(sid, title, starts_at, zone))
        for paper_id, name in await session.execute(
            select(ReadingListItem.paper_id, ReadingList.name)
            .join(ReadingList, ReadingList.id == ReadingListItem.list_id)
            .where(ReadingListItem.paper_id.in_(ids["paper"]))
            .order_by(ReadingList.name)
        ):
            on_lists[paper_id].append(name)
    lists: dict[int, tuple[str, int]] = {}
    if ids["list"]:
        for list_id, name, size in await session.execute(
            select(ReadingList.id, ReadingList.name, func.count(ReadingListItem.paper_id))
            .outerjoin(ReadingListItem, ReadingListItem.list_id == ReadingList.id)
            .where(ReadingList.id.in_(ids["list"]))
            .group_by(ReadingList.id, ReadingList.name)
        ):
            lists[list_id] = (name, int(size))

    hits: list[SearchHit] = []
    for row in rows:
        if row.kind == "session" and (s := sessions.get(row.ref_id)):
            hits.append(
                SearchHit(
                    "session",
                    s.id,
                    s.title,
                    row.snippet,
                    starts_at=s.starts_at,
                    timezone=s.timezone,
                    presenter=s.presenter_name,
                )
            )
        elif row.kind == "paper" and (p := papers.get(row.ref_id)):
            hits.append(
                SearchHit(
                    "paper",
                    p.id,
                    p.title,
                    row.snippet,
                    url=p.url,
                    read_in=tuple(read_in[p.id]),
                    on_lists=tuple(on_lists[p.id]),
                )
            )
        elif row.kind == "list" and row.ref_id in lists:
            name, size = lists[row.ref_id]
            hits.append(SearchHit("list", row.ref_id, name, row.snippet, list_size=size))
    return hits
