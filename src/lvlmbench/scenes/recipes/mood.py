"""Atmospheric understanding II: mood, season and colour."""

from __future__ import annotations

import random

from lvlmbench.scenes.palette import COOL_COLORS, MUTED_COLORS, SHAPES, VIVID_COLORS, WARM_COLORS
from lvlmbench.scenes.questions import Question, mc, tf
from lvlmbench.scenes.recipes._common import BuildFn, Recipe, Scene
from lvlmbench.scenes.recipes.atmosphere import outdoor
from lvlmbench.scenes.sampler import SceneBuilder

__all__ = ["RECIPES"]

_MOOD_SCENES = {
    "cheerful": ("day", "clear"),
    "gloomy": ("day", "rain"),
    "peaceful": ("dusk", "clear"),
    "mysterious": ("night", "fog"),
    "dramatic": ("spotlight", "clear"),
}
_NEAR = {"mysterious": ("dramatic",), "dramatic": ("mysterious",)}
"""Moods close enough that one is never offered as a distractor for the other."""


def _build_mood(b: SceneBuilder) -> None:
    mood = b.rng.choice(tuple(_MOOD_SCENES))
    light, weather = _MOOD_SCENES[mood]
    if mood == "gloomy" and b.rng.random() < 0.4:
        weather = "fog"
    outdoor(b, light, weather)
    if mood == "cheerful":
        b.objects = [
            o.model_copy(update={"color": b.rng.choice(VIVID_COLORS)})
            if o.category in SHAPES or o.category in ("ball", "car", "house")
            else o
            for o in b.objects
        ]


def _ask_mood(scene: Scene, rng: random.Random) -> Question | None:
    mood = scene.facts.scene.mood
    if mood is None:
        return None
    options = [m for m in _MOOD_SCENES if m not in _NEAR.get(mood, ())]
    return mc(
        "Which word best describes the mood of this scene?",
        mood,
        options,
        rng,
        evidence=[_mood_reason(scene, mood)],
    )


def _mood_reason(scene: Scene, mood: str) -> str:
    light, weather = scene.program.lighting.kind, scene.program.weather.kind
    why = {
        "cheerful": "bright sunshine and vivid colours",
        "gloomy": f"grey, {weather}y weather" if weather != "fog" else "grey fog",
        "peaceful": "soft, calm evening or night light",
        "mysterious": "darkness and fog",
        "dramatic": "a single spotlight in the dark",
    }[mood]
    return f"The scene feels {mood} because of {why} ({light} light, {weather} weather)."


def _build_weather_mood(b: SceneBuilder) -> None:
    if b.rng.random() < 0.5:
        outdoor(b, "day", b.rng.choice(("rain", "fog")))
    else:
        outdoor(b, "day", "clear")


def _ask_weather_mood(scene: Scene, rng: random.Random) -> Question | None:
    mood = scene.facts.scene.mood
    if mood not in ("gloomy", "cheerful"):
        return None
    return tf(
        "The weather gives this scene a gloomy feeling.",
        mood == "gloomy",
        evidence=[_mood_reason(scene, str(mood))],
    )


_LIGHT_FEEL = {
    "cheerful": "bright and cheerful",
    "peaceful": "calm and peaceful",
    "dramatic": "tense and dramatic",
    "mysterious": "dark and mysterious",
}


def _build_light_mood(b: SceneBuilder) -> None:
    mood = b.rng.choice(tuple(_LIGHT_FEEL))
    light, weather = _MOOD_SCENES[mood]
    outdoor(b, light, weather)


def _ask_light_mood(scene: Scene, rng: random.Random) -> Question | None:
    mood = scene.facts.scene.mood
    if mood not in _LIGHT_FEEL:
        return None
    options = [v for k, v in _LIGHT_FEEL.items() if k not in _NEAR.get(str(mood), ())]
    options += ["gloomy and rainy"]
    return mc(
        "How does the lighting make this scene feel?",
        _LIGHT_FEEL[str(mood)],
        options,
        rng,
        evidence=[_mood_reason(scene, str(mood))],
    )


def _build_palette(b: SceneBuilder) -> None:
    b.stage("shapes", lighting=False, weather=False)
    b.background = b.background.model_copy(
        update={"kind": "plain", "color": "white", "clutter": 0.0}
    )
    palette = VIVID_COLORS if b.rng.random() < 0.5 else MUTED_COLORS
    for _ in range(b.rng.randint(4, 7)):
        b.place(
            b.rng.choice(SHAPES),
            color=b.rng.choice([c for c in palette if c != "white"]),
            size=min(b.size(), 0.2),
        )


