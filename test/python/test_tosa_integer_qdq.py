"""QDQ and QOperator models as integer TOSA (transforms/tosa/quantized_regions/; QOperator ops
through quantization/qdq_form.py, at the end): a small CNN (Conv-BN-ReLU x3
with a stride, a 1x1 stride-2 shortcut, an Add residual, MaxPool, GlobalAveragePool, Flatten, Gemm) exported by torch at opset
17 and quantized by onnxruntime's quantize_static (QDQ, int8 activations asymmetric and symmetric, and uint8 activations as its
default QUInt8 makes them; per-channel int8 weights, seeded calibration) and an activation network (tables, integer
products). The transformer encoder is test_tosa_integer_encoder.py's.

- Between the graph's boundary QuantizeLinear and DequantizeLinear nothing is float: convolutions,
  matmuls, pools and sums run on int8 with int32 accumulators, requantized by tosa.rescale; with
  quantized_io="int8" the module has no float tensor at all.
- Vela (ethos-u85-256) places every operator of the int8-io graph on the NPU.
- The TOSA reference model, our runner and IREE are within one quantization step of onnxruntime
  run without graph optimizations (DequantizeLinear -> float op -> QuantizeLinear, the ONNX
  definition). onnxruntime's optimized QDQ kernels are the reference only where its uint8 x int8
  arithmetic is exact (onnxruntime_reference.uint8_int8_saturation): it runs int8 activations
  shifted to uint8, and without AVX-VNNI its pairwise 16-bit sums saturate (measured: 9 output
  steps off on this model, the first convolution 40 steps).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import onnx
import onnxruntime
import pytest

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from integer_tosa_checks import (
    FLOAT_OPS, SEED, assert_vela_places_every_operator_on_the_npu, exported, input_scale, onnx_semantics, output_step,
    quantized, trained_looking, within_one_step)
from onnxruntime_reference import uint8_int8_saturation

torch = pytest.importorskip("torch")
quantization = pytest.importorskip("onnxruntime.quantization")


def _network():
    from torch import nn

    def block(inputs, outputs, stride=1):
        return nn.Sequential(nn.Conv2d(inputs, outputs, 3, stride, 1, bias=False), nn.BatchNorm2d(outputs), nn.ReLU())

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.first, self.down, self.residual = block(3, 16), block(16, 32, 2), block(32, 32)
            # ResNet's 1x1 stride-2 shortcut: 32 - 1 is odd, so TorchToTosa slices its input first.
            self.shortcut = nn.Conv2d(16, 32, 1, 2, bias=False)
            self.pool, self.gap, self.fc = nn.MaxPool2d(2), nn.AdaptiveAvgPool2d(1), nn.Linear(32, 10)

        def forward(self, x):
            first = self.first(x)
            y = self.down(first) + self.shortcut(first)
            y = self.pool(y + self.residual(y))
            return self.fc(torch.flatten(self.gap(y), 1))

    torch.manual_seed(SEED)
    return trained_looking(Net().eval())


@pytest.fixture(scope="module", params=["asymmetric", "symmetric", "uint8"])
def model_path(request, tmp_path_factory):
    directory = tmp_path_factory.mktemp(f"qdq-cnn-{request.param}")
    path = quantized(exported(_network(), (1, 3, 32, 32), directory / "float.onnx"), directory / "model.onnx",
                     (1, 3, 32, 32), "uint8" if request.param == "uint8" else "int8",
                     symmetric=request.param == "symmetric")
    return path


def _inputs(count=3):
    rng = np.random.default_rng(SEED + 1)
    return [rng.standard_normal((1, 3, 32, 32), dtype=np.float32) for _ in range(count)]


def test_no_float_op_between_the_boundary_quantizations(model_path):
    text = str(onnx_torch_mlir.compile(str(model_path), "tosa"))
    for op in ("conv2d", "matmul", "max_pool2d", "reduce_sum"):
        assert re.search(rf"tosa\.{op} .*-> tensor<[0-9x]+xi(8|32)>", text), op
    assert "tosa.rescale" in text
    # What is float is the input's QuantizeLinear (ending in a cast to int8) and the output's
    # DequantizeLinear (cast from int8, subtract, multiply): no float conv, pool, sum or matmul.
    assert not re.search(r"tosa\.(conv2d|depthwise_conv2d|matmul|max_pool2d|avg_pool2d|reduce_sum) .*xf32>", text)
    int8 = str(onnx_torch_mlir.compile(str(model_path), "tosa", quantized_io="int8"))
    assert "f32" not in int8, FLOAT_OPS.findall(int8)
    assert "bitwise_xor" not in int8  # uint8 bits flipped to int8 and back fold away
    assert "func.func @main_graph(%arg0: tensor<1x3x32x32xi8>) -> tensor<1x10xi8>" in int8


@pytest.mark.skipif(shutil.which("vela") is None, reason="ethos-u-vela is not installed")
def test_vela_places_every_operator_on_the_npu(model_path, tmp_path):
    assert_vela_places_every_operator_on_the_npu(model_path, tmp_path)


def test_tosa_reference_model_within_one_step(model_path):
    from onnx_torch_mlir.runtime.tosa_reference import compile_with_tosa_reference

    session, (scale, zero_point) = onnx_semantics(model_path), output_step(model_path)
    program = compile_with_tosa_reference(onnx_torch_mlir.compile(str(model_path), "tosa"))
    int8_program = compile_with_tosa_reference(onnx_torch_mlir.compile(str(model_path), "tosa", quantized_io="int8"))
    quantized_input = input_scale(model_path)
    for x in _inputs():
        (want,) = session.run(None, {"x": x})
        got = program(x)
        within_one_step(got[0] if isinstance(got, (list, tuple)) else got, want, scale)
        quantized = np.clip(np.round(x / np.float32(quantized_input[0])) + quantized_input[1], -128, 127).astype(np.int8)
        got = int8_program(quantized)
        got = got[0] if isinstance(got, (list, tuple)) else got
        within_one_step((got.astype(np.float64) - zero_point) * scale, want, scale)


def test_reference_runner_within_one_step(model_path):
    session, (scale, _) = onnx_semantics(model_path), output_step(model_path)
    module = onnx_torch_mlir.compile(str(model_path), "tosa")
    for x in _inputs():
        (want,) = session.run(None, {"x": x})
        (got,) = runtime.run(module, [x], input_dialect="tosa", result_dtypes=[want.dtype])
        within_one_step(got, want, scale)


def test_iree_within_one_step(model_path):
    from onnx_torch_mlir.runtime.iree import compile_with_iree

    session, (scale, _) = onnx_semantics(model_path), output_step(model_path)
    program = compile_with_iree(onnx_torch_mlir.compile(str(model_path), "tosa"), "tosa")
    for x in _inputs(2):
        (want,) = session.run(None, {"x": x})
        (got,) = program(x, result_dtypes=[want.dtype])
        within_one_step(got, want, scale)


def test_optimized_onnxruntime_where_its_int8_kernels_are_exact(model_path):
    if uint8_int8_saturation():
        pytest.skip("onnxruntime's int8 kernels saturate on this CPU (no AVX-VNNI): its optimized QDQ graph is no "
                    "reference here")
    session = onnxruntime.InferenceSession(str(model_path), providers=["CPUExecutionProvider"])
    scale, _ = output_step(model_path)
    module = onnx_torch_mlir.compile(str(model_path), "tosa")
    for x in _inputs():
        (want,) = session.run(None, {"x": x})
        (got,) = runtime.run(module, [x], input_dialect="tosa", result_dtypes=[want.dtype])
        within_one_step(got, want, scale)


def _uint8_matmul_model(path: Path) -> Path:
    """x -> QuantizeLinear(uint8) -> DequantizeLinear -> MatMul with a DequantizeLinear of a uint8
    initializer (onnxruntime's U8U8) -> Add of a dequantized uint8 vector -> QuantizeLinear(uint8)
    -> DequantizeLinear."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(SEED + 2)
    initializers = [
        numpy_helper.from_array(rng.integers(0, 256, (16, 8), dtype=np.uint8), "w"),
        numpy_helper.from_array(np.array(0.02, np.float32), "w_scale"),
        numpy_helper.from_array(np.array(131, np.uint8), "w_zero"),
        numpy_helper.from_array(np.array(0.03, np.float32), "x_scale"),
        numpy_helper.from_array(np.array(120, np.uint8), "x_zero"),
        numpy_helper.from_array(rng.integers(0, 256, (8,), dtype=np.uint8), "bias"),
        numpy_helper.from_array(np.array(0.01, np.float32), "bias_scale"),
        numpy_helper.from_array(np.array(128, np.uint8), "bias_zero"),
        numpy_helper.from_array(np.array(0.2, np.float32), "y_scale"),
        numpy_helper.from_array(np.array(140, np.uint8), "y_zero"),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zero"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "x_scale", "x_zero"], ["xd"]),
        helper.make_node("DequantizeLinear", ["w", "w_scale", "w_zero"], ["wd"]),
        helper.make_node("MatMul", ["xd", "wd"], ["product"]),
        helper.make_node("DequantizeLinear", ["bias", "bias_scale", "bias_zero"], ["bias_d"]),
        helper.make_node("Add", ["product", "bias_d"], ["sum"]),
        helper.make_node("QuantizeLinear", ["sum", "y_scale", "y_zero"], ["yq"]),
        helper.make_node("DequantizeLinear", ["yq", "y_scale", "y_zero"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 16])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8])], initializers)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), str(path))
    return path


