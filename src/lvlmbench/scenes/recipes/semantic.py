"""Semantic understanding I: scene context and what objects are for."""

from __future__ import annotations

import random

from lvlmbench.scenes.palette import HOUSEHOLD, THINGS
from lvlmbench.scenes.questions import Question, mc, tf
from lvlmbench.scenes.recipes._common import AskFn, BuildFn, Recipe, Scene, absent, named
from lvlmbench.scenes.sampler import THEMES, SceneBuilder
from lvlmbench.scenes.semantics import (
    ACTIVITIES,
    FITS,
    FUNCTIONS,
    SCENE_CORE,
    SCENE_WORDS,
    is_indoor,
)
from lvlmbench.scenes.words import article

__all__ = ["RECIPES", "a"]


def a(category: str) -> str:
    """``a car``, ``an arrow``."""
    return f"{article(category)} {category}"


def _sky_pool(b: SceneBuilder) -> tuple[str, ...]:
    return ("cloud", "sun") if b.lighting.kind in ("day", "dusk") else ("cloud", "moon")


def _build_place(b: SceneBuilder, place: str | None = None) -> None:
    place = place or b.rng.choice(tuple(SCENE_CORE))
    b.stage(place)
    pool = _sky_pool(b) if place == "sky" else THEMES[place]
    core = [c for c in SCENE_CORE[place] if c in pool]
    for category in b.rng.sample(core, min(len(core), 2)):
        b.place(category)
    b.fill(pool, count=b.rng.randint(0, 1) + b.rng.randint(*b.profile.fillers))
    b.occlude(pool=[c for c in pool if c not in ("sun", "moon", "cloud")] or None)


def _ask_place(scene: Scene, rng: random.Random) -> Question | None:
    kind = scene.facts.scene.scene_type
    if kind is None:
        return None
    return mc(
        "What kind of place does this picture show?",
        SCENE_WORDS[kind],
        list(SCENE_WORDS.values()),
        rng,
        evidence=[f"The picture shows {SCENE_WORDS[kind]}."],
    )


def _build_in_out(b: SceneBuilder) -> None:
    _build_place(b, b.rng.choice(("room", "room", "street", "park")))


def _ask_in_out(scene: Scene, rng: random.Random) -> Question | None:
    kind = scene.facts.scene.scene_type
    if kind not in ("room", "street", "park"):
        return None
    inside = kind == "room" and is_indoor(scene.program)
    where = "indoors, in a room" if inside else f"outdoors, in {SCENE_WORDS[str(kind)]}"
    return tf("This scene takes place indoors.", inside, evidence=[f"The scene is {where}."])


_GROUNDS = {"green": "grass", "yellow": "sand", "white": "snow", "blue": "water", "gray": "a road"}


