"""What a member types, as plain quoted words for the full-text index (never operators); common English
words dropped, as PostgreSQL's ``english`` configuration does."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from bot.errors import BadInput
from bot.papers import parse_paper_ref
from bot.text import clean_line

MAX_QUERY_LENGTH = 200
MAX_TERMS = 16

# PostgreSQL's english stop words (the Snowball list), dropped from queries on both stores.
_STOPWORD_LIST = (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she "
    "her hers herself it its itself they them their theirs themselves what which who whom this that "
    "these those am is are was were be been being have has had having do does did doing a an the and "
    "but if or because as until while of at by for with about against between into through during "
    "before after above below to from up down in out on off over under again further then once here "
    "there when where why how all any both each few more most other some such no nor not only own "
    "same so than too very s t can will just don should now"
)
STOPWORDS = frozenset(_STOPWORD_LIST.split())
_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class SearchTerms:
    """The plain words searched for (lower case, no stop words, no repeats, at most MAX_TERMS)."""

    words: tuple[str, ...]
    text: str

    @property
    def empty(self) -> bool:
        """Whether no words are left to search for."""
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
