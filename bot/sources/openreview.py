"""OpenReview API v2 client: a submission's venue and decision ("ICLR 2024 oral") and its forum link; never
the reviews (only ``venue``/``venueid`` and the decision note's ``decision`` are read).

Shapes: OpenReview's docs (https://docs.openreview.net, "Using the API: Notes", API v2 Note): ``GET
/notes?forum=<id>`` lists the forum's public notes, ``content`` fields are ``{"value": ...}``, the decision
note's invitation ends in ``/-/Decision``; ``GET /notes/search?term=...&source=forum`` is the full-text
search over submissions (openreview-py's ``search_notes``). Rate: no published figure; the client keeps
1 request/s and waits out a 429's ``details.resetTime`` when there is no Retry-After
(openreview/openreview#437).
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Unpack

from bot.sources import clean
from bot.sources.http import ClientOptions, RateLimit, Reply, SourceClient

log = logging.getLogger("paperclub.sources")

SOURCE = "openreview"
API_ROOT = "https://api2.openreview.net"
WEB_ROOT = "https://openreview.net"
RATE_LIMIT = RateLimit.every(1.0)
NOTES_LIMIT = 1000  # the API's default page; a forum with more notes than this is not a paper's
SEARCH_LIMIT = 5  # submissions a title search reads: the one with the same title is among the first

_NOTE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
DECISION_INVITATION = "/-/Decision"


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


def _value(content: dict[str, Any], field: str) -> Any:
    """A v2 content field's value (``{"field": {"value": ...}}``)."""
    return clean.mapping(content.get(field)).get("value")


def _is_decision(note: dict[str, Any]) -> bool:
    invitations = [i for i in clean.items(note.get("invitations")) if isinstance(i, str)]
    return any(invitation.endswith(DECISION_INVITATION) for invitation in invitations)


def _when(note: dict[str, Any]) -> int:
    stamp = note.get("mdate", note.get("cdate"))
    return stamp if isinstance(stamp, int) and not isinstance(stamp, bool) else 0


def reset_time_hint(reply: Reply, now: datetime) -> float | None:
    """Seconds until a RateLimitError body's ``details.resetTime`` (ISO 8601 UTC)."""
    try:
        body = json.loads(reply.text)
    except ValueError:
        return None
    reset = clean.mapping(clean.mapping(body).get("details")).get("resetTime")
    if not isinstance(reset, str):
        return None
    try:
        when = datetime.fromisoformat(reset.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (when - now).total_seconds() if when.tzinfo is not None else None


class OpenReviewClient(SourceClient):
    """OpenReview API v2, paced to 1 request per second (see the module docstring)."""

    source = SOURCE

    def __init__(
        self, base_url: str = API_ROOT, *, web_url: str = WEB_ROOT, **options: Unpack[ClientOptions]
    ) -> None:
        self.web_url = web_url.rstrip("/")
        super().__init__(base_url, RATE_LIMIT, retry_hint=reset_time_hint, **options)

    async def decision(self, note_id: str, *, max_wait: float | None = None) -> ReviewDecision | None:
        """The venue and decision of the submission whose forum (or one of whose notes) is ``note_id``."""
        if not _NOTE_ID.fullmatch(note_id):
            return None
        notes = await self._notes({"forum": note_id}, max_wait)
        if not notes:
            found = await self._notes({"id": note_id}, max_wait)
            forum = clean.ident(found[0].get("forum"), 64) if found else None
            if forum is None or forum == note_id or not _NOTE_ID.fullmatch(forum):
                return None
            note_id, notes = forum, await self._notes({"forum": forum}, max_wait)
        submission = next((n for n in notes if n.get("id") == note_id), None)
        if submission is None:
            return None
        content = clean.mapping(submission.get("content"))
        decisions = sorted((n for n in notes if _is_decision(n)), key=_when)
        decision = None
        if decisions:
            decision = clean.text(
                _value(clean.mapping(decisions[-1].get("content")), "decision"), clean.DECISION_MAX
            )
        return ReviewDecision(
            forum_id=note_id,
            title=clean.text(_value(content, "title"), clean.TITLE_MAX),
            venue=clean.text(_value(content, "venue"), clean.VENUE_MAX),
            venue_id=clean.ident(_value(content, "venueid")),
            decision=decision,
            forum_url=f"{self.web_url}/forum?id={note_id}",
        )

    async def search_forums(self, term: str, *, max_wait: float | None = None) -> list[ForumHit]:
        """Submissions whose text matches ``term`` (a paper's title), best first."""
        term = " ".join(term.split())[: clean.TITLE_MAX]
        if not term:
            return []
        params = {
            "term": term,
            "content": "all",
            "group": "all",
            "source": "forum",
            "limit": str(SEARCH_LIMIT),
        }
        reply = await self.http.get("/notes/search", params, max_wait=max_wait)
        if reply.status == 400:  # our query refused: no paper is found until it is fixed, so say so
            log.warning("OpenReview refused a title search (HTTP 400)")
            log.debug("OpenReview's answer: %r", reply.text[:200])  # may echo the title someone typed
        body = self.http.answer(reply, "search", unknown=(400, 404))
        if body is None:
            return []
        if not isinstance(body, dict) or not isinstance(body.get("notes"), list):
            raise self.http.unavailable("answered a search with something other than {notes: [...]}")
        hits = []
        for note in body["notes"][:SEARCH_LIMIT]:
            note = clean.mapping(note)
            forum = clean.ident(note.get("forum"), 64)
            if forum is None or note.get("id") != forum or not _NOTE_ID.fullmatch(forum):
                continue  # a reply, or no usable id
            title = clean.text(_value(clean.mapping(note.get("content")), "title"), clean.TITLE_MAX)
            hits.append(ForumHit(forum, title))
        return hits

    async def _notes(self, params: dict[str, str], max_wait: float | None) -> list[dict[str, Any]]:
        reply = await self.http.get("/notes", {**params, "limit": str(NOTES_LIMIT)}, max_wait=max_wait)
        body = self.http.answer(reply, "notes", unknown=(400, 403, 404))  # malformed, not public, unknown
        if body is None:
            return []
        if not isinstance(body, dict) or not isinstance(body.get("notes"), list):
            raise self.http.unavailable("answered notes with something other than {notes: [...]}")
        return [note for note in body["notes"] if isinstance(note, dict)]
