"""Natural-language text from facts: the scene description and open-ended references.

The description doubles as AutoBench-V's image description (for description-only runs) and as
VisIT-Bench's instruction-conditioned caption, so it always states the facts the question rests
on (the question's ``evidence``) besides listing what is in the picture.
"""

from __future__ import annotations

from collections import Counter

from lvlmbench.scenes.facts import ObjectFacts, SceneFacts
from lvlmbench.scenes.schema import SceneProgram
from lvlmbench.scenes.semantics import SCENE_WORDS, is_indoor
from lvlmbench.scenes.words import count_phrase, name, noun, phrase, region_phrase

__all__ = ["caption", "count_reference", "describe", "setting_sentences", "story"]

_WEATHER = {
    "fog": "Fog hangs over the scene, making it hazy.",
    "rain": "It is raining.",
    "snow": "Snow is falling.",
}
_LIGHT = {
    "dusk": "The scene is lit by warm, dim sunset light.",
    "night": "It is night, so the scene is dark and bluish.",
    "spotlight": "The scene is dark except for the round patch lit by a spotlight.",
}
_SEASON = {
    "winter": "Snow covers parts of the ground.",
    "autumn": "Fallen orange and brown leaves lie on the ground.",
    "spring": "Pink and white blossoms are scattered on the ground.",
    "summer": "Tufts of green grass grow on the ground.",
}


def _place(program: SceneProgram, facts: SceneFacts) -> str:
    bg = program.background
    kind = facts.scene.scene_type
    if kind is not None:
        return f"A picture of {SCENE_WORDS[kind]}"
    if is_indoor(program):
        return f"A picture of a room with a pale {bg.color} wall and a brown floor"
    if bg.kind == "sky_ground":
        return f"A picture with a pale {bg.color} sky above {bg.color2 or 'green'} ground"
    if bg.kind == "gradient":
        return f"A picture on a background fading from pale {bg.color} to {bg.color2}"
    cluttered = " covered in small marks" if bg.kind == "clutter" else ""
    return f"A picture on a plain pale {bg.color} background{cluttered}"


def setting_sentences(program: SceneProgram, facts: SceneFacts) -> list[str]:
    """Where, when and in what weather."""
    outdoor = program.background.kind == "sky_ground" and not is_indoor(program)
    sky = " under a clear sky" if program.weather.kind == "clear" and outdoor else ""
    when = {"day": " in daylight", "dusk": " at sunset", "night": " at night"}.get(
        program.lighting.kind, ""
    )
    out = [f"{_place(program, facts)}{when}{sky}."]
    if program.lighting.kind in _LIGHT:
        out.append(_LIGHT[program.lighting.kind])
    if program.weather.kind in _WEATHER:
        out.append(_WEATHER[program.weather.kind])
    if program.season is not None:
        out.append(_SEASON[program.season])
    clutter = program.background.clutter and program.background.kind != "clutter"
    if clutter:
        out.append("Small marks clutter the background.")
    return out


def _object_list(facts: SceneFacts) -> str:
    items = [f"{phrase(o)} {region_phrase(o.region)}" for o in facts.objects]
    if not items:
        return "There are no objects."
    if len(items) == 1:
        return f"There is one object: {items[0]}."
    listed = ", ".join(items[:-1]) + f" and {items[-1]}"
    return f"There are {len(items)} objects: {listed}."


def _hidden_sentences(facts: SceneFacts) -> list[str]:
    out = []
    for o in facts.objects:
        if not o.occluded_by or o.visible >= 0.97:
            continue
        front = facts.objects[o.occluded_by[-1]]
        a = name(facts, o) or phrase(o, size=False)
        b = name(facts, front) or phrase(front, size=False)
        how = "mostly hidden" if o.visible < facts.threshold else "partly hidden"
        out.append(f"{a[0].upper()}{a[1:]} is {how} behind {b}.")
    return out


def describe(program: SceneProgram, facts: SceneFacts, evidence: list[str] | None = None) -> str:
    """Setting, every object with its colour, pattern, size and place, what hides what, the
    text labels, and then the question's evidence sentences not already said."""
    sentences = setting_sentences(program, facts)
    sentences.append(_object_list(facts))
    sentences += _hidden_sentences(facts)
    sentences += [f'The text "{text}" is written in {color}.' for text, color, *_ in facts.labels]
    for line in evidence or []:
        if line not in sentences:
            sentences.append(line)
    return " ".join(sentences)


def _kinds(objects: list[ObjectFacts]) -> list[str]:
    counts = Counter(o.category for o in objects)
    return [count_phrase(n, c) for c, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" and {items[-1]}"


def caption(program: SceneProgram, facts: SceneFacts) -> str:
    """One sentence: what is where, when."""
    kinds = _kinds(facts.objects) or ["nothing"]
    first = setting_sentences(program, facts)[0].rstrip(".")
    return f"{first}, showing {_join(kinds)}."


def count_reference(facts: SceneFacts) -> str:
    """How many objects of each kind and colour, and the total."""
    if not facts.objects:
        return "There are no objects in the picture."
    parts = []
    for category in sorted({o.category for o in facts.objects}):
        members = facts.select(category)
        colors = Counter(o.color for o in members)
        detail = ", ".join(f"{n} {c}" for c, n in sorted(colors.items()))
        parts.append(f"{count_phrase(len(members), category)} ({detail})")
    hidden = sum(o.visible < 0.97 for o in facts.objects)
    tail = f" {hidden} of them {'is' if hidden == 1 else 'are'} partly hidden." if hidden else ""
    return f"There are {len(facts.objects)} objects in total: {_join(parts)}.{tail}"


def story(program: SceneProgram, facts: SceneFacts) -> str:
    """A three-sentence story that uses only what the picture shows."""
    when = {
        "day": "On a bright day",
        "dusk": "As the sun set",
        "night": "One quiet night",
        "spotlight": "In a dark place lit by a single spotlight",
    }[program.lighting.kind]
    weather = {
        "clear": "",
        "fog": ", in thick fog",
        "rain": ", in the rain",
        "snow": ", while snow was falling",
    }[program.weather.kind]
    kinds = _kinds(facts.objects)
    things = _join(kinds) if kinds else "nothing at all"
    people = facts.select("person")
    hero = (
        f"a person in {people[0].color}"
        if people
        else f"the {noun(facts.objects[0].category)}"
        if facts.objects
        else "the scene"
    )
    mood = facts.scene.mood or "quiet"
    return (
        f"{when}{weather}, there were {things}. Everything stayed in its place while "
        f"{hero} waited. It was a {mood} moment that nobody would forget."
    )
