"""Full-text search over the club's sessions, papers and reading lists.

The index (table ``reading_search``, see migration 0004) is the database's own: SQLite FTS5
with bm25 ranking, or PostgreSQL's tsvector/GIN with ts_rank. Triggers keep it in step with
the tables, so there is nothing to refresh here.

Whatever a member types is turned into plain words (:func:`parse_query`): letters and digits
only, each quoted in the engine's own syntax, so quotes, ``*``, ``NEAR``, ``AND``/``OR``/
``NOT``, parentheses and ``-`` are words or separators, never operators. Common English words
are dropped, as PostgreSQL's ``english`` configuration does, so both stores agree. The query
is always a bound parameter. All the words must match; when nothing matches them all, the
search falls back to any of them (and says so).
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal

from sqlalchemy import bindparam, delete, func, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from bot.errors import BadInput
from bot.papers import parse_paper_ref
from bot.text import clean_line
from db.models import ClubSession, Paper, SessionPaper
from db.models.reading import ReadingList, ReadingListItem, ReadingSearchQuery

MAX_QUERY_LENGTH = 200
MAX_TERMS = 16
MAX_RESULTS = 250
"""At most this many results (50 pages): over it, the reply says "over 250" and the results are
the best among the newest matches, so a very common word costs no more than a rarer one."""
MARK_OPEN = "\x02"
MARK_CLOSE = "\x03"
"""Snippets mark matched words with these (renderers turn them into bold)."""

HitKind = Literal["session", "paper", "list"]

# PostgreSQL's english stop words (the Snowball list), dropped from queries on both stores.
STOPWORDS = frozenset(
    {
        "i",
        "me",
        "my",
        "myself",
        "we",
        "our",
        "ours",
        "ourselves",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "he",
        "him",
        "his",
        "himself",
        "she",
        "her",
        "hers",
        "herself",
        "it",
        "its",
        "itself",
        "they",
        "them",
        "their",
        "theirs",
        "themselves",
        "what",
        "which",
        "who",
        "whom",
        "this",
        "that",
        "these",
        "those",
        "am",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "have",
        "has",
        "had",
        "having",
        "do",
        "does",
        "did",
        "doing",
        "a",
        "an",
        "the",
        "and",
        "but",
        "if",
        "or",
        "because",
        "as",
        "until",
        "while",
        "of",
        "at",
        "by",
        "for",
        "with",
        "about",
        "against",
        "between",
        "into",
        "through",
        "during",
        "before",
        "after",
        "above",
        "below",
        "to",
        "from",
        "up",
        "down",
        "in",
        "out",
        "on",
        "off",
        "over",
        "under",
        "again",
        "further",
        "then",
        "once",
        "here",
        "there",
        "when",
        "where",
        "why",
        "how",
        "all",
        "any",
        "both",
        "each",
        "few",
        "more",
        "most",
        "other",
        "some",
        "such",
        "no",
        "nor",
        "not",
        "only",
        "own",
        "same",
        "so",
        "than",
        "too",
        "very",
        "s",
        "t",
        "can",
        "will",
        "just",
        "don",
        "should",
        "now",
    }
)
_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class SearchTerms:
    """The plain words searched for (lower case, no stop words, no repeats, at most MAX_TERMS)."""

    words: tuple[str, ...]
    text: str

    @property
    def empty(self) -> bool:
        return not self.words


def words_of(text: str) -> list[str]:
    """Letters-and-digits runs, case-folded (NFKC first, so full-width and ligatures fold too)."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def _id_text(text: str) -> str | None:
    """For a pasted arXiv id/link, DOI or other link, the part the index holds (else None)."""
    try:
        ref = parse_paper_ref(text)
    except BadInput:
        return None
    if ref.kind == "title":
        return None
    return ref.arxiv_id or ref.doi or ref.url


def parse_query(text: str) -> SearchTerms:
    """Validate a member's query and reduce it to plain words. Never raises on any syntax."""
    cleaned = clean_line(text)
    if not cleaned:
        raise BadInput("Type something to search for: a paper, a topic, a presenter or a list name.")
    if len(cleaned) > MAX_QUERY_LENGTH:
        raise BadInput(
            f"That search is {len(cleaned)} characters; keep it under {MAX_QUERY_LENGTH} (a few words do best)."
        )
    source = _id_text(cleaned) or cleaned
    words: list[str] = []
    for word in words_of(source):
        if word not in STOPWORDS and word not in words:
            words.append(word)
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


