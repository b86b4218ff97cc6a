"""The evaluation runner shared by every method: examinee × items, streamed and resumable."""

from lvlmbench.runner._messages import (
    VARIANTS,
    ItemUnavailable,
    MessageBuilder,
    item_messages,
    item_prompt,
)
from lvlmbench.runner._runner import EvalSummary, ProgressHook, run_examinee, score_output

__all__ = [
    "VARIANTS",
    "EvalSummary",
    "ItemUnavailable",
    "MessageBuilder",
    "ProgressHook",
    "item_messages",
    "item_prompt",
    "run_examinee",
    "score_output",
]
