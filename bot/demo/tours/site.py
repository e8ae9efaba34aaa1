"""Tour: an admin turns the website on; its home page printed as text; a session card links its page."""

from __future__ import annotations

from html.parser import HTMLParser

import aiohttp

from bot.demo.stage import Demo
from bot.demo.tours.sessions import TITLE

ORDER = 80  # after the programme's import (reading, 70): the page then shows the club's real content
SLUG = "paper-club"
ABOUT = """\
- **Format.** An hour, usually Thursdays at 9:30 AM PT. A short intro on the paper, the rest on whether it holds.
- **Where.** A video call; sign up on [Luma](https://lu.ma/paperclub) beforehand and the link is emailed to you.
- **Recording.** Sessions are recorded and embedded on the session page. Say so and we keep you out of it.
- **Notes.** Each session gets a page here linking the paper's page in the wiki."""
_BLOCKS = {"p", "h1", "h2", "h3", "li", "dt", "dd", "header", "footer", "section", "ul", "ol", "nav"}
_SKIP = {"head", "nav", "script", "style"}


class _Text(HTMLParser):
    """The page as a reader sees it without styles: one line per block, bullets for list items."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.current: list[str] = []
        self.skipping = 0

    def _flush(self) -> None:
        line = " ".join("".join(self.current).split())
        if line == "•":  # a list item whose text is in a paragraph: the bullet goes on that line
            return
        if line:
            self.lines.append(line)
        self.current = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP:
            self.skipping += 1
        if tag in _BLOCKS and not self.skipping:
            self._flush()
            if tag == "li":
                self.current.append("• ")
            if tag in ("h1", "h2"):
                self.lines.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self.skipping -= 1
        if tag in _BLOCKS and not self.skipping:
            self._flush()

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.current.append(data)


async def tour(demo: Demo) -> None:
    """Turn the website on, print the home page as text and show a session card linking its page."""
    demo.narrate("An admin turns the club's website on: the club page, session pages and calendar feeds")
    await demo.invoke("setup website", {"enabled": True, "slug": SLUG}, member=demo.admin)
    opened = await demo.invoke("setup about", {}, member=demo.admin)
    await demo.submit_modal(opened, {"site_about:text": ABOUT}, member=demo.admin)

    web = demo.bot.web
    address = f"{web.public_url}/{SLUG}/"
    local = f"http://127.0.0.1:{web.bound_port}/{SLUG}/"  # the demo's own server (a free port)
    async with aiohttp.ClientSession() as http, http.get(local) as answer:
        status, content_type, html = answer.status, answer.headers["Content-Type"], await answer.text()
    demo.narrate(f"Anyone opens the home page: {address}")
    if status != 200:
        demo.fail(f"got {status} for the home page")
    demo.show(f"  GET {address} → {status} {content_type}")
    page = _Text()
    page.feed(html)
    page.close()
    page._flush()
    demo.show("\n".join(f"  │ {line}" if line else "  │" for line in page.lines))

    demo.narrate("A session's card now links its page on the website")
    session = await demo.session_titled(TITLE)
    shown = await (await demo.invoke("session show", {"session": session.id}, member=demo.member)).final()
    demo.button(shown, f"{web.public_url}/{SLUG}/sessions/{session.id}")
