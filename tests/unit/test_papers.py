"""bot.papers: canonical paper references, paper lists, titles and links."""

from __future__ import annotations

import pytest

from bot.errors import BadInput
from bot.papers import (
    PaperRef,
    is_http_url,
    normalize_title,
    normalize_url,
    parse_paper_ref,
    split_paper_list,
    titles_match,
    validate_http_url,
)

ARXIV = PaperRef("arxiv", "arxiv:2401.12345", url="https://arxiv.org/abs/2401.12345", arxiv_id="2401.12345")


@pytest.mark.parametrize(
    "text",
    [
        "2401.12345",
        "2401.12345v2",
        "arXiv:2401.12345v2",
        "arxiv: 2401.12345",
        "ARXIV:2401.12345",
        "arxiv.org/abs/2401.12345",
        "https://arxiv.org/abs/2401.12345",
        "http://arxiv.org/abs/2401.12345v1",
        "https://www.arxiv.org/abs/2401.12345/",
        "https://arxiv.org/pdf/2401.12345v3",
        "https://arxiv.org/pdf/2401.12345v3.pdf",
        "https://arxiv.org/html/2401.12345v1",
        "export.arxiv.org/abs/2401.12345",
        "https://export.arxiv.org/abs/2401.12345v2",
        "https://www.alphaxiv.org/abs/2401.12345",
        "https://www.alphaxiv.org/overview/2401.12345v1",
        "https://huggingface.co/papers/2401.12345",
        "https://doi.org/10.48550/arXiv.2401.12345",
        "doi:10.48550/arxiv.2401.12345",
        "10.48550/ARXIV.2401.12345",
        "<https://arxiv.org/abs/2401.12345>",
        "[the paper](https://arxiv.org/abs/2401.12345)",
        "  `2401.12345`  ",
        '"2401.12345"',
        "https://arxiv.org/abs/2401.12345#section",
    ],
)
def test_arxiv_forms_are_one_paper(text: str) -> None:
    assert parse_paper_ref(text) == ARXIV


@pytest.mark.parametrize(
    ("text", "arxiv_id"),
    [
        ("0704.0001", "0704.0001"),  # first 4-digit-number ID
        ("1501.00001v1", "1501.00001"),
        ("hep-th/9901001", "hep-th/9901001"),
        ("hep-th/9901001v2", "hep-th/9901001"),
        ("arXiv:hep-th/9901001", "hep-th/9901001"),
        ("https://arxiv.org/abs/hep-th/9901001", "hep-th/9901001"),
        ("math.GT/0309136", "math/0309136"),  # the subject class is not part of the id (arXiv drops it)
        ("math.gt/0309136v1", "math/0309136"),
        ("https://arxiv.org/abs/math.GT/0309136", "math/0309136"),
        ("https://arxiv.org/pdf/math/0211159v1.pdf", "math/0211159"),
    ],
)
def test_arxiv_other_ids(text: str, arxiv_id: str) -> None:
    ref = parse_paper_ref(text)
    assert ref.kind == "arxiv"
    assert ref.arxiv_id == arxiv_id
    assert ref.key == f"arxiv:{arxiv_id}"
    assert ref.url == f"https://arxiv.org/abs/{arxiv_id}"


def test_arxiv_like_with_bad_month_is_a_title() -> None:
    assert parse_paper_ref("2413.12345").kind == "title"
    with pytest.raises(BadInput, match="not an arXiv ID"):
        parse_paper_ref("arXiv:hello")


