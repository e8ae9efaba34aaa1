"""OpenReview: a submission's venue, decision and forum link, never the reviews; API v2 from 2024, v1 before
(openreview/openreview#299); guests 20 requests a minute (openreview/openreview#254, lockouts #437)."""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Unpack

from bot.papers import normalize_title
from bot.sources import clean
from bot.sources.http import ClientOptions, Reply, SourceClient
from bot.sources.pace import RateLimit

log = logging.getLogger("paperclub.sources")

SOURCE = "openreview"
API_ROOT = "https://api2.openreview.net"
WEB_ROOT = "https://openreview.net"
GUEST_LIMIT = RateLimit(20, 60.0)
NOTES_LIMIT = 1000  # the API's default page; a forum with more notes than this is not a paper's
SEARCH_LIMIT = 5  # submissions a title search reads: the one with the same title is among the first
#: Venues OpenReview hosts, and preprint servers: a paper a source places elsewhere is not searched there.
HOSTED_VENUES = re.compile(
    r"\b(ICLR|NeurIPS|NIPS|ICML|TMLR|CoRL|COLM|RLC|Learning Representations|Neural Information Processing"
    r"|Machine Learning Research|Robot Learning|Language Modeling|Reinforcement Learning Conference"
    r"|arXiv|CoRR|preprint)\b",
    re.IGNORECASE,
)

_NOTE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_ICLR = re.compile(r"\bICLR\b|Learning Representations", re.IGNORECASE)
_TRY_AGAIN = re.compile(r"try again in (?:(\d+) minutes?)?(?: and )?(?:(\d+) seconds?)?", re.IGNORECASE)
DECISION_INVITATION = "/-/Decision"
Api = Literal["v1", "v2"]


@dataclass(frozen=True)
class ForumHit:
    """A submission a search found: its forum id and title (cleaned, untrusted)."""

    forum_id: str
    title: str | None


@dataclass(frozen=True)
class ReviewDecision:
    """A submission's venue and decision on OpenReview; never review text (cleaned, capped, untrusted)."""

    forum_id: str
    title: str | None
    venue: str | None  # the submission's venue line: "ICLR 2024 oral", "Submitted to ICLR 2025"
    venue_id: str | None  # "ICLR.cc/2024/Conference"
    decision: str | None  # the decision note's: "Accept (oral)"; None before one is posted
    forum_url: str


def held_by_v1(venue: str | None, year: int | None) -> bool:
    """Whether a paper of ``year`` at ``venue`` is on API v1 alone: ICLR up to 2023, any other up to 2022."""
    if year is None:
        return False
    return year <= 2022 or (year == 2023 and bool(venue and _ICLR.search(venue)))


def worth_searching(venue: str) -> bool:
    """Whether a paper at ``venue`` may be on OpenReview: a venue it hosts, or a preprint server."""
    return bool(HOSTED_VENUES.search(venue))


def _shape(note: dict[str, Any]) -> Api | None:
    """The API a note's shape is from (v2 wraps values in ``{"value": ...}``); None for neither or both."""
    content = note.get("content")
    if not isinstance(content, dict):
        return None
    wrapped = [isinstance(v, dict) and "value" in v for v in content.values()]
    if isinstance(note.get("invitations"), list) and "invitation" not in note and all(wrapped):
        return "v2"
    if isinstance(note.get("invitation"), str) and "invitations" not in note and not any(wrapped):
        return "v1"
    return None


def _value(content: dict[str, Any], field: str, api: Api) -> Any:
    """A content field's value: v2's ``{"value": ...}``, v1's plain one."""
    value = content.get(field)
    return clean.mapping(value).get("value") if api == "v2" else value


def _invitations(note: dict[str, Any]) -> list[str]:
    found = [note.get("invitation"), *clean.items(note.get("invitations"))]
    return [invitation for invitation in found if isinstance(invitation, str)]


def _when(note: dict[str, Any]) -> int:
    stamp = note.get("mdate", note.get("cdate"))
    return stamp if isinstance(stamp, int) and not isinstance(stamp, bool) else 0


def reset_time_hint(reply: Reply, now: datetime) -> float | None:
    """Seconds until a RateLimitError's ``details.resetTime``, else as its message says."""
    try:
        body = clean.mapping(json.loads(reply.text))
    except ValueError:
        return None
    reset = clean.mapping(body.get("details")).get("resetTime")
    if isinstance(reset, str):
        try:
            when = datetime.fromisoformat(reset.replace("Z", "+00:00"))
        except ValueError:
            when = None
        if when is not None and when.tzinfo is not None:
            return (when - now).total_seconds()
    message = body.get("message")
    if isinstance(message, str) and (said := _TRY_AGAIN.search(message)) and (said[1] or said[2]):
        return int(said[1] or 0) * 60.0 + int(said[2] or 0)
    return None