def test_uint8_weights_are_read_as_int8(tmp_path):
    """A uint8 initializer becomes the int8 constant q - 128 (torch-mlir's TOSA lowering makes no
    uint8 constants): an int8 matmul, within one step of onnxruntime."""
    path = _uint8_matmul_model(tmp_path / "model.onnx")
    module = onnx_torch_mlir.compile(str(path), "tosa")
    assert re.search(r"tosa\.matmul .*-> tensor<1x4x8xi32>", str(module)), str(module)
    session = onnx_semantics(path)
    x = np.random.default_rng(SEED + 3).standard_normal((4, 16), dtype=np.float32) * 2
    (want,) = session.run(None, {"x": x})
    (got,) = runtime.run(module, [x], input_dialect="tosa", result_dtypes=[want.dtype])
    within_one_step(got, want, 0.2)


def test_dequantized_uint8_scalar_constant(tmp_path):
    """A DequantizeLinear of a uint8 scalar initializer (quantized BERT's LayerNorm epsilon and
    scales): torch-mlir's TOSA lowering refused its uint8 constant ("'tosa.const' op expected
    same attr/result element types")."""
    from onnx import TensorProto, helper, numpy_helper

    initializers = [numpy_helper.from_array(np.array(200, np.uint8), "c"),
                    numpy_helper.from_array(np.array(0.02, np.float32), "c_scale"),
                    numpy_helper.from_array(np.array(128, np.uint8), "c_zero")]
    nodes = [helper.make_node("DequantizeLinear", ["c", "c_scale", "c_zero"], ["factor"]),
             helper.make_node("Mul", ["x", "factor"], ["y"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8])], initializers)
    path = tmp_path / "model.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), str(path))
    x = np.random.default_rng(SEED + 4).standard_normal((4, 8), dtype=np.float32)
    (got,) = runtime.run(onnx_torch_mlir.compile(str(path), "tosa"), [x], input_dialect="tosa", result_dtypes=[np.float32])
    np.testing.assert_allclose(got, x * np.float32(0.02 * 72), rtol=1e-6)


