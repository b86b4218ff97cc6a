"""World knowledge of the procedural examiner and the scene-level facts it implies.

The tables (what a chair is for, what a STOP sign means, which things belong in a street) are
common knowledge chosen so that exactly one option fits; the rules that turn lighting, weather
and season into a mood or a season word only fire on clear-cut combinations and say None
otherwise, so no question is ever asked about an ambiguous atmosphere.
"""

from __future__ import annotations

from lvlmbench.scenes._fact_records import ObjectFacts, SceneFactName, SceneFacts, SceneLevelFacts
from lvlmbench.scenes.palette import COOL_COLORS, MUTED_COLORS, SHAPES, VIVID_COLORS, WARM_COLORS
from lvlmbench.scenes.schema import SceneProgram

__all__ = [
    "ACTIVITIES",
    "FITS",
    "FUNCTIONS",
    "SCENE_CORE",
    "SCENE_WORDS",
    "SIGNS",
    "SceneFactName",
    "SceneLevelFacts",
    "activity_of",
    "held_by",
    "is_indoor",
    "scene_level_facts",
    "scene_type",
]

FUNCTIONS: dict[str, str] = {
    "chair": "sitting on",
    "table": "putting things on, such as plates and cups",
    "lamp": "giving light",
    "cup": "drinking from",
    "book": "reading",
    "car": "travelling by road",
    "house": "living in",
    "ball": "playing games",
}
"""What each thing is for (one clear use each)."""

SIGNS: dict[str, tuple[str, str]] = {
    "STOP": ("drivers must stop", "stop the car before going on"),
    "NO ENTRY": ("vehicles must not go in", "not drive in"),
    "SLOW": ("traffic should slow down", "drive more slowly"),
    "PARKING": ("cars may be parked here", "park the car here"),
    "EXIT": ("this is the way out", "follow it to leave the building"),
    "DANGER": ("there is something dangerous ahead", "be careful and keep away"),
    "OPEN": ("the shop is open", "go in, because the shop is open"),
    "CLOSED": ("the shop is closed", "come back later, because the shop is closed"),
}
"""Sign text -> (what it means, what a person should do)."""

SCENE_CORE: dict[str, tuple[str, ...]] = {
    "street": ("house", "car", "sign"),
    "park": ("tree", "flower", "ball"),
    "room": ("chair", "table", "lamp", "cup", "book"),
    "sky": ("sun", "moon", "cloud"),
}
"""Things that make a place recognisable."""
SCENE_WORDS = {
    "street": "a street",
    "park": "a park",
    "room": "a room inside a home",
    "sky": "the open sky",
}
FITS: dict[str, tuple[str, ...]] = {
    "house": ("street",),
    "car": ("street",),
    "sign": ("street",),
    "tree": ("street", "park"),
    "flower": ("park",),
    "ball": ("park", "room"),
    "person": ("street", "park", "room"),
    "cup": ("room",),
    "book": ("room",),
    "chair": ("room",),
    "table": ("room",),
    "lamp": ("room",),
    "sun": ("street", "park", "sky"),
    "moon": ("street", "park", "sky"),
    "cloud": ("street", "park", "sky"),
}
"""Where each thing belongs; a thing outside these places looks out of place."""

ACTIVITIES = {"book": "reading a book", "cup": "having a drink", "ball": "playing with a ball"}


def is_indoor(program: SceneProgram) -> bool:
    """A wall-and-floor background: a pale wall (not a blue sky) above a brown floor."""
    bg = program.background
    return bg.kind == "sky_ground" and bg.color != "blue" and bg.color2 == "brown"


def scene_type(categories: list[str], program: SceneProgram | None = None) -> str | None:
    """The one kind of place every object fits, with at least two of its core things."""
    if not categories or any(c in SHAPES or c == "arrow" for c in categories):
        return None
    found = [
        place
        for place, core in SCENE_CORE.items()
        if all(place in FITS.get(c, ()) for c in categories)
        and sum(c in core for c in categories) >= 2
    ]
    if len(found) != 1:
        return None
    if program is not None and (found[0] == "room") != is_indoor(program):
        return None  # a room under a blue sky, or a street with a wall behind it
    return found[0]


def held_by(facts: SceneFacts, person: ObjectFacts) -> list[ObjectFacts]:
    """Small things drawn in front of the person's chest: what the person is holding."""
    x0, y0, x1, y1 = person.box
    out = []
    for o in facts.objects:
        if o.index == person.index or o.category not in ("book", "cup", "flower", "ball"):
            continue
        cx, cy = o.center
        chest = y0 + 0.25 * (y1 - y0) <= cy <= y0 + 0.62 * (y1 - y0)
        if x0 <= cx <= x1 and chest and o.rank > person.rank and o.area < person.area:
            out.append(o)
    return out


