"""Checks on served HTML: parsed with the standard library's HTML parser, as a browser would tokenise it."""

from __future__ import annotations

from html.parser import HTMLParser

OUR_SCRIPT = "site.js"


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(html: str) -> Tags:
    parser = Tags()
    parser.feed(html)
    parser.close()
    return parser


def assert_nothing_runs(html: str) -> Tags:
    """No script but ours, no event-handler attribute, no link or frame to anything but http(s)/mailto."""
    page = parse(html)
    for tag, attrs in page.tags:
        if tag == "script":  # ours, or a data block (a session's schema.org Event) that never runs
            assert (attrs.get("src") or "").endswith(OUR_SCRIPT) or (
                attrs == {"type": "application/ld+json"}
            ), attrs
        assert (
            tag not in ("img", "object", "embed", "base", "form")
            or tag == "form"
            and attrs.get("role") == "search"
        ), (tag, attrs)
        for name, value in attrs.items():
            assert not name.startswith("on"), (tag, name, value)
            if name in ("href", "src", "action") and value is not None:
                lowered = value.strip().lower()
                assert lowered.startswith(("https://", "http://", "mailto:", "webcal://", "./", "../")) or (
                    not lowered.split("/")[0].count(":") and tag in ("a", "link", "script", "form")
                ), (tag, name, value)
        if tag == "iframe":
            assert (attrs.get("src") or "").startswith(
                ("https://www.youtube-nocookie.com/", "https://player.vimeo.com/", "https://www.loom.com/")
            ), attrs
    return page


def text_of(html: str) -> str:
    """The page's text as a reader sees it: the runs of text as they are (a link inside a sentence adds no
    space), whitespace folded."""
    return " ".join("".join(parse(html).text).split())