def _ask_lively(scene: Scene, rng: random.Random) -> Question | None:
    value = scene.facts.scene.vividness
    if value is None:
        return None
    how = (
        "bright, lively colours"
        if value == "vivid"
        else "dull, muted colours (browns, greys, black)"
    )
    return tf(
        "The objects are painted in bright, lively colours.",
        value == "vivid",
        evidence=[f"The objects are painted in {how}."],
    )


_TITLES = {
    "cheerful": "A Happy, Sunny Day",
    "gloomy": "A Grey, Gloomy Day",
    "peaceful": "A Calm, Quiet Evening",
    "mysterious": "A Mysterious Foggy Night",
    "dramatic": "Alone in the Spotlight",
}


def _ask_title(scene: Scene, rng: random.Random) -> Question | None:
    mood = scene.facts.scene.mood
    if mood is None or (mood == "peaceful" and scene.program.lighting.kind != "dusk"):
        return None
    options = [t for m, t in _TITLES.items() if m not in _NEAR.get(str(mood), ())]
    return mc(
        "Which title suits this picture best?",
        _TITLES[str(mood)],
        options,
        rng,
        evidence=[_mood_reason(scene, str(mood))],
    )


def _build_busy(b: SceneBuilder) -> None:
    b.stage(b.rng.choice(("park", "street", "shapes")), lighting=False, weather=False)
    if b.rng.random() < 0.5:
        b.background = b.background.model_copy(update={"clutter": 0.0})
        b.fill(count=b.rng.randint(1, 3), size=b.size(1.1))
    else:
        b.background = b.background.model_copy(
            update={"clutter": round(b.rng.uniform(0.6, 0.9), 2)}
        )
        b.fill(count=14, size=0.1)


def _ask_busy(scene: Scene, rng: random.Random) -> Question | None:
    value = scene.facts.scene.busyness
    if value is None:
        return None
    n = len(scene.facts.objects)
    how = (
        f"crowded with {n} objects and a cluttered background"
        if value == "busy"
        else (f"calm, with only {n} objects on a clean background")
    )
    return tf(
        "The scene looks busy and crowded.", value == "busy", evidence=[f"The scene is {how}."]
    )


# -- season and colour --------------------------------------------------------------------------

_TREES = {
    "spring": ("pink", "white"),
    "summer": ("green",),
    "autumn": ("orange", "yellow"),
    "winter": ("white",),
}


def _build_season(b: SceneBuilder) -> None:
    _build_season_of(b, b.rng.choice(tuple(_TREES)))


def _build_season_of(b: SceneBuilder, season: str) -> None:
    b.stage("park", lighting=False, weather=False)
    b.set_lighting("day")
    b.season = season
    ground = {"winter": "white", "autumn": "brown"}.get(season, "green")
    b.background = b.background.model_copy(update={"color2": ground, "clutter": 0.0})
    if season == "winter" and b.rng.random() < 0.5:
        b.weather = b.weather.model_copy(update={"kind": "snow"})
    if season == "summer":
        b.at("sun", b.rng.uniform(0.2, 0.8), 0.12, size=0.12)
    for _ in range(b.rng.randint(2, 4)):
        b.place("tree", color=b.rng.choice(_TREES[season]), size=b.size(1.2))
    b.fill(("person", "ball"), count=b.rng.randint(0, 1))


def _ask_season(scene: Scene, rng: random.Random) -> Question | None:
    season = scene.facts.scene.season
    if season is None:
        return None
    cue = {
        "spring": "pink blossoms",
        "summer": "green trees and a bright sun",
        "autumn": "orange and yellow leaves",
        "winter": "snow and white trees",
    }[str(season)]
    return mc(
        "Which season is it most likely in this picture?",
        str(season),
        ["spring", "summer", "autumn", "winter"],
        rng,
        evidence=[f"It is {season}: the picture shows {cue}."],
    )


_CUES = {
    "winter": "snow on the ground",
    "autumn": "fallen orange leaves",
    "spring": "pink blossoms",
    "summer": "a bright summer sun",
}


def _ask_cue(scene: Scene, rng: random.Random) -> Question | None:
    season = scene.facts.scene.season
    if season in (None, "summer") or scene.facts.select("sun"):
        return None
    return mc(
        "Which detail in the picture shows what season it is?",
        _CUES[str(season)],
        list(_CUES.values()),
        rng,
        evidence=[f"The picture shows {_CUES[str(season)]}, a sign of {season}."],
    )


def _ask_cold(scene: Scene, rng: random.Random) -> Question | None:
    feel = scene.facts.scene.feels
    if feel is None:
        return None
    return tf("This scene looks cold.", feel == "cold", evidence=[f"The scene looks {feel}."])


