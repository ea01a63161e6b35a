"""Quantized models for an NPU in the model zoo: QDQ networks that compile to integer TOSA which Vela
(ethos-u85-256) places entirely on the NPU (docs/consumers-tosa.md, "QDQ models as integer TOSA").

- efficientnet-qdq: the zoo's EfficientNet (zoo_models' "efficientnet" config, 64x64 images),
  quantize_static in QDQ format: SiLUs and squeeze-excite gates as tables and integer products;
- vit-encoder-qdq: a ViT-style encoder on float images (`vit_encoder`, also the network of
  test/python/test_tosa_integer_encoder.py), quantize_static in QDQ format: Softmax and
  LayerNormalization in integer arithmetic, attention's products of two activations, erf-GELU tables.

Both are quantized as zoo_deployment's resnet50-qdq is (its `_quantize_static_images`: quant_pre_process,
per-channel int8 weights, uint8 activations, MinMax calibration on its seeded images), so zoo_models
loads this module the same way: `models(ZooModel)` adds the entries, and nothing here imports
zoo_models at load time. `SHARED_BUILD_CODE` (this module and zoo_deployment, whose helpers build
these models) is what goes into their cache keys.
"""

from __future__ import annotations

import sys
from pathlib import Path

import zoo_deployment


# --------------------------------------------------------------------------------------------------
# EfficientNet, quantize_static, QDQ


def build_efficientnet_qdq(directory: Path, side: int) -> Path:
    """The zoo's EfficientNet (EfficientNetModel at width 0.25 and depth 0.3: 8 MBConv blocks with
    squeeze-excite, He-initialized convolutions, random batch-norm statistics), TorchScript export at
    1x3xSxS, quantize_static in QDQ format."""
    zoo = zoo_deployment._zoo_models()
    zoo._quiet()
    model, output_names = zoo._transformers_model("efficientnet")
    # The pooler, nn.AvgPool2d(320, ceil_mode=True) over the 2x2 last map, divides by the 4 elements
    # its one window covers. With torch's default count_include_pad=True the exporter writes
    # count_include_pad=1, and onnxruntime's fused QLinearAveragePool (its QDQ kernel; not its float
    # AveragePool, fixed for this in onnxruntime PR #29629) then divides by all 320 * 320 cells of the
    # window: pooler_output is 0, 188 output steps from its own unoptimized run. Without explicit
    # padding count_include_pad includes nothing, so False computes the same in torch and gives
    # onnxruntime's optimized run (the zoo's reference) the mean too.
    model.pooler.count_include_pad = False
    module = zoo._select_outputs(model.eval(), ["pixel_values"], output_names)
    exported = zoo_deployment._export_static_image_model(module, "pixel_values", side, output_names, directory / "float.onnx")
    return zoo_deployment._quantize_static_images(exported, directory / "model.onnx", "pixel_values", side, "qdq")


# --------------------------------------------------------------------------------------------------
# A ViT-style encoder, quantize_static, QDQ