# ---------------------------------------------------------------- results


@dataclass(frozen=True)
class SessionBrief:
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
class SearchPage:
    query: str
    hits: list[SearchHit]
    total: int
    page: int
    pages: int
    more_than_total: bool = False
    """True when there are more than MAX_RESULTS matches (``total`` is then MAX_RESULTS)."""
    any_word: bool = False
    """True when no result had every word and the results match some of them."""
    only_common_words: bool = False


@dataclass(frozen=True)
class _Row:
    kind: HitKind
    ref_id: int
    snippet: str


@dataclass(frozen=True)
class Suggestion:
    """An autocomplete choice: a paper title or a list name."""

    kind: Literal["paper", "list"]
    name: str
    ref_id: int = field(default=0)


def _backend(session: AsyncSession) -> str:
    return session.get_bind().dialect.name


# One pass over the matches: the MAX_RESULTS + 1 newest (rowid order is the index's own, so this stops
# early), each scored, then the page sorted by score; the window count is the number of matches up to
# that cap. Ranking every match of a very common word would cost time in proportion to all of them,
# for results nobody pages to; under the cap the ranking is exact.
_SQLITE_PAGE = text(
    "SELECT kind, ref_id, rowid, total FROM ("
    "  SELECT kind, ref_id, rowid, score, count(*) OVER () AS total FROM ("
    "    SELECT rowid, kind, ref_id, bm25(reading_search, 0.0, 0.0, 0.0, 10.0, 4.0, 4.0, 2.0, 8.0) AS score"
    "    FROM reading_search WHERE reading_search MATCH :q AND guild_id = :g"
    "    ORDER BY rowid DESC LIMIT :cap))"
    "ORDER BY score, rowid DESC LIMIT :limit OFFSET :offset"
)
_SQLITE_COUNT = text(
    "SELECT count(*) FROM (SELECT 1 FROM reading_search "
    "WHERE reading_search MATCH :q AND guild_id = :g LIMIT :cap)"
)
# The page's rows lie among the MAX_RESULTS + 1 newest matches, so one forward pass over the matches
# between the lowest and the highest of them finds them all: far cheaper than seeking each row id in
# every segment of the index (``rowid IN`` alone), and `+` keeps the IN list a plain filter.
_SQLITE_SNIPPETS = text(
    "SELECT rowid, snippet(reading_search, -1, :mo, :mc, '…', 16) FROM reading_search "
    "WHERE reading_search MATCH :q AND rowid BETWEEN :lo AND :hi AND +rowid IN :ids"
).bindparams(bindparam("ids", expanding=True))
_PG_PAGE = text(
    "SELECT n.kind, n.ref_id, n.id, count(*) OVER () AS total,"
    "  ts_rank(n.tsv, to_tsquery('english', :q), 1) AS score FROM ("
    "    SELECT id, kind, ref_id, tsv FROM reading_search"
    "    WHERE guild_id = :g AND tsv @@ to_tsquery('english', :q) ORDER BY id DESC LIMIT :cap) AS n "
    "ORDER BY score DESC, n.id DESC LIMIT :limit OFFSET :offset"
)
_PG_COUNT = text(
    "SELECT count(*) FROM (SELECT 1 FROM reading_search "
    "WHERE guild_id = :g AND tsv @@ to_tsquery('english', :q) LIMIT :cap) AS m"
)
_PG_SNIPPETS = text(
    "SELECT id, ts_headline('english', coalesce(nullif(concat_ws(' · ', nullif(body, ''), "
    "nullif(papers, ''), nullif(people, '')), ''), title), to_tsquery('english', :q), :hl) "
    "FROM reading_search WHERE id IN :ids"
).bindparams(bindparam("ids", expanding=True))
_PG_HEADLINE = f"StartSel={MARK_OPEN}, StopSel={MARK_CLOSE}, MaxWords=24, MinWords=8, MaxFragments=2"


