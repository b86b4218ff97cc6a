"""Checking an examiner's answer key against the facts of the scene program it wrote.

In scene mode a model examiner writes a scene program, the renderer draws it exactly, and the
examiner then writes a question from the description, together with the question's structured
form (:class:`~lvlmbench.scenes.forms.QuestionForm`: what it asks, in the scene's own
vocabulary). The key is the examiner's claim; the program's facts say what is really drawn.
For every kind of form the answer is recomputed from the facts: a key the facts contradict is a
mismatch, and so is a distractor that is also right, a question about an object the program
has several of (or hides), and a relation the program does not clearly settle either way. Only a
question without a form (text mode, or stored before forms) is "not checkable", and says so.

Counts include hidden objects, as the facts do, but a count whose objects are not all visible
is a mismatch: the image would not show the number the program has.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from lvlmbench.scenes.facts import ObjectFacts, SceneFacts
from lvlmbench.scenes.forms import ObjectRef, QuestionForm, find_values, mentions, words

__all__ = ["KeyVerdict", "check_key"]

Verdict = Literal["verified", "mismatch", "not checkable"]

_CONTRADICTS: dict[str, tuple[str, ...]] = {
    "left of": ("right of", "above", "below"),
    "right of": ("left of", "above", "below"),
    "above": ("below", "left of", "right of"),
    "below": ("above", "left of", "right of"),
    "in front of": ("behind", "apart from"),
    "behind": ("in front of", "apart from"),
    "overlaps": ("apart from",),
    "apart from": ("overlaps",),
    "on": ("apart from", "under"),
    "under": ("on", "apart from"),
    "inside": ("apart from",),
}
"""Relations whose clear presence makes a relation clearly false (a side-by-side pair is
neither above nor below); when neither holds the program does not settle it."""
_EXTREMES = {"nearest to": "nearest", "farthest from": "farthest"}
_DOMAINS = {"count", "color", "position", "text", "relation", "scene"}
"""Kinds whose answers are values of their own; every other kind's answers are objects."""

Truth = Callable[[object], bool | None]
"""Whether an answer value is right (True), clearly wrong (False) or not settled (None)."""


@dataclass(frozen=True)
class KeyVerdict:
    """Whether the facts confirm the key."""

    verdict: Verdict
    reason: str


@dataclass(frozen=True)
class _Judge:
    truth: Truth
    answer: str
    """The right answer as the program has it (for the reasons given)."""


def _mismatch(reason: str) -> KeyVerdict:
    return KeyVerdict("mismatch", reason)


def _one(facts: SceneFacts, ref: ObjectRef) -> ObjectFacts | str:
    """The one object ``ref`` names, or why there is not one the image shows."""
    found = ref.select(facts)
    if not found:
        return f"the program has no {str(ref).removeprefix('the ')}"
    if len(found) > 1:
        return f"the program has {len(found)} objects that are {ref}: the question picks none"
    if not found[0].askable:
        return f"{ref} is mostly hidden or unlit ({found[0].visible:.0%} visible)"
    return found[0]


def _relation(facts: SceneFacts, a: ObjectFacts, relation: object, b: ObjectFacts) -> bool | None:
    if a.index == b.index:
        return False
    if relation in _EXTREMES:  # "a is nearest to b": a is b's clearly nearest object
        found = facts.related(b.index, _EXTREMES[str(relation)])
        return found[0] == a.index if found else None
    name = str(relation)
    if facts.holds(a.index, name, b.index):
        return True
    contradicted = any(facts.holds(a.index, c, b.index) for c in _CONTRADICTS.get(name, ()))
    return False if contradicted else None


def _objects(facts: SceneFacts, member: Callable[[ObjectFacts], bool | None]) -> Truth:
    """Truth of an option naming objects: right when every object it names is a member,
    wrong when none is (or it names nothing in the picture), unsettled otherwise."""

    def truth(ref: object) -> bool | None:
        assert isinstance(ref, ObjectRef)
        verdicts = {member(o) for o in ref.select(facts)}
        if not verdicts:
            return False
        return verdicts.pop() if len(verdicts) == 1 else None

    return truth


def _members(facts: SceneFacts, member: Callable[[ObjectFacts], bool | None]) -> str:
    names = [f"the {o.color} {o.category}" for o in facts.objects if member(o)]
    return ", ".join(names) or "no such object"


def _count(facts: SceneFacts, ref: ObjectRef) -> int | str:
    found = ref.select(facts)
    hidden = [o for o in found if not o.askable]
    if hidden:
        return f"{len(hidden)} of the {len(found)} objects that are {ref} are mostly hidden"
    return len(found)


def _object_judge(facts: SceneFacts, form: QuestionForm) -> _Judge | str:
    member: Callable[[ObjectFacts], bool | None]
    if form.kind == "which_color":
        member = lambda o: o.color == form.color  # noqa: E731
    elif form.kind == "which_relation":
        assert form.object is not None and form.relation is not None
        reference = _one(facts, form.object)
        if isinstance(reference, str):
            return reference
        relation = form.relation
        member = lambda o: _relation(facts, o, relation, reference)  # noqa: E731
    elif form.kind == "which_present":
        member = lambda o: True  # noqa: E731
    else:  # largest, smallest
        extreme = facts.largest if form.kind == "largest" else facts.smallest
        if extreme is None:
            return f"no object is clearly the {form.kind}"
        member = lambda o: o.index == extreme  # noqa: E731
    return _Judge(_objects(facts, member), _members(facts, member))


