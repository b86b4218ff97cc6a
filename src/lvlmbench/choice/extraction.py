"""Reading the chosen answer of a choice item (multiple choice with lettered options,
true/false) back out of a model's free text.

Extraction never guesses. It looks for evidence in this order and stops at the first tier that
has any:

1. explicit answers: a JSON ``{"answer": ...}``, ``\\boxed{...}``, "answer is / Answer: / final
   answer", "B is correct", "I choose B", "so (B)"; the letter may also be given as the option's
   text ("The answer is blue"). The *last* one wins, except that a "final answer" outranks the
   rest (models reconsider, and the conclusion is what they mean). Hypothetical ("if the answer
   is B, ...") and negated ("neither A nor B is correct", "I would not choose A", "(A) is
   wrong") mentions are no answers;
2. (mc) lines that start with a letter form ("B.", "(C) blue", "c)", "Option B"): one distinct
   letter, or a lone letter on the last line; (tf) a leading or lone "Yes"/"False."/...;
3. (mc) the whole answer, or its last line, is one option's text (normalised: case, punctuation,
   a leading article); (tf) "true"/"false" words, "not true" read as false, when they all agree;
4. (mc) exactly one distinct bold or bracketed letter ("**B**", "(B)"), not ruled out, and no
   refusal.

(mc) Before any tier, lines that are no evidence are set aside (:mod:`._lists`): a restated
list of the options ("The options are:\nA. red\nB. blue\nC.": the "C." continues the list, it
chooses nothing) and, in a reply cut by the token limit, a last line naming one option alone or
with its text ("C", "C. gre"). A reply with nothing else is UNPARSEABLE, saying so.

An answer that hedges ("A or B"), names a letter that is no option, pairs a letter with another
option's text ("(C) blue" when blue is B), lists several options without choosing, refuses, or
is empty is UNPARSEABLE with a reason: never mapped to a letter.
"""

from __future__ import annotations

from collections.abc import Mapping

from lvlmbench.choice._evidence import Extraction, _clean
from lvlmbench.choice._letters import _McExtractor
from lvlmbench.choice._truefalse import _extract_tf
from lvlmbench.choice.prompt import ChoiceKind
from lvlmbench.types import Status

__all__ = ["Extraction", "extract_choice"]


def extract_choice(
    text: str, kind: ChoiceKind, options: Mapping[str, str], *, truncated: bool = False
) -> Extraction:
    """The answer in ``text`` for an mc item (a letter among ``options``' keys) or a tf item
    ("true"/"false"); UNPARSEABLE with a reason when there is no single clear answer.
    ``truncated``: the reply was cut by the token limit (``finish_reason=length``), so an
    option named alone on its last line is no evidence."""
    if kind not in ("mc", "tf"):
        raise ValueError(f"extract_choice reads mc or tf answers, not {kind!r}")
    if not _clean(text).strip():  # nothing, or only markdown ("**", "```")
        return Extraction(None, Status.UNPARSEABLE, "empty answer")
    if kind == "tf":
        return _extract_tf(_clean(text))
    keys = {k.strip().upper(): v for k, v in options.items()}
    if not keys:
        return Extraction(None, Status.UNPARSEABLE, "multiple-choice item without options")
    return _McExtractor(keys).extract(text, truncated=truncated)
