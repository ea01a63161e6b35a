"""What the integer-TOSA tests of QDQ models share (test_tosa_integer_qdq.py, test_tosa_integer_encoder.py):
onnxruntime run as the ONNX definition computes, a model's input and output quantization steps, the
one-step comparison, Vela's placement check, and a seeded calibration reader."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import onnx
import onnxruntime
from onnxruntime import quantization

import onnx_torch_mlir

SEED = 20261201
FLOAT_OPS = re.compile(r"= tosa\.(\w+).*xf(32|16)>")


class Calibration(quantization.CalibrationDataReader):
    """`count` seeded standard-normal feeds of the input "x" of `shape`."""

    def __init__(self, shape, count=8):
        rng = np.random.default_rng(SEED)
        self.feeds = iter([{"x": rng.standard_normal(shape, dtype=np.float32)} for _ in range(count)])

    def get_next(self):
        return next(self.feeds, None)


def onnx_semantics(path: Path) -> onnxruntime.InferenceSession:
    """onnxruntime without graph optimizations: each DequantizeLinear, float op and QuantizeLinear as written."""
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def output_step(path: Path) -> tuple[float, int]:
    """The scale and zero point (of the int8 form: uint8's moved by -128) of the graph's last DequantizeLinear."""
    model = onnx.load(str(path))
    initializers = {tensor.name: onnx.numpy_helper.to_array(tensor) for tensor in model.graph.initializer}
    last = next(node for node in model.graph.node if node.output[0] == model.graph.output[0].name)
    return float(initializers[last.input[1]]), int8_zero_point(initializers[last.input[2]])


def int8_zero_point(zero_point: np.ndarray) -> int:
    """With quantized_io="int8" a uint8 tensor q is passed as the int8 q - 128."""
    return int(zero_point) - (128 if zero_point.dtype == np.uint8 else 0)


def assert_vela_places_every_operator_on_the_npu(path: Path, directory: Path) -> None:
    """Vela (ethos-u85-256) compiles the int8-io TOSA of `path` with no operator left to the CPU."""
    from onnx_torch_mlir.runtime.vela import compile_with_vela

    placement = compile_with_vela(onnx_torch_mlir.compile(str(path), "tosa", quantized_io="int8"),
                                  "ethos-u85-256", directory / "out", timeout=600)
    assert placement.every_operator_on_the_npu and placement.npu_operators > 0, placement.summary()


def within_one_step(got, want, scale):
    steps = np.abs(np.asarray(got, np.float64) - want) / scale
    assert steps.max() <= 1.0 + 1e-3, f"{steps.max():.2f} steps off"


def input_scale(path: Path) -> tuple[float, int]:
    model = onnx.load(str(path))
    initializers = {tensor.name: onnx.numpy_helper.to_array(tensor) for tensor in model.graph.initializer}
    first = next(node for node in model.graph.node if node.op_type == "QuantizeLinear" and node.input[0] == "x")
    return float(initializers[first.input[1]]), int8_zero_point(initializers[first.input[2]])


def exported(network, shape, path: Path) -> Path:
    """`network` exported by torch's TorchScript exporter at opset 17, its input "x" of `shape`."""
    import torch

    torch.onnx.export(network, torch.randn(*shape), str(path), opset_version=17, input_names=["x"],
                      output_names=["y"], dynamo=False)
    return path


def quantized(float_path: Path, path: Path, shape, activations: str = "int8", quant_format=None,
              symmetric: bool = False) -> Path:
    """`float_path` quantized by onnxruntime's quantize_static (QDQ unless `quant_format` says, per-channel int8
    weights, `activations` "int8" or "uint8", MinMax over the seeded `Calibration(shape)`) into `path`."""
    quantization.quantize_static(
        str(float_path), str(path), Calibration(shape), quant_format=quant_format or quantization.QuantFormat.QDQ,
        per_channel=True, weight_type=quantization.QuantType.QInt8,
        activation_type=quantization.QuantType.QUInt8 if activations == "uint8" else quantization.QuantType.QInt8,
        calibrate_method=quantization.CalibrationMethod.MinMax, extra_options={"ActivationSymmetric": symmetric})
    return path


def trained_looking(net):
    """`net` (in eval mode) with the statistics and affine parameters of a trained network instead of
    the identity its initialization gives: batch norms' running mean and variance, weight and bias;
    layer norms' weight and bias (drawn from torch's seeded generator, in module order)."""
    from torch import nn

    for module in net.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
        if isinstance(module, (nn.BatchNorm2d, nn.LayerNorm)):
            module.weight.data.uniform_(0.5, 1.5)
            module.bias.data.uniform_(-0.3, 0.3)
    return net