def _activation_network():
    """SiLU (Sigmoid, Mul), a depthwise convolution, HardSwish and a squeeze-excite gate (Sigmoid
    of two 1x1 convolutions, multiplied into the image): MobileNetV3's and EfficientNet's blocks;
    then a Pad, a nearest Resize and a Concat of inputs of different scales (a detector's neck)."""
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1, self.b1 = nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16)
            self.c2, self.b2 = nn.Conv2d(16, 16, 3, 2, 1, groups=16, bias=False), nn.BatchNorm2d(16)
            self.se1, self.se2 = nn.Conv2d(16, 4, 1), nn.Conv2d(4, 16, 1)
            self.down, self.fc = nn.Conv2d(16, 8, 3, 2), nn.Linear(24, 10)

        def forward(self, x):
            y = nn.functional.silu(self.b1(self.c1(x)))
            y = nn.functional.hardswish(self.b2(self.c2(y)))
            gate = torch.sigmoid(self.se2(torch.relu(self.se1(y.mean((2, 3), keepdim=True)))))
            y = y * gate
            # a padded stride-2 branch upsampled back (nearest) and concatenated: inputs of different scales
            branch = self.down(nn.functional.pad(y, (1, 0, 1, 0), value=0.5))
            y = torch.cat([y, nn.functional.interpolate(branch, scale_factor=2.0, mode="nearest")], 1)
            return self.fc(torch.flatten(y.mean((2, 3)), 1))

    torch.manual_seed(SEED)
    return trained_looking(Net().eval())