def _build_temperature(b: SceneBuilder) -> None:
    b.stage("shapes", lighting=False, weather=False)
    b.background = b.background.model_copy(
        update={"kind": "plain", "color": b.rng.choice(("white", "gray"))}
    )
    palette = WARM_COLORS if b.rng.random() < 0.5 else COOL_COLORS
    for _ in range(b.rng.randint(4, 7)):
        b.place(b.rng.choice(SHAPES), color=b.rng.choice(palette), size=min(b.size(), 0.2))


_TEMPERATURES = {
    "warm": "mostly warm colours such as red, orange and yellow",
    "cool": "mostly cool colours such as blue, green and purple",
}


def _ask_temperature(scene: Scene, rng: random.Random) -> Question | None:
    value = scene.facts.scene.temperature
    if value not in _TEMPERATURES or scene.facts.scene.light_cast != "neutral":
        return None
    correct = _TEMPERATURES[str(value)]
    return mc(
        "Which best describes the colours in this picture?",
        correct,
        [*_TEMPERATURES.values(), "only black and white", "only shades of brown"],
        rng,
        evidence=[f"The picture uses {correct}."],
    )


_CASTS = {
    "warm": "warm orange light",
    "cool": "cool bluish light",
    "neutral": "ordinary white daylight",
}


def _ask_cast(scene: Scene, rng: random.Random) -> Question | None:
    cast = scene.facts.scene.light_cast
    if cast is None or scene.program.weather.kind == "fog":
        return None
    return mc(
        "What kind of light fills this scene?",
        _CASTS[str(cast)],
        [*_CASTS.values(), "green light"],
        rng,
        evidence=[f"The scene is filled with {_CASTS[str(cast)]}."],
    )


_IMPRESSION = {
    "bright": "bright and colourful",
    "dark": "dark and shadowy",
    "pale": "pale and washed out by fog",
    "mono": "only black and white",
}


def _build_impression(b: SceneBuilder) -> None:
    state = b.rng.choice(("bright", "dark", "pale"))
    outdoor(
        b,
        {"bright": "day", "dark": "night", "pale": "day"}[state],
        "fog" if state == "pale" else "clear",
    )
    if state == "pale":
        b.weather = b.weather.model_copy(update={"intensity": 0.9})


def _ask_impression(scene: Scene, rng: random.Random) -> Question | None:
    light, weather = scene.program.lighting.kind, scene.program.weather
    if light == "night" and weather.kind == "clear":
        value = "dark"
    elif light == "day" and weather.kind == "fog" and weather.intensity >= 0.8:
        value = "pale"
    elif light == "day" and weather.kind == "clear":
        value = "bright"
    else:
        return None
    return mc(
        "Which phrase best describes the overall colours of this picture?",
        _IMPRESSION[value],
        list(_IMPRESSION.values()),
        rng,
        evidence=[f"Overall the picture looks {_IMPRESSION[value]}."],
    )


def _seasons() -> BuildFn:
    return _build_season


def _outdoor_any(b: SceneBuilder) -> None:
    outdoor(b, b.rng.choice(("day", "dusk", "night")))


def _build_feel(b: SceneBuilder) -> None:
    # Half hot (a sunny summer day), half cold (winter or falling snow): spring and autumn
    # scenes feel neither, and redrawing them used to leave the key "cold" 11 times in 12.
    if b.rng.random() < 0.5:
        _build_season_of(b, "summer")
    elif b.rng.random() < 0.5:
        _build_season_of(b, "winter")
    else:
        outdoor(b, "day", "snow")


RECIPES: dict[str, Recipe] = {
    "overall mood": Recipe(_build_mood, _ask_mood),
    "mood from weather": Recipe(_build_weather_mood, _ask_weather_mood, kind="tf"),
    "mood from lighting": Recipe(_build_light_mood, _ask_light_mood),
    "lively colours": Recipe(_build_palette, _ask_lively, kind="tf"),
    "fitting title": Recipe(_build_mood, _ask_title),
    "calm or busy": Recipe(_build_busy, _ask_busy, kind="tf"),
    "season": Recipe(_seasons(), _ask_season),
    "seasonal cue": Recipe(_build_season, _ask_cue),
    "hot or cold": Recipe(_build_feel, _ask_cold, kind="tf"),
    "warm or cool colours": Recipe(_build_temperature, _ask_temperature),
    "colour of the light": Recipe(_outdoor_any, _ask_cast),
    "overall colour impression": Recipe(_build_impression, _ask_impression),
}
