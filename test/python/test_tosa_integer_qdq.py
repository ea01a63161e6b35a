"""QDQ and QOperator models as integer TOSA (transforms/tosa/quantized_regions/; QOperator ops
through quantization/qdq_form.py, at the end): a small CNN (Conv-BN-ReLU x3
with a stride, a 1x1 stride-2 shortcut, an Add residual, MaxPool, GlobalAveragePool, Flatten, Gemm) exported by torch at opset
17 and quantized by onnxruntime's quantize_static (QDQ, int8 activations asymmetric and symmetric, and uint8 activations as its
default QUInt8 makes them; per-channel int8 weights, seeded calibration); an activation network (tables, integer
products); and a ViT-style transformer encoder (Softmax and LayerNormalization in integer arithmetic, attention's
products of two int8 activations).

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
import subprocess
from pathlib import Path

import numpy as np
import onnx
import onnxruntime
import pytest

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnxruntime_reference import uint8_int8_saturation

torch = pytest.importorskip("torch")
quantization = pytest.importorskip("onnxruntime.quantization")

SEED = 20261201
FLOAT_OPS = re.compile(r"= tosa\.(\w+).*xf(32|16)>")


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
    net = Net().eval()
    for module in net.modules():
        if isinstance(module, nn.BatchNorm2d):  # statistics of a trained network, not the identity
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
            module.weight.data.uniform_(0.5, 1.5)
            module.bias.data.uniform_(-0.3, 0.3)
    return net


class _Calibration(quantization.CalibrationDataReader):
    def __init__(self):
        rng = np.random.default_rng(SEED)
        self.feeds = iter([{"x": rng.standard_normal((1, 3, 32, 32), dtype=np.float32)} for _ in range(8)])

    def get_next(self):
        return next(self.feeds, None)


@pytest.fixture(scope="module", params=["asymmetric", "symmetric", "uint8"])
def model_path(request, tmp_path_factory):
    directory = tmp_path_factory.mktemp(f"qdq-cnn-{request.param}")
    float_path, path = directory / "float.onnx", directory / "model.onnx"
    torch.onnx.export(_network(), torch.randn(1, 3, 32, 32), str(float_path), opset_version=17, input_names=["x"],
                      output_names=["y"], dynamo=False)
    quantization.quantize_static(
        str(float_path), str(path), _Calibration(), quant_format=quantization.QuantFormat.QDQ, per_channel=True,
        activation_type=quantization.QuantType.QUInt8 if request.param == "uint8" else quantization.QuantType.QInt8,
        weight_type=quantization.QuantType.QInt8, calibrate_method=quantization.CalibrationMethod.MinMax,
        extra_options={"ActivationSymmetric": request.param == "symmetric"})
    return path


def _inputs(count=3):
    rng = np.random.default_rng(SEED + 1)
    return [rng.standard_normal((1, 3, 32, 32), dtype=np.float32) for _ in range(count)]


def _onnx_semantics(path: Path) -> onnxruntime.InferenceSession:
    """onnxruntime without graph optimizations: each DequantizeLinear, float op and QuantizeLinear as written."""
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def _output_step(path: Path) -> tuple[float, int]:
    """The scale and zero point (of the int8 form: uint8's moved by -128) of the graph's last DequantizeLinear."""
    model = onnx.load(str(path))
    initializers = {tensor.name: onnx.numpy_helper.to_array(tensor) for tensor in model.graph.initializer}
    last = next(node for node in model.graph.node if node.output[0] == model.graph.output[0].name)
    return float(initializers[last.input[1]]), _int8_zero_point(initializers[last.input[2]])


def _int8_zero_point(zero_point: np.ndarray) -> int:
    """With quantized_io="int8" a uint8 tensor q is passed as the int8 q - 128."""
    return int(zero_point) - (128 if zero_point.dtype == np.uint8 else 0)


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


def _assert_vela_places_every_operator_on_the_npu(path: Path, directory: Path) -> None:
    """Vela (ethos-u85-256) compiles the int8-io TOSA of `path` with no operator left to the CPU."""
    from onnx_torch_mlir.runtime.tosa_reference import serialize

    serialize(onnx_torch_mlir.compile(str(path), "tosa", quantized_io="int8"), directory / "model.tosa")
    done = subprocess.run(["vela", str(directory / "model.tosa"), "--accelerator-config", "ethos-u85-256",
                           "--output-dir", str(directory / "out")], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert re.search(r"CPU operators = 0 \(0\.0%\)", done.stdout), done.stdout
    assert re.search(r"NPU operators = \d+ \(100\.0%\)", done.stdout), done.stdout


@pytest.mark.skipif(shutil.which("vela") is None, reason="ethos-u-vela is not installed")
def test_vela_places_every_operator_on_the_npu(model_path, tmp_path):
    _assert_vela_places_every_operator_on_the_npu(model_path, tmp_path)


def _within_one_step(got, want, scale):
    steps = np.abs(np.asarray(got, np.float64) - want) / scale
    assert steps.max() <= 1.0 + 1e-3, f"{steps.max():.2f} steps off"


def test_tosa_reference_model_within_one_step(model_path):
    from onnx_torch_mlir.runtime.tosa_reference import compile_with_tosa_reference

    session, (scale, zero_point) = _onnx_semantics(model_path), _output_step(model_path)
    program = compile_with_tosa_reference(onnx_torch_mlir.compile(str(model_path), "tosa"))
    int8_program = compile_with_tosa_reference(onnx_torch_mlir.compile(str(model_path), "tosa", quantized_io="int8"))
    input_scale = _input_scale(model_path)
    for x in _inputs():
        (want,) = session.run(None, {"x": x})
        got = program(x)
        _within_one_step(got[0] if isinstance(got, (list, tuple)) else got, want, scale)
        quantized = np.clip(np.round(x / np.float32(input_scale[0])) + input_scale[1], -128, 127).astype(np.int8)
        got = int8_program(quantized)
        got = got[0] if isinstance(got, (list, tuple)) else got
        _within_one_step((got.astype(np.float64) - zero_point) * scale, want, scale)


def _input_scale(path: Path) -> tuple[float, int]:
    model = onnx.load(str(path))
    initializers = {tensor.name: onnx.numpy_helper.to_array(tensor) for tensor in model.graph.initializer}
    first = next(node for node in model.graph.node if node.op_type == "QuantizeLinear" and node.input[0] == "x")
    return float(initializers[first.input[1]]), _int8_zero_point(initializers[first.input[2]])


def test_reference_runner_within_one_step(model_path):
    session, (scale, _) = _onnx_semantics(model_path), _output_step(model_path)
    module = onnx_torch_mlir.compile(str(model_path), "tosa")
    for x in _inputs():
        (want,) = session.run(None, {"x": x})
        (got,) = runtime.run(module, [x], input_dialect="tosa", result_dtypes=[want.dtype])
        _within_one_step(got, want, scale)


def test_iree_within_one_step(model_path):
    from onnx_torch_mlir.runtime.iree import compile_with_iree

    session, (scale, _) = _onnx_semantics(model_path), _output_step(model_path)
    program = compile_with_iree(onnx_torch_mlir.compile(str(model_path), "tosa"), "tosa")
    for x in _inputs(2):
        (want,) = session.run(None, {"x": x})
        (got,) = program(x, result_dtypes=[want.dtype])
        _within_one_step(got, want, scale)


def test_optimized_onnxruntime_where_its_int8_kernels_are_exact(model_path):
    if uint8_int8_saturation():
        pytest.skip("onnxruntime's int8 kernels saturate on this CPU (no AVX-VNNI): its optimized QDQ graph is no "
                    "reference here")
    session = onnxruntime.InferenceSession(str(model_path), providers=["CPUExecutionProvider"])
    scale, _ = _output_step(model_path)
    module = onnx_torch_mlir.compile(str(model_path), "tosa")
    for x in _inputs():
        (want,) = session.run(None, {"x": x})
        (got,) = runtime.run(module, [x], input_dialect="tosa", result_dtypes=[want.dtype])
        _within_one_step(got, want, scale)


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
    session = _onnx_semantics(path)
    x = np.random.default_rng(SEED + 3).standard_normal((4, 16), dtype=np.float32) * 2
    (want,) = session.run(None, {"x": x})
    (got,) = runtime.run(module, [x], input_dialect="tosa", result_dtypes=[want.dtype])
    _within_one_step(got, want, 0.2)


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
    net = Net().eval()
    for module in net.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
            module.weight.data.uniform_(0.5, 1.5)
            module.bias.data.uniform_(-0.3, 0.3)
    return net


@pytest.fixture(scope="module", params=["int8", "uint8"])
def activation_model_path(request, tmp_path_factory):
    directory = tmp_path_factory.mktemp(f"qdq-activations-{request.param}")
    float_path, path = directory / "float.onnx", directory / "model.onnx"
    torch.onnx.export(_activation_network(), torch.randn(1, 3, 32, 32), str(float_path), opset_version=17,
                      input_names=["x"], output_names=["y"], dynamo=False)
    activations = quantization.QuantType.QUInt8 if request.param == "uint8" else quantization.QuantType.QInt8
    quantization.quantize_static(
        str(float_path), str(path), _Calibration(), quant_format=quantization.QuantFormat.QDQ, per_channel=True,
        activation_type=activations, weight_type=quantization.QuantType.QInt8,
        calibrate_method=quantization.CalibrationMethod.MinMax)
    return path


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

    session, (scale, _) = _onnx_semantics(activation_model_path), _output_step(activation_model_path)
    module = onnx_torch_mlir.compile(str(activation_model_path), "tosa")
    consumers = [compile_with_tosa_reference(module), compile_with_iree(module, "tosa")]
    for x in _inputs(2):
        (want,) = session.run(None, {"x": x})
        (got,) = runtime.run(module, [x], input_dialect="tosa", result_dtypes=[want.dtype])
        _within_one_step(got, want, scale)
        for program in consumers:
            got = program(x) if program is consumers[0] else program(x, result_dtypes=[want.dtype])
            _within_one_step(got[0] if isinstance(got, (list, tuple)) else got, want, scale)


@pytest.mark.skipif(shutil.which("vela") is None, reason="ethos-u-vela is not installed")
def test_vela_places_the_activation_network_on_the_npu(activation_model_path, tmp_path):
    _assert_vela_places_every_operator_on_the_npu(activation_model_path, tmp_path)


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
    float_path = directory / "float.onnx"
    torch.onnx.export(network, torch.randn(1, 3, 32, 32), str(float_path), opset_version=17, input_names=["x"],
                      output_names=["y"], dynamo=False)
    paths = {}
    for name, quant_format in (("qoperator", quantization.QuantFormat.QOperator), ("qdq", quantization.QuantFormat.QDQ)):
        paths[name] = directory / f"{name}.onnx"
        quantization.quantize_static(
            str(float_path), str(paths[name]), _Calibration(), quant_format=quant_format, per_channel=True,
            activation_type=quantization.QuantType.QUInt8, weight_type=quantization.QuantType.QInt8,
            calibrate_method=quantization.CalibrationMethod.MinMax)
    return paths["qoperator"], paths["qdq"]


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
    session, (scale, _) = _onnx_semantics(twin), _output_step(twin)
    module = onnx_torch_mlir.compile(str(path), "tosa")
    reference_model, iree = compile_with_tosa_reference(module), compile_with_iree(module, "tosa")
    for x in _inputs(2):
        (want,) = session.run(None, {"x": x})
        (got,) = runtime.run(module, [x], input_dialect="tosa", result_dtypes=[want.dtype])
        _within_one_step(got, want, scale)
        got = reference_model(x)
        _within_one_step(got[0] if isinstance(got, (list, tuple)) else got, want, scale)
        (got,) = iree(x, result_dtypes=[want.dtype])
        _within_one_step(got, want, scale)


@pytest.mark.skipif(shutil.which("vela") is None, reason="ethos-u-vela is not installed")
def test_vela_places_the_qoperator_model_on_the_npu(qoperator_pair, tmp_path):
    _assert_vela_places_every_operator_on_the_npu(qoperator_pair[0], tmp_path)


# -- A QDQ transformer encoder (quantized_regions/normalizations.py) -------------------------------------------------
# A ViT-style encoder on float features (Vela takes no int64 token ids): a patch-embedding Conv, a class token
# Concat, a position Add, two pre-LayerNorm blocks of two-head self-attention (MatMul of two activations, Mul by
# the head's 1/sqrt(d), Softmax) and an erf-GELU MLP with residual Adds, a final LayerNorm and a linear head on
# the class token. quantize_static wraps every op in Q/DQ (LayerNormalization and Softmax included; the weights'
# biases are int8 constants added by Add), int8 and uint8 activations.

class _Block(torch.nn.Module):
    def __init__(self, dim, heads, tokens):
        from torch import nn

        super().__init__()
        self.dim, self.heads, self.tokens = dim, heads, tokens
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.fc1, self.fc2 = nn.Linear(dim, 2 * dim), nn.Linear(2 * dim, dim)

    def forward(self, x):
        d, h = self.dim, self.heads
        q, k, v = self.qkv(self.norm1(x)).reshape(1, self.tokens, 3, h, d // h).permute(2, 0, 3, 1, 4)
        attention = torch.softmax(q @ k.transpose(-2, -1) * float((d // h) ** -0.5), dim=-1)
        x = x + self.proj((attention @ v).transpose(1, 2).reshape(1, self.tokens, d))
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.norm2(x))))


def _encoder(dim=32, heads=2, depth=2, patch=4, side=16, classes=10):
    from torch import nn

    tokens = (side // patch) ** 2 + 1

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Conv2d(3, dim, patch, patch)
            self.cls = nn.Parameter(torch.randn(1, 1, dim) * 0.5)
            self.position = nn.Parameter(torch.randn(1, tokens, dim) * 0.5)
            self.blocks = nn.ModuleList(_Block(dim, heads, tokens) for _ in range(depth))
            self.norm, self.head = nn.LayerNorm(dim), nn.Linear(dim, classes)

        def forward(self, x):
            x = torch.cat([self.cls, self.embed(x).flatten(2).transpose(1, 2)], 1) + self.position
            for block in self.blocks:
                x = block(x)
            return self.head(self.norm(x)[:, 0])

    torch.manual_seed(SEED)
    net = Encoder().eval()
    for module in net.modules():
        if isinstance(module, nn.LayerNorm):  # trained-looking affine parameters, not the identity
            module.weight.data.uniform_(0.5, 1.5)
            module.bias.data.uniform_(-0.3, 0.3)
    return net


class _EncoderCalibration(quantization.CalibrationDataReader):
    def __init__(self):
        rng = np.random.default_rng(SEED)
        self.feeds = iter([{"x": rng.standard_normal((1, 3, 16, 16), dtype=np.float32)} for _ in range(8)])

    def get_next(self):
        return next(self.feeds, None)


@pytest.fixture(scope="module", params=["int8", "uint8"])
def encoder(request, tmp_path_factory):
    """(the QDQ encoder's path, its TOSA with float io, its TOSA with int8 io)."""
    directory = tmp_path_factory.mktemp(f"qdq-encoder-{request.param}")
    float_path, path = directory / "float.onnx", directory / "model.onnx"
    torch.onnx.export(_encoder(), torch.randn(1, 3, 16, 16), str(float_path), opset_version=17, input_names=["x"],
                      output_names=["y"], dynamo=False)
    activations = quantization.QuantType.QUInt8 if request.param == "uint8" else quantization.QuantType.QInt8
    quantization.quantize_static(
        str(float_path), str(path), _EncoderCalibration(), quant_format=quantization.QuantFormat.QDQ,
        per_channel=True, activation_type=activations, weight_type=quantization.QuantType.QInt8,
        calibrate_method=quantization.CalibrationMethod.MinMax)
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


def test_encoder_within_one_step(encoder):
    """Bit-identical on these inputs (0 steps) when measured; one step allowed for the ties that the float
    computation of Softmax and LayerNormalization rounds differently from ours."""
    from onnx_torch_mlir.runtime.tosa_reference import compile_with_tosa_reference

    path, module, int8_module = encoder
    session, (scale, zero_point) = _onnx_semantics(path), _output_step(path)
    reference_model = compile_with_tosa_reference(module)
    int8_reference_model = compile_with_tosa_reference(int8_module)
    input_scale = _input_scale(path)
    for x in _encoder_inputs(4):
        (want,) = session.run(None, {"x": x})
        (got,) = runtime.run(module, [x], input_dialect="tosa", result_dtypes=[want.dtype])
        _within_one_step(got, want, scale)
        got = reference_model(x)
        _within_one_step(got[0] if isinstance(got, (list, tuple)) else got, want, scale)
        quantized = np.clip(np.round(x / np.float32(input_scale[0])) + input_scale[1], -128, 127).astype(np.int8)
        got = int8_reference_model(quantized)
        got = got[0] if isinstance(got, (list, tuple)) else got
        _within_one_step((got.astype(np.float64) - zero_point) * scale, want, scale)


def test_encoder_on_iree_within_one_step(encoder):
    from onnx_torch_mlir.runtime.iree import compile_with_iree

    path, module, _ = encoder
    if "uint8" in str(path):
        pytest.skip("the int8 encoder is enough for IREE (20 s each)")
    session, (scale, _) = _onnx_semantics(path), _output_step(path)
    program = compile_with_iree(module, "tosa")
    for x in _encoder_inputs(2):
        (want,) = session.run(None, {"x": x})
        (got,) = program(x, result_dtypes=[want.dtype])
        _within_one_step(got, want, scale)


@pytest.mark.skipif(shutil.which("vela") is None, reason="ethos-u-vela is not installed")
def test_vela_places_the_encoder_on_the_npu(encoder, tmp_path):
    _assert_vela_places_every_operator_on_the_npu(encoder[0], tmp_path)


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
    assert "f32" not in str(onnx_torch_mlir.compile(str(path), "tosa", quantized_io="int8"))
    session, (scale, _) = _onnx_semantics(path), _output_step(path)
    module = onnx_torch_mlir.compile(str(path), "tosa")
    for x in [rows() for _ in range(3)]:
        (want,) = session.run(None, {"x": x})
        (got,) = runtime.run(module, [x], input_dialect="tosa", result_dtypes=[want.dtype])
        _within_one_step(got, want, scale)