def vit_encoder(dim: int = 32, heads: int = 2, depth: int = 2, patch: int = 4, side: int = 16, classes: int = 10):
    """A ViT-style encoder on float images (Vela takes no int64 token ids), freshly initialized (the
    caller seeds torch and draws the normalizations' parameters): a patch-embedding Conv, a class
    token Concat, a position Add, `depth` pre-LayerNorm blocks of `heads`-head self-attention (MatMul
    of two activations, Mul by the head's 1/sqrt(d), Softmax) and an erf-GELU MLP with residual Adds,
    a final LayerNorm and a linear head on the class token. Exported by torch at opset 17, every
    LayerNormalization is one op and the GELU is Div, Erf, Add, Mul, Mul."""
    import torch
    from torch import nn

    tokens = (side // patch) ** 2 + 1

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
            self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
            self.fc1, self.fc2 = nn.Linear(dim, 2 * dim), nn.Linear(2 * dim, dim)

        def forward(self, x):
            q, k, v = self.qkv(self.norm1(x)).reshape(1, tokens, 3, heads, dim // heads).permute(2, 0, 3, 1, 4)
            attention = torch.softmax(q @ k.transpose(-2, -1) * float((dim // heads) ** -0.5), dim=-1)
            x = x + self.proj((attention @ v).transpose(1, 2).reshape(1, tokens, dim))
            return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.norm2(x))))

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Conv2d(3, dim, patch, patch)
            self.cls = nn.Parameter(torch.randn(1, 1, dim) * 0.5)
            self.position = nn.Parameter(torch.randn(1, tokens, dim) * 0.5)
            self.blocks = nn.ModuleList(Block() for _ in range(depth))
            self.norm, self.head = nn.LayerNorm(dim), nn.Linear(dim, classes)

        def forward(self, x):
            x = torch.cat([self.cls, self.embed(x).flatten(2).transpose(1, 2)], 1) + self.position
            for block in self.blocks:
                x = block(x)
            return self.head(self.norm(x)[:, 0])

    return Encoder().eval()


def build_vit_encoder_qdq(directory: Path, side: int) -> Path:
    """`vit_encoder` at 1x3xSxS after manual_seed(0), with random biases and layer-norm parameters
    (zoo_deployment's `_nonzero_biases`), TorchScript export, quantize_static in QDQ format."""
    import torch

    zoo_deployment._zoo_models()._quiet()
    torch.manual_seed(0)
    module = zoo_deployment._nonzero_biases(vit_encoder(side=side))
    exported = zoo_deployment._export_static_image_model(module, "pixel_values", side, ["logits"], directory / "float.onnx")
    return zoo_deployment._quantize_static_images(exported, directory / "model.onnx", "pixel_values", side, "qdq")


# What ZooModel.fingerprint_source adds to these models' cache keys: this file and zoo_deployment's
# (its export, calibration and quantize_static helpers decide the files too).
SHARED_BUILD_CODE = (sys.modules[__name__], zoo_deployment)


# --------------------------------------------------------------------------------------------------
# The registry entries

# Tolerances, as zoo_deployment states them: a statically quantized model's output is a multiple of
# its output scale, and two correct programs differ by whole steps where a requantization upstream
# rounds the other way; the zoo's reference is onnxruntime with its graph optimizations, whose fused
# integer kernels (QLinearConv, QGemm, QLinearMatMul, ...) round where the file's float ops between
# DequantizeLinear and QuantizeLinear do not. Measured with the pinned onnxruntime (1.31.1): the
# optimized run is 0 steps from its unoptimized one on EfficientNet's last hidden state and 1 on its
# pooler output (over 20 seeded images), so zoo_deployment's 3.5 steps; on the encoder it is 5 steps
# away on the zoo's input and up to 7 over 20 seeded images (two blocks of QGemm requantizations
# feeding Softmax and LayerNormalization), so 7.5 steps, below the quantization error itself (the
# float encoder's logits differ from the quantized ones by 0.041, 8 steps).
_EFFICIENTNET_OUTPUT_SCALE = 0.00504  # last_hidden_state (after SiLU) reaches 1.02; the pooler shares its scale
_VIT_ENCODER_OUTPUT_SCALE = 0.00507  # logits reach 0.63
_VIT_ENCODER_OUTPUT_STEPS = 7.5


def models(zoo_model) -> list:
    """This module's entries, as instances of `zoo_model` (zoo_models.ZooModel)."""

    def entry(name, builder, side, atol, description):
        return zoo_model(
            name=name, family="vision-quantized", exporter="ort-quantize-qdq", dynamic=False, slice=False,
            builder=builder, parameters={"side": side}, make_inputs=zoo_deployment.inputs_for_image, atol=atol,
            description=description,
        )

    return [
        entry(
            "efficientnet-qdq", build_efficientnet_qdq, 64,
            round(zoo_deployment._OUTPUT_STEPS * _EFFICIENTNET_OUTPUT_SCALE, 4),
            "the zoo's EfficientNet (transformers EfficientNetModel, width 0.25, depth 0.3: 8 MBConv blocks with "
            "squeeze-excite; He-initialized convolutions, random batch-norm statistics), TorchScript export (opset 17) "
            "at a static 1x3x64x64, quant_pre_process, then onnxruntime quantize_static in QDQ format: per-channel "
            "int8 weights, per-tensor uint8 activations (U8S8), MinMax calibration on 4 seeded images. 41 Conv, "
            "33 Sigmoid and 33 Mul (the SiLUs and the squeeze-excite gates), 8 GlobalAveragePool, 5 Pad (TensorFlow-"
            "style padding), the pooler's AveragePool (kernel 320, ceil_mode, over the 2x2 last map) between 207 "
            "DequantizeLinear and 124 QuantizeLinear; the pooler is exported with count_include_pad=0 (the same "
            "numbers in torch), as onnxruntime's fused QLinearAveragePool counts the ceil-mode overhang with "
            "count_include_pad=1 (see build_efficientnet_qdq); tolerance 3.5 output steps of 0.00504",
        ),
        entry(
            "vit-encoder-qdq", build_vit_encoder_qdq, 16,
            round(_VIT_ENCODER_OUTPUT_STEPS * _VIT_ENCODER_OUTPUT_SCALE, 4),
            "a ViT-style encoder on float images (written in plain torch, the network of test_tosa_integer_encoder.py: "
            "a 4x4 patch-embedding Conv over 16x16, a class token, learned positions, two pre-LayerNorm blocks of "
            "two-head self-attention and an erf-GELU MLP, a final LayerNorm, a 10-class head; 17 tokens of width 32; "
            "random weights, biases and layer-norm parameters), TorchScript export (opset 17) at a static "
            "1x3x16x16, quant_pre_process (which makes the Linear layers Gemm), then onnxruntime quantize_static in "
            "QDQ format: per-channel int8 weights, per-tensor uint8 activations, MinMax calibration on 4 seeded "
            "images. 9 Gemm, 4 MatMul (attention's products of two activations), 5 LayerNormalization, 2 Softmax, "
            "2 Erf between 112 DequantizeLinear and 77 QuantizeLinear; tolerance 7.5 output steps of 0.00507 "
            "(onnxruntime's optimized run is up to 7 steps from its unoptimized one, see zoo_npu's tolerances)",
        ),
    ]
