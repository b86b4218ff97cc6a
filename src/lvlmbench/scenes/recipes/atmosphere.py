"""Atmospheric understanding: time and light, weather, mood, season and colour."""

from __future__ import annotations

import math
import random

from lvlmbench.scenes.palette import SHAPES
from lvlmbench.scenes.questions import Question, mc, tf
from lvlmbench.scenes.recipes._common import AskFn, BuildFn, Recipe, Scene
from lvlmbench.scenes.sampler import SceneBuilder
from lvlmbench.scenes.words import name

__all__ = ["RECIPES", "outdoor"]


def outdoor(b: SceneBuilder, light: str, weather: str = "clear", *, sky: bool = True) -> None:
    """A park or street with the given light and weather and a sun or moon that fits."""
    b.stage(b.rng.choice(("park", "street")), lighting=False, weather=False)
    b.set_lighting(light)
    if weather != "clear":
        b.weather = b.weather.model_copy(
            update={"kind": weather, "intensity": round(b.rng.uniform(0.5, 0.9), 2)}
        )
    horizon = b.horizon() or 0.6
    if sky and light == "day" and weather == "clear":
        b.at(
            "sun",
            b.rng.uniform(0.15, 0.85),
            b.rng.uniform(0.1, max(0.12, horizon - 0.34)),
            size=0.12,
        )
    elif sky and light == "dusk" and weather == "clear":
        b.at("sun", b.rng.uniform(0.15, 0.85), horizon - 0.075, size=0.12, color="orange", depth=-5)
    elif sky and light == "night":
        b.at(
            "moon",
            b.rng.uniform(0.15, 0.85),
            b.rng.uniform(0.1, max(0.12, horizon - 0.25)),
            size=0.1,
        )
    b.fill(count=b.rng.randint(1, 2) + b.rng.randint(*b.profile.fillers) // 2)


def _build_light(choices: tuple[str, ...], weathers: tuple[str, ...] = ("clear",)) -> BuildFn:
    def build(b: SceneBuilder) -> None:
        outdoor(b, b.rng.choice(choices), b.rng.choice(weathers))

    return build


_TIMES = {"daytime": "daytime", "sunset": "sunset", "night-time": "night-time"}


def _ask_time(scene: Scene, rng: random.Random) -> Question | None:
    time = scene.facts.scene.time_of_day
    if time is None or scene.program.weather.kind != "clear":
        return None
    return mc(
        "What time of day is shown in this picture?",
        time,
        [*_TIMES.values(), "a foggy morning"],
        rng,
        evidence=[f"The picture shows {time}."],
    )


def _ask_night(scene: Scene, rng: random.Random) -> Question | None:
    light = scene.program.lighting.kind
    if light not in ("day", "night"):
        return None
    word = "night" if light == "night" else "daytime"
    return tf("It is night-time in this picture.", light == "night", evidence=[f"It is {word}."])


_BRIGHTNESS = {
    "bright": "bright daylight",
    "dim": "dim evening light",
    "dark": "darkness",
    "spotlit": "darkness except for a single spotlight",
}


def _build_brightness(b: SceneBuilder) -> None:
    light = b.rng.choice(("day", "dusk", "night", "spotlight"))
    if light == "spotlight":
        b.stage("shapes", lighting=False, weather=False)
        b.set_lighting("spotlight")
        b.fill(SHAPES, count=b.rng.randint(3, 5))
    else:
        outdoor(b, light)


def _ask_brightness(scene: Scene, rng: random.Random) -> Question | None:
    value = scene.facts.scene.brightness
    if value is None or scene.program.weather.kind != "clear":
        return None
    return mc(
        "How is this scene lit?",
        _BRIGHTNESS[value],
        list(_BRIGHTNESS.values()),
        rng,
        evidence=[f"The scene is lit by {_BRIGHTNESS[value]}."],
    )


_SOURCES = ("the sun", "the moon", "a lamp", "a spotlight")


def _build_source(b: SceneBuilder) -> None:
    source = b.rng.choice(_SOURCES)
    if source in ("the sun", "the moon"):
        outdoor(b, "day" if source == "the sun" else "night")
        return
    b.stage("room", lighting=False)
    b.set_lighting("night" if source == "a lamp" else "spotlight")
    if source == "a lamp":
        b.place("lamp", size=b.size(1.2))
    b.fill(("chair", "table", "cup", "book", "ball"), count=b.rng.randint(2, 4))


def _ask_source(scene: Scene, rng: random.Random) -> Question | None:
    source = scene.facts.scene.light_source
    if source is None or scene.program.weather.kind != "clear":
        return None
    return mc(
        "Where does most of the light in this scene come from?",
        source,
        list(_SOURCES),
        rng,
        evidence=[f"Most of the light comes from {source}."],
    )


def _build_spot(b: SceneBuilder) -> None:
    b.stage("shapes", lighting=False, weather=False)
    b.set_lighting("spotlight")
    b.lighting = b.lighting.model_copy(update={"spot_radius": round(b.rng.uniform(0.18, 0.24), 2)})
    light = b.lighting
    b.at(b.rng.choice(SHAPES), light.spot_x, light.spot_y, size=0.14)
    for _ in range(b.rng.randint(3, 5)):
        b.place(b.rng.choice(SHAPES), size=0.12)


def _in_the_dark(scene: Scene, box: tuple[float, float, float, float]) -> bool:
    """Whether a box lies wholly outside the spotlight's disc (soft edge included)."""
    light = scene.program.lighting
    nearest_x = min(max(light.spot_x, box[0]), box[2])
    nearest_y = min(max(light.spot_y, box[1]), box[3])
    gap = math.hypot(nearest_x - light.spot_x, nearest_y - light.spot_y)
    return gap >= 1.05 * light.spot_radius


def _ask_spot(scene: Scene, rng: random.Random) -> Question | None:
    lit = [o for o in scene.facts.objects if o.lit]
    if scene.program.lighting.kind != "spotlight" or len(lit) != 1 or not lit[0].askable:
        return None
    # half-lit objects on the disc's edge would make "which one is lit" arguable
    if not all(_in_the_dark(scene, o.box) for o in scene.facts.objects if o is not lit[0]):
        return None
    labels = {o.index: name(scene.facts, o) for o in scene.facts.objects}
    target = labels[lit[0].index]
    if target is None:
        return None
    others = [label for i, label in labels.items() if label is not None and i != lit[0].index]
    return mc(
        "Which object is lit up by the spotlight?",
        target,
        others,
        rng,
        evidence=[f"The spotlight shines on {target}; everything else is in the dark."],
        subjects=[lit[0].index],
    )


def _build_sun_height(b: SceneBuilder) -> None:
    outdoor(b, b.rng.choice(("day", "dusk")))


def _ask_sun_height(scene: Scene, rng: random.Random) -> Question | None:
    height = scene.facts.scene.sun_height
    if height is None:
        return None
    where = "low, near the horizon" if height == "low" else "high up in the sky"
    return tf(
        "The sun is low in the sky, near the horizon.",
        height == "low",
        evidence=[f"The sun is {where}."],
    )


# -- weather ------------------------------------------------------------------------------------

_WEATHER_WORDS = {"clear": "clear", "fog": "foggy", "rain": "rainy", "snow": "snowy"}


def _ask_weather(scene: Scene, rng: random.Random) -> Question | None:
    kind = scene.program.weather.kind
    return mc(
        "What is the weather like in this picture?",
        _WEATHER_WORDS[kind],
        list(_WEATHER_WORDS.values()),
        rng,
        evidence=[f"The weather is {_WEATHER_WORDS[kind]}."],
    )


def _ask_is(kind: str, statement: str) -> AskFn:
    def ask(scene: Scene, rng: random.Random) -> Question | None:
        actual = scene.program.weather.kind
        return tf(statement, actual == kind, evidence=[f"The weather is {_WEATHER_WORDS[actual]}."])

    return ask


def _build_is(kind: str) -> BuildFn:
    def build(b: SceneBuilder) -> None:
        other = b.rng.choice([w for w in _WEATHER_WORDS if w != kind])
        outdoor(b, b.rng.choice(("day", "dusk")), kind if b.rng.random() < 0.5 else other)

    return build


def _ask_falling(scene: Scene, rng: random.Random) -> Question | None:
    kind = scene.program.weather.kind
    if kind not in ("rain", "snow"):
        return None
    return mc(
        "What is falling from the sky in this picture?",
        kind,
        ["rain", "snow", "autumn leaves", "nothing at all"],
        rng,
        evidence=[f"{kind.capitalize()} is falling."],
    )


_CLOUDS = {"none": "no clouds at all", "few": "one or two clouds", "many": "many clouds"}


def _build_clouds(b: SceneBuilder) -> None:
    outdoor(b, "day", sky=False)
    n = b.rng.choice((0, 1, 2, 4, 5))
    for _ in range(n):
        b.place("cloud", size=b.rng.uniform(0.12, 0.18))


def _ask_clouds(scene: Scene, rng: random.Random) -> Question | None:
    value = scene.facts.scene.cloudiness
    clouds = scene.facts.select("cloud")
    if value is None or not all(o.askable for o in clouds) or scene.program.weather.kind != "clear":
        return None
    return mc(
        "How cloudy is the sky in this picture?",
        _CLOUDS[value],
        [*_CLOUDS.values(), "dark clouds with falling snow"],
        rng,
        evidence=[f"The sky has {_CLOUDS[value]}."],
    )


_WHEN = {"day": "day", "dusk": "evening", "night": "night"}


def _build_combo(b: SceneBuilder) -> None:
    outdoor(b, b.rng.choice(tuple(_WHEN)), b.rng.choice(tuple(_WEATHER_WORDS)))


def _ask_combo(scene: Scene, rng: random.Random) -> Question | None:
    when = _WHEN.get(scene.program.lighting.kind)
    if when is None:
        return None
    weather = _WEATHER_WORDS[scene.program.weather.kind]
    correct = f"a {weather} {when}"
    same_time = [f"a {w} {when}" for w in _WEATHER_WORDS.values() if w != weather]
    same_weather = [f"a {weather} {t}" for t in _WHEN.values() if t != when]
    return mc(
        "Which caption fits this picture best?",
        correct,
        same_time[:2] + same_weather[:1],
        rng,
        fallback=same_time + same_weather,
        evidence=[f"The picture shows {correct}."],
    )


RECIPES: dict[str, Recipe] = {
    "time of day": Recipe(_build_light(("day", "dusk", "night")), _ask_time),
    "day or night": Recipe(_build_light(("day", "night")), _ask_night, kind="tf"),
    "brightness": Recipe(_build_brightness, _ask_brightness),
    "light source": Recipe(_build_source, _ask_source),
    "spotlight focus": Recipe(_build_spot, _ask_spot),
    "height of the sun": Recipe(_build_sun_height, _ask_sun_height, kind="tf"),
    "weather type": Recipe(_build_light(("day", "dusk"), tuple(_WEATHER_WORDS)), _ask_weather),
    "rain detection": Recipe(
        _build_is("rain"), _ask_is("rain", "It is raining in this picture."), kind="tf"
    ),
    "falling precipitation": Recipe(_build_light(("day", "dusk"), ("rain", "snow")), _ask_falling),
    "fog and visibility": Recipe(
        _build_is("fog"), _ask_is("fog", "The scene is covered in fog."), kind="tf"
    ),
    "cloud cover": Recipe(_build_clouds, _ask_clouds),
    "weather and time together": Recipe(_build_combo, _ask_combo),
}
