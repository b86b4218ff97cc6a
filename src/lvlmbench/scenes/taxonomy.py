# ruff: noqa: E501 - the guidelines are prose; one line each keeps the table readable
"""The built-in aspect taxonomy: capability -> general aspect -> fine aspect -> guideline.

This is what AutoBench-V's first two stages would produce for the five built-in capabilities
with n=4 general and m=6 fine-grained aspects each; every fine aspect has a one-sentence
guideline for image descriptions and a recipe (scene sampler + question writer) in
:mod:`lvlmbench.scenes.recipes`. Fine aspect names are unique across the whole taxonomy.
"""

from __future__ import annotations

import re

__all__ = ["CAPABILITIES", "TAXONOMY", "fine_aspects", "match_capability", "nearest_capability"]

TAXONOMY: dict[str, dict[str, dict[str, str]]] = {
    "basic understanding": {
        "object recognition": {
            "everyday object identification": "Show common things drawn clearly enough to be named at a glance.",
            "natural object identification": "Include natural things such as trees, flowers, the sun, the moon or clouds, each clearly drawn.",
            "household item identification": "Set the scene indoors with household items such as chairs, tables, lamps, cups and books.",
            "person detection": "Either include a clearly drawn person or leave people out entirely.",
            "absent object detection": "Show several distinct objects so that what is missing can be told from what is present.",
            "central object identification": "Put one object clearly in the middle of the picture with the others off to the sides.",
        },
        "colour perception": {
            "object colour naming": "Give each object one clear main colour from a small palette.",
            "shape colour naming": "Draw flat geometric shapes, each filled with one clear colour.",
            "finding an object by colour": "Make exactly one object carry the colour in question.",
            "colour presence": "Use a few distinct colours so that a missing colour is clearly absent.",
            "most common colour": "Repeat one colour on more objects than any other colour.",
            "background colour": "Use a plain single-colour background behind the objects.",
        },
        "counting": {
            "counting shapes of one kind": "Repeat one kind of shape a countable number of times among other shapes.",
            "counting objects of one colour": "Repeat one colour across several shapes so they can be counted by colour.",
            "counting everyday objects": "Repeat one kind of everyday thing a countable number of times.",
            "counting all shapes": "Scatter a countable number of shapes with no look-alike decoration.",
            "counting by colour and shape": "Mix colours and shapes so that a colour-and-shape combination must be counted.",
            "counting partially hidden objects": "Let some of the counted objects be partly covered while staying recognisable.",
        },
        "shape, pattern and text": {
            "shape naming": "Draw distinct geometric shapes, each in its own colour.",
            "texture recognition": "Give the object in question a clear pattern: stripes, dots, checks or none.",
            "reading words": "Show a sign with one short word in large letters.",
            "reading numbers": "Show a sign with a number in large digits.",
            "counting sides": "Draw polygons upright and large enough that their sides can be counted.",
            "text colour": "Write a few words, each in its own colour, on a plain background.",
        },
    },
    "spatial understanding": {
        "relative position": {
            "left and right": "Place the two objects side by side with a clear gap between them.",
            "above and below": "Place the two objects one above the other with a clear gap between them.",
            "position in the frame": "Place the object clearly inside one quarter of the picture.",
            "leftmost and rightmost": "Spread objects across the width so that one is clearly at an end.",
            "topmost and bottommost": "Spread objects over the height so that one is clearly highest or lowest.",
            "betweenness": "Line up three objects so that one is clearly between the other two.",
        },
        "depth and occlusion": {
            "in front or behind": "Let two objects overlap so that one clearly covers the other.",
            "identifying hidden objects": "Let one object partly hide another while leaving it recognisable.",
            "identifying the occluder": "Make exactly one object cover part of the object in question.",
            "front of a stack": "Pile three or more shapes on top of each other so the front one is clear.",
            "back of a stack": "Pile three or more shapes on top of each other so the back one is clear.",
            "partial visibility": "Either let an object be partly covered or keep it completely uncovered.",
        },
        "distance and containment": {
            "nearest object": "Place one object clearly closer to the reference object than any other.",
            "farthest object": "Place one object clearly farther from the reference object than any other.",
            "object inside another": "Draw a small shape fully inside a much larger one.",
            "container identification": "Draw a small shape inside one larger shape and keep other shapes apart.",
            "overlap detection": "Either let two objects overlap or keep a clear gap between them.",
            "distance comparison": "Make one object clearly closer to the reference than another.",
        },
        "orientation and arrangement": {
            "arrow direction": "Draw an arrow pointing straight left, right, up or down.",
            "facing direction": "Draw a car seen from the side facing left or right.",
            "shape rotation": "Draw a triangle turned to point straight up, down, left or right.",
            "arrangement pattern": "Arrange the shapes in a clear row, column, circle or grid.",
            "left-to-right order": "Line objects up in a horizontal row with clear gaps.",
            "top-to-bottom order": "Stack objects in a vertical column with clear gaps.",
        },
    },
    "semantic understanding": {
        "scene context": {
            "scene type": "Fill the scene with things typical of one place: a street, a park, a room or the sky.",
            "indoor or outdoor": "Make it clear from the objects and background whether the scene is inside or outside.",
            "ground surface": "Give the ground a clear surface such as grass, sand, snow, water or road.",
            "out-of-place object": "Put one object that does not belong among things typical of one place.",
            "main subject": "Make one object much larger and more central than everything else.",
            "activity": "Show one person with a single clear cue of what they are doing.",
        },
        "object function": {
            "function of an object": "Show everyday objects whose use is common knowledge.",
            "light sources": "Include exactly one thing that gives off light, such as a lamp or the sun.",
            "means of transport": "Include a vehicle among things that cannot carry people.",
            "toys and play": "Include one thing that is played with among other household things.",
            "drinking vessels": "Include one thing to drink from among other household things.",
            "seating": "Include one thing to sit on among other household things.",
        },
        "object relationships": {
            "support": "Rest a small object clearly on top of a table or chair.",
            "objects underneath": "Put a small object on the floor clearly under a table or chair.",
            "holding": "Show a person holding a small object in front of their body.",
            "sharing a support": "Put two objects on the same table and others elsewhere.",
            "relationship statements": "Make the support relation between two objects clearly true or clearly false.",
            "kinds of things": "Include two things of the same kind (furniture, plants, sky things) among others.",
        },
        "categories and symbols": {
            "living things": "Include exactly one living thing among objects that are not alive.",
            "natural or man-made": "Include exactly one man-made thing among natural things.",
            "sign meaning": "Show a sign with one common message in large letters.",
            "symbol meaning": "Show a well-known symbol such as a heart or an arrow clearly.",
            "furniture": "Include exactly one piece of furniture among other things.",
            "counting by category": "Include several members of one category (plants, furniture or sky things) to count.",
        },
    },
    "reasoning capacity": {
        "quantitative reasoning": {
            "adding counts": "Show two kinds of shapes in small countable numbers.",
            "difference of counts": "Show two kinds of shapes in clearly different countable numbers.",
            "counting after removal": "Mix colours so that removing one colour leaves a countable rest.",
            "total corners": "Show several copies of one polygon so corners can be added up.",
            "odd or even": "Show a small countable number of one kind of shape.",
            "equal groups": "Show two kinds of shapes in equal or clearly unequal numbers.",
        },
        "comparison": {
            "more or fewer": "Show two kinds of objects in clearly different numbers.",
            "most numerous kind": "Make one kind of shape appear more often than any other.",
            "size comparison": "Draw two objects whose sizes clearly differ.",
            "largest object": "Make one object clearly larger than all the others.",
            "smallest object": "Make one object clearly smaller than all the others.",
            "tallest object": "Make one standing object clearly taller than the rest.",
        },
        "logical and pattern reasoning": {
            "odd one out by shape": "Draw several identical shapes and one of a different shape.",
            "odd one out by colour": "Draw several shapes of one colour and one of a different colour.",
            "next colour in a sequence": "Line up shapes whose colours repeat in a regular cycle, ending in a question mark.",
            "next shape in a sequence": "Line up shapes whose kinds repeat in a regular cycle, ending in a question mark.",
            "unique element": "Use every colour at least twice except one.",
            "universal statements": "Make a statement about all shapes of one kind clearly true or clearly false.",
        },
        "causal and commonsense reasoning": {
            "weather and clothing": "Show weather or light that clearly calls for one kind of gear.",
            "cause of low visibility": "Make the scene hard to see for one clear reason: fog, night, rain or snow.",
            "sign instructions": "Show a traffic sign whose instruction is common knowledge.",
            "lighting needs": "Show a dark room with one object that could be switched on.",
            "physical support": "Rest an object on a table or chair so that removing the support would make it fall.",
            "rolling objects": "Include exactly one round object that would roll among flat-bottomed things.",
        },
    },
    "atmospheric understanding": {
        "time and light": {
            "time of day": "Make the time of day clear from the light and the sky: day, sunset or night.",
            "day or night": "Make it clearly day or clearly night.",
            "brightness": "Light the scene brightly, dimly, darkly or with a single spotlight.",
            "light source": "Make one source of light obvious: the sun, the moon, a lamp or a spotlight.",
            "spotlight focus": "Shine a spotlight on exactly one object in a dark scene.",
            "height of the sun": "Show the sun either high in the sky or low near the horizon.",
        },
        "weather": {
            "weather type": "Make the weather unmistakable: clear, foggy, rainy or snowy.",
            "rain detection": "Either show falling rain or keep the weather clearly dry.",
            "falling precipitation": "Show either rain or snow falling.",
            "fog and visibility": "Either cover the scene in fog or keep it perfectly clear.",
            "cloud cover": "Show a clear sky, one or two clouds, or many clouds.",
            "weather and time together": "Combine one clear weather with one clear time of day.",
        },
        "mood": {
            "overall mood": "Combine light, weather and colour so the scene has one clear mood.",
            "mood from weather": "Let the weather set the mood: sunny and cheerful or grey and gloomy.",
            "mood from lighting": "Let the lighting set the mood: bright day, calm sunset, dark night or stage spotlight.",
            "lively colours": "Colour the objects either all vividly or all in dull, muted tones.",
            "fitting title": "Make the scene match one short title about its light and weather.",
            "calm or busy": "Show either a few objects on a clean background or a crowded, cluttered scene.",
        },
        "season and colour": {
            "season": "Give the scene clear seasonal cues: blossoms, summer sun, autumn leaves or snow.",
            "seasonal cue": "Include one clear seasonal detail on the ground or in the trees.",
            "hot or cold": "Make the scene look clearly hot and sunny or clearly cold and snowy.",
            "warm or cool colours": "Colour the scene mostly in warm colours or mostly in cool colours.",
            "colour of the light": "Tint the whole scene with warm sunset light, cool night light or neutral daylight.",
            "overall colour impression": "Make the whole picture clearly bright and colourful, dark, or pale with fog.",
        },
    },
}