def _value_judge(facts: SceneFacts, form: QuestionForm) -> _Judge | str:
    if form.kind == "scene":
        assert form.attribute is not None
        actual = facts.scene[form.attribute]
        if actual is None:
            return f"the program does not settle the {form.attribute.replace('_', ' ')}"
        return _Judge(lambda v: v == actual, actual)
    assert form.subject is not None
    if form.kind == "count":
        n = _count(facts, form.subject)
        return n if isinstance(n, str) else _Judge(lambda v: v == n, str(n))
    subject = _one(facts, form.subject)
    if isinstance(subject, str):
        return subject
    if form.kind == "relation":
        assert form.object is not None
        other = _one(facts, form.object)
        if isinstance(other, str):
            return other
        held = [
            r.relation
            for r in facts.relations
            if (r.subject, r.object) == (subject.index, other.index)
        ]
        return _Judge(lambda v: _relation(facts, subject, v, other), ", ".join(held) or "none")
    if form.kind == "text":
        if subject.text is None:
            return f"{form.subject} carries no text"
        text = " ".join(words(subject.text))
        return _Judge(lambda v: v == text, subject.text)
    actual = subject.color if form.kind == "color" else subject.region
    return _Judge(lambda v: v == actual, actual)


def _statement_judge(facts: SceneFacts, form: QuestionForm) -> bool | str:
    """Truth of a presence or "more" statement (before negation)."""
    assert form.subject is not None
    n = _count(facts, form.subject)
    if isinstance(n, str):
        return n
    if form.kind == "presence":
        return n > 0
    assert form.object is not None
    m = _count(facts, form.object)
    return m if isinstance(m, str) else n > m


def _read(form: QuestionForm, text: str) -> object | None:
    """The one answer value ``text`` names, or None."""
    domain = form.kind if form.kind in _DOMAINS else "object"
    found = find_values(domain, text, form.attribute)
    return found.pop() if len(found) == 1 else None


def _choice(judge: _Judge, form: QuestionForm, correct: str, distractors: list[str]) -> KeyVerdict:
    value = _read(form, correct)
    if value is None:
        return _mismatch(f"the key {correct!r} names no single {form.kind} answer")
    right = judge.truth(value)
    if right is None:
        return _mismatch(f"the program does not settle whether {correct!r} is right")
    if not right:
        return _mismatch(f"key says {correct!r}, the program has {judge.answer}")
    for distractor in distractors:
        other = _read(form, distractor)
        if other is None:
            return _mismatch(f"the distractor {distractor!r} names no single {form.kind} answer")
        wrong = judge.truth(other)
        if wrong is None:
            return _mismatch(f"the program does not settle whether {distractor!r} is wrong")
        if wrong:
            return _mismatch(f"a distractor is also right ({distractor!r})")
    return KeyVerdict("verified", f"{form.kind} {judge.answer} recomputed from the program")


def _says(statement: str, form: QuestionForm, claim: str, value: object) -> bool:
    """Whether the statement states the form's claim (its words, or the same value)."""
    if " ".join(words(claim)) in " ".join(words(statement)):
        return True
    domain = form.kind if form.kind in _DOMAINS else "object"
    return value in find_values(domain, statement, form.attribute)


def _statement(facts: SceneFacts, form: QuestionForm, text: str, correct: str) -> KeyVerdict:
    claimed = {"true": True, "false": False}.get(correct.strip().lower())
    if claimed is None:
        return _mismatch(f"a true/false key must be true or false, not {correct!r}")
    if form.kind in ("presence", "more"):
        truth: bool | str | None = _statement_judge(facts, form)
        answer = "it"
    else:
        judge = _value_judge(facts, form) if form.kind in _DOMAINS else _object_judge(facts, form)
        if isinstance(judge, str):
            return _mismatch(judge)
        claim = form.relation if form.kind == "relation" else form.claim
        assert claim is not None  # QuestionForm.problem
        value = claim if form.kind == "relation" else _read(form, claim)
        if value is None or not _says(text, form, claim, value):
            return _mismatch(f"the claim {claim!r} is not one value the statement states")
        truth, answer = judge.truth(value), judge.answer
    if isinstance(truth, str):
        return _mismatch(truth)
    if truth is None:
        return _mismatch("the program does not settle whether the statement is true")
    if form.negated:
        truth = not truth
    if truth != claimed:
        return _mismatch(
            f"key says {correct}, the program makes it {str(truth).lower()} ({answer})"
        )
    return KeyVerdict("verified", f"truth of the {form.kind} statement recomputed from the program")


def check_key(
    facts: SceneFacts,
    question: str,
    kind: str,
    correct: str,
    distractors: list[str],
    form: QuestionForm | None,
) -> KeyVerdict:
    """Recompute the key of ``question`` (of ``kind`` mc or tf) from ``facts`` by its ``form``."""
    if form is None:
        return KeyVerdict("not checkable", "the question has no structured form to check")
    problem = form.problem(kind)
    if problem is not None:
        return _mismatch(f"the form does not fit the question: {problem}")
    for ref in (form.subject, form.object):
        if ref is not None and not mentions(question, ref):
            return _mismatch(f"the form is about {ref}, which the question does not name")
    if kind == "tf":
        return _statement(facts, form, question, correct)
    judge = _value_judge(facts, form) if form.kind in _DOMAINS else _object_judge(facts, form)
    if isinstance(judge, str):
        return _mismatch(judge)
    return _choice(judge, form, correct, distractors)
