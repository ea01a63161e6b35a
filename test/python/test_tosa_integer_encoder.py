"""A QDQ ViT-style transformer encoder as integer TOSA (transforms/tosa/quantized_regions/normalizations.py):
Softmax and LayerNormalization in integer arithmetic, attention's products of two int8 activations, the
erf-GELU as tables. With quantized_io="int8" no float or int64 tensor is left, Vela (ethos-u85-256) places
every operator on the NPU, and our runner, Arm's TOSA reference model and IREE are within one output step of
onnxruntime run without graph optimizations (DequantizeLinear -> float op -> QuantizeLinear)."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from integer_tosa_checks import (
    FLOAT_OPS, SEED, assert_vela_places_every_operator_on_the_npu, exported, input_scale, onnx_semantics, output_step,
    quantized, trained_looking, within_one_step)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from zoo_npu import vit_encoder  # noqa: E402 - the network lives with the zoo's entry

torch = pytest.importorskip("torch")
quantization = pytest.importorskip("onnxruntime.quantization")


def _encoder():
    """zoo_npu's ViT-style encoder (the zoo's vit-encoder-qdq is the same network): 17 tokens of width 32,
    two pre-LayerNorm blocks of two-head self-attention and an erf-GELU MLP. quantize_static wraps every op in
    Q/DQ (LayerNormalization and Softmax included; the weights' biases are int8 constants added by Add), int8
    and uint8 activations."""
    torch.manual_seed(SEED)
    return trained_looking(vit_encoder(dim=32, heads=2, depth=2, patch=4, side=16, classes=10))


@pytest.fixture(scope="module", params=["int8", "uint8"])
def encoder(request, tmp_path_factory):
    """(the QDQ encoder's path, its TOSA with float io, its TOSA with int8 io)."""
    directory = tmp_path_factory.mktemp(f"qdq-encoder-{request.param}")
    path = quantized(exported(_encoder(), (1, 3, 16, 16), directory / "float.onnx"), directory / "model.onnx",
                     (1, 3, 16, 16), request.param)
    int8_module = onnx_torch_mlir.compile(str(path), "tosa", quantized_io="int8")
    return path, onnx_torch_mlir.compile(str(path), "tosa"), int8_module


def _encoder_inputs(count):
    rng = np.random.default_rng(SEED + 1)
    return [rng.standard_normal((1, 3, 16, 16), dtype=np.float32) for _ in range(count)]


def test_encoder_is_integer_tosa(encoder):
    path, _, int8_module = encoder
    ops = [node.op_type for node in onnx.load(str(path)).graph.node]
    assert ops.count("LayerNormalization") == 5 and ops.count("Softmax") == 2 and ops.count("Erf") == 2
    int8 = str(int8_module)
    assert "f32" not in int8, FLOAT_OPS.findall(int8)
    assert "xi64>" not in int8
    # Softmax: the row maximum, exponentials from an int16 table, the row sum's reciprocal in fixed point;
    # LayerNormalization: the inverse square root in fixed point (2 reciprocals + 5 inverse square roots)
    assert len(re.findall(r"= tosa\.reduce_max .*-> tensor<1x2x17x1xi32>", int8)) == 2
    assert len(re.findall(r"= tosa\.table .*tensor<513xi16>\) -> tensor<1x2x17x17xi32>", int8)) == 2
    assert len(re.findall(r"= tosa\.clz ", int8)) == 7
    # attention's products of two int8 activations
    assert len(re.findall(r"= tosa\.matmul .*-> tensor<2x17x17xi32>", int8)) == 2


def _quantized(x, path):
    """`x` as the int8 input of the quantized_io="int8" module (the model's first QuantizeLinear)."""
    scale, zero_point = input_scale(path)
    return np.clip(np.round(x / np.float32(scale)) + zero_point, -128, 127).astype(np.int8)


def _dequantized(got, path):
    scale, zero_point = output_step(path)
    got = got[0] if isinstance(got, (list, tuple)) else got
    return (np.asarray(got).astype(np.float64) - zero_point) * scale


def test_encoder_within_one_step(encoder):
    """Bit-identical on these inputs (0 steps) when measured; one step allowed for the ties that the float
    computation of Softmax and LayerNormalization rounds differently from ours. The int8-io module holds the
    integer Softmax and LayerNormalization; the float-io one keeps them float, as the QDQ model computes them."""
    from onnx_torch_mlir.runtime.tosa_reference import compile_with_tosa_reference

    path, module, int8_module = encoder
    session, (scale, _) = onnx_semantics(path), output_step(path)
    reference_model = compile_with_tosa_reference(module)
    int8_reference_model = compile_with_tosa_reference(int8_module)
    for x in _encoder_inputs(4):
        (want,) = session.run(None, {"x": x})
        (got,) = runtime.run(module, [x], input_dialect="tosa", result_dtypes=[want.dtype])
        within_one_step(got, want, scale)
        got = reference_model(x)
        within_one_step(got[0] if isinstance(got, (list, tuple)) else got, want, scale)
        within_one_step(_dequantized(int8_reference_model(_quantized(x, path)), path), want, scale)
        within_one_step(_dequantized(runtime.run(int8_module, [_quantized(x, path)], input_dialect="tosa"), path),
                        want, scale)


def test_encoder_on_iree_within_one_step(encoder):
    from onnx_torch_mlir.runtime.iree import compile_with_iree

    path, _, int8_module = encoder
    if "uint8" in str(path):
        pytest.skip("the int8 encoder is enough for IREE (20 s each)")
    session, (scale, _) = onnx_semantics(path), output_step(path)
    program = compile_with_iree(int8_module, "tosa")
    for x in _encoder_inputs(2):
        (want,) = session.run(None, {"x": x})
        within_one_step(_dequantized(program(_quantized(x, path)), path), want, scale)


@pytest.mark.skipif(shutil.which("vela") is None, reason="ethos-u-vela is not installed")
def test_vela_places_the_encoder_on_the_npu(encoder, tmp_path):
    assert_vela_places_every_operator_on_the_npu(encoder[0], tmp_path)


@pytest.mark.parametrize("op", ["Softmax", "LayerNormalization"])
def test_normalizations_alone_within_one_step(op, tmp_path):
    """One Softmax or LayerNormalization between Q/DQ over 48-long rows of different spreads and offsets
    (int8 activations; gamma of both signs): within one step of onnxruntime everywhere."""
    from torch import nn

    shape = (1, 2, 64, 48) if op == "Softmax" else (1, 64, 48)
    torch.manual_seed(SEED)
    norm = nn.LayerNorm(shape[-1])
    norm.weight.data.uniform_(-1.5, 1.5)
    norm.bias.data.uniform_(-0.5, 0.5)
    rng = np.random.default_rng(SEED + 5)

    def rows():
        spread = rng.uniform(0.5, 3, shape[:-1] + (1,)).astype(np.float32)
        offset = rng.uniform(-1, 1, shape[:-1] + (1,)).astype(np.float32)
        return rng.standard_normal(shape).astype(np.float32) * spread + offset

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = norm

        def forward(self, x):
            return torch.softmax(x, -1) if op == "Softmax" else self.norm(x)

    class Calibration(quantization.CalibrationDataReader):
        def __init__(self):
            self.feeds = iter([{"x": rows()} for _ in range(4)])

        def get_next(self):
            return next(self.feeds, None)

    float_path, path = tmp_path / "float.onnx", tmp_path / "model.onnx"
    torch.onnx.export(Net(), torch.randn(*shape), str(float_path), opset_version=17, input_names=["x"],
                      output_names=["y"], dynamo=False)
    quantization.quantize_static(
        str(float_path), str(path), Calibration(), quant_format=quantization.QuantFormat.QDQ,
        activation_type=quantization.QuantType.QInt8, calibrate_method=quantization.CalibrationMethod.MinMax)
    module = onnx_torch_mlir.compile(str(path), "tosa", quantized_io="int8")
    assert "f32" not in str(module)
    session, (scale, _) = onnx_semantics(path), output_step(path)
    for x in [rows() for _ in range(3)]:
        (want,) = session.run(None, {"x": x})
        within_one_step(_dequantized(runtime.run(module, [_quantized(x, path)], input_dialect="tosa"), path), want,
                        scale)
