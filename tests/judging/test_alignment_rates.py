"""Alignment rates per check and level (the paper's Table 4), worked by hand."""

from __future__ import annotations

from pathlib import Path

import pytest
from level_answers import BENCH, level_store

from lvlmbench.judging.human_checks import alignment_rates, check_judgment
from lvlmbench.store import put_judgments


def test_rates_per_check_and_level_worked_by_hand(tmp_path: Path):
    store = level_store(tmp_path / "s.db")  # 4 items per level: easy-0..3, medium-0..3, hard-0..3
    answers = [
        # easy, aspect check: 3 yes, 1 no (two people on easy-0) -> 3/4
        ("easy-0", "ann", "description-matches-aspect", "yes"),
        ("easy-0", "bob", "description-matches-aspect", "no"),
        ("easy-1", "ann", "description-matches-aspect", "yes"),
        ("easy-2", "ann", "description-matches-aspect", "yes"),
        ("easy-3", "ann", "description-matches-aspect", "unsure"),  # decides nothing
        # hard, aspect check: 1 yes, 1 no -> 1/2
        ("hard-0", "ann", "description-matches-aspect", "yes"),
        ("hard-1", "ann", "description-matches-aspect", "no"),
        # hard, key check: only unsure -> no rate
        ("hard-2", "ann", "key-is-right", "unsure"),
    ]
    put_judgments(store, [check_judgment(i, who, c, a) for i, who, c, a in answers])
    rates = {(r.check, r.level): r for r in alignment_rates(store, BENCH)}
    store.close()
    assert list(rates) == [
        ("description-matches-aspect", "easy"),
        ("description-matches-aspect", "hard"),
        ("key-is-right", "hard"),
    ]
    easy = rates["description-matches-aspect", "easy"]
    assert (easy.yes, easy.no, easy.unsure, easy.rate) == (3, 1, 1, 0.75)
    assert easy.interval is not None
    assert easy.interval.low == pytest.approx(0.3006, abs=1e-3)  # Wilson 3/4
    assert rates["description-matches-aspect", "hard"].rate == 0.5
    assert rates["key-is-right", "hard"].rate is None
    assert rates["key-is-right", "hard"].interval is None


def test_a_second_answer_by_the_same_person_replaces_the_first(tmp_path: Path):
    store = level_store(tmp_path / "s.db")
    put_judgments(store, [check_judgment("easy-0", "ann", "description-matches-aspect", "no")])
    put_judgments(store, [check_judgment("easy-0", "ann", "description-matches-aspect", "yes")])
    (rate,) = alignment_rates(store, BENCH)
    store.close()
    assert (rate.yes, rate.no) == (1, 0)
