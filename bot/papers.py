"""Canonical paper references: :func:`parse_paper_ref` gives one key per paper however it is pasted."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, replace
from typing import Literal
from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

from rapidfuzz import fuzz

from bot.errors import BadInput
from bot.text import clean_line, is_http_url

PaperKind = Literal["arxiv", "doi", "openreview", "acl", "url", "title"]

MAX_TITLE_LENGTH = 300
#: The longest link kept, https:// included (added to a bare one, 'arxiv.org/abs/…'): what a Discord link
#: button holds (discord-api-docs, Component Reference → Button: url, max 512 characters). Every option and
#: form field taking a link takes this many; every link column holds it.
MAX_URL_LENGTH = 512
MAX_PAPERS_PER_LIST = 10
#: The longest `papers` text: the most papers, each the longest link, one a line.
MAX_PAPER_LIST_TEXT = MAX_PAPERS_PER_LIST * (MAX_URL_LENGTH + 1)
#: papers.key; a longer key (a long link, a title of wide characters) is kept as its digest.
MAX_KEY_LENGTH = 400
MAX_DOI_LENGTH = 200  # papers.doi

_ARXIV_NEW = r"(?P<new>\d{4}\.\d{4,5})"
_ARXIV_OLD = r"(?P<old>[a-z][a-z-]*(?:\.[a-z]{2})?/\d{7})"
_ARXIV_ID = re.compile(rf"(?:{_ARXIV_NEW}|{_ARXIV_OLD})(?:v\d+)?", re.IGNORECASE)
# Hosts whose /abs/, /pdf/... (or Hugging Face's /papers/) pages are keyed by the arXiv ID.
_ARXIV_HOSTS = {"arxiv.org", "export.arxiv.org", "alphaxiv.org", "huggingface.co"}
_ARXIV_PATH = re.compile(r"/(?:abs|pdf|html|format|overview|papers)/(?P<id>.+?)(?:\.pdf)?/?", re.IGNORECASE)
_DOI = re.compile(r"(10\.\d{4,9}/\S+)")
_ARXIV_DOI = re.compile(r"10\.48550/arxiv\.(.+)", re.IGNORECASE)
_ACL_ID = re.compile(r"(\d{4}\.[a-z0-9]+(?:-[a-z0-9]+)*\.\d+|[a-z]\d{2}-\d{4})", re.IGNORECASE)
_SCHEME = re.compile(r"^([a-z][a-z0-9+.-]*):", re.IGNORECASE)
# Schemes refused even without '//' (e.g. 'javascript:alert(1)'); 'Data: a survey' is still a title.
_BAD_SCHEMES = re.compile(
    r"javascript|vbscript|data|file|ftps?|sftp|mailto|blob|about|chrome|wss?|tel|ssh|git|smb|ldap|irc|magnet"
)
# A link without a scheme: needs a path or a leading 'www.' so that titles like 'Node.js' stay titles.
_BARE_DOMAIN = re.compile(r"^(?:www\.\S+|(?:[a-z0-9-]+\.)+[a-z]{2,}(?::\d+)?/\S*)$", re.IGNORECASE)
_TRACKING_PARAMS = {"fbclid", "gclid", "mc_cid", "mc_eid"}
_QUOTES = "\"'`“”‘’«»*_"
_BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+")


@dataclass(frozen=True)
class PaperRef:
    """A canonical reference to one paper; ``key`` (``arxiv:…``, ``doi:…``, ``url:…``, ``title:…``) is unique."""

    kind: PaperKind
    key: str
    url: str | None = None
    title: str | None = None
    arxiv_id: str | None = None
    doi: str | None = None

    @property
    def label(self) -> str:
        """A short human-readable name: the title, ``arXiv:…``, ``doi:…`` or the link."""
        if self.title:
            return self.title
        if self.arxiv_id:
            return f"arXiv:{self.arxiv_id}"
        if self.doi:
            return f"doi:{self.doi}"
        return self.url or self.key


def normalize_title(title: str) -> str:
    """Casefold, strip accents (NFKD), turn punctuation and symbols into spaces, collapse spaces."""
    decomposed = unicodedata.normalize("NFKD", title.casefold())
    chars = []
    for ch in decomposed:
        category = unicodedata.category(ch)
        if category == "Mn":
            continue
        chars.append(" " if category[0] in "PSZC" else ch)
    return " ".join("".join(chars).split())


def titles_match(a: str, b: str, threshold: float = 0.9) -> bool:
    """Whether two titles name the same paper: rapidfuzz ratio ≥ ``threshold`` and the same digit words."""
    na, nb = normalize_title(a), normalize_title(b)
    if not na or not nb:
        return False
    digits_a, digits_b = (sorted(w for w in n.split() if any(c.isdigit() for c in w)) for n in (na, nb))
    return digits_a == digits_b and fuzz.ratio(na, nb) / 100 >= threshold


def _strip_wrapping(text: str) -> str:
    """Strip whitespace, Discord's <link> brackets, a markdown link, quotes and emphasis marks."""
    text = text.strip()
    link = re.fullmatch(r"\[[^\]]*\]\((\S+?)\)", text)
    if link:
        text = link.group(1)
    if text.startswith("<") and text.endswith(">"):
        text = text[1:-1].strip()
    while len(text) >= 2 and text[0] in _QUOTES and text[-1] in _QUOTES:
        text = text[1:-1].strip()
    return text