CAPABILITIES: tuple[str, ...] = tuple(TAXONOMY)

_KEYWORDS: dict[str, tuple[str, ...]] = {
    "basic understanding": (
        "object",
        "recognition",
        "recognize",
        "recognise",
        "identify",
        "colour",
        "color",
        "count",
        "counting",
        "shape",
        "text",
        "read",
        "ocr",
        "basic",
        "perception",
        "attribute",
    ),
    "spatial understanding": (
        "spatial",
        "position",
        "location",
        "left",
        "right",
        "above",
        "below",
        "depth",
        "occlusion",
        "distance",
        "orientation",
        "layout",
        "arrangement",
        "geometry",
        "relative",
        "3d",
        "space",
    ),
    "semantic understanding": (
        "semantic",
        "meaning",
        "scene",
        "function",
        "use",
        "purpose",
        "relationship",
        "category",
        "sign",
        "symbol",
        "activity",
        "context",
        "understanding",
        "knowledge",
        "action",
    ),
    "reasoning capacity": (
        "reasoning",
        "reason",
        "logic",
        "logical",
        "math",
        "arithmetic",
        "comparison",
        "compare",
        "pattern",
        "cause",
        "causal",
        "inference",
        "puzzle",
        "quantitative",
        "commonsense",
    ),
    "atmospheric understanding": (
        "atmosphere",
        "atmospheric",
        "mood",
        "emotion",
        "weather",
        "light",
        "lighting",
        "time",
        "season",
        "style",
        "aesthetic",
        "ambience",
        "feeling",
        "tone",
    ),
}


