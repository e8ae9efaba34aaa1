"""`paperclub demo` turns the website on and prints the home page's address and text (the same every run:
tests/test_demo.py compares whole runs byte for byte)."""

from __future__ import annotations

import io

from bot.demo.runner import run_demo


async def test_demo_prints_the_home_page() -> None:
    out = io.StringIO()
    assert await run_demo(out=out) == 0
    text = out.getvalue()
    assert "Website on: https://club.example.org/paper-club/." in text
    assert "GET https://club.example.org/paper-club/ → 200 text/html; charset=utf-8" in text
    assert "  │ • 16 October — Sandbox infrastructure for environments at scale." in text
    assert "  │ • Where. A video call; sign up on Luma beforehand" in text
    assert "[ Session page ↗ ]" in text
