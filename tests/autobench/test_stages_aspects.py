"""Stage 1: hierarchical aspects, duplicate control, counts and failures."""

import json

from fakes import ScriptedModel

from lvlmbench.autobench.aspects import normalise_name, write_aspects
from lvlmbench.models import ModelClient
from lvlmbench.types import ModelOutput


def aspects(*names: str) -> ModelOutput:
    body = {"aspects": [{"name": n, "description": f"Tests {n.lower()}."} for n in names]}
    return ModelOutput(text=json.dumps(body))


def last_user_text(call: list) -> str:
    return call[-1].text()


async def test_happy_path_builds_the_tree_and_tells_later_branches_what_is_taken():
    model = ScriptedModel(
        [
            aspects("Relative position", "Depth perception"),
            aspects("Left and right", "Above and below", "Inside and outside"),
            aspects("Occlusion order", "Background versus foreground", "Size cues"),
        ]
    )
    tree = await write_aspects(ModelClient(model, None), "spatial understanding", n=2, m=3)

    assert [g.name for g in tree.general] == ["Relative position", "Depth perception"]
    assert [f.name for f in tree.general[1].fine] == [
        "Occlusion order",
        "Background versus foreground",
        "Size cues",
    ]
    assert len(tree.fine_aspects()) == 6
    assert tree.fine_aspects()[0][0].name == "Relative position"
    assert tree.problems == []
    assert tree.calls == 3
    first_fine_prompt = last_user_text(model.calls[1])
    assert "spatial understanding" in first_fine_prompt and "Relative position" in first_fine_prompt
    # The second branch's prompt names the first branch and its fine aspects, to avoid them.
    second = last_user_text(model.calls[2])
    assert "Depth perception" in second
    assert "Relative position" in second and "Inside and outside" in second
    assert model.calls[0][0].role == "system"


def test_normalised_names_strip_case_punctuation_stop_words_and_plurals():
    assert normalise_name("Counting of the Objects!") == ("counting", "object")
    assert normalise_name("Object-counting") == ("object", "counting")
    assert normalise_name("Properties") == ("property",)
    assert normalise_name("The") == ("the",)


async def test_duplicate_is_reasked_naming_it_and_replaced():
    model = ScriptedModel(
        [
            aspects("Object counting", "Spatial relations", "Counting of objects"),
            aspects("Colour recognition"),
        ]
    )
    tree = await write_aspects(ModelClient(model, None), "basic understanding", n=3, m=1)

    reask = last_user_text(model.calls[1])
    assert '"Counting of objects" duplicates the existing aspect "Object counting"' in reask
    assert "exactly 1 new aspect" in reask
    assert [g.name for g in tree.general] == [
        "Object counting",
        "Spatial relations",
        "Colour recognition",
    ]
    assert not any("general" in p for p in tree.problems)


async def test_jaccard_threshold_point_eight_is_a_duplicate_and_below_is_not():
    # {relative, position, two, small, object} vs {relative, position, small, object}: 4/5.
    # {relative, position, small, object} vs {relative, position, object}: 3/4 < 0.8.
    model = ScriptedModel(
        [
            aspects(
                "Relative position of small objects",
                "Relative positions of two small objects",
                "Relative position of objects",
            ),
            aspects("Colour naming"),
        ]
    )
    tree = await write_aspects(ModelClient(model, None), "spatial", n=3, m=1, max_reasks=1)

    names = [g.name for g in tree.general]
    assert names == [
        "Relative position of small objects",
        "Relative position of objects",
        "Colour naming",
    ]
    assert "Relative positions of two small objects" in last_user_text(model.calls[1])


