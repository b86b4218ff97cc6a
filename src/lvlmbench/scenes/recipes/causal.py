"""Reasoning capacity III: cause and consequence."""

from __future__ import annotations

import random

from lvlmbench.scenes.questions import Question, mc
from lvlmbench.scenes.recipes._common import Recipe, Scene, absent, named
from lvlmbench.scenes.sampler import SceneBuilder
from lvlmbench.scenes.semantics import SIGNS

__all__ = ["RECIPES"]

# -- cause and consequence --------------------------------------------------------------------

_GEAR = {
    "rain": "an umbrella",
    "snow": "a warm coat and gloves",
    "sun": "sunglasses and a sun hat",
    "night": "a flashlight to see in the dark",
}


def _build_weather(b: SceneBuilder) -> None:
    b.stage(b.rng.choice(("park", "street")), lighting=False, weather=False)
    state = b.rng.choice(tuple(_GEAR))
    if state in ("rain", "snow"):
        b.weather = b.weather.model_copy(
            update={"kind": state, "intensity": b.rng.uniform(0.5, 0.9)}
        )
        b.place("cloud")
    elif state == "sun":
        b.place("sun")
    else:
        b.set_lighting("night")
        b.place("moon")
    b.fill(("person", "tree", "house", "car") if b.theme == "street" else None)


def _state(scene: Scene) -> str | None:
    light, weather = scene.program.lighting.kind, scene.program.weather.kind
    if weather in ("rain", "snow"):
        return weather if light == "day" else None
    if weather == "clear" and light == "night":
        return "night"
    if weather == "clear" and light == "day" and scene.facts.select("sun"):
        return "sun"
    return None


def _ask_gear(scene: Scene, rng: random.Random) -> Question | None:
    state = _state(scene)
    if state is None:
        return None
    reason = {
        "rain": "It is raining",
        "snow": "It is snowing",
        "sun": "The sun is shining brightly",
        "night": "It is dark night",
    }[state]
    return mc(
        "What would a person going outside here most likely need?",
        _GEAR[state],
        list(_GEAR.values()),
        rng,
        evidence=[f"{reason}."],
    )


_BLUR = {
    "fog": "thick fog",
    "night": "it is night-time",
    "rain": "heavy rain",
    "snow": "heavy snowfall",
}


def _build_blur(b: SceneBuilder) -> None:
    b.stage(b.rng.choice(("park", "street")), lighting=False, weather=False)
    state = b.rng.choice(tuple(_BLUR))
    if state == "night":
        b.set_lighting("night")
    else:
        b.weather = b.weather.model_copy(
            update={"kind": state, "intensity": b.rng.uniform(0.8, 1.0)}
        )
    b.fill(count=b.rng.randint(2, 4))


def _ask_blur(scene: Scene, rng: random.Random) -> Question | None:
    light, weather = scene.program.lighting.kind, scene.program.weather
    if light == "night" and weather.kind == "clear":
        cause = "night"
    elif light == "day" and weather.kind != "clear" and weather.intensity >= 0.8:
        cause = weather.kind
    else:
        return None
    return mc(
        "Why is it hard to see clearly in this scene?",
        _BLUR[cause],
        list(_BLUR.values()),
        rng,
        evidence=[f"The scene is hard to see because of {_BLUR[cause]}."],
    )


_TRAFFIC = ("STOP", "NO ENTRY", "SLOW", "PARKING")


