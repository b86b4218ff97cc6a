"""Stages 3–4: rounds of descriptions, the semantic graph's bans, sampling settings."""

import json
from dataclasses import dataclass, field

import pytest
from fakes import ScriptedModel

from lvlmbench.autobench.descriptions import (
    DIFFICULTY_GUIDE,
    description_config,
    write_descriptions,
)
from lvlmbench.autobench.diversity import SemanticGraph
from lvlmbench.models import ModelClient
from lvlmbench.types import GenerationConfig, Message, ModelOutput, Status

BANNED_INTRO = "Do NOT use any of the following words"


def round_reply(topic: str, *keywords: str) -> ModelOutput:
    text = f"A scene about {topic} with {', '.join(keywords)}, all clearly visible."
    body = {"topic": topic, "keywords": list(keywords), "description": text}
    return ModelOutput(text=json.dumps(body))


def banned_line(messages: list[Message]) -> str | None:
    """The comma-separated banned words the prompt lists, or None when it lists none."""
    lines = messages[-1].text().splitlines()
    for i, line in enumerate(lines):
        if BANNED_INTRO in line:
            return lines[i + 1]
    return None


@dataclass
class ConfigRecordingModel(ScriptedModel):
    configs: list[GenerationConfig] = field(default_factory=list)

    async def generate(self, messages: list[Message], config: GenerationConfig) -> ModelOutput:
        self.configs.append(config)
        return await super().generate(messages, config)


async def write(model: ScriptedModel, count: int, graph: SemanticGraph | None, **kw):
    return await write_descriptions(
        ModelClient(model, None),
        "spatial understanding",
        "Relative position",
        "Left and right",
        "Objects must be clearly on one side of another.",
        "medium",
        count,
        graph,
        **kw,
    )


async def test_rounds_ban_top_degree_nodes_and_bans_accumulate():
    model = ScriptedModel(
        [
            round_reply("city", "street", "car", "building"),
            # "car" comes back: with neighbours from both rounds it has the highest degree.
            round_reply("forest", "tree", "car", "path"),
            round_reply("beach", "sand", "wave", "shell"),
            round_reply("kitchen", "cup", "plate", "table"),
        ]
    )
    graph = SemanticGraph(bans="accumulate")
    results = await write(model, 4, graph)

    assert [r.status for r in results] == [Status.OK] * 4
    assert banned_line(model.calls[0]) is None
    # f(1) = 1: round 1 is a clique (equal degrees), so the topic goes first.
    assert banned_line(model.calls[1]) == "city"
    # f(2) = 2 more: "car" (degree 6), then the tied topic "forest"; 1 + 2 listed.
    assert banned_line(model.calls[2]) == "city, car, forest"
    # f(3) = 3 more: 1 + 2 + 3 = 6 listed in round 4.
    assert banned_line(model.calls[3]) == "city, car, forest, beach, building, path"
    assert [r.value.banned_words_shown for r in results if r.value][2] == ["city", "car", "forest"]
    assert graph.rounds == 4
    assert [r.value.round for r in results if r.value] == [1, 2, 3, 4]


async def test_per_round_bans_list_f_of_i_words_and_keep_the_hub():
    model = ScriptedModel(
        [
            round_reply("city", "street", "car", "building"),
            round_reply("forest", "tree", "car", "path"),
            round_reply("beach", "sand", "wave", "shell"),
            round_reply("kitchen", "cup", "plate", "table"),
        ]
    )
    results = await write(model, 4, SemanticGraph())
    assert banned_line(model.calls[1]) == "city"
    # f(2) = 2 of the whole graph: "car" (degree 6), then the tied topics city < forest.
    assert banned_line(model.calls[2]) == "car, city"
    # f(3) = 3: "car" again, then the tied topics beach < city < forest; three words, not six.
    assert banned_line(model.calls[3]) == "car, beach, city"
    assert [r.value.banned_words_shown for r in results if r.value][3] == ["car", "beach", "city"]


async def test_banned_topic_is_accepted_but_flagged():
    model = ScriptedModel(
        [round_reply("city", "street", "car", "bus"), round_reply("City", "park", "bench", "dog")]
    )
    results = await write(model, 2, SemanticGraph())

    second = results[1].value
    assert second is not None and results[1].ok
    assert second.topic == "City"
    assert second.violations == ["topic 'City' uses banned word 'city'"]
    assert results[0].value is not None and results[0].value.violations == []


async def test_without_graph_nothing_is_banned_and_disabled_graph_only_records():
    replies = [round_reply("city", "street", "car", "bus") for _ in range(3)]
    plain = ScriptedModel(list(replies))
    await write(plain, 3, None)
    assert all(banned_line(call) is None for call in plain.calls)

    recorder = ScriptedModel(list(replies))
    graph = SemanticGraph(enabled=False)
    await write(recorder, 3, graph)
    assert all(banned_line(call) is None for call in recorder.calls)
    assert graph.banned == [] and graph.rounds == 3
    assert graph.graph.number_of_nodes() == 4


async def test_custom_schedule_is_used():
    model = ScriptedModel(
        [
            round_reply("city", "street", "car", "bus"),
            round_reply("farm", "cow", "barn", "hay"),
            round_reply("moon", "crater", "rock", "dust"),
        ]
    )
    graph = SemanticGraph(lambda i: 2, bans="accumulate")
    await write(model, 3, graph)
    assert banned_line(model.calls[1]) == "city, bus"
    assert len(banned_line(model.calls[2]).split(", ")) == 4


async def test_unparseable_round_is_a_failed_result_and_the_graph_learns_nothing():
    model = ScriptedModel(
        [
            ModelOutput(text="a lovely scene"),
            ModelOutput(text="still prose"),
            round_reply("desert", "cactus", "sun", "rock"),
        ]
    )
    graph = SemanticGraph()
    results = await write(model, 2, graph, max_reasks=1)

    assert results[0].status is Status.UNPARSEABLE and results[0].value is None
    assert results[0].calls == 2
    assert results[1].ok and results[1].value is not None and results[1].value.round == 2
    assert graph.rounds == 1


async def test_reply_constraints_are_enforced_by_reask():
    too_few = {"topic": "city", "keywords": ["car", "bus"], "description": "A city street scene."}
    repeated = {"topic": "city", "keywords": ["car", "Car", "bus"], "description": "A city scene."}
    model = ScriptedModel(
        [ModelOutput(text=json.dumps(too_few)), ModelOutput(text=json.dumps(repeated))]
    )
    results = await write(model, 1, None, max_reasks=1)
    assert results[0].status is Status.UNPARSEABLE
    assert "keywords" in (results[0].reason or "")


async def test_each_round_samples_at_its_own_epoch_and_prompt_carries_the_level_guide():
    model = ConfigRecordingModel([round_reply("city", "a", "b", "c") for _ in range(3)])
    await write(model, 3, SemanticGraph(), seed=2)

    assert [c.epoch for c in model.configs] == [1, 2, 3]
    assert {c.temperature for c in model.configs} == {0.8}
    assert len({c.seed for c in model.configs}) == 3
    assert DIFFICULTY_GUIDE["medium"] in model.calls[0][-1].text()
    assert "Left and right" in model.calls[0][-1].text()


def test_provider_seeds_never_collide_across_run_seeds():
    seeds = {description_config(r, s).seed for r in range(1, 50) for s in range(5)}
    assert len(seeds) == 49 * 5


async def test_unknown_level_is_a_usage_error():
    with pytest.raises(ValueError, match="unknown level"):
        await write_descriptions(
            ModelClient(ScriptedModel(), None), "c", "g", "f", "guide", "extreme", 1, None
        )
