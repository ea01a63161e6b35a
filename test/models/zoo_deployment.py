"""Deployment formats in the model zoo: models as users ship them after onnxruntime's own tooling.

A torch.onnx export is what a model looks like before deployment; what reaches an inference server
is often that export after a quantizer or a graph optimizer, full of QuantizeLinear/DequantizeLinear
pairs, integer kernels (QLinearConv, MatMulInteger) and com.microsoft fused operators (Attention,
SkipLayerNormalization, MatMulNBits, GroupQueryAttention). These entries build such files with the
tools users run, from seeded random weights and without hub access:

- resnet50-qdq: ResNet-50 (transformers' ResNetConfig defaults), quantize_static in QDQ format;
- mobilenetv3-qoperator: MobileNetV3-Small written here in plain torch (torchvision does not load
  next to the CPU torch build), quantize_static in QOperator format;
- bert-dynamic-quantized: the zoo's small BERT, quantize_dynamic;
- bert-static-quantized-qdq, -qoperator: the same BERT with dynamic dims, quantize_static in each format;
- bert-ort-optimized: the same BERT through onnxruntime.transformers' optimizer (fused com.microsoft ops);
- bert-ort-optimized-fp16: that optimized BERT converted to float16 by the optimizer;
- decoder-matmulnbits-gqa: a small Llama written by onnxruntime-genai's model builder at int4
  (MatMulNBits, GroupQueryAttention with a KV cache).

zoo_models.py adds `models(ZooModel)` to its registry when it loads, so this module must not import
zoo_models at load time: the builders import it (for its export helpers and configs) when they run.
`SHARED_BUILD_CODE` is what of this module goes into these models' cache keys (all of it).

`python test/models/zoo_deployment.py [NAME ...]` builds the named models (all by default) into a
temporary directory and prints the build time and the op types each contains, counted by domain.
"""

from __future__ import annotations

import collections
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

EXPORTERS = ("ort-quantize-qdq", "ort-quantize-qop", "ort-quantize-dynamic", "ort-optimizer", "onnxruntime-genai")
# onnxruntime-genai's model builder writes the decoder: the newest release whose builder imports
# with transformers 4.57 (0.16 and later need transformers' Qwen3.5 classes). Pinned in pyproject.toml.
GENAI_VERSION = "0.15.2"
CALIBRATION_SEED = 1  # the calibration images are not the images the harness runs on (seed 0)
CALIBRATION_IMAGES = 4


# --------------------------------------------------------------------------------------------------
# Shared helpers


def _zoo_models():
    """zoo_models, imported when a builder runs (it imports this module when it loads)."""
    import zoo_models

    return zoo_models


def op_census(path: Path) -> dict[str, int]:
    """How many nodes of each op type the model's main graph has, keyed "domain::op" ("ai.onnx" for
    the default domain), most frequent first."""
    import onnx

    model = onnx.load(str(path), load_external_data=False)
    counts = collections.Counter(f"{node.domain or 'ai.onnx'}::{node.op_type}" for node in model.graph.node)
    return dict(counts.most_common())


def _seeded_images(seed: int, count: int, side: int) -> list[np.ndarray]:
    """`count` standard-normal 1x3xSxS float images (roughly what a normalized photo's pixels are)."""
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((1, 3, side, side), dtype=np.float32) for _ in range(count)]


def _calibration_reader(feeds: list[dict]):
    """An onnxruntime CalibrationDataReader that gives `feeds` ({input name: array}) one at a time,
    then None."""
    from onnxruntime.quantization import CalibrationDataReader

    class SeededFeeds(CalibrationDataReader):
        def __init__(self):
            self._remaining = iter(feeds)

        def get_next(self):
            return next(self._remaining, None)

    return SeededFeeds()


def _export_static_image_model(module, input_name: str, side: int, output_names: list[str], path: Path) -> Path:
    """`module` (one image input, batch 1, `side` x `side`) through the TorchScript exporter, static."""
    import torch

    example = {input_name: torch.from_numpy(_seeded_images(CALIBRATION_SEED, 1, side)[0])}
    with torch.no_grad():
        return _zoo_models()._export_torch_module(module.eval(), example, path, "torchscript", None, output_names)


