"""The website's pure parts: recording embeds by parsed URL, safe Markdown, slugs."""

from __future__ import annotations

import pytest

from bot.errors import BadInput
from bot.services.site.config import clean_slug, render_markdown, safe_link
from bot.services.site.views import recording_embed


@pytest.mark.parametrize(
    ("url", "provider", "src"),
    [
        (
            "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
            "YouTube",
            "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ",
        ),
        ("https://youtu.be/dQw4w9WgXcQ", "YouTube", "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ"),
        (
            "https://m.youtube.com/shorts/dQw4w9WgXcQ",
            "YouTube",
            "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ",
        ),
        ("https://vimeo.com/123456789", "Vimeo", "https://player.vimeo.com/video/123456789"),
        (
            "https://vimeo.com/123456789/abcdef1234",
            "Vimeo",
            "https://player.vimeo.com/video/123456789?h=abcdef1234",
        ),
        ("https://player.vimeo.com/video/42", "Vimeo", "https://player.vimeo.com/video/42"),
        (
            "https://www.loom.com/share/0123456789abcdef0123456789abcdef",
            "Loom",
            "https://www.loom.com/embed/0123456789abcdef0123456789abcdef",
        ),
    ],
)
def test_the_three_hosts_embed(url: str, provider: str, src: str) -> None:
    embed = recording_embed(url)
    assert embed is not None
    assert (embed.provider, embed.src) == (provider, src)


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.example/youtube.com/watch?v=dQw4w9WgXcQ",  # the host is what counts, not a substring
        "https://youtube.com.evil.example/watch?v=dQw4w9WgXcQ",
        "https://www.youtube.com@evil.example/watch?v=dQw4w9WgXcQ",  # userinfo: the host is evil.example
        "https://user@www.youtube.com/watch?v=dQw4w9WgXcQ",
        "javascript://www.youtube.com/%0aalert(1)",
        "https://www.youtube.com/watch?v=dQw4w9WgXcQ&v=other123456",
        "https://www.youtube.com/watch?v=short",
        'https://www.youtube.com/embed/dQw4w9WgXc"',
        "https://vimeo.com/12ab",
        "https://vimeo.com/1/2/3",
        "https://www.loom.com/share/not-an-id",
        "https://www.youtube.com:8443/watch?v=dQw4w9WgXcQ",
        "https://drive.google.com/file/d/abc/view",
        "",
        None,
    ],
)
def test_anything_else_is_a_link(url: str | None) -> None:
    assert recording_embed(url) is None


def test_markdown_keeps_no_html_and_only_safe_links() -> None:
    html = render_markdown(
        "<script>alert(1)</script>\n\n"
        '"><img src=x onerror=alert(1)>\n\n'
        "[bad](javascript:alert(1)) [data](data:text/html,hi) [rel](/relative) "
        "[ok](https://lu.ma/x) [mail](mailto:club@example.org) ![img](https://example.org/x.png)"
    )
    assert "<script" not in html
    assert "<img" not in html
    assert "&lt;script&gt;" in html
    assert 'href="javascript' not in html
    assert 'href="data' not in html
    assert 'href="/relative' not in html
    assert '<a href="https://lu.ma/x" rel="nofollow noopener">ok</a>' in html
    assert '<a href="mailto:club@example.org" rel="nofollow noopener">mail</a>' in html


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("https://a.example/x", True),
        ("http://a.example", True),
        ("mailto:a@b.example", True),
        ("JavaScript:alert(1)", False),
        (" javascript:alert(1)", False),
        ("java\tscript:alert(1)", False),
        ("data:text/html,x", False),
        ("https:///nohost", False),
        ("//a.example/x", False),
        ("vbscript:x", False),
    ],
)
def test_safe_link(url: str, ok: bool) -> None:
    assert (safe_link(url) is not None) == ok


def test_slugs() -> None:
    assert clean_slug("  Paper-Club ") == "paper-club"
    for bad in ("-x", "x-", "a--b", "a/b", "ä", "x" * 41, "", "healthz", "metrics", "../x", "a b"):
        with pytest.raises(BadInput):
            clean_slug(bad)