def fine_aspects(capability: str) -> list[tuple[str, str, str]]:
    """(general aspect, fine aspect, guideline) for every fine aspect of a capability."""
    return [
        (general, fine, guideline)
        for general, fines in TAXONOMY[capability].items()
        for fine, guideline in fines.items()
    ]


def nearest_capability(text: str) -> tuple[str, bool]:
    """The built-in capability for free text: exact names first, then keyword overlap (with
    the aspect names as extra keywords); basic understanding when nothing overlaps. The flag
    says whether the text was an exact built-in name."""
    capability, how = match_capability(text)
    return capability, how == "exact"


def match_capability(text: str) -> tuple[str, str]:
    """(built-in capability, how it was found): ``exact``, ``keywords`` (most keyword overlap)
    or ``fallback`` (no overlap at all: basic understanding)."""
    key = " ".join(text.lower().split())
    if key in TAXONOMY:
        return key, "exact"
    words = set(re.findall(r"[a-z0-9]+", key))
    best, best_score = "basic understanding", 0
    for capability in CAPABILITIES:
        vocabulary = set(_KEYWORDS[capability])
        for general, fines in TAXONOMY[capability].items():
            vocabulary |= set(re.findall(r"[a-z]+", general))
            for fine in fines:
                vocabulary |= set(re.findall(r"[a-z]+", fine))
        score = len(words & (vocabulary - _STOP))
        if score > best_score:
            best, best_score = capability, score
    return best, "keywords" if best_score else "fallback"


_STOP = {"of", "the", "and", "or", "a", "in", "by", "to", "one", "from", "after", "understanding"}
