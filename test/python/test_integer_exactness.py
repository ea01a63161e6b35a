"""Integer arithmetic exact on every backend and consumer: compared with numpy (or onnxruntime)
for equality, at values where a float or 32-bit detour shows.

An integer `aten.neg` was wrong three ways: torch-mlir's Linalg lowering goes through f32 (wrong
beyond 2^24), TOSA's negate saturates the most negative value where ONNX wraps, and the pinned
tosa-to-linalg emits an invalid i64->i16 extension for an i64 negate (DeBERTa-v2's relative
positions): TorchBuilder.negate subtracts from zero. Integer Relu had no TOSA form. TorchToTosa
adds and subtracts int64 in i32 (transforms/tosa/int64_add_sub.py)."""

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from consumers import program


def _unary_model(op_type: str, element: int) -> onnx.ModelProto:
    graph = helper.make_graph(
        [helper.make_node(op_type, ["x"], ["y"])], op_type.lower(),
        [helper.make_tensor_value_info("x", element, [2, 3])],
        [helper.make_tensor_value_info("y", element, [2, 3])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


BACKENDS = ["linalg-on-tensors", "tosa", "stablehlo"]
INTEGERS = [(TensorProto.INT64, np.int64), (TensorProto.INT32, np.int32), (TensorProto.INT16, np.int16),
            (TensorProto.INT8, np.int8)]


def _program(model, backend, consumer):
    return program(onnx_torch_mlir.compile(model, backend), backend, consumer)


def _extremes(dtype) -> np.ndarray:
    info = np.iinfo(dtype)
    large = min(16777217, int(info.max))  # 2^24 + 1: not an f32
    return np.array([[0, 1, -7], [info.max, info.min, large]], dtype=dtype)


UNARY = {"Neg": np.negative, "Relu": lambda x: np.maximum(x, 0)}  # numpy's negative wraps at the minimum


@pytest.mark.parametrize("consumer", ["reference", "iree"])
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("element, dtype", INTEGERS)
@pytest.mark.parametrize("op_type", sorted(UNARY))
def test_integer_unary(consumer, backend, element, dtype, op_type):
    x = _extremes(dtype)
    (y,) = _program(_unary_model(op_type, element), backend, consumer)(x)
    np.testing.assert_array_equal(np.asarray(y).view(dtype), UNARY[op_type](x))


def _binary_model(op_type: str, constant: np.ndarray | None = None) -> onnx.ModelProto:
    """y = op(x, z) on int64 [2, 3]; z is a second input, or `constant`."""
    nodes, inputs = [], [helper.make_tensor_value_info("x", TensorProto.INT64, [2, 3])]
    if constant is None:
        inputs.append(helper.make_tensor_value_info("z", TensorProto.INT64, [2, 3]))
    else:
        nodes.append(helper.make_node("Constant", [], ["z"], value=numpy_helper.from_array(constant)))
    nodes.append(helper.make_node(op_type, ["x", "z"], ["y"], **({"fmod": 0} if op_type == "Mod" else {})))
    graph = helper.make_graph(nodes, op_type.lower(), inputs, [helper.make_tensor_value_info("y", TensorProto.INT64, [2, 3])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


LARGE = np.array([[2**40 + 1, -(2**41) - 3, 2**33 + 5], [-5, 7, 2**50 + 3]], dtype=np.int64)
OTHER = np.array([[2**40, 2**41 + 1, 3], [-7, 2, 2**50 + 2]], dtype=np.int64)
EXPECTED = {"Add": LARGE + OTHER, "Sub": LARGE - OTHER, "Mod": np.mod(LARGE, OTHER)}


@pytest.mark.parametrize("consumer", ["reference", "iree"])
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op_type", sorted(EXPECTED))
@pytest.mark.parametrize("operand", ["input", "constant"])
def test_int64_arithmetic_beyond_32_bits(consumer, backend, op_type, operand):
    model = _binary_model(op_type, OTHER if operand == "constant" else None)
    inputs = (LARGE,) if operand == "constant" else (LARGE, OTHER)
    (y,) = _program(model, backend, consumer)(*inputs)
    np.testing.assert_array_equal(np.asarray(y).view(np.int64), EXPECTED[op_type])


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_models_own_narrowing_still_wraps(backend):
    """Cast to int32, Add, Cast back: the model asks for 32-bit arithmetic, and gets it."""
    nodes = [
        helper.make_node("Cast", ["x"], ["x32"], to=TensorProto.INT32),
        helper.make_node("Cast", ["z"], ["z32"], to=TensorProto.INT32),
        helper.make_node("Add", ["x32", "z32"], ["sum32"]),
        helper.make_node("Cast", ["sum32"], ["y"], to=TensorProto.INT64),
    ]
    graph = helper.make_graph(
        nodes, "narrowing", [helper.make_tensor_value_info(name, TensorProto.INT64, [2, 3]) for name in "xz"],
        [helper.make_tensor_value_info("y", TensorProto.INT64, [2, 3])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    x = np.array([[2**31 - 1, 5, -(2**31)], [1, 2, 3]], dtype=np.int64)
    z = np.array([[1, 6, -1], [2**31 - 2, 0, -4]], dtype=np.int64)
    (expected,) = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(
        None, {"x": x, "z": z})
    (y,) = _program(model, backend, "reference")(x, z)
    np.testing.assert_array_equal(np.asarray(y).view(np.int64), expected)


def test_runner_takes_tosas_own_int64_negate():
    """TOSA from elsewhere (torch-mlir's ONNX path) negates int64 with `tosa.negate`; TOSA clips the
    result, so -2^63 gives 2^63 - 1 (runtime/tosa_negate.py)."""
    text = """
    func.func @main(%x: tensor<4xi64>) -> tensor<4xi64> {
      %zero = "tosa.const"() <{values = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
      %y = tosa.negate %x, %zero, %zero : (tensor<4xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xi64>
      return %y : tensor<4xi64>
    }"""
    x = np.array([3, -(2**40), 2**63 - 1, -(2**63)], dtype=np.int64)
    (y,) = runtime.compile_for_cpu(text, input_dialect="tosa")(x)
    np.testing.assert_array_equal(np.asarray(y).view(np.int64), [-3, 2**40, -(2**63) + 1, 2**63 - 1])


@pytest.mark.parametrize("backend", BACKENDS)
def test_int64_difference_of_a_value_with_itself(backend):
    """`x - x` reads one narrowing cast twice (NegativeLogLikelihoodLoss's ignore_index does this)."""
    graph = helper.make_graph(
        [helper.make_node("Sub", ["x", "x"], ["zero"]), helper.make_node("Add", ["zero", "x"], ["y"])], "self_sub",
        [helper.make_tensor_value_info("x", TensorProto.INT64, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.INT64, [2, 3])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    (y,) = _program(model, backend, "reference")(LARGE)
    np.testing.assert_array_equal(np.asarray(y).view(np.int64), LARGE)