def _quantize_static_images(float_path: Path, quantized_path: Path, input_name: str, side: int, quant_format: str) -> Path:
    """_quantize_static calibrated on a few seeded images."""
    images = _seeded_images(CALIBRATION_SEED, CALIBRATION_IMAGES, side)
    return _quantize_static(float_path, quantized_path, [{input_name: image} for image in images], quant_format)


def _quantize_static(
    float_path: Path, quantized_path: Path, feeds: list[dict], quant_format: str, skip_symbolic_shape: bool = False
) -> Path:
    """quantize_static as onnxruntime's documentation shows it: quant_pre_process (shape inference,
    onnxruntime's basic graph optimizations, function inlining), then MinMax calibration on `feeds`.
    Per-channel int8 weights and asymmetric uint8 activations: U8S8, the format onnxruntime
    recommends on x86-64 CPUs (quantize_static's own default is int8 activations). skip_symbolic_shape:
    what quant_pre_process's "Incomplete symbolic shape inference" asks for (a model with dynamic dims)."""
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    prepared = float_path.with_name("prepared.onnx")
    with contextlib.chdir(float_path.parent):  # its shape inference writes scratch files into the working directory
        quant_pre_process(str(float_path), str(prepared), skip_symbolic_shape=skip_symbolic_shape)
    quantize_static(
        str(prepared), str(quantized_path), _calibration_reader(feeds),
        quant_format={"qdq": QuantFormat.QDQ, "qoperator": QuantFormat.QOperator}[quant_format],
        per_channel=True, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
        calibrate_method=CalibrationMethod.MinMax,
    )
    prepared.unlink()
    float_path.unlink()
    return quantized_path


def inputs_for_image(rng: np.random.Generator, side: int) -> dict:
    """One seeded 1x3xSxS image; both vision models name their input pixel_values."""
    return {"pixel_values": rng.standard_normal((1, 3, side, side), dtype=np.float32)}


# --------------------------------------------------------------------------------------------------
# ResNet-50, quantize_static, QDQ


def build_resnet50_qdq(directory: Path, side: int) -> Path:
    """ResNet-50 with its 1000-class head (random weights, non-trivial batch-norm statistics),
    TorchScript export at 1x3xSxS, quantize_static in QDQ format."""
    import torch
    import transformers as hf

    zoo = _zoo_models()
    zoo._quiet()
    torch.manual_seed(0)
    model = zoo._realistic_convolutions(hf.ResNetForImageClassification(hf.ResNetConfig(num_labels=1000)), reinitialize=False)
    module = zoo._select_outputs(model.eval(), ["pixel_values"], ["logits"])
    exported = _export_static_image_model(module, "pixel_values", side, ["logits"], directory / "float.onnx")
    return _quantize_static_images(exported, directory / "model.onnx", "pixel_values", side, "qdq")


# --------------------------------------------------------------------------------------------------
# MobileNetV3-Small, quantize_static, QOperator

# Howard et al., "Searching for MobileNetV3" (2019), Table 2: the bottleneck blocks of
# MobileNetV3-Small as (kernel, expanded channels, output channels, squeeze-excite, activation, stride).
_MOBILENET_V3_SMALL_BLOCKS = (
    (3, 16, 16, True, "relu", 2),
    (3, 72, 24, False, "relu", 2),
    (3, 88, 24, False, "relu", 1),
    (5, 96, 40, True, "hardswish", 2),
    (5, 240, 40, True, "hardswish", 1),
    (5, 240, 40, True, "hardswish", 1),
    (5, 120, 48, True, "hardswish", 1),
    (5, 144, 48, True, "hardswish", 1),
    (5, 288, 96, True, "hardswish", 2),
    (5, 576, 96, True, "hardswish", 1),
    (5, 576, 96, True, "hardswish", 1),
)


