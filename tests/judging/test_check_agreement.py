"""Agreement between annotators on the human checks, per check question, wherever the checks
are summarised: ``check_summaries`` (the web benchmark page's table) and the report's human
evaluation section. Hand-worked: Fleiss' κ where every item has the same number of decided
answers, Krippendorff's α where the numbers differ; unsure answers and excluded annotators
count nowhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from level_answers import BENCH, level_store

from lvlmbench.judging.human_checks import check_judgment, check_summaries
from lvlmbench.report import benchmark_summary, render_benchmark
from lvlmbench.stats import FLEISS_KAPPA, KRIPPENDORFF_ALPHA
from lvlmbench.store import Store, put_judgments, set_excluded
from lvlmbench.web import WebSettings, create_app

IMAGE, KEY = "image-matches-description", "key-is-right"
ANSWERS = [
    # image check, two decided answers per item: (yes, yes), (yes, no), (no, no)
    # -> P_i 1, 0, 1; P̄ 2/3; shares 1/2 each, P̄e 1/2; κ = (2/3 - 1/2) / (1/2) = 1/3.
    ("easy-0", "ann", IMAGE, "yes"), ("easy-0", "bob", IMAGE, "yes"),
    ("easy-1", "ann", IMAGE, "yes"), ("easy-1", "cy", IMAGE, "no"),
    ("hard-0", "bob", IMAGE, "no"), ("hard-0", "cy", IMAGE, "no"),
    ("hard-1", "cy", IMAGE, "unsure"), ("hard-1", "ann", IMAGE, "yes"),  # one decided: no pair
    # key check, 3 then 2 then 2 answers: coincidences yy 3, yn = ny 1, nn 2; n 7;
    # α = 1 - (7 - 1)(7 - 5) / (49 - 4² - 3²) = 1 - 12 / 24 = 0.5.
    ("easy-0", "ann", KEY, "yes"), ("easy-0", "bob", KEY, "yes"), ("easy-0", "cy", KEY, "yes"),
    ("easy-1", "ann", KEY, "yes"), ("easy-1", "bob", KEY, "no"),
    ("hard-0", "ann", KEY, "no"), ("hard-0", "cy", KEY, "no"),
]  # fmt: skip


def _store(tmp_path: Path) -> Store:
    store = level_store(tmp_path / "s.db")
    put_judgments(store, [check_judgment(i, who, c, a) for i, who, c, a in ANSWERS])
    return store


def test_agreement_per_check_worked_by_hand(tmp_path: Path) -> None:
    store = _store(tmp_path)
    summaries = {s.check: s for s in check_summaries(store, BENCH)}
    image, key = summaries[IMAGE].agreement, summaries[KEY].agreement
    assert image is not None and key is not None
    assert image.method == FLEISS_KAPPA and image.value == pytest.approx(1 / 3)
    assert (image.items, image.annotators, image.answers) == (3, 3, 6)
    assert key.method == KRIPPENDORFF_ALPHA and key.value == pytest.approx(0.5)
    assert (key.items, key.annotators, key.answers) == (3, 3, 7)
    # Without cy (excluded by the owner), the image check has one pair left: (yes, yes).
    set_excluded(store, "cy", True)
    image = {s.check: s for s in check_summaries(store, BENCH)}[IMAGE].agreement
    store.close()
    assert image is not None and (image.items, image.annotators) == (1, 2)
    assert image.value is None and image.reason is not None


def test_the_report_and_the_web_page_show_it(tmp_path: Path) -> None:
    store = _store(tmp_path)
    try:
        html = render_benchmark(benchmark_summary(store, BENCH))
        cells = dict(re.findall(r'<td data-agree="([^"]+)">([^<]*)</td>', html))
        assert cells == {IMAGE: "0.333", KEY: "0.500"}
        assert "Fleiss&#x27; κ" in html and "Krippendorff&#x27;s α" in html
        with TestClient(create_app(store, WebSettings()), base_url="http://127.0.0.1:8000") as c:
            page = c.get(f"/b/{BENCH}").text
        shown = dict(re.findall(r'<td class="agreement" data-check="([^"]+)">([^<]*)</td>', page))
        assert shown[IMAGE].startswith("Fleiss") and "0.333 (3 items, 3 annotators)" in shown[IMAGE]
        assert "0.500 (3 items, 3 annotators)" in shown[KEY]
    finally:
        store.close()
