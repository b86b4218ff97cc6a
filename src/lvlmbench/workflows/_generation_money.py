"""``generate --budget-usd X``: the prices a generation in rounds costs its work at, checked
before the store is opened, and the money line of its report.

The examiner costs its spec's ``price=IN,OUT`` (USD per million input and output tokens), the
text-to-image model its ``price=USD_PER_IMAGE``, the ``--model`` examinees their ``price=IN,OUT``
as in ``evaluate``; the procedural examiner and renderer are free. What is counted and how the
rounds keep to the cap: :mod:`lvlmbench.autobench.unit_costs`, :mod:`lvlmbench.budget.money`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lvlmbench.autobench.unit_costs import GenerationPrices
from lvlmbench.images import image_price
from lvlmbench.models import model_price
from lvlmbench.workflows._errors import InvalidOptions
from lvlmbench.workflows._money import require_prices, usd

__all__ = ["generation_prices", "money_text"]

PROCEDURAL = "procedural"


def _free_images(spec: str) -> bool:
    """Whether ``spec`` names the procedural renderer (``procedural``, or a label after it)."""
    return spec.partition("?")[0].partition("/")[0] == PROCEDURAL


def _with_price(spec: str, form: str) -> str:
    return f"'{spec}{'&' if '?' in spec else '?'}price={form}'"


def _examiner_price(examiner: str, required: bool) -> tuple[float, float] | None:
    if examiner == PROCEDURAL:
        return (0.0, 0.0)
    price = model_price(examiner)
    if price is None and required:
        raise InvalidOptions(
            f"--budget-usd: --examiner {examiner!r} has no price; give it one in the spec as "
            f"{_with_price(examiner, 'IN,OUT')} (USD per million input and output tokens, e.g. "
            "price=2.5,10)"
        )
    return price


def _image_price(images: str, required: bool) -> float | None:
    if _free_images(images):
        return 0.0
    price = image_price(images)
    if price is None and required:
        raise InvalidOptions(
            f"--budget-usd: --images {images!r} has no price; give it one in the spec as "
            f"{_with_price(images, 'USD_PER_IMAGE')} (US dollars per image, e.g. price=0.04)"
        )
    return price


def generation_prices(
    examiner: str, images: str, models: Sequence[str], budget_usd: float | None
) -> GenerationPrices | None:
    """The generation's prices. With ``budget_usd``: InvalidOptions naming the first spec without a
    price (the examiner, the images, then the ``--model`` examinees). Without: the prices when
    every spec that costs money has one and some spec has one (the money is then reported),
    else None."""
    required = budget_usd is not None
    examiner_price = _examiner_price(examiner, required)
    per_image = _image_price(images, required)
    if required:
        require_prices(models)
    examinee_prices = [model_price(spec) for spec in models]
    if examiner_price is None or per_image is None or None in examinee_prices:
        return None
    priced = examiner != PROCEDURAL or not _free_images(images) or bool(models)
    if not (required or priced):
        return None  # nothing here costs money, and no cap asks for the figures
    return GenerationPrices(examiner_price, per_image)


def money_text(money: dict[str, Any], paid_usd: float, planned: int) -> str:
    """The report's money line: what the generation and the examinees cost against the cap,
    what this run paid, and the full plan's estimated cost."""
    cap = f" of a cap of {usd(money['cap_usd'])}" if money["cap_usd"] is not None else ""
    full = money["full_estimate_usd"]
    estimate = (
        f"the full plan ({planned} units) would cost about {usd(full)} (an estimate: "
        f"{usd(money['unit_mean_usd'])} of examiner and images per unit, the mean of those "
        "built, and each examinee's mean answer per item)"
        if full is not None
        else "nothing counted yet to estimate the full plan's cost from"
    )
    return (
        f"money: {usd(money['used_usd'])} used{cap} (generation "
        f"{usd(money['generation_usd'])}: examiner {usd(money['examiner_usd'])}, images "
        f"{usd(money['images_usd'])}; examinees {usd(money['examinees_usd'])}); "
        f"{usd(paid_usd)} paid by this run (stored and cached work costs nothing); {estimate}"
    )
