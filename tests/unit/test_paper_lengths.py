"""What a paper option takes, the papers table keeps: any link of up to MAX_URL_LENGTH characters (https://
included, which a bare link gains: past the limit only then, the refusal says so), any title of up to
MAX_TITLE_LENGTH, each with a key that fits its column (a longer key is kept as its digest, the same for
every spelling of the paper); only a DOI longer than its column is refused, saying so."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.errors import BadInput
from bot.papers import (
    MAX_DOI_LENGTH,
    MAX_KEY_LENGTH,
    MAX_TITLE_LENGTH,
    MAX_URL_LENGTH,
    parse_paper_ref,
    validate_http_url,
)

FUZZ = settings(derandomize=True, database=None, deadline=None, max_examples=300)


def long_link(n: int, scheme: str = "https://") -> str:
    head = f"{scheme}example.org/papers/"
    return head + "p" * (n - len(head))


def test_the_longest_link_is_kept_whole_under_a_digest_key() -> None:
    ref = parse_paper_ref(long_link(MAX_URL_LENGTH))
    assert ref.url == long_link(MAX_URL_LENGTH)
    assert ref.key.startswith("url:sha256:")
    assert len(ref.key) <= MAX_KEY_LENGTH
    # every spelling of the same paper has the same key
    base = long_link(MAX_URL_LENGTH - 12)
    key = parse_paper_ref(base).key
    assert key.startswith("url:sha256:")
    for spelling in (
        base.replace("https://", "http://", 1),
        base.replace("https://", "HTTPS://", 1) + "/",
        f"<{base}>",
        f"{base}#abstract",
        f"{base}?utm_x=1",
    ):
        assert parse_paper_ref(spelling).key == key, spelling
    assert parse_paper_ref(f"{base}q").key != key


def test_a_link_whose_key_fits_keeps_its_readable_key() -> None:
    ref = parse_paper_ref(long_link(300))
    assert ref.key == f"url:{long_link(300)}"


def test_a_bare_link_is_kept_while_https_fits_and_refused_saying_why() -> None:
    bare = long_link(MAX_URL_LENGTH - len("https://"), scheme="")
    assert validate_http_url(bare) == f"https://{bare}"
    assert parse_paper_ref(bare).url == f"https://{bare}"
    once = f"over {MAX_URL_LENGTH} characters once https:// is added"
    with pytest.raises(BadInput, match=once):
        validate_http_url(bare + "p")
    with pytest.raises(BadInput, match=once):
        parse_paper_ref(bare + "p")
    for too_long in (long_link(MAX_URL_LENGTH + 1), long_link(MAX_URL_LENGTH + 1, scheme="")):
        with pytest.raises(BadInput, match=f"over {MAX_URL_LENGTH} characters;") as refused:
            parse_paper_ref(too_long)
        assert "once" not in refused.value.user_message


def test_a_title_of_wide_characters_is_kept() -> None:
    title = "\ufdfa" * MAX_TITLE_LENGTH  # NFKD spells each out in 18 characters
    ref = parse_paper_ref(title)
    assert ref.title == title
    assert ref.key.startswith("title:sha256:")
    assert parse_paper_ref(f"“{title}”").key == ref.key


def test_only_a_doi_too_long_for_its_column_is_refused() -> None:
    fits = "10.1234/" + "d" * (MAX_DOI_LENGTH - 8)
    assert parse_paper_ref(fits).doi == fits
    with pytest.raises(BadInput, match=f"That DOI is over {MAX_DOI_LENGTH} characters"):
        parse_paper_ref(fits + "d")


@FUZZ
@given(
    st.text(
        alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=MAX_URL_LENGTH
    )
)
def test_whatever_fits_the_option_is_kept_or_refused_with_badinput(text: str) -> None:
    for candidate in (text, f"https://example.org/{text}"[:MAX_URL_LENGTH]):
        try:
            ref = parse_paper_ref(candidate)
        except BadInput:
            continue
        assert len(ref.key) <= MAX_KEY_LENGTH
        assert len(ref.url or "") <= MAX_URL_LENGTH
        assert len(ref.doi or "") <= MAX_DOI_LENGTH