def _build_traffic(b: SceneBuilder) -> None:
    b.stage("street")
    b.place(
        "sign",
        text=b.rng.choice(_TRAFFIC),
        size=max(0.22, b.size(1.4)),
        texture="solid",
        color=b.rng.choice(("red", "blue", "white", "yellow")),
    )
    b.place("car", orientation=b.rng.choice((0, 180)))
    b.fill(("house", "tree", "person"), count=b.rng.randint(*b.profile.fillers) // 2)


def _ask_traffic(scene: Scene, rng: random.Random) -> Question | None:
    signs = named(scene, lambda o: o.text in _TRAFFIC and o.visible >= 0.95)
    if not signs:
        return None
    o, _ = rng.choice(signs)
    action = SIGNS[str(o.text)][1]
    return mc(
        "What should a driver do at the sign in this picture?",
        action,
        [SIGNS[t][1] for t in _TRAFFIC],
        rng,
        evidence=[f"The sign says {o.text}, so drivers should {action}."],
        subjects=[o.index],
    )


def _build_dark_room(b: SceneBuilder) -> None:
    b.stage("room", lighting=False)
    b.set_lighting("night")
    b.place("lamp", size=b.size(1.2))
    b.fill(
        ("chair", "table", "cup", "book", "ball"),
        count=b.rng.randint(2, 3) + b.rng.randint(*b.profile.fillers) // 2,
    )


def _ask_dark_room(scene: Scene, rng: random.Random) -> Question | None:
    lamps = scene.facts.select("lamp")
    if scene.program.lighting.kind != "night" or not lamps or not all(o.askable for o in lamps):
        return None
    present = [f"the {o.category}" for o in scene.facts.askable() if o.category != "lamp"]
    return mc(
        "The room is dark. Which object could someone switch on to see better?",
        "the lamp",
        present,
        rng,
        fallback=[f"the {c}" for c in absent(scene, ("chair", "table", "cup", "book", "ball"))],
        evidence=["It is night and the room is dark; there is a lamp that could be switched on."],
    )


def _ask_fall(scene: Scene, rng: random.Random) -> Question | None:
    found = []
    for support in named(scene, lambda o: o.category in ("table", "chair")):
        on = [
            r.subject
            for r in scene.facts.relations
            if r.relation == "on" and r.object == support[0].index
        ]
        if len(on) == 1 and scene.facts.objects[on[0]].askable:
            found.append((support, on[0]))
    if not found:
        return None
    (base, label), top = rng.choice(found)
    thing = scene.facts.objects[top]
    others = [
        f"the {o.category}"
        for o in scene.facts.objects
        if o.index not in (top, base.index) and o.category != thing.category
    ]
    return mc(
        f"If {label} were taken away, which object would fall down?",
        f"the {thing.category}",
        others,
        rng,
        fallback=[f"the {c}" for c in absent(scene, ("cup", "book", "lamp", "ball"))],
        evidence=[f"The {thing.category} is resting on {label}."],
        subjects=[top, base.index],
    )


def _build_support(b: SceneBuilder) -> None:
    b.stage("room")
    table = b.at("table", b.rng.uniform(0.3, 0.7), 0.82, size=b.rng.uniform(0.38, 0.48))
    b.put_on(table, b.rng.choice(("cup", "book", "lamp")))
    b.fill(("chair", "ball", "cup", "book"), count=b.rng.randint(2, 3), size=b.size(0.7))


def _build_roll(b: SceneBuilder) -> None:
    b.stage("room")
    b.place("ball")
    b.fill(("cup", "book", "chair", "table", "lamp"), count=b.rng.randint(3, 4))
    b.occlude([0], pool=("cup", "book", "chair"))


def _ask_roll(scene: Scene, rng: random.Random) -> Question | None:
    balls = scene.facts.select("ball")
    if not balls or not all(o.askable for o in balls):
        return None
    flat = ("cup", "book", "chair", "table", "lamp")
    present = [f"the {o.category}" for o in scene.facts.objects if o.category in flat]
    return mc(
        "Which object in the picture would roll away if someone pushed it?",
        "the ball",
        present,
        rng,
        fallback=[f"the {c}" for c in absent(scene, flat)],
        evidence=[
            "The ball is round, so it would roll; the other things have flat bottoms or legs."
        ],
        subjects=[o.index for o in balls],
    )


RECIPES: dict[str, Recipe] = {
    "weather and clothing": Recipe(_build_weather, _ask_gear),
    "cause of low visibility": Recipe(_build_blur, _ask_blur),
    "sign instructions": Recipe(_build_traffic, _ask_traffic),
    "lighting needs": Recipe(_build_dark_room, _ask_dark_room),
    "physical support": Recipe(_build_support, _ask_fall),
    "rolling objects": Recipe(_build_roll, _ask_roll),
}