@pytest.mark.parametrize(
    "text",
    [
        "10.1145/3366423.3380211",
        "doi:10.1145/3366423.3380211",
        "DOI: 10.1145/3366423.3380211",
        "https://doi.org/10.1145/3366423.3380211",
        "http://dx.doi.org/10.1145/3366423.3380211",
        "doi.org/10.1145/3366423.3380211",
        "https://dl.acm.org/doi/10.1145/3366423.3380211",
        "https://dl.acm.org/doi/pdf/10.1145/3366423.3380211",
        "https://dl.acm.org/doi/abs/10.1145/3366423.3380211",
    ],
)
def test_doi_forms(text: str) -> None:
    ref = parse_paper_ref(text)
    assert ref == PaperRef(
        "doi",
        "doi:10.1145/3366423.3380211",
        url="https://doi.org/10.1145/3366423.3380211",
        doi="10.1145/3366423.3380211",
    )


def test_doi_is_case_insensitive() -> None:
    keys = {parse_paper_ref(t).key for t in ["10.1234/ABC", "doi:10.1234/abc", "https://doi.org/10.1234/AbC"]}
    assert keys == {"doi:10.1234/abc"}
    assert parse_paper_ref("https://doi.org/10.1000%2Fxyz123").key == "doi:10.1000/xyz123"


@pytest.mark.parametrize(
    "text",
    [
        "https://openreview.net/forum?id=abc123XYZ",
        "https://openreview.net/pdf?id=abc123XYZ",
        "openreview.net/forum?id=abc123XYZ&noteId=def456",
        "https://www.openreview.net/forum?id=abc123XYZ",
    ],
)
def test_openreview(text: str) -> None:
    assert parse_paper_ref(text) == PaperRef(
        "openreview", "openreview:abc123XYZ", url="https://openreview.net/forum?id=abc123XYZ"
    )


def test_other_pages_on_paper_hosts_are_urls() -> None:
    assert parse_paper_ref("https://arxiv.org/list/cs.AI/recent").kind == "url"
    assert parse_paper_ref("https://huggingface.co/papers").kind == "url"
    assert parse_paper_ref("https://aclanthology.org/volumes/2023.acl-long/").kind == "url"
    assert parse_paper_ref("https://doi.org/").kind == "url"


def test_openreview_ids_are_case_sensitive_and_other_pages_are_urls() -> None:
    assert parse_paper_ref("https://openreview.net/forum?id=ABC123xyz").key == "openreview:ABC123xyz"
    assert parse_paper_ref("https://openreview.net/group?id=ICLR.cc/2025").kind == "url"


@pytest.mark.parametrize(
    ("text", "key", "url"),
    [
        (
            "https://aclanthology.org/2023.acl-long.1/",
            "acl:2023.acl-long.1",
            "https://aclanthology.org/2023.acl-long.1/",
        ),
        (
            "https://aclanthology.org/2023.acl-long.1",
            "acl:2023.acl-long.1",
            "https://aclanthology.org/2023.acl-long.1/",
        ),
        (
            "https://aclanthology.org/2023.acl-long.1.pdf",
            "acl:2023.acl-long.1",
            "https://aclanthology.org/2023.acl-long.1/",
        ),
        (
            "aclanthology.org/2024.emnlp-main.12/",
            "acl:2024.emnlp-main.12",
            "https://aclanthology.org/2024.emnlp-main.12/",
        ),
        ("https://aclanthology.org/P19-1001.pdf", "acl:P19-1001", "https://aclanthology.org/P19-1001/"),
        ("https://www.aclweb.org/anthology/P19-1001", "acl:P19-1001", "https://aclanthology.org/P19-1001/"),
    ],
)
def test_acl_anthology(text: str, key: str, url: str) -> None:
    ref = parse_paper_ref(text)
    assert (ref.kind, ref.key, ref.url) == ("acl", key, url)


