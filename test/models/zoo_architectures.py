"""Zoo models beyond the core architectures: one static TorchScript export each of transformers
architectures whose exported graphs use forms the core ones do not (relative-position attention,
interpolated position embeddings, patch unfolding, pooled attention, shifted windows, efficient
attention with upsampling, a convolutional audio front end, ALiBi).

Each was found failing on some backend when first tried (`verify --each-node` named the node); the
model stays here as the regression test of its fix. Small configs, seeded random weights. Four are
also exported with a dynamic batch (and sequence), the form their dynamic-shape bugs showed in, and
tested at other sizes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

VOCABULARY = 1000
SMALL = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64}

# name: (what it exercises, input kind and size)
ARCHITECTURES = {
    "deberta-v2": ("disentangled relative-position attention (position buckets, Gather of relative "
                   "positions, an int64 Neg)", ("text", 9)),
    "dinov2": ("position embeddings interpolated (bicubic Resize) to a 40x40 image's 5x5 patches", ("image", 40)),
    "mobilevit": ("convolutions with transformer blocks on unfolded 2x2 patches", ("image", 64)),
    "funnel": ("attention pooled over the sequence between blocks (Einsum with relative positions)", ("text", 8)),
    "swin": ("shifted-window attention (window partition, roll, relative position bias)", ("image", 32)),
    "segformer": ("efficient attention (reduction convolution), overlapping patch embeddings, bilinear "
                  "upsampling in the decode head", ("image", 64)),
    "wav2vec2": ("convolutional feature encoder on raw audio, GroupNorm, grouped positional convolution",
                 ("audio", 1600)),
    "bloom": ("ALiBi attention biases computed from the attention mask", ("text", 9)),
}


def _model(architecture: str):
    """A seeded random-weight model and the names of its exported outputs."""
    import torch
    import transformers as hf

    torch.manual_seed(0)
    if architecture == "deberta-v2":
        config = hf.DebertaV2Config(vocab_size=VOCABULARY, max_position_embeddings=64, relative_attention=True,
                                    pos_att_type=["p2c", "c2p"], position_buckets=8, **SMALL)
        return hf.DebertaV2Model(config), ["last_hidden_state"]
    if architecture == "dinov2":
        return hf.Dinov2Model(hf.Dinov2Config(image_size=32, patch_size=8, **SMALL)), ["last_hidden_state"]
    if architecture == "mobilevit":
        config = hf.MobileViTConfig(image_size=64, hidden_sizes=[16, 24, 32], neck_hidden_sizes=[8, 8, 16, 16, 24, 32, 64])
        return hf.MobileViTModel(config), ["last_hidden_state"]
    if architecture == "funnel":
        config = hf.FunnelConfig(vocab_size=VOCABULARY, block_sizes=[1, 1], d_model=32, n_head=2, d_head=16, d_inner=64)
        return hf.FunnelModel(config), ["last_hidden_state"]
    if architecture == "swin":
        config = hf.SwinConfig(image_size=32, patch_size=2, embed_dim=16, depths=[2, 2], num_heads=[2, 2], window_size=4)
        return hf.SwinModel(config), ["last_hidden_state", "pooler_output"]
    if architecture == "segformer":
        config = hf.SegformerConfig(num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1], hidden_sizes=[16, 32],
                                    num_attention_heads=[1, 2], patch_sizes=[7, 3], strides=[4, 2],
                                    decoder_hidden_size=32, num_labels=3)
        return hf.SegformerForSemanticSegmentation(config), ["logits"]
    if architecture == "wav2vec2":
        config = hf.Wav2Vec2Config(conv_dim=[16, 16], conv_stride=[5, 2], conv_kernel=[10, 3], num_conv_pos_embeddings=16,
                                   num_conv_pos_embedding_groups=2, **SMALL)
        return hf.Wav2Vec2Model(config), ["last_hidden_state"]
    if architecture == "bloom":
        config = hf.BloomConfig(vocab_size=VOCABULARY, hidden_size=32, n_layer=2, n_head=2, use_cache=False)
        return hf.BloomForCausalLM(config), ["logits"]
    raise ValueError(f"unknown architecture {architecture}")


# Exported with a dynamic batch (and sequence): each failed that way on Linalg or StableHLO.
DYNAMIC = ("deberta-v2", "mobilevit", "funnel", "segformer")


def inputs_for_architecture(rng: np.random.Generator, architecture: str, dynamic: bool = False) -> dict[str, np.ndarray]:
    """Token ids with a right-padded mask, images or audio: two examples at the export sizes; a
    dynamic export is tested at three, and text two tokens longer."""
    kind, size = ARCHITECTURES[architecture][1]
    batch = 3 if dynamic else 2
    if kind == "text":
        size += 2 if dynamic else 0
        mask = np.ones((batch, size), np.int64)
        mask[1, size - 2:] = 0
        return {"input_ids": rng.integers(3, VOCABULARY, (batch, size), dtype=np.int64), "attention_mask": mask}
    if kind == "image":
        return {"pixel_values": rng.standard_normal((batch, 3, size, size), dtype=np.float32)}
    return {"input_values": rng.standard_normal((batch, size), dtype=np.float32)}


def build_architecture(directory: Path, architecture: str, dynamic: bool = False) -> Path:
    import torch
    import zoo_models

    example = inputs_for_architecture(np.random.default_rng(1), architecture)
    model, output_names = _model(architecture)
    module = zoo_models._select_outputs(model.eval(), list(example), output_names)
    axes = None
    if dynamic:
        axes = {name: {0: "batch", 1: "sequence"} if value.ndim == 2 else {0: "batch"} for name, value in example.items()}
    example = {name: torch.from_numpy(value) for name, value in example.items()}
    with torch.no_grad():
        return zoo_models._export_torch_module(module, example, directory / "model.onnx", "torchscript", axes, output_names)


SHARED_BUILD_CODE = (sys.modules[__name__],)


def models(zoo_model) -> list:
    """This module's entries, as instances of `zoo_model` (zoo_models.ZooModel)."""
    entries = [
        zoo_model(
            name=f"{architecture}-torchscript-static", family="architectures", exporter="torchscript", dynamic=False,
            slice=False, builder=build_architecture, make_inputs=inputs_for_architecture,
            parameters={"architecture": architecture},
            description=f"{architecture}: {exercises}; TorchScript exporter, static shapes",
        )
        for architecture, (exercises, _) in ARCHITECTURES.items()
    ]
    entries += [
        zoo_model(
            name=f"{architecture}-torchscript-dynamic", family="architectures", exporter="torchscript", dynamic=True,
            slice=False, builder=build_architecture, make_inputs=inputs_for_architecture,
            parameters={"architecture": architecture, "dynamic": True},
            description=f"{architecture}: {ARCHITECTURES[architecture][0]}; TorchScript exporter, dynamic batch"
            + (f" and sequence (tested at 3x{ARCHITECTURES[architecture][1][1] + 2})"
               if ARCHITECTURES[architecture][1][0] == "text" else " (tested at batch 3)"),
        )
        for architecture in DYNAMIC
    ]
    return entries
