"""Examinees that need no weights (``baseline/random``, ``prior``, ``oracle``, ``pixels``).

They read the benchmark's own choice prompts (:mod:`lvlmbench.choice`) and the pixels baseline
knows the generated world's palette (:mod:`lvlmbench.scenes`), so they sit at the choice layer,
above the providers of :mod:`lvlmbench.models`. Importing this package registers the
``baseline`` chat provider (declared, with its options, in the models registry, so identities
never depend on this import); :mod:`lvlmbench.runner` imports it, so every command, the Python
API and anything that runs examinees can ``load_chat_model("baseline/...")``.
"""

from lvlmbench._workers import preload_in_workers
from lvlmbench.baselines.examinees import (
    KNOWN_BASELINES,
    Baseline,
    OracleBaseline,
    PixelsBaseline,
    PriorBaseline,
    RandomBaseline,
    create,
)
from lvlmbench.models import register_chat_provider

__all__ = [
    "KNOWN_BASELINES",
    "Baseline",
    "OracleBaseline",
    "PixelsBaseline",
    "PriorBaseline",
    "RandomBaseline",
    "create",
]

register_chat_provider("baseline", create)
preload_in_workers("lvlmbench.baselines.pixels")  # baseline/pixels looks in the worker processes