def _build_ground(b: SceneBuilder) -> None:
    b.stage("park")
    color = b.rng.choice(tuple(_GROUNDS))
    b.background = b.background.model_copy(update={"color2": color})
    pool = _sky_pool(b) if color == "blue" else (*_sky_pool(b), "person", "ball")
    b.fill(pool, count=b.rng.randint(1, 2) + b.rng.randint(*b.profile.fillers) // 2)


def _ask_ground(scene: Scene, rng: random.Random) -> Question | None:
    ground = scene.facts.scene.ground
    if ground is None:
        return None
    return mc(
        "What is the ground in this picture most likely covered with?",
        ground,
        list(_GROUNDS.values()),
        rng,
        evidence=[f"The ground is covered with {ground}."],
    )


_ODD = {"room": ("car", "house", "tree"), "street": ("chair", "table", "lamp")}
"""Things that clearly do not belong in a place (a flower in a street might)."""


def _build_odd(b: SceneBuilder) -> None:
    place = b.rng.choice(tuple(_ODD))
    b.stage(place)
    for category in b.rng.sample(SCENE_CORE[place], 2):
        b.place(category)
    b.fill(THEMES[place], count=1 + b.rng.randint(*b.profile.fillers) // 2)
    b.place(b.rng.choice(_ODD[place]), size=b.size(0.8))


def _ask_odd(scene: Scene, rng: random.Random) -> Question | None:
    objects = scene.facts.objects
    for place, odd_ones in _ODD.items():
        core = SCENE_CORE[place]
        if (place == "room") != is_indoor(scene.program):
            continue
        misfits = [o for o in objects if place not in FITS.get(o.category, ())]
        fitting = [o.category for o in objects if place in FITS.get(o.category, ())]
        if len(misfits) != 1 or misfits[0].category not in odd_ones or not misfits[0].askable:
            continue
        if sum(c in core for c in fitting) < 2:
            continue
        odd = misfits[0].category
        present = [a(c) for c in fitting]
        return mc(
            "Which object looks out of place in this scene?",
            a(odd),
            present,
            rng,
            fallback=[a(c) for c in SCENE_CORE[place] if c not in fitting],
            evidence=[f"The scene shows {SCENE_WORDS[place]}, where {a(odd)} does not belong."],
            subjects=[misfits[0].index],
        )
    return None


def _build_main(b: SceneBuilder) -> None:
    place = b.rng.choice(("street", "park", "room"))
    b.stage(place)
    big = b.rng.choice([c for c in THEMES[place] if c not in ("sign",)])
    b.at(big, 0.5, 0.62 if b.horizon() else 0.5, size=b.rng.uniform(0.42, 0.55))
    b.fill(
        THEMES[place],
        count=b.rng.randint(2, 3) + b.rng.randint(*b.profile.fillers) // 2,
        size=b.size(0.45),
    )


def _ask_main(scene: Scene, rng: random.Random) -> Question | None:
    objects = sorted(scene.facts.objects, key=lambda o: -o.area)
    if len(objects) < 2 or objects[0].area < 3 * objects[1].area or not objects[0].askable:
        return None
    main = objects[0]
    if abs(main.center[0] - 0.5) > 0.15:
        return None
    present = [a(o.category) for o in objects[1:]]
    return mc(
        "What is the main subject of this picture?",
        a(main.category),
        present,
        rng,
        fallback=[a(c) for c in absent(scene)],
        evidence=[
            f"The main subject is a large {main.color} {main.category} in the middle "
            "of the picture, much bigger than anything else."
        ],
        subjects=[main.index],
    )


_OTHER_ACTIVITIES = ("sleeping", "cooking dinner", "swimming", "painting a picture")


def _build_activity(b: SceneBuilder) -> None:
    b.stage(b.rng.choice(("park", "room")))
    size = b.rng.uniform(0.4, 0.55)
    x = b.rng.uniform(0.3, 0.7)
    bottom = 0.95
    person = b.at("person", x, bottom - size / 2, size=size)
    cue = b.rng.choice(tuple(ACTIVITIES))
    if cue == "ball":
        side = b.rng.choice((-1, 1))
        ball = size * 0.22
        b.at("ball", x + side * (size * 0.22 + ball / 2 + 0.01), bottom - ball / 2, size=ball)
    else:
        b.at(
            cue,
            x,
            bottom - size * 0.58,
            size=size * (0.25 if cue == "book" else 0.18),
            depth=b.objects[person].depth + 5,
        )
    pool = [c for c in THEMES[b.theme] if c not in ACTIVITIES and c != "person"]
    b.fill(pool, count=b.rng.randint(*b.profile.fillers) // 2)


def _ask_activity(scene: Scene, rng: random.Random) -> Question | None:
    activity = scene.facts.scene.activity
    cues = [o for o in scene.facts.objects if o.category in ("person", *ACTIVITIES)]
    if activity is None or not all(o.askable for o in cues):
        return None
    others = [text for cue, text in ACTIVITIES.items() if not scene.facts.select(cue)]
    return mc(
        "What is the person in the picture most likely doing?",
        activity,
        [*others, *_OTHER_ACTIVITIES],
        rng,
        evidence=[f"The person is {activity}."],
    )


# -- object function ----------------------------------------------------------------------------


def _build_function(b: SceneBuilder) -> None:
    place = b.rng.choice(("room", "street"))
    b.stage(place)
    pool = [c for c in THEMES[place] if c in FUNCTIONS]
    for category in b.rng.sample(pool, 2):
        b.place(category)
    b.fill(THEMES[place])
    b.occlude()


def _ask_function(scene: Scene, rng: random.Random) -> Question | None:
    found = named(scene, lambda o: o.category in FUNCTIONS)
    if not found:
        return None
    o, label = rng.choice(found)
    use = FUNCTIONS[o.category]
    return mc(
        f"What is {label} used for?",
        use,
        list(FUNCTIONS.values()),
        rng,
        evidence=[f"{label.capitalize()} is used for {use}."],
        subjects=[o.index],
    )


def _build_purpose(target: str, place: str, pool: tuple[str, ...]) -> BuildFn:
    def build(b: SceneBuilder) -> None:
        b.stage(place)
        b.place(target, size=b.size(1.1))
        for category in b.rng.sample(pool, 2):
            b.place(category)
        b.fill(pool, count=b.rng.randint(*b.profile.fillers) // 2)
        b.occlude([0])

    return build


def _ask_purpose(target: str, text: str, exclude: tuple[str, ...] = ()) -> AskFn:
    def ask(scene: Scene, rng: random.Random) -> Question | None:
        members = scene.facts.select(target)
        if not members or not all(o.askable for o in members):
            return None
        present = [
            f"the {o.category}"
            for o in scene.facts.askable()
            if o.category != target and o.category not in exclude
        ]
        spare = [f"the {c}" for c in absent(scene, THINGS) if c not in exclude]
        return mc(
            text,
            f"the {target}",
            present,
            rng,
            fallback=spare,
            evidence=[
                f"There is {a(members[0].category)} in the picture: "
                f"{FUNCTIONS.get(target, 'it serves that purpose')}."
            ],
            subjects=[o.index for o in members],
        )

    return ask


_LIGHTS = ("lamp", "sun", "moon")
_NOT_ROOM = tuple(c for c in HOUSEHOLD if c != "lamp")

RECIPES: dict[str, Recipe] = {
    "scene type": Recipe(_build_place, _ask_place),
    "indoor or outdoor": Recipe(_build_in_out, _ask_in_out, kind="tf"),
    "ground surface": Recipe(_build_ground, _ask_ground),
    "out-of-place object": Recipe(_build_odd, _ask_odd),
    "main subject": Recipe(_build_main, _ask_main),
    "activity": Recipe(_build_activity, _ask_activity),
    "function of an object": Recipe(_build_function, _ask_function),
    "light sources": Recipe(
        _build_purpose("lamp", "room", (*_NOT_ROOM, "ball")),
        _ask_purpose("lamp", "Which of these objects gives off light?", exclude=_LIGHTS),
    ),
    "means of transport": Recipe(
        _build_purpose("car", "street", ("house", "tree", "sign")),
        _ask_purpose(
            "car", "Which of these can carry people from place to place?", exclude=("person",)
        ),
    ),
    "toys and play": Recipe(
        _build_purpose("ball", "room", _NOT_ROOM),
        _ask_purpose("ball", "Which object in the picture is a toy for playing games?"),
    ),
    "drinking vessels": Recipe(
        _build_purpose("cup", "room", ("chair", "table", "lamp", "book")),
        _ask_purpose("cup", "Which object in the picture would you drink from?"),
    ),
    "seating": Recipe(
        _build_purpose("chair", "room", ("table", "lamp", "cup", "book", "ball")),
        _ask_purpose(
            "chair", "Which object in the picture is made for sitting on?", exclude=("person",)
        ),
    ),
}
