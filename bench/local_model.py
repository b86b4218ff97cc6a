"""The model and items bench/bench_local.py measures, built here with random weights.

A LLaVA of realistic size (a CLIP-L/14-336 vision tower, 576 image tokens; a Qwen2-1.5B-shaped
decoder: 28 layers, hidden 1536, 2 KV heads, a 151,936-word synthetic vocabulary, untied head;
about 2.09 B parameters; sdpa attention), or a tiny one of the same layout (``TINY``: the prompt
keeps its 576 image tokens), saved so both sides of the bench load the same checkpoint.

The output-layer rows of the special tokens (padding, begin and end of turn, unknown, image) are
zeroed: their logit is exactly 0, while the largest of the 151,931 other random logits is
positive for any practical purpose, so greedy decoding never draws them and every answer is
exactly ``max_tokens`` long with ``</s>`` a real end-of-sequence id. The bench checks it on every
answer of every part instead of trusting it. The uneven checkpoint (``uneven_copy``) adds every
``eos_every``-th synthetic word as an end-of-sequence id, so rows stop at different points.
"""

from __future__ import annotations

import io
import json
import random
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import transformers
from PIL import Image, ImageDraw

from lvlmbench.ids import content_id
from lvlmbench.store import Store, put_benchmark, put_items
from lvlmbench.types import BenchmarkItem, ImagePart, Message, TextPart

BENCHMARK = "bench-local"
VOCAB = 151_936
SPECIAL = ["<pad>", "<s>", "</s>", "<unk>", "<image>"]
END = SPECIAL.index("</s>")
_TEMPLATE = (
    "{% for message in messages %}<s>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
    "{% for part in message['content'] %}"
    "{% if part['type'] == 'image' %}<image>\n{% else %}{{ part['text'] }}{% endif %}"
    "{% endfor %}{% endif %}</s>\n{% endfor %}"
    "{% if add_generation_prompt %}<s>assistant\n{% endif %}"
)


@dataclass(frozen=True)
class Shape:
    """Sizes of the model built (the image side keeps 336 px / 14 px patches = 576 tokens)."""

    vision_hidden: int
    vision_layers: int
    vision_heads: int
    vision_mlp: int
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    mlp: int


REAL = Shape(1024, 24, 16, 4096, 1536, 28, 12, 2, 8960)
TINY = Shape(64, 2, 4, 128, 64, 2, 4, 2, 128)


def _tokenizer() -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    # Prompt words all read as <unk>: what matters here is how many tokens a prompt has.
    vocab = {word: index for index, word in enumerate(SPECIAL)}
    vocab.update({f"w{i}": i for i in range(len(SPECIAL), VOCAB)})
    raw = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    raw.pre_tokenizer = pre_tokenizers.Whitespace()
    raw.decoder = decoders.WordPiece()  # joins words with spaces when decoding
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=raw,
        pad_token="<pad>",
        bos_token="<s>",
        eos_token="</s>",
        unk_token="<unk>",
        extra_special_tokens={"image_token": "<image>"},
    )


def _config(shape: Shape, tokenizer: Any) -> Any:
    vision = transformers.CLIPVisionConfig(
        hidden_size=shape.vision_hidden,
        intermediate_size=shape.vision_mlp,
        num_hidden_layers=shape.vision_layers,
        num_attention_heads=shape.vision_heads,
        image_size=336,
        patch_size=14,
        projection_dim=768,
    )
    text = transformers.Qwen2Config(
        vocab_size=VOCAB,
        hidden_size=shape.hidden,
        intermediate_size=shape.mlp,
        num_hidden_layers=shape.layers,
        num_attention_heads=shape.heads,
        num_key_value_heads=shape.kv_heads,
        max_position_embeddings=4096,
        tie_word_embeddings=False,
        pad_token_id=tokenizer.pad_token_id,
    )
    return transformers.LlavaConfig(
        vision_config=vision,
        text_config=text,
        image_token_id=tokenizer.convert_tokens_to_ids("<image>"),
        vision_feature_select_strategy="default",
        vision_feature_layer=-2,
    )


def build_model(path: Path, shape: Shape, device: str) -> int:
    """Save a random LLaVA of ``shape`` (bfloat16 on CUDA, float32 elsewhere) at ``path``, its
    special tokens never drawn and ``</s>`` its end of sequence; returns its parameter count."""
    tokenizer = _tokenizer()
    dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
    torch.manual_seed(0)
    with torch.device(device):
        model = transformers.LlavaForConditionalGeneration(_config(shape, tokenizer))
        model = model.to(dtype).eval()
    with torch.no_grad():
        model.lm_head.weight[: len(SPECIAL)] = 0
    model.generation_config.eos_token_id = [END]
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    processor = transformers.LlavaProcessor(
        image_processor=transformers.CLIPImageProcessor(
            size={"shortest_edge": 336}, crop_size={"height": 336, "width": 336}
        ),
        tokenizer=tokenizer,
        patch_size=14,
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,
        chat_template=_TEMPLATE,
    )
    model.save_pretrained(path)
    processor.save_pretrained(path)
    count = sum(p.numel() for p in model.parameters())
    del model
    if device.startswith("cuda"):
        torch.cuda.empty_cache()
    return count


def uneven_copy(even: Path, uneven: Path, eos_every: int) -> None:
    """The same checkpoint where every ``eos_every``-th synthetic word ends a row too."""
    shutil.copytree(even, uneven)
    config_path = uneven / "generation_config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    config["eos_token_id"] = [END, *range(len(SPECIAL) + 7, VOCAB, eos_every)]
    config_path.write_text(json.dumps(config), encoding="utf-8")


def _picture(index: int) -> bytes:
    """A 640×480 JPEG of coloured shapes, different for every item."""
    rng = random.Random(index)
    image = Image.new("RGB", (640, 480), tuple(rng.randrange(256) for _ in range(3)))
    draw = ImageDraw.Draw(image)
    for _ in range(6):
        x, y = rng.randrange(560), rng.randrange(400)
        colour = tuple(rng.randrange(256) for _ in range(3))
        draw.ellipse((x, y, x + rng.randrange(20, 80), y + rng.randrange(20, 80)), fill=colour)
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=90)
    return buffer.getvalue()


def make_store(path: Path, n: int) -> Store:
    """A store with one benchmark of ``n`` four-option items, each with its own image."""
    store = Store.open(str(path))
    put_benchmark(store, BENCHMARK, "bench", {"items": n})
    items = [
        BenchmarkItem(
            id=content_id(BENCHMARK, i),
            benchmark=BENCHMARK,
            kind="mc",
            question=f"Which shape in the picture is red? ({i})",
            options={"A": "circle", "B": "square", "C": "star", "D": "heart"},
            answer="ABCD"[i % 4],
            images=[store.put_image(_picture(i))],
        )
        for i in range(n)
    ]
    put_items(store, items)
    return store


def conversation(messages: list[Message]) -> list[dict[str, Any]]:
    """``messages`` as ``apply_chat_template`` takes them, images decoded to PIL."""
    turns = []
    for message in messages:
        content: list[dict[str, Any]] = []
        for part in message.content:
            if isinstance(part, TextPart):
                content.append({"type": "text", "text": part.text})
            elif isinstance(part, ImagePart):
                with Image.open(io.BytesIO(part.read_bytes())) as picture:
                    content.append({"type": "image", "image": picture.convert("RGB")})
        turns.append({"role": message.role, "content": content})
    return turns