def _with_scheme(text: str) -> str:
    """Add https:// to bare links such as 'arxiv.org/abs/2401.12345'."""
    return f"https://{text}" if _BARE_DOMAIN.match(text) and not _SCHEME.match(text) else text


def _bad_scheme(text: str) -> str | None:
    """The scheme if ``text`` looks like a non-http(s) link, else None."""
    squashed = re.sub(r"[\x00-\x20]", "", text)  # browsers ignore these inside 'java\tscript:'
    m = _SCHEME.match(squashed)
    if not m:
        return None
    scheme = m.group(1).lower()
    if scheme in ("http", "https"):
        return None
    after_colon = text.split(":", 1)[1][:1] if ":" in text else ""
    if squashed[m.end() :].startswith("//") or (_BAD_SCHEMES.fullmatch(scheme) and not after_colon.isspace()):
        return scheme
    return None


def _refuse_invisible(url: str, field: str) -> None:
    if any(unicodedata.category(c) in ("Cc", "Cf") and not c.isspace() for c in url):
        raise BadInput(
            f"{field} has invisible characters in it (a zero-width space or a direction mark, say); "
            "type it or paste it again from the address bar."
        )


def validate_http_url(text: str, field: str = "Link") -> str:
    """Return a cleaned http(s) URL (https:// added to bare domains), or raise BadInput."""
    given = _strip_wrapping(text)
    url = _with_scheme(given)
    if not url:
        raise BadInput(f"{field} is empty; paste a link starting with https://.")
    _refuse_invisible(url, field)
    if len(url) > MAX_URL_LENGTH:
        raise BadInput(
            f"{field} is too long (over {MAX_URL_LENGTH} characters{_added(given, url)}); use a shorter link."
        )
    if not is_http_url(url):
        raise BadInput(f"{field} must be an http(s) link, e.g. https://example.com/page.")
    return url


