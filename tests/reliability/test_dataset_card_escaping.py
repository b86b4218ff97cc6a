"""The exported dataset card quotes the data as text: a category, a metadata key, a setting or
a source holding HTML or Markdown shows as written, and nothing of it becomes markup when the
card is rendered (here by markdown-it with raw HTML allowed, as GitHub and the Hub allow it)."""

from __future__ import annotations

import re
from pathlib import Path

from markdown_it import MarkdownIt
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.store import Store, put_benchmark, put_items
from lvlmbench.types import BenchmarkItem

BENCH = "hostile-card"
IMG = "<img src=x onerror=alert(1)>"
SCRIPT = "<script>alert(2)</script>"
LINK = "[click me](javascript:alert(3))"


def _store(path: Path) -> Store:
    store = Store.open(str(path))
    put_benchmark(
        store,
        BENCH,
        "autobench",
        {
            "examiner": f"x` {SCRIPT} `y",
            "settings": {"capability": f"counting {SCRIPT}", "seed": 1},
            "note": "</details><b>bold</b>",
            "plan": {"text": f"```\n{SCRIPT}\n```"},
        },
    )
    put_items(
        store,
        [
            BenchmarkItem(
                id="h1",
                benchmark=BENCH,
                question="How many?",
                kind="tf",
                answer="true",
                meta={"capability": IMG, "difficulty": LINK, "odd`key|<b>": "v"},
            )
        ],
    )
    return store


def _rendered(card: str) -> str:
    """The card's body as HTML (the YAML front matter is read by the Hub, not rendered)."""
    body = card.split("---\n", 2)[2]
    return MarkdownIt("commonmark", {"html": True}).enable("table").render(body)


def test_the_card_shows_data_as_text_and_never_as_markup(tmp_path: Path) -> None:
    store = _store(tmp_path / "s.db")
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["export", BENCH, "--out", str(out), "--store", store.url])
    store.close()
    assert result.exit_code == 0, result.output
    card = (out / "README.md").read_text(encoding="utf-8")
    page = _rendered(card)
    # No tag from the data survives: only the card's own markup is there.
    tags = set(re.findall(r"<([a-z][a-z0-9]*)", page))
    own = {"h1", "h2", "p", "ul", "li", "pre", "code", "details", "summary"}
    assert tags <= own | {"table", "thead", "tbody", "tr", "th", "td"}
    assert tags >= {"table", "pre"}
    assert "javascript:" not in re.findall(r'href="([^"]*)"', page) and "<a " not in page
    # ... and the data is shown as written.
    assert "- capabilities: &lt;img src=x onerror=alert(1)&gt; 1" in card
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "[click me](javascript:alert(3))" in page  # the text, not a link
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in page
    assert "odd`key|&lt;b&gt;" in page  # a metadata key with a backtick, a pipe and a tag
    assert "&lt;/details&gt;&lt;b&gt;bold&lt;/b&gt;" in page
    # The stored definition stays in its code block (the card's second, after the usage
    # example), whatever backticks it holds, and the details block around it is closed.
    assert page.count("<pre>") == 2 and page.count("</details>") == 1