@pytest.mark.parametrize(
    ("text", "key", "url"),
    [
        ("https://example.com/path", "url:https://example.com/path", "https://example.com/path"),
        ("http://example.com/path", "url:https://example.com/path", "http://example.com/path"),
        ("HTTPS://Example.COM/Path/", "url:https://example.com/Path", "https://example.com/Path"),
        ("https://example.com:443/path#intro", "url:https://example.com/path", "https://example.com/path"),
        ("http://example.com:80/path", "url:https://example.com/path", "http://example.com/path"),
        (
            "https://example.com:8443/path",
            "url:https://example.com:8443/path",
            "https://example.com:8443/path",
        ),
        (
            "https://example.com/p?utm_source=x&id=7&UTM_medium=y&fbclid=z",
            "url:https://example.com/p?id=7",
            "https://example.com/p?id=7",
        ),
        ("https://example.com/", "url:https://example.com", "https://example.com"),
        ("www.example.com/paper", "url:https://www.example.com/paper", "https://www.example.com/paper"),
        ("<https://example.com/path>", "url:https://example.com/path", "https://example.com/path"),
        (
            "https://example.com/a?q=a%20b",
            "url:https://example.com/a?q=a%20b",
            "https://example.com/a?q=a%20b",
        ),
    ],
)
def test_url_normalisation(text: str, key: str, url: str) -> None:
    ref = parse_paper_ref(text)
    assert (ref.kind, ref.key, ref.url) == ("url", key, url)
    assert ref.title is None


def test_http_and_https_are_one_key() -> None:
    a = parse_paper_ref("http://example.com/x/?utm_campaign=1")
    b = parse_paper_ref("https://EXAMPLE.com/x#top")
    assert a.key == b.key
    assert normalize_url("https://example.com/x/") == "https://example.com/x"


@pytest.mark.parametrize(
    "text",
    [
        "javascript:alert(1)",
        "JavaScript:alert(document.cookie)",
        "java\tscript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "ftp://example.com/paper.pdf",
        "file:///etc/passwd",
        "vbscript:msgbox(1)",
        "mailto:someone@example.com",
        "chrome-extension://abc/paper.pdf",
    ],
)
def test_bad_schemes(text: str) -> None:
    with pytest.raises(BadInput, match="Only http\\(s\\) links"):
        parse_paper_ref(text)


@pytest.mark.parametrize("text", ["", "   ", "\n\t", '""', "``", "<>"])
def test_empty(text: str) -> None:
    with pytest.raises(BadInput, match="Give a paper"):
        parse_paper_ref(text)


@pytest.mark.parametrize(
    "text", ["https://", "https:///path", "https://exa mple.com/x", "https://x.org:99999/"]
)
def test_broken_links(text: str) -> None:
    with pytest.raises(BadInput, match="link"):
        parse_paper_ref(text)


def test_overlong_link() -> None:
    with pytest.raises(BadInput, match="512"):
        parse_paper_ref("https://example.com/" + "a" * 600)


@pytest.mark.parametrize(
    ("text", "title", "key"),
    [
        (
            "AutoEnv: Automated Environments for Measuring Cross-Environment Agent Learning",
            "AutoEnv: Automated Environments for Measuring Cross-Environment Agent Learning",
            "title:autoenv automated environments for measuring cross environment agent learning",
        ),
        ('"Tau2-Bench"', "Tau2-Bench", "title:tau2 bench"),
        ("“Agent World Model”", "Agent World Model", "title:agent world model"),
        ("**SWE-Bench  Verified**", "SWE-Bench Verified", "title:swe bench verified"),
        ("_OS-Genesis_", "OS-Genesis", "title:os genesis"),
        ("'Café: résumé'", "Café: résumé", "title:cafe resume"),
        ("Data: a survey", "Data: a survey", "title:data a survey"),  # not a data: URL
        ("JavaScript: the good parts", "JavaScript: the good parts", "title:javascript the good parts"),
        ("Node.js", "Node.js", "title:node js"),  # not a bare domain (no path)
    ],
)
def test_titles(text: str, title: str, key: str) -> None:
    ref = parse_paper_ref(text)
    assert ref == PaperRef("title", key, title=title)
    assert ref.label == title


def test_title_limits() -> None:
    assert parse_paper_ref("x" * 300).kind == "title"
    with pytest.raises(BadInput, match="300"):
        parse_paper_ref("x" * 301)
    with pytest.raises(BadInput, match="no letters"):
        parse_paper_ref("!!! ???")


