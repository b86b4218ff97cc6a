"""A tiny random Stable Diffusion pipeline for tests: UNet, VAE and text encoder built from
config classes with a few channels each and a word-level tokenizer trained in memory. Saved
with ``save_pretrained``, it loads through ``diffusers/<directory>`` like a real one (in
seconds, on CPU, offline). Needs torch, diffusers and transformers."""

from __future__ import annotations

from pathlib import Path

import diffusers
import torch
import transformers

__all__ = ["build_tiny_stable_diffusion"]


def _tokenizer() -> transformers.PreTrainedTokenizerFast:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    raw = Tokenizer(models.WordLevel(unk_token="<unk>"))
    raw.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.WordLevelTrainer(special_tokens=["<pad>", "<unk>", "<s>", "</s>"])
    raw.train_from_iterator(["a red circle on a blue square", "a photo of a cat"], trainer)
    # The pipeline pads every prompt to model_max_length, which must fit the text encoder.
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=raw,
        pad_token="<pad>",
        unk_token="<unk>",
        bos_token="<s>",
        eos_token="</s>",
        model_max_length=16,
    )


def build_tiny_stable_diffusion(path: Path) -> None:
    """Build a tiny random Stable Diffusion pipeline and save it to ``path``."""
    tokenizer = _tokenizer()
    torch.manual_seed(0)
    unet = diffusers.UNet2DConditionModel(
        block_out_channels=(4, 8),
        layers_per_block=1,
        sample_size=8,
        in_channels=4,
        out_channels=4,
        down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
        up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"),
        cross_attention_dim=8,
        norm_num_groups=2,
        attention_head_dim=2,
    )
    vae = diffusers.AutoencoderKL(
        block_out_channels=(4, 8),
        in_channels=3,
        out_channels=3,
        down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"),
        up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"),
        latent_channels=4,
        norm_num_groups=2,
        sample_size=32,
    )
    text_encoder = transformers.CLIPTextModel(
        transformers.CLIPTextConfig(
            vocab_size=len(tokenizer),
            hidden_size=8,
            intermediate_size=16,
            num_attention_heads=2,
            num_hidden_layers=1,
            max_position_embeddings=16,
            projection_dim=8,
            pad_token_id=tokenizer.pad_token_id,
            bos_token_id=tokenizer.bos_token_id,
            eos_token_id=tokenizer.eos_token_id,
        )
    )
    scheduler = diffusers.DDIMScheduler(
        beta_start=0.00085,
        beta_end=0.012,
        beta_schedule="scaled_linear",
        clip_sample=False,
        set_alpha_to_one=False,
        steps_offset=1,
    )
    pipeline = diffusers.StableDiffusionPipeline(
        unet=unet,
        vae=vae,
        text_encoder=text_encoder,
        tokenizer=tokenizer,
        scheduler=scheduler,
        safety_checker=None,
        feature_extractor=None,
        requires_safety_checker=False,
    )
    pipeline.save_pretrained(path)