def _divisible_by_8(channels: float) -> int:
    """The paper's channel rounding: to the nearest multiple of 8, never more than 10% down."""
    rounded = max(8, int(channels + 4) // 8 * 8)
    return rounded + 8 if rounded < 0.9 * channels else rounded


def _mobilenet_v3_small(num_classes: int = 1000):
    """MobileNetV3-Small in plain torch: a 3x3 stride-2 stem (16 channels, hard-swish), the eleven
    inverted-residual blocks above (1x1 expansion unless the width is unchanged, depthwise KxK,
    squeeze-excite with ReLU and hard-sigmoid, linear 1x1 projection, a residual when shapes allow),
    a 1x1 convolution to 576 channels (hard-swish), global average pooling, a 1024-wide hard-swish
    layer and the classifier. As in the reference implementations, the last 1x1 convolution has no
    squeeze-excite and the two head layers are Linear (1x1 convolutions on a 1x1 map) without
    batch norm. He-initialized convolutions and random batch-norm statistics after manual_seed(0)."""
    import torch
    from torch import nn

    activations = {"relu": nn.ReLU, "hardswish": nn.Hardswish}

    def conv_bn(in_channels, out_channels, kernel, stride=1, groups=1, activation=None):
        layers = [nn.Conv2d(in_channels, out_channels, kernel, stride, (kernel - 1) // 2, groups=groups, bias=False),
                  nn.BatchNorm2d(out_channels)]
        return nn.Sequential(*layers, activations[activation]()) if activation else nn.Sequential(*layers)

    class SqueezeExcite(nn.Module):
        def __init__(self, channels):
            super().__init__()
            squeezed = _divisible_by_8(channels / 4)
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.reduce, self.expand = nn.Conv2d(channels, squeezed, 1), nn.Conv2d(squeezed, channels, 1)
            self.relu, self.gate = nn.ReLU(), nn.Hardsigmoid()

        def forward(self, x):
            return x * self.gate(self.expand(self.relu(self.reduce(self.pool(x)))))

    class InvertedResidual(nn.Module):
        def __init__(self, in_channels, kernel, expanded, out_channels, squeeze_excite, activation, stride):
            super().__init__()
            layers = [conv_bn(in_channels, expanded, 1, activation=activation)] if expanded != in_channels else []
            layers.append(conv_bn(expanded, expanded, kernel, stride, groups=expanded, activation=activation))
            if squeeze_excite:
                layers.append(SqueezeExcite(expanded))
            layers.append(conv_bn(expanded, out_channels, 1))
            self.block = nn.Sequential(*layers)
            self.residual = stride == 1 and in_channels == out_channels

        def forward(self, x):
            return x + self.block(x) if self.residual else self.block(x)

    class MobileNetV3Small(nn.Module):
        def __init__(self):
            super().__init__()
            blocks, channels = [conv_bn(3, 16, 3, stride=2, activation="hardswish")], 16
            for kernel, expanded, out_channels, squeeze_excite, activation, stride in _MOBILENET_V3_SMALL_BLOCKS:
                blocks.append(InvertedResidual(channels, kernel, expanded, out_channels, squeeze_excite, activation, stride))
                channels = out_channels
            blocks.append(conv_bn(channels, 576, 1, activation="hardswish"))
            self.features = nn.Sequential(*blocks)
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(576, 1024), nn.Hardswish(), nn.Linear(1024, num_classes))

        def forward(self, pixel_values):
            return self.classifier(self.pool(self.features(pixel_values)))

    torch.manual_seed(0)
    return _zoo_models()._realistic_convolutions(MobileNetV3Small())


def build_mobilenetv3_qoperator(directory: Path, side: int) -> Path:
    """MobileNetV3-Small, TorchScript export at 1x3xSxS, quantize_static in QOperator format."""
    _zoo_models()._quiet()
    exported = _export_static_image_model(_mobilenet_v3_small(), "pixel_values", side, ["logits"], directory / "float.onnx")
    return _quantize_static_images(exported, directory / "model.onnx", "pixel_values", side, "qoperator")


# --------------------------------------------------------------------------------------------------
# The zoo's small BERT: quantize_dynamic, and onnxruntime.transformers' optimizer

_BERT_HEADS, _BERT_HIDDEN = 2, 32  # the zoo's "bert" config (zoo_models._transformers_model)


def _nonzero_biases(model):
    """Random biases and layer-norm affine parameters: transformers initializes every bias to 0 and
    every layer-norm scale to 1, which hides a program that drops or misplaces them (and lets the
    exporter merge all the zero biases into one initializer, unlike a trained model)."""
    import torch

    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.Linear) and module.bias is not None:
                module.bias.normal_(0.0, 0.1)
            elif isinstance(module, torch.nn.LayerNorm):
                module.weight.uniform_(0.5, 1.5)
                module.bias.normal_(0.0, 0.1)
    return model


