"""The evaluation runner shared by every method: examinee × items, streamed and resumable."""

from lvlmbench.runner._leased import drain_leased
from lvlmbench.runner._messages import VARIANTS, MessageBuilder, item_messages, item_prompt
from lvlmbench.runner._runner import EvalSummary, ProgressHook, run_examinee, score_output

__all__ = [
    "VARIANTS",
    "EvalSummary",
    "MessageBuilder",
    "ProgressHook",
    "drain_leased",
    "item_messages",
    "item_prompt",
    "run_examinee",
    "score_output",
]