def normalize_url(url: str) -> str:
    """https, lower-case host, no default port, no fragment, no utm_*/click-id params, no trailing /."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    host = f"[{host}]" if ":" in host else host
    if parts.port is not None and parts.port not in (80, 443):
        host = f"{host}:{parts.port}"
    query = "&".join(p for p in parts.query.split("&") if p and not _is_tracking(p.split("=", 1)[0]))
    return urlunsplit(("https", host, parts.path.rstrip("/"), query, ""))


def _is_tracking(param: str) -> bool:
    name = unquote(param).lower()
    return name.startswith("utm_") or name in _TRACKING_PARAMS


def _arxiv_ref(raw_id: str) -> PaperRef | None:
    m = _ARXIV_ID.fullmatch(raw_id.strip())
    if not m:
        return None
    if m.group("new"):
        arxiv_id = m.group("new")
        if not 1 <= int(arxiv_id[2:4]) <= 12:
            return None
    else:  # the subject class is not part of the id: arXiv writes math.GT/0309136 as math/0309136
        archive, number = m.group("old").split("/")
        arxiv_id = f"{archive.partition('.')[0].lower()}/{number}"
    return PaperRef("arxiv", f"arxiv:{arxiv_id}", url=f"https://arxiv.org/abs/{arxiv_id}", arxiv_id=arxiv_id)


def _doi_ref(doi: str) -> PaperRef:
    doi = doi.strip().rstrip(".,;").lower()
    arxiv = _ARXIV_DOI.fullmatch(doi)
    if arxiv and (ref := _arxiv_ref(arxiv.group(1))):
        return ref
    return PaperRef("doi", f"doi:{doi}", url=f"https://doi.org/{doi}", doi=doi)


def _added(given: str, url: str) -> str:
    """' once https:// is added' when only the added scheme takes a link over the limit."""
    return " once https:// is added" if len(given) <= MAX_URL_LENGTH < len(url) else ""


def _url_ref(url: str, given: str) -> PaperRef:
    if len(url) > MAX_URL_LENGTH:
        raise BadInput(
            f"That link is over {MAX_URL_LENGTH} characters{_added(given, url)}; use a shorter one (e.g. the DOI)."
        )
    _refuse_invisible(url, "That link")
    if not is_http_url(url):
        raise BadInput("That doesn't look like a complete link; paste it starting with https://.")
    parts = urlsplit(url)
    host = (parts.hostname or "").lower().removeprefix("www.")
    path = unquote(parts.path)
    query = dict(parse_qsl(parts.query))
    if host in _ARXIV_HOSTS and (m := _ARXIV_PATH.fullmatch(path)) and (ref := _arxiv_ref(m.group("id"))):
        return ref
    if host in ("doi.org", "dx.doi.org") and (m := _DOI.fullmatch(path.lstrip("/"))):
        return _doi_ref(m.group(1))
    if m := re.fullmatch(r"/doi/(?:abs/|pdf/|full/|epdf/|book/)?(10\.\d{4,9}/.+?)/?", path):
        return _doi_ref(m.group(1))
    if host == "openreview.net" and path.rstrip("/") in ("/forum", "/pdf") and query.get("id"):
        note_id = query["id"]
        if re.fullmatch(r"[A-Za-z0-9_-]{1,64}", note_id):
            return PaperRef(
                "openreview", f"openreview:{note_id}", url=f"https://openreview.net/forum?id={note_id}"
            )
    acl_path = re.fullmatch(r"(?:/anthology)?/([^/]+?)(?:\.pdf)?/?", path)
    if host in ("aclanthology.org", "aclweb.org") and acl_path and _ACL_ID.fullmatch(acl_path.group(1)):
        acl_id = acl_path.group(1)
        acl_id = acl_id.upper() if "." not in acl_id else acl_id.lower()
        return PaperRef("acl", f"acl:{acl_id}", url=f"https://aclanthology.org/{acl_id}/")
    key = normalize_url(url)
    link = urlunsplit((parts.scheme.lower(), *urlsplit(key)[1:]))
    return PaperRef("url", f"url:{key}", url=link)


def parse_paper_ref(text: str) -> PaperRef:
    """A paper reference read from text; a key too long for its column becomes its digest, a DOI is refused."""
    ref = _read_ref(text)
    if len(ref.doi or "") > MAX_DOI_LENGTH:
        raise BadInput(
            f"That DOI is over {MAX_DOI_LENGTH} characters, too long to keep; paste the paper's link, "
            "arXiv ID or title instead."
        )
    if len(ref.key) > MAX_KEY_LENGTH:
        digest = hashlib.sha256(ref.key.encode("utf-8", "surrogatepass")).hexdigest()
        ref = replace(ref, key=f"{ref.kind}:sha256:{digest}")
    return ref


def _read_ref(text: str) -> PaperRef:
    cleaned = _strip_wrapping(text)
    if not cleaned:
        raise BadInput("Give a paper: an arXiv ID (2401.12345), a DOI, a link or the title.")
    scheme = _bad_scheme(cleaned)
    if scheme:
        raise BadInput(
            f"Only http(s) links are accepted (not {scheme}:); paste an https:// link, "
            "an arXiv ID, a DOI or the title."
        )
    if ref := _arxiv_ref(cleaned):
        return ref
    if m := re.fullmatch(r"arxiv\s*:\s*(\S+)", cleaned, re.IGNORECASE):
        if ref := _arxiv_ref(m.group(1)):
            return ref
        raise BadInput(
            f"“{m.group(1)[:40]}” is not an arXiv ID; they look like 2401.12345 or hep-th/9901001."
        )
    if m := re.fullmatch(r"(?:doi\s*:\s*)?(10\.\d{4,9}/\S+)", cleaned, re.IGNORECASE):
        return _doi_ref(m.group(1))
    url = _with_scheme(cleaned)
    if _SCHEME.match(url) and url.split(":", 1)[0].lower() in ("http", "https"):
        return _url_ref(url, cleaned)
    title = clean_line(cleaned)
    if len(title) > MAX_TITLE_LENGTH:
        raise BadInput(
            f"That title is over {MAX_TITLE_LENGTH} characters; shorten it or paste a link instead."
        )
    normalised = normalize_title(title)
    if not normalised:
        raise BadInput("That title has no letters or digits; paste the paper's title, link or arXiv ID.")
    return PaperRef("title", f"title:{normalised}", title=title)


def split_paper_list(text: str, max_papers: int = MAX_PAPERS_PER_LIST) -> list[str]:
    """Split one-per-line or ';'-separated papers; trims, drops empties and bullets ('-', '1.')."""
    items = [_BULLET.sub("", part).strip() for part in re.split(r"[\n;]", text)]
    items = [item for item in items if item]
    if not items:
        raise BadInput("Give at least one paper: an arXiv ID, DOI, link or title, one per line.")
    if len(items) > max_papers:
        raise BadInput(f"That's {len(items)} papers; the limit is {max_papers} at a time.")
    return items


#: Links that are never papers: Discord's own (messages, attachments, invites) and GIF hosts.
_NOT_PAPER_HOSTS = ("discord.com", "discordapp.com", "discord.gg", "discordapp.net", "tenor.com", "giphy.com")
_LINK_IN_TEXT = re.compile(r"https?://[^\s<>()\[\]{}\"'|`]+", re.IGNORECASE)
_ID_IN_TEXT = re.compile(
    r"(?<![\w/.])(?:arxiv\s*:\s*\S+|doi\s*:\s*10\.\d{4,9}/\S+|10\.\d{4,9}/[^\s<>()\[\]\"'`]+|"
    r"\d{4}\.\d{4,5}(?:v\d+)?)(?![\w/])",
    re.IGNORECASE,
)
MAX_LINKS_FOUND = 25  # a select's options


def find_paper_links(text: str) -> list[str]:
    """Every paper a message names by link, arXiv ID or DOI, once each (no Discord or GIF links, no titles)."""
    found: list[tuple[int, str]] = []
    spans: list[tuple[int, int]] = []
    for match in _LINK_IN_TEXT.finditer(text):
        link = match.group(0).rstrip(".,;:!?*_~>")
        host = (urlsplit(link).hostname or "").lower()
        spans.append(match.span())
        if any(host == h or host.endswith("." + h) for h in _NOT_PAPER_HOSTS):
            continue
        found.append((match.start(), link))
    for match in _ID_IN_TEXT.finditer(text):
        if any(start <= match.start() < end for start, end in spans):
            continue
        found.append((match.start(), match.group(0).rstrip(".,;:!?*_~>")))
    papers: list[str] = []
    keys: set[str] = set()
    for _, candidate in sorted(found):
        if len(candidate) > MAX_URL_LENGTH:
            continue
        try:
            ref = parse_paper_ref(candidate)
        except BadInput:
            continue
        if ref.kind == "title" or ref.key in keys:
            continue
        keys.add(ref.key)
        papers.append(candidate)
        if len(papers) == MAX_LINKS_FOUND:
            break
    return papers
