"""The evaluation runner shared by every method: examinee × items, streamed and resumable."""

from lvlmbench.runner._examinees import ProgressFor, run_examinees
from lvlmbench.runner._leased import drain_leased
from lvlmbench.runner._messages import (
    VARIANTS,
    ItemUnavailable,
    MessageBuilder,
    item_messages,
    item_prompt,
)
from lvlmbench.runner._runner import (
    LOOKAHEAD,
    EvalSummary,
    ProgressHook,
    run_examinee,
    score_output,
)
from lvlmbench.runner._subset import item_stratum, scoring_unit, stratified_subset

__all__ = [
    "LOOKAHEAD",
    "VARIANTS",
    "EvalSummary",
    "ItemUnavailable",
    "MessageBuilder",
    "ProgressFor",
    "ProgressHook",
    "drain_leased",
    "item_messages",
    "item_prompt",
    "item_stratum",
    "run_examinee",
    "run_examinees",
    "score_output",
    "scoring_unit",
    "stratified_subset",
]