@pytest.fixture(scope="module", params=["int8", "uint8"])
def activation_model_path(request, tmp_path_factory):
    directory = tmp_path_factory.mktemp(f"qdq-activations-{request.param}")
    return quantized(exported(_activation_network(), (1, 3, 32, 32), directory / "float.onnx"),
                     directory / "model.onnx", (1, 3, 32, 32), request.param)


def test_activations_are_tables_and_gates_integer_products(activation_model_path):
    int8 = str(onnx_torch_mlir.compile(str(activation_model_path), "tosa", quantized_io="int8"))
    assert "f32" not in int8, FLOAT_OPS.findall(int8)
    assert len(re.findall(r"= tosa\.table ", int8)) == 3  # Sigmoid of SiLU, HardSwish, the gate's Sigmoid
    # SiLU's and the gate's products (the other i32 products compute the upsampling's gather indices)
    assert len(re.findall(r"= tosa\.mul .*-> tensor<1x\d+x\d+x\d+xi32>", int8)) == 2
    assert "xi64>" not in int8  # Vela refuses a graph with any i64 tensor


def test_activation_network_within_one_step(activation_model_path):
    from onnx_torch_mlir.runtime.iree import compile_with_iree
    from onnx_torch_mlir.runtime.tosa_reference import compile_with_tosa_reference

    session, (scale, _) = onnx_semantics(activation_model_path), output_step(activation_model_path)
    module = onnx_torch_mlir.compile(str(activation_model_path), "tosa")
    consumers = [compile_with_tosa_reference(module), compile_with_iree(module, "tosa")]
    for x in _inputs(2):
        (want,) = session.run(None, {"x": x})
        (got,) = runtime.run(module, [x], input_dialect="tosa", result_dtypes=[want.dtype])
        within_one_step(got, want, scale)
        for program in consumers:
            got = program(x) if program is consumers[0] else program(x, result_dtypes=[want.dtype])
            within_one_step(got[0] if isinstance(got, (list, tuple)) else got, want, scale)


@pytest.mark.skipif(shutil.which("vela") is None, reason="ethos-u-vela is not installed")
def test_vela_places_the_activation_network_on_the_npu(activation_model_path, tmp_path):
    assert_vela_places_every_operator_on_the_npu(activation_model_path, tmp_path)


# -- QOperator models (conversion/.../quantization/qdq_form.py) -------------------------------------------------------
# The same two networks quantized by quantize_static in QOperator format (QLinearConv, QLinearAdd, QLinearMul,
# QLinearSigmoid, QLinearConcat, QLinearGlobalAveragePool, QGemm; MaxPool, Pad, Resize, Flatten directly on uint8;
# HardSwish and ReduceMean in float between a DequantizeLinear and a QuantizeLinear), uint8 activations (the
# quantizer's default) and per-channel int8 weights. The reference is the QDQ twin (the same calibration, so the same
# scales) run by onnxruntime without optimizations: onnxruntime's QOperator kernels multiply uint8 by int8 with
# saturating 16-bit pair sums on CPUs without AVX-VNNI (see the module docstring), and are no reference here.

@pytest.fixture(scope="module", params=["cnn", "activations"])
def qoperator_pair(request, tmp_path_factory):
    """(the QOperator model, its QDQ twin)."""
    directory = tmp_path_factory.mktemp(f"qoperator-{request.param}")
    network = _network() if request.param == "cnn" else _activation_network()
    float_path = exported(network, (1, 3, 32, 32), directory / "float.onnx")
    return (quantized(float_path, directory / "qoperator.onnx", (1, 3, 32, 32), "uint8",
                      quantization.QuantFormat.QOperator),
            quantized(float_path, directory / "qdq.onnx", (1, 3, 32, 32), "uint8"))