async def test_persistent_duplicate_is_recorded_and_never_padded():
    model = ScriptedModel(
        [
            aspects("Scene mood", "Lighting"),
            aspects("Scene moods"),  # re-ask 1 still duplicates
            aspects("The lighting"),  # re-ask 2 still duplicates
            *(aspects(f"Fine {i}") for i in range(3)),  # fine aspects, m=1 each
        ]
    )
    tree = await write_aspects(ModelClient(model, None), "atmosphere", n=3, m=1, max_reasks=2)

    assert [g.name for g in tree.general] == ["Scene mood", "Lighting"]
    problem = tree.problems[0]
    assert "general aspects: 2 of 3" in problem
    assert '"The lighting" duplicates the existing aspect "Lighting"' in problem
    # the first re-ask named the duplicate of the original reply
    assert '"Scene moods" duplicates' in last_user_text(model.calls[2])
    assert all(len(g.fine) == 1 for g in tree.general)


async def test_fine_aspect_duplicating_another_branch_or_its_general_is_reasked():
    model = ScriptedModel(
        [
            aspects("Relative position", "Depth"),
            aspects("Left of", "Right of", "Above"),
            aspects("Depth", "Left of", "Occlusion"),  # both duplicate
            aspects("Shadows", "Distance cues"),
        ]
    )
    tree = await write_aspects(ModelClient(model, None), "spatial", n=2, m=3)

    reask = last_user_text(model.calls[3])
    assert '"Depth" duplicates the existing aspect "Depth"' in reask
    assert '"Left of" duplicates the existing aspect "Left of"' in reask
    assert "exactly 2 new aspect" in reask
    assert [f.name for f in tree.general[1].fine] == ["Occlusion", "Shadows", "Distance cues"]
    assert tree.problems == []


async def test_too_many_are_truncated_and_noted():
    model = ScriptedModel([aspects("A one", "B two", "C three"), aspects("x"), aspects("y")])
    tree = await write_aspects(ModelClient(model, None), "cap", n=2, m=1)

    assert [g.name for g in tree.general] == ["A one", "B two"]
    assert tree.problems == [
        "general aspects: the examiner gave 3 where 2 were asked; kept the first 2 unique ones"
        " and dropped 1"
    ]


async def test_too_few_are_reasked_for_the_missing_count():
    model = ScriptedModel(
        [aspects("Alpha"), aspects("Beta", "Gamma"), aspects("a1"), aspects("b1")]
    )
    tree = await write_aspects(ModelClient(model, None), "cap", n=3, m=1)

    reask = last_user_text(model.calls[1])
    assert "1 unique aspects so far; 3 are needed" in reask
    assert "exactly 2 new aspect" in reask
    assert "- Alpha" in reask
    assert [g.name for g in tree.general] == ["Alpha", "Beta", "Gamma"]
    # the third general aspect got no fine reply: the default text is not JSON
    assert tree.general[2].fine == []
    assert any('fine aspects of "Gamma"' in p and "unparseable" in p for p in tree.problems)


async def test_unparseable_general_reply_is_recorded_with_no_guessed_aspects():
    model = ScriptedModel(default_text="Here are some aspects: colour, size.")
    tree = await write_aspects(ModelClient(model, None), "cap", n=2, m=2, max_reasks=1)

    assert tree.general == []
    assert len(model.calls) == 2  # the first ask and one format re-ask
    assert tree.calls == 2
    assert tree.problems and tree.problems[0].startswith("general aspects: no usable reply")
    assert "unparseable" in tree.problems[0]


async def test_general_aspect_whose_fine_reply_fails_keeps_zero_fine_aspects():
    model = ScriptedModel(
        [
            aspects("Alpha", "Beta"),
            ModelOutput(text="no json"),
            ModelOutput(text="still no json"),
            aspects("b1"),
        ]
    )
    tree = await write_aspects(ModelClient(model, None), "cap", n=2, m=1, max_reasks=1)

    assert [len(g.fine) for g in tree.general] == [0, 1]
    assert len(tree.problems) == 2
    assert tree.problems[0].startswith('fine aspects of "Alpha": no usable reply')
    assert tree.problems[1] == 'fine aspects of "Alpha": 0 of 1 after re-asks'