def _export_small_bert(path: Path, dynamic: bool) -> Path:
    """The zoo's small BERT (its config, random weights after manual_seed(0), then random biases),
    TorchScript export at the zoo's example sizes (batch 2, sequence 16), with dynamic batch and
    sequence or static."""
    import torch

    zoo = _zoo_models()
    zoo._quiet()
    model, output_names = zoo._transformers_model("bert")
    _nonzero_biases(model)
    example = zoo._architecture_inputs(np.random.default_rng(1), "bert", zoo._sizes("bert", at_export=True))
    module = zoo._select_outputs(model.eval(), list(example), output_names)
    example = {name: torch.from_numpy(value) for name, value in example.items()}
    axes = zoo._dynamic_axes("bert") if dynamic else None
    with torch.no_grad():
        return zoo._export_torch_module(module, example, path, "torchscript", axes, output_names)


def build_bert_dynamic_quantized(directory: Path) -> Path:
    """quantize_dynamic with int8 weights (per tensor): onnxruntime's recipe for transformer CPUs."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    exported = _export_small_bert(directory / "float.onnx", dynamic=False)
    quantized = directory / "model.onnx"
    quantize_dynamic(str(exported), str(quantized), weight_type=QuantType.QInt8)
    exported.unlink()
    return quantized


def build_bert_static_quantized(directory: Path, quant_format: str, dynamic: bool) -> Path:
    """quantize_static (see _quantize_static) of the dynamic-shape export, calibrated on four seeded
    batches of the zoo's BERT inputs. QOperator: QLinearMatMul, com.microsoft QLinearAdd, QLinearMul,
    QLinearSoftmax and QGemm, a uint8 embedding table; QDQ: QuantizeLinear/DequantizeLinear pairs
    around float ops."""
    exported = _export_small_bert(directory / "float.onnx", dynamic=dynamic)
    feeds = [inputs_for_small_bert(np.random.default_rng(CALIBRATION_SEED + i), dynamic=dynamic)
             for i in range(CALIBRATION_IMAGES)]
    return _quantize_static(exported, directory / "model.onnx", feeds, quant_format, skip_symbolic_shape=True)


def build_bert_ort_optimized(directory: Path, opt_level: int, dynamic: bool) -> Path:
    """onnxruntime.transformers.optimizer.optimize_model(model_type="bert") on the export.

    Exported with dynamic batch and sequence: the static export's position ids fold into a constant,
    and the optimizer then leaves the embeddings unfused (no EmbedLayerNormalization)."""
    from onnxruntime.transformers.optimizer import optimize_model

    exported = _export_small_bert(directory / "float.onnx", dynamic=dynamic)
    optimized = optimize_model(
        str(exported), model_type="bert", num_heads=_BERT_HEADS, hidden_size=_BERT_HIDDEN, opt_level=opt_level, use_gpu=False
    )
    path = directory / "model.onnx"
    optimized.save_model_to_file(str(path))
    exported.unlink()
    return path


def build_bert_ort_optimized_fp16(directory: Path, opt_level: int, dynamic: bool) -> Path:
    """bert-ort-optimized converted to float16 by the optimizer's own convert_float_to_float16
    (keep_io_types: int64 inputs, float32 outputs, a Cast at each end). The fused Attention keeps
    float32's lowest value as its mask_filter_value, which is -inf in float16."""
    from onnxruntime.transformers.optimizer import optimize_model

    exported = _export_small_bert(directory / "float.onnx", dynamic=dynamic)
    optimized = optimize_model(
        str(exported), model_type="bert", num_heads=_BERT_HEADS, hidden_size=_BERT_HIDDEN, opt_level=opt_level, use_gpu=False
    )
    optimized.convert_float_to_float16(keep_io_types=True)
    path = directory / "model.onnx"
    optimized.save_model_to_file(str(path))
    exported.unlink()
    return path