def test_qoperator_model_is_integer_tosa(qoperator_pair):
    path, _ = qoperator_pair
    ops = {node.op_type for node in onnx.load(str(path)).graph.node}
    assert {"QLinearConv", "QGemm"} <= ops, ops  # the QOperator form, not QDQ
    assert "Conv" not in ops and "Gemm" not in ops
    text = str(onnx_torch_mlir.compile(str(path), "tosa"))
    assert re.search(r"tosa\.conv2d .*-> tensor<[0-9x]+xi32>", text)
    assert re.search(r"tosa\.matmul .*-> tensor<[0-9x]+xi32>", text)
    assert not re.search(r"tosa\.(conv2d|depthwise_conv2d|matmul|reduce_sum) .*xf32>", text)
    int8 = str(onnx_torch_mlir.compile(str(path), "tosa", quantized_io="int8"))
    assert "f32" not in int8, FLOAT_OPS.findall(int8)


def test_qoperator_model_within_one_step_of_its_qdq_twin(qoperator_pair):
    from onnx_torch_mlir.runtime.iree import compile_with_iree
    from onnx_torch_mlir.runtime.tosa_reference import compile_with_tosa_reference

    path, twin = qoperator_pair
    session, (scale, _) = onnx_semantics(twin), output_step(twin)
    module = onnx_torch_mlir.compile(str(path), "tosa")
    reference_model, iree = compile_with_tosa_reference(module), compile_with_iree(module, "tosa")
    for x in _inputs(2):
        (want,) = session.run(None, {"x": x})
        (got,) = runtime.run(module, [x], input_dialect="tosa", result_dtypes=[want.dtype])
        within_one_step(got, want, scale)
        got = reference_model(x)
        within_one_step(got[0] if isinstance(got, (list, tuple)) else got, want, scale)
        (got,) = iree(x, result_dtypes=[want.dtype])
        within_one_step(got, want, scale)


@pytest.mark.skipif(shutil.which("vela") is None, reason="ethos-u-vela is not installed")
def test_vela_places_the_qoperator_model_on_the_npu(qoperator_pair, tmp_path):
    assert_vela_places_every_operator_on_the_npu(qoperator_pair[0], tmp_path)


# -- A QDQ transformer encoder (quantized_regions/normalizations.py) -------------------------------------------------


def test_an_input_quantized_only_after_other_ops_stays_the_models_input():
    """quantized_io="int8" makes an input int8 only where a QuantizeLinear reads the input itself:
    token ids gathered into embeddings, then quantized, stay the int64 ids (the int8 tensor would be
    the embeddings, not the model's input), and the output is the int8 embeddings."""
    from onnx import TensorProto, helper, numpy_helper

    table = np.random.default_rng(SEED).standard_normal((10, 8)).astype(np.float32)
    nodes = [helper.make_node("Gather", ["table", "ids"], ["embedded"]),
             helper.make_node("QuantizeLinear", ["embedded", "scale", "zero_point"], ["q"]),
             helper.make_node("DequantizeLinear", ["q", "scale", "zero_point"], ["y"])]
    initializers = [numpy_helper.from_array(table, "table"), numpy_helper.from_array(np.float32(0.02), "scale"),
                    numpy_helper.from_array(np.int8(3), "zero_point")]
    graph = helper.make_graph(nodes, "embedding", [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8])], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    module = onnx_torch_mlir.compile(model, "tosa", quantized_io="int8")
    assert "(%arg0: tensor<1x4xi64>) -> tensor<1x4x8xi8>" in str(module)
    ids = np.array([[0, 9, 4, 4]], np.int64)
    (got,) = runtime.run(module, [ids], input_dialect="tosa")
    want = np.clip(np.round(table[ids] / np.float32(0.02)) + 3, -128, 127).astype(np.int8)
    np.testing.assert_array_equal(np.asarray(got), want)