def activity_of(facts: SceneFacts) -> str | None:
    """What the only person is doing, when exactly one cue says so (a book or cup held at the
    chest, a ball at the feet)."""
    people = facts.select("person")
    if len(people) != 1:
        return None
    person = people[0]
    cues = [o.category for o in held_by(facts, person) if o.category in ("book", "cup")]
    for ball in facts.select("ball"):
        feet = abs(ball.box[3] - person.box[3]) <= 0.04
        gap = max(ball.box[0] - person.box[2], person.box[0] - ball.box[2])
        if feet and 0.0 <= gap <= 0.1 and ball.center[1] > person.center[1]:
            cues.append("ball")
    return ACTIVITIES[cues[0]] if len(cues) == 1 else None


def _mood(program: SceneProgram, facts: SceneFacts) -> str | None:
    light, weather = program.lighting.kind, program.weather.kind
    vivid = sum(o.color in VIVID_COLORS for o in facts.objects) * 2 >= len(facts.objects)
    if light == "spotlight":
        return "dramatic"
    if weather == "rain" or (weather == "fog" and light != "night"):
        return "gloomy"
    if weather == "fog":
        return "mysterious"
    if light in ("dusk", "night"):
        return "peaceful"
    has_sun = bool(facts.select("sun"))
    if light == "day" and weather == "clear" and (has_sun or vivid):
        return "cheerful"
    return None


def _temperature(program: SceneProgram, facts: SceneFacts) -> str | None:
    colors = [o.color for o in facts.objects]
    bg = program.background
    colors += [c for c in (bg.color, bg.color2) if c is not None and bg.kind != "sky_ground"]
    colored = [c for c in colors if c not in MUTED_COLORS]
    if len(colored) < 3:
        return None
    warm = sum(c in WARM_COLORS for c in colored) / len(colored)
    cool = sum(c in COOL_COLORS for c in colored) / len(colored)
    return "warm" if warm >= 0.8 else "cool" if cool >= 0.8 else "mixed"


def _vividness(facts: SceneFacts) -> str | None:
    colors = [o.color for o in facts.objects]
    if len(colors) < 3:
        return None
    if all(c in VIVID_COLORS for c in colors):
        return "vivid"
    return "muted" if all(c in MUTED_COLORS for c in colors) else None


def _ground(program: SceneProgram) -> str | None:
    bg = program.background
    if bg.kind != "sky_ground" or program.season == "winter":
        return None
    words = {"green": "grass", "yellow": "sand", "white": "snow", "blue": "water", "gray": "a road"}
    return words.get(bg.color2 or "green")


def _light_source(program: SceneProgram, facts: SceneFacts) -> str | None:
    light = program.lighting.kind
    has = {c: bool(facts.select(c)) for c in ("sun", "moon", "lamp")}
    if light == "spotlight":
        return "a spotlight"
    if light in ("day", "dusk") and has["sun"] and not has["lamp"]:
        return "the sun"
    if light == "night" and has["moon"] != has["lamp"]:
        return "the moon" if has["moon"] else "a lamp"
    return None


def _sun_height(program: SceneProgram, facts: SceneFacts) -> str | None:
    suns = facts.select("sun")
    if len(suns) != 1 or program.background.kind != "sky_ground":
        return None
    bottom, horizon = suns[0].box[3], program.background.horizon
    return "low" if bottom >= horizon - 0.08 else "high" if bottom <= horizon - 0.25 else None


def _clouds(facts: SceneFacts) -> str | None:
    n = len(facts.select("cloud"))
    return "none" if n == 0 else "few" if n <= 2 else "many" if n >= 4 else None


def _feels(program: SceneProgram, facts: SceneFacts) -> str | None:
    if program.season == "winter" or program.weather.kind == "snow":
        return "cold"
    sunny = program.lighting.kind == "day" and program.weather.kind == "clear"
    return "hot" if program.season == "summer" and sunny and facts.select("sun") else None


def _busyness(program: SceneProgram, facts: SceneFacts) -> str | None:
    n = len(facts.objects)
    clutter = program.background.clutter or (0.6 if program.background.kind == "clutter" else 0)
    if n <= 3 and clutter == 0:
        return "calm"
    return "busy" if n >= 9 or (n >= 7 and clutter >= 0.5) else None


def scene_level_facts(program: SceneProgram, facts: SceneFacts) -> SceneLevelFacts:
    """Time of day, weather, season, mood and the other whole-scene facts."""
    light, weather = program.lighting.kind, program.weather.kind
    bg = program.background
    return SceneLevelFacts(
        time_of_day={"day": "daytime", "dusk": "sunset", "night": "night-time"}.get(light),
        lighting=light,
        weather=weather,
        season=program.season,
        brightness={"day": "bright", "dusk": "dim", "night": "dark"}.get(light, "spotlit"),
        light_source=_light_source(program, facts),
        light_cast={"day": "neutral", "dusk": "warm", "night": "cool"}.get(light),
        mood=_mood(program, facts),
        temperature=_temperature(program, facts),
        vividness=_vividness(facts),
        scene_type=scene_type([o.category for o in facts.objects], program),
        ground=_ground(program),
        feels=_feels(program, facts),
        cloudiness=_clouds(facts),
        sun_height=_sun_height(program, facts),
        activity=activity_of(facts),
        busyness=_busyness(program, facts),
        background=bg.color if bg.kind in ("plain", "clutter") else None,
    )