class OpenReviewClient(SourceClient):
    """OpenReview's APIs v2 and v1, paced together to the guest limit."""

    source = SOURCE

    def __init__(
        self,
        base_url: str = API_ROOT,
        *,
        v1_url: str | None = None,
        web_url: str = WEB_ROOT,
        limit: RateLimit = GUEST_LIMIT,
        **options: Unpack[ClientOptions],
    ) -> None:
        self.web_url = web_url.rstrip("/")
        self.v1_url = v1_url
        super().__init__(base_url, limit, retry_hint=reset_time_hint, **options)

    def apis(self, v1_first: bool = False) -> list[tuple[Api, str | None]]:
        """The APIs to ask and their base URLs, in order: v2, then v1 when it has a URL (``v1_first``: v1 first)."""
        both: list[tuple[Api, str | None]] = [("v2", None)]
        if self.v1_url is not None:
            both.insert(0 if v1_first else 1, ("v1", self.v1_url))
        return both

    async def decision(
        self, note_id: str, *, v1_first: bool = False, max_wait: float | None = None
    ) -> ReviewDecision | None:
        """The venue and decision of the submission ``note_id`` is (or is in), asked of v2 and v1."""
        if not _NOTE_ID.fullmatch(note_id):
            return None
        for api, base in self.apis(v1_first):
            if notes := await self._notes(api, base, {"forum": note_id}, max_wait):
                return self._read(api, note_id, notes)
        for api, base in self.apis(v1_first):
            found = await self._notes(api, base, {"id": note_id}, max_wait)
            forum = clean.ident(found[0].get("forum"), 64) if found else None
            if forum is not None and forum != note_id and _NOTE_ID.fullmatch(forum):
                return self._read(api, forum, await self._notes(api, base, {"forum": forum}, max_wait))
        return None

    def _read(self, api: Api, forum_id: str, notes: list[dict[str, Any]]) -> ReviewDecision | None:
        submission = next((n for n in notes if n.get("id") == forum_id), None)
        if submission is None:
            return None
        content = clean.mapping(submission.get("content"))
        decisions = sorted(
            (n for n in notes if any(i.endswith(DECISION_INVITATION) for i in _invitations(n))), key=_when
        )
        decision = None
        if decisions:
            said = _value(clean.mapping(decisions[-1].get("content")), "decision", api)
            decision = clean.text(said, clean.DECISION_MAX)
        return ReviewDecision(
            forum_id=forum_id,
            title=clean.text(_value(content, "title", api), clean.TITLE_MAX),
            venue=clean.text(_value(content, "venue", api), clean.VENUE_MAX),
            venue_id=clean.ident(_value(content, "venueid", api)),
            decision=decision,
            forum_url=f"{self.web_url}/forum?id={forum_id}",
        )

    async def search_forums(
        self, term: str, *, v1_first: bool = False, max_wait: float | None = None
    ) -> list[ForumHit]:
        """Submissions matching ``term`` (a title), best first, from v2 then v1 (``v1_first``: v1 first)."""
        term = " ".join(term.split())[: clean.TITLE_MAX]
        wanted = normalize_title(term)
        if not term:
            return []
        params = {
            "term": term,
            "content": "all",
            "group": "all",
            "source": "forum",
            "limit": str(SEARCH_LIMIT),
        }
        hits = []
        for api, base in self.apis(v1_first):
            reply = await self.get("/notes/search", params, max_wait=max_wait, base=base)
            if reply.status == 400:  # our query refused: no paper is found until it is fixed, so say so
                log.warning("OpenReview %s refused a title search (HTTP 400)", api)
                log.debug("OpenReview's answer: %r", reply.text[:200])  # may echo the title someone typed
            body = self.answer(reply, "search", unknown=(400, 404))
            for note in self._checked(api, body)[:SEARCH_LIMIT]:
                forum = clean.ident(note.get("forum"), 64)
                if forum is None or note.get("id") != forum or not _NOTE_ID.fullmatch(forum):
                    continue  # a reply, or no usable id
                title = clean.text(_value(clean.mapping(note.get("content")), "title", api), clean.TITLE_MAX)
                hits.append(ForumHit(forum, title))
            if any(hit.title and normalize_title(hit.title) == wanted for hit in hits):
                break
        return hits

    async def _notes(
        self, api: Api, base: str | None, params: dict[str, str], max_wait: float | None
    ) -> list[dict[str, Any]]:
        reply = await self.get("/notes", {**params, "limit": str(NOTES_LIMIT)}, max_wait=max_wait, base=base)
        if reply.status == 403:
            log.warning(
                "OpenReview %s refused %s (HTTP 403 Forbidden: not public to guests): %r",
                api,
                params,
                reply.text[:200],
            )
        body = self.answer(reply, "notes", unknown=(400, 403, 404))  # malformed, forbidden, unknown
        return self._checked(api, body)

    def _checked(self, api: Api, body: Any) -> list[dict[str, Any]]:
        """The answer's notes, each in ``api``'s shape; an answer of another shape is refused (logged)."""
        if body is None:
            return []
        if not isinstance(body, dict) or not isinstance(body.get("notes"), list):
            raise self.unavailable("answered notes with something other than {notes: [...]}")
        notes = body["notes"]
        if not all(isinstance(n, dict) and _shape(n) == api for n in notes):
            log.warning(
                "OpenReview API %s answered notes not in its own shape (v1 and v2 mixed?): none read", api
            )
            raise self.unavailable(f"answered notes not in API {api}'s shape")
        return list(notes)
