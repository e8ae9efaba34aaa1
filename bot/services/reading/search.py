"""Full-text search over the club's sessions, papers and reading lists: every word, else any of them."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.reading import statements as sql
from bot.services.reading.hits import (
    MARK_CLOSE,
    MARK_OPEN,
    HitKind,
    IndexRow,
    SearchHit,
    hydrate,
)
from bot.services.reading.terms import (
    SearchTerms,
    fts5_expression,
    parse_query,
    tsquery_expression,
)

MAX_RESULTS = 250
"""At most this many results (50 pages): over it, the reply says "over 250" and the results are
the best among the newest matches, so a very common word costs no more than a rarer one."""


@dataclass(frozen=True)
class SearchPage:
    """One page of search hits for a query."""

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


def _backend(session: AsyncSession) -> str:
    return session.get_bind().dialect.name


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
    session: AsyncSession,
    guild_id: int,
    expression: str,
    *,
    limit: int,
    offset: int,
) -> tuple[list[_Ranked], int]:
    """A page of the best matches (among the MAX_RESULTS + 1 newest) and how many matched, up to that."""
    statement = sql.SQLITE_PAGE if _backend(session) == "sqlite" else sql.PG_PAGE
    params = {"q": expression, "g": guild_id, "cap": MAX_RESULTS + 1, "limit": limit, "offset": offset}
    rows = (await session.execute(statement, params)).all()
    if rows:
        return [_Ranked(kind, int(ref_id), int(index_id)) for kind, ref_id, index_id, *_ in rows], int(
            rows[0][3]
        )
    if offset == 0:  # the window count is over every (capped) match: none at all
        return [], 0
    count = sql.SQLITE_COUNT if _backend(session) == "sqlite" else sql.PG_COUNT
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
        result = await session.execute(sql.SQLITE_SNIPPETS, params)
    else:
        result = await session.execute(
            sql.PG_SNIPPETS, {"q": expression, "ids": index_ids, "hl": sql.PG_HEADLINE}
        )
    return {int(index_id): snippet or "" for index_id, snippet in result.all()}


@dataclass(frozen=True)
class RankedPage:
    """One page of index rows, best first, with their snippets, before loading what they are."""

    rows: list[IndexRow]
    total: int
    page: int
    pages: int
    more_than_total: bool
    any_word: bool


async def ranked_page(
    session: AsyncSession,
    guild_id: int,
    terms: SearchTerms,
    *,
    page: int = 0,
    per_page: int = 5,
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
    rows = [IndexRow(r.kind, r.ref_id, snippets.get(r.index_id, "")) for r in ranked]
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