def inputs_for_small_bert(rng: np.random.Generator, dynamic: bool = False, **_) -> dict:
    """The zoo's BERT inputs: at batch 2, sequence 16 (the export's sizes) for a static export, at
    batch 3, sequence 11 for a dynamic one; the last row right-padded."""
    zoo = _zoo_models()
    return zoo._architecture_inputs(rng, "bert", zoo._sizes("bert", at_export=not dynamic))


# --------------------------------------------------------------------------------------------------
# A decoder from onnxruntime-genai's model builder: MatMulNBits and GroupQueryAttention

# The zoo's small Llama (zoo_models._transformers_model("llama")), with the weights' standard
# deviation raised from 0.02 to 0.1 so that attention is far from uniform (at 0.02 every query
# attends almost evenly and a wrong mask or rotation would hardly move the logits).
_DECODER = {"vocab_size": 1000, "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
            "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 128}
_DECODER_INITIALIZER_RANGE = 0.1
_DECODER_HEAD_DIM = _DECODER["hidden_size"] // _DECODER["num_attention_heads"]


def _save_random_llama(directory: Path) -> Path:
    """A seeded random-weight Llama and a word-level tokenizer (the builder saves the tokenizer's
    files beside the model, so it needs one), saved as a local Hugging Face directory."""
    import torch
    import transformers as hf
    from tokenizers import Tokenizer, models, pre_tokenizers

    torch.manual_seed(0)
    config = hf.LlamaConfig(**_DECODER, initializer_range=_DECODER_INITIALIZER_RANGE, bos_token_id=1, eos_token_id=2)
    hf.LlamaForCausalLM(config).save_pretrained(directory)
    vocabulary = {"<unk>": 0, "<s>": 1, "</s>": 2, **{f"w{index}": index for index in range(3, _DECODER["vocab_size"])}}
    tokenizer = Tokenizer(models.WordLevel(vocabulary, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    hf.PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token="<unk>", bos_token="<s>", eos_token="</s>").save_pretrained(directory)
    return directory


def _check_genai_version(expected: str) -> None:
    """The installed onnxruntime-genai must be the one the entry names: its version is a parameter,
    so part of the cache key, without adding a package to every zoo model's key in build_zoo.py."""
    import importlib.metadata

    try:
        installed = importlib.metadata.version("onnxruntime-genai")
    except importlib.metadata.PackageNotFoundError:
        raise RuntimeError("onnxruntime-genai is not installed (pyproject.toml's test extra pins it)") from None
    if installed != expected:
        raise RuntimeError(f"onnxruntime-genai {installed} is installed, the zoo entry names {expected}: update the entry")


def build_genai_decoder(directory: Path, block_size: int, accuracy_level: int, genai_version: str) -> Path:
    """`python -m onnxruntime_genai.models.builder -p int4 -e cpu` on the saved random Llama, offline.

    The builder runs in its own process: it puts its own directories (builders/, quantization/) on
    sys.path. The Hugging Face directory and the builder's cache are deleted afterwards; the
    builder's output (model.onnx, model.onnx.data, genai_config.json, tokenizer files) is kept."""
    _zoo_models()._quiet()
    _check_genai_version(genai_version)
    source, output, scratch = directory / "hf-model", directory / "genai", directory / "builder-cache"
    _save_random_llama(source)
    command = [
        sys.executable, "-m", "onnxruntime_genai.models.builder", "-i", str(source), "-o", str(output), "-p", "int4",
        "-e", "cpu", "-c", str(scratch), "--extra_options", f"block_size={block_size}",
        f"accuracy_level={accuracy_level}", "hf_token=false",
    ]
    environment = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    finished = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=600)
    if finished.returncode != 0:
        lines = [line for line in (finished.stderr + finished.stdout).splitlines() if line.strip()]
        raise RuntimeError(f"onnxruntime-genai's builder exited with {finished.returncode}: {lines[-1] if lines else ''}")
    shutil.rmtree(source)
    shutil.rmtree(scratch, ignore_errors=True)
    return output / "model.onnx"


def inputs_for_genai_decoder(rng: np.random.Generator, **_) -> dict:
    """A chunk of 5 new tokens after 7 cached ones at batch 1 (GroupQueryAttention on the CPU takes
    several new tokens with a past only at batch 1; at batch > 1 it takes one token per step)."""
    batch, sequence, past = 1, 5, 7
    inputs = {"input_ids": rng.integers(0, _DECODER["vocab_size"], (batch, sequence), dtype=np.int64),
              "attention_mask": np.ones((batch, past + sequence), np.int64)}
    shape = (batch, _DECODER["num_key_value_heads"], past, _DECODER_HEAD_DIM)
    for layer in range(_DECODER["num_hidden_layers"]):
        for kind in ("key", "value"):
            inputs[f"past_key_values.{layer}.{kind}"] = rng.standard_normal(shape, dtype=np.float32)
    return inputs


# What ZooModel.fingerprint_source adds to these models' cache keys: this whole file, tables and
# constants included (inspect.getsource of a module is its text). An edit anywhere here rebuilds the
# five models, which takes half a minute.
SHARED_BUILD_CODE = (sys.modules[__name__],)


# --------------------------------------------------------------------------------------------------
# The registry entries

# Tolerances, measured with the pinned onnxruntime (1.31.1; its version is part of the cache key).
# A statically quantized model's float output is a dequantized uint8, a multiple of the output
# scale s: two correct programs differ where a requantization rounds the other way somewhere
# upstream, by whole steps. onnxruntime itself shows it: the same QDQ model run with its integer
# kernels (QLinearConv, all optimizations) and with float Conv between DequantizeLinear and
# QuantizeLinear (no optimizations) differs by 2 steps on ResNet-50's logits and by 1 step on
# MobileNetV3's. So atol is 3.5 steps (differences are whole steps: up to 3 pass, 4 do not), far
# below the quantization error itself (the float model's MobileNetV3 logits differ from the
# quantized ones by 1.3, nearly 10 steps).
_OUTPUT_STEPS = 3.5
_RESNET50_OUTPUT_SCALE = 4.643  # logits of ResNet-50 with random weights reach 600
_MOBILENETV3_OUTPUT_SCALE = 0.138  # its logits reach 18
# Dynamic quantization has no fixed output grid: a rounding flip of one uint8 activation (steps
# up to 0.033 here) moves a MatMul output by step * |w| (|w| < 0.1), about 3e-3 before the next
# LayerNormalization. atol covers two such flips. Replacing every DynamicQuantizeLinear with the
# specification's formula computed another way (times the reciprocal of the scale) changes no
# output at all here; the quantization error itself (float model vs quantized) is 3.7e-2.
_DYNAMIC_QUANTIZATION_ATOL = 5e-3
# The onnxruntime-optimized BERT is fp32: its fused operators match the unfused export to 1e-6.
# The genai decoder's 4-bit weights dequantize exactly ((q - 8) * scale) and accuracy_level=1 asks
# for fp32 arithmetic: the Hugging Face Llama given those dequantized weights (the same past keys
# and values, positions 7-11) matches onnxruntime to 1.8e-6 on logits of order 3. So both get the
# zoo's fp32 tolerance. (With the builder's CPU default accuracy_level=4, onnxruntime quantizes the
# activations to int8 per block inside MatMulNBits and differs from that reference by 5e-2.)
_FP32_RTOL, _FP32_ATOL = 1e-3, 1e-4
# The statically quantized BERT in QDQ format: onnxruntime fuses DequantizeLinear -> MatMul ->
# QuantizeLinear into integer kernels whose requantization rounds a few uint8 activations the other
# way than the float computation the file spells. Its own run without graph optimizations differs from
# the optimized one by up to 6.1e-2 (6 of 1024 values of the last hidden state, at batch 2, sequence 16);
# ours equals the unoptimized run to 6e-8. So atol 0.1, below the quantization error itself (0.11).
_QDQ_BERT_ATOL = 1e-1
# The float16 BERT: float16 keeps 11 significant bits, so at |x| up to 3.4 (its last hidden state) one
# unit in the last place is 0.002. Against the float32 model, onnxruntime's float16 run differs by
# 0.0031 and ours by 0.0054 (float16 sums and normalizations in another order); each of them differs
# from the other by 0.0059. So 1e-2, five units in the last place at the largest value.
_FP16_RTOL, _FP16_ATOL = 1e-2, 1e-2


def models(zoo_model) -> list:
    """This module's entries, as instances of `zoo_model` (zoo_models.ZooModel)."""

    def entry(name, family, exporter, dynamic, builder, make_inputs, parameters, atol, description, rtol=1e-3):
        return zoo_model(
            name=name, family=family, exporter=exporter, dynamic=dynamic, slice=False, builder=builder,
            parameters=parameters, make_inputs=make_inputs, rtol=rtol, atol=atol,
            description=description,
        )

    return [
        entry(
            "resnet50-qdq", "vision-quantized", "ort-quantize-qdq", False, build_resnet50_qdq, inputs_for_image,
            {"side": 96}, round(_OUTPUT_STEPS * _RESNET50_OUTPUT_SCALE, 2),
            "ResNet-50 (transformers ResNetConfig defaults, 1000-class head, random weights), TorchScript export "
            "(opset 17) at a static 1x3x96x96, quant_pre_process, then onnxruntime quantize_static in QDQ format: "
            "per-channel int8 weights, per-tensor uint8 activations (U8S8), MinMax calibration on 4 seeded images. "
            "182 DequantizeLinear, 74 QuantizeLinear, 53 Conv, 16 Add, MaxPool, GlobalAveragePool, Flatten, Gemm "
            "(the quantizer drops each ReLU into the uint8 QuantizeLinear after it); tolerance 3.5 output steps of 4.64",
        ),
        entry(
            "mobilenetv3-qoperator", "vision-quantized", "ort-quantize-qop", False, build_mobilenetv3_qoperator,
            inputs_for_image, {"side": 224}, round(_OUTPUT_STEPS * _MOBILENETV3_OUTPUT_SCALE, 3),
            "MobileNetV3-Small (the paper's table, written in plain torch, random weights), TorchScript export "
            "(opset 17) at a static 1x3x224x224, quant_pre_process, then onnxruntime quantize_static in QOperator "
            "format: per-channel int8 weights, uint8 activations (U8S8), MinMax calibration on 4 seeded images. "
            "52 QLinearConv (ReLUs folded in); com.microsoft QLinearMul 28, QLinearGlobalAveragePool 10, "
            "QLinearAdd 6, QGemm 2; quant_pre_process inlines each HardSwish into HardSigmoid and Mul, and the "
            "28 HardSigmoid (19 of hard-swish, 9 squeeze-excite gates) stay float between 29 DequantizeLinear "
            "and 29 QuantizeLinear, then Flatten; tolerance 3.5 output steps of 0.138",
        ),
        entry(
            "bert-dynamic-quantized", "text-quantized", "ort-quantize-dynamic", False, build_bert_dynamic_quantized,
            inputs_for_small_bert, {}, _DYNAMIC_QUANTIZATION_ATOL,
            "the zoo's small BERT (random biases and layer-norm parameters), TorchScript export (opset 17) with "
            "static shapes (batch 2, sequence 16), then onnxruntime quantize_dynamic (int8 weights, per tensor): "
            "13 MatMulInteger fed by 9 DynamicQuantizeLinear, the embedding tables int8 (3 Gather + "
            "DequantizeLinear), attention's activation-by-activation MatMuls left in float",
        ),
        entry(
            "bert-ort-optimized", "text-optimized", "ort-optimizer", True, build_bert_ort_optimized,
            inputs_for_small_bert, {"opt_level": 1, "dynamic": True}, _FP32_ATOL,
            "the zoo's small BERT (random biases and layer-norm parameters), TorchScript export "
            "(opset 17) with dynamic batch and sequence (tested at batch 3, sequence 11), then "
            "onnxruntime.transformers optimize_model(model_type=bert, num_heads=2, hidden_size=32, opt_level=1): "
            "com.microsoft EmbedLayerNormalization 1, Attention 2 (with the mask index), SkipLayerNormalization 4, "
            "BiasGelu 2, besides MatMul, Gemm, Tanh, Gather, Cast. The static export's position ids fold into a "
            "constant and EmbedLayerNormalization is not fused, hence the dynamic export; fp32",
            rtol=_FP32_RTOL,
        ),
        *(
            entry(
                f"bert-static-quantized-{quant_format}", "text-quantized", f"ort-quantize-{short}", True,
                build_bert_static_quantized, inputs_for_small_bert, {"quant_format": quant_format, "dynamic": True}, atol,
                "the zoo's small BERT (random biases and layer-norm parameters), TorchScript export (opset 17) "
                "with dynamic batch and sequence (tested at batch 3, sequence 11), then quant_pre_process and "
                f"quantize_static in {quant_format} format (per-channel int8 weights, uint8 activations, MinMax "
                f"calibration on 4 seeded batches): {ops}",
                rtol=_FP32_RTOL,
            )
            for quant_format, short, ops, atol in (
                ("qdq", "qdq", "QuantizeLinear/DequantizeLinear pairs around every MatMul, Add and Gather; "
                 "tolerance: onnxruntime's own runs with and without graph optimizations differ by up to "
                 "6.1e-2 (see _QDQ_BERT_ATOL)", _QDQ_BERT_ATOL),
                ("qoperator", "qop", "QLinearMatMul 16, com.microsoft QLinearAdd 22, QLinearMul 8, "
                 "QLinearSoftmax 2, QGemm 1, a uint8 embedding table (Gather, then DequantizeLinear); fp32 "
                 "tolerance (it matches onnxruntime to 5e-7)", _FP32_ATOL),
            )
        ),
        entry(
            "bert-ort-optimized-fp16", "text-optimized", "ort-optimizer", True, build_bert_ort_optimized_fp16,
            inputs_for_small_bert, {"opt_level": 1, "dynamic": True}, _FP16_ATOL,
            "bert-ort-optimized, then the optimizer's convert_float_to_float16(keep_io_types=True): the same fused "
            "com.microsoft operators on float16 weights and activations, a Cast to float16 at the inputs of the "
            "float computation and back to float32 at each output; the fused Attention's mask_filter_value is float32's "
            "lowest value (-inf in float16). Dynamic batch and sequence (tested at batch 3, sequence 11)",
            rtol=_FP16_RTOL,
        ),
        entry(
            "decoder-matmulnbits-gqa", "decoder-quantized", "onnxruntime-genai", True, build_genai_decoder,
            inputs_for_genai_decoder, {"block_size": 32, "accuracy_level": 1, "genai_version": GENAI_VERSION}, _FP32_ATOL,
            "a small Llama (the zoo's sizes: hidden 64, 2 layers, 4 query and 2 key/value heads; random weights "
            "of std 0.1) written by onnxruntime-genai's model builder (-p int4 -e cpu, block_size=32, symmetric, "
            "accuracy_level=1 so that onnxruntime computes in fp32) from a local directory, offline: com.microsoft "
            "MatMulNBits 11 (4-bit weights: fused QKV, o_proj, gate, up, down, lm_head), GroupQueryAttention 2 "
            "(do_rotary with cos/sin caches, past_key_values inputs and present outputs), "
            "SkipSimplifiedLayerNormalization 4; SimplifiedLayerNormalization 1 in the default domain (onnxruntime "
            "registers it there; it is no ONNX operator); embedding Gather in fp32, SiLU as Sigmoid and Mul, the "
            "mask's ReduceSum/Sub/Shape/Gather/Cast into GroupQueryAttention's seqlens_k and total length. "
            "Dynamic batch, sequence and past; tested on 5 new tokens after 7 cached ones at batch 1",
            rtol=_FP32_RTOL,
        ),
    ]


# --------------------------------------------------------------------------------------------------
# Building by hand and printing op types


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import zoo_models

    chosen = [model for model in zoo_models.MODELS if model.exporter in EXPORTERS and (not argv or model.name in argv)]
    for model in chosen:
        with tempfile.TemporaryDirectory() as directory:
            started = time.perf_counter()
            path = model.build(directory)
            census = ", ".join(f"{op} {count}" for op, count in op_census(path).items())
            print(f"{model.name}: built in {time.perf_counter() - started:.1f} s; {census}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