def test_label() -> None:
    assert ARXIV.label == "arXiv:2401.12345"
    assert parse_paper_ref("10.1234/ABC").label == "doi:10.1234/abc"
    assert parse_paper_ref("https://example.com/a").label == "https://example.com/a"


def test_split_paper_list() -> None:
    text = "2401.12345\n\n  Tau2-Bench ; https://example.com/a;\n- hep-th/9901001\n2. AutoEnv\n• OMNI\n"
    assert split_paper_list(text) == [
        "2401.12345",
        "Tau2-Bench",
        "https://example.com/a",
        "hep-th/9901001",
        "AutoEnv",
        "OMNI",
    ]
    assert split_paper_list("a;b;c;d;e;f;g;h;i;j") == list("abcdefghij")
    with pytest.raises(BadInput, match="11 papers; the limit is 10"):
        split_paper_list("\n".join(str(i) for i in range(11)))
    with pytest.raises(BadInput):
        split_paper_list(" ;\n ; ")


def test_normalize_title() -> None:
    assert normalize_title("  AutoEnv:   Automated — Environments! ") == "autoenv automated environments"
    assert normalize_title("Crème Brûlée") == "creme brulee"
    assert normalize_title("STRASSE") == normalize_title("straße")
    assert normalize_title("ｆｕｌｌｗｉｄｔｈ") == "fullwidth"


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (
            "AutoEnv: Automated Environments for Measuring Cross-Environment Agent Learning",
            "Autoenv - automated environments for measuring cross environment agent learning",
            True,
        ),
        ("Mind the Sim2Real Gap", "mind the sim2real gap.", True),
        ("Gym-Anything: Autoscaling CUA", "Gym Anything: Auto-scaling CUA", True),
        ("Tau-Bench", "Tau2-Bench", False),
        ("GPT-3 technical report", "GPT-4 technical report", False),
        ("VitaBench", "WildToolBench", False),
        ("Agent World Model", "Agent Psychometrics", False),
        ("", "", False),
        ("!!!", "???", False),
    ],
)
def test_titles_match(a: str, b: str, expected: bool) -> None:
    assert titles_match(a, b) is expected
    assert titles_match(b, a) is expected


def test_titles_match_threshold() -> None:
    # fuzz.ratio of the normalised titles is about 0.885 here.
    assert not titles_match("Failure-driven task mining", "Failure driven tasks mined")
    assert titles_match("Failure-driven task mining", "Failure driven tasks mined", threshold=0.85)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("https://lu.ma/abc", True),
        ("http://example.com", True),
        ("HTTPS://EXAMPLE.COM/x", True),
        ("ftp://example.com", False),
        ("javascript:alert(1)", False),
        ("example.com", False),
        ("https://", False),
        ("https://exa mple.com", False),
        ("", False),
    ],
)
def test_is_http_url(text: str, expected: bool) -> None:
    assert is_http_url(text) is expected


def test_validate_http_url() -> None:
    assert validate_http_url("https://lu.ma/abc", "Sign-up link") == "https://lu.ma/abc"
    assert validate_http_url("  <https://lu.ma/abc>  ", "Sign-up link") == "https://lu.ma/abc"
    assert validate_http_url("lu.ma/abc", "Sign-up link") == "https://lu.ma/abc"
    with pytest.raises(BadInput, match="Recording link must be an http"):
        validate_http_url("javascript:alert(1)", "Recording link")
    with pytest.raises(BadInput, match="Notes link must be an http"):
        validate_http_url("file:///tmp/notes", "Notes link")
    with pytest.raises(BadInput, match="empty"):
        validate_http_url("  ", "Notes link")
    with pytest.raises(BadInput, match="too long"):
        validate_http_url("https://example.com/" + "a" * 500, "Notes link")