def _expression(backend: str, words: tuple[str, ...], any_word: bool) -> str:
    if backend == "sqlite":
        return fts5_expression(words, any_word=any_word)
    return tsquery_expression(words, any_word=any_word)


@dataclass(frozen=True)
class _Ranked:
    kind: HitKind
    ref_id: int
    index_id: int


async def _ranked(
    session: AsyncSession, guild_id: int, expression: str, *, limit: int, offset: int
) -> tuple[list[_Ranked], int]:
    """A page of the best matches (among the MAX_RESULTS + 1 newest) and how many matched, up to that."""
    statement = _SQLITE_PAGE if _backend(session) == "sqlite" else _PG_PAGE
    params = {"q": expression, "g": guild_id, "cap": MAX_RESULTS + 1, "limit": limit, "offset": offset}
    rows = (await session.execute(statement, params)).all()
    if rows:
        return [_Ranked(kind, int(ref_id), int(index_id)) for kind, ref_id, index_id, *_ in rows], int(
            rows[0][3]
        )
    if offset == 0:  # the window count is over every (capped) match: none at all
        return [], 0
    count = _SQLITE_COUNT if _backend(session) == "sqlite" else _PG_COUNT
    total = (
        await session.execute(count, {"q": expression, "g": guild_id, "cap": MAX_RESULTS + 1})
    ).scalar_one()
    return [], int(total)


async def _snippets(session: AsyncSession, expression: str, index_ids: list[int]) -> dict[int, str]:
    if not index_ids:
        return {}
    if _backend(session) == "sqlite":
        params = {
            "q": expression,
            "ids": index_ids,
            "lo": min(index_ids),
            "hi": max(index_ids),
            "mo": MARK_OPEN,
            "mc": MARK_CLOSE,
        }
        result = await session.execute(_SQLITE_SNIPPETS, params)
    else:
        result = await session.execute(_PG_SNIPPETS, {"q": expression, "ids": index_ids, "hl": _PG_HEADLINE})
    return {int(index_id): snippet or "" for index_id, snippet in result.all()}


@dataclass(frozen=True)
class RankedPage:
    """One page of index rows, best first, with their snippets, before loading what they are."""

    rows: list[_Row]
    total: int
    page: int
    pages: int
    more_than_total: bool
    any_word: bool


async def ranked_page(
    session: AsyncSession, guild_id: int, terms: SearchTerms, *, page: int = 0, per_page: int = 5
) -> RankedPage:
    """The store's search: rank one page for all the words (else any of them), with snippets."""
    backend = _backend(session)
    page = max(page, 0)
    limit = max(1, min(per_page, MAX_RESULTS - page * per_page))
    any_word = False
    expression = _expression(backend, terms.words, any_word)
    ranked, total = await _ranked(session, guild_id, expression, limit=limit, offset=page * per_page)
    if total == 0 and len(terms.words) > 1:
        any_word = True
        expression = _expression(backend, terms.words, any_word)
        ranked, total = await _ranked(session, guild_id, expression, limit=limit, offset=page * per_page)
    more = total > MAX_RESULTS
    total = min(total, MAX_RESULTS)
    pages = max(1, -(-total // per_page))
    if total and not ranked:  # asked past the last page (e.g. an old button): show the last one
        page = pages - 1
        limit = min(per_page, total - page * per_page)
        ranked, _ = await _ranked(session, guild_id, expression, limit=limit, offset=page * per_page)
    snippets = await _snippets(session, expression, [r.index_id for r in ranked])
    rows = [_Row(r.kind, r.ref_id, snippets.get(r.index_id, "")) for r in ranked]
    return RankedPage(rows, total, min(page, pages - 1), pages, more, any_word)


async def search(
    session: AsyncSession, guild_id: int, query: str, *, page: int = 0, per_page: int = 5
) -> SearchPage:
    """One page of ranked hits for `query` (validated here; BadInput on empty or over-long)."""
    terms = parse_query(query)
    if terms.empty:
        return SearchPage(terms.text, [], 0, 0, 1, only_common_words=True)
    ranked = await ranked_page(session, guild_id, terms, page=page, per_page=per_page)
    hits = await hydrate(session, ranked.rows)
    return SearchPage(
        terms.text,
        hits,
        ranked.total,
        ranked.page,
        ranked.pages,
        more_than_total=ranked.more_than_total,
        any_word=ranked.any_word,
    )


async def hydrate(session: AsyncSession, rows: list[_Row]) -> list[SearchHit]:
    """Turn index rows into hits with where each belongs (sessions that read a paper, its lists)."""
    ids: dict[str, list[int]] = defaultdict(list)
    for row in rows:
        ids[row.kind].append(row.ref_id)
    sessions: dict[int, ClubSession] = {}
    if ids["session"]:
        found = await session.execute(select(ClubSession).where(ClubSession.id.in_(ids["session"])))
        sessions = {s.id: s for s in found.scalars()}
    papers: dict[int, Paper] = {}
    if ids["paper"]:
        papers = {p.id: p for p in await session.scalars(select(Paper).where(Paper.id.in_(ids["paper"])))}
    read_in: dict[int, list[SessionBrief]] = defaultdict(list)
    on_lists: dict[int, list[str]] = defaultdict(list)
    if ids["paper"]:
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


# ---------------------------------------------------------------- autocomplete

_SQLITE_SUGGEST = text(
    "SELECT kind, ref_id, title FROM reading_search "
    "WHERE reading_search MATCH :q AND guild_id = :g AND kind IN ('paper', 'list') "
    "ORDER BY bm25(reading_search, 0.0, 0.0, 0.0, 10.0, 1.0, 1.0, 1.0, 1.0), rowid DESC LIMIT :limit"
)
_PG_SUGGEST = text(
    "SELECT kind, ref_id, title FROM reading_search "
    "WHERE guild_id = :g AND kind IN ('paper', 'list') AND tsv @@ to_tsquery('english', :q) "
    "ORDER BY ts_rank(tsv, to_tsquery('english', :q), 1) DESC, id DESC LIMIT :limit"
)


async def suggest(session: AsyncSession, guild_id: int, current: str, *, limit: int = 25) -> list[Suggestion]:
    """Paper titles and list names for a query being typed (the last word as a prefix)."""
    limit = max(1, min(limit, 25))
    words = tuple(w for w in words_of(current[:MAX_QUERY_LENGTH]) if w not in STOPWORDS)[:MAX_TERMS]
    if not words:
        return await _recent_names(session, guild_id, limit)
    if _backend(session) == "sqlite":
        statement = _SQLITE_SUGGEST
        expression = "title : (" + fts5_expression(words, prefix_last=True) + ")"
    else:
        statement = _PG_SUGGEST
        expression = tsquery_expression(words, prefix_last=True, weights="A")
    result = await session.execute(statement, {"q": expression, "g": guild_id, "limit": limit})
    return [Suggestion(kind, title, int(ref_id)) for kind, ref_id, title in result.all()]


async def _recent_names(session: AsyncSession, guild_id: int, limit: int) -> list[Suggestion]:
    """With nothing typed yet: the lists, then the most recently added papers."""
    lists = (
        await session.execute(
            select(ReadingList.id, ReadingList.name)
            .where(ReadingList.guild_id == guild_id)
            .order_by(ReadingList.name)
            .limit(limit)
        )
    ).all()
    out = [Suggestion("list", name, list_id) for list_id, name in lists]
    papers = (
        await session.execute(
            select(Paper.id, Paper.title)
            .where(Paper.guild_id == guild_id)
            .order_by(Paper.id.desc())
            .limit(limit - len(out))
        )
    ).all()
    out.extend(Suggestion("paper", title, paper_id) for paper_id, title in papers)
    return out[:limit]


# ---------------------------------------------------------------- saved queries (for page buttons)

SAVED_QUERY_DAYS = 90


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
    await session.execute(
        delete(ReadingSearchQuery).where(
            ReadingSearchQuery.created_at < now - timedelta(days=SAVED_QUERY_DAYS)
        )
    )
    row = ReadingSearchQuery(guild_id=guild_id, query=text_, created_at=now)
    session.add(row)
    await session.flush()
    return row.id


async def saved_query(session: AsyncSession, guild_id: int, query_id: int) -> str | None:
    row = await session.get(ReadingSearchQuery, query_id)
    return row.query if row is not None and row.guild_id == guild_id else None
