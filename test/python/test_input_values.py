"""`--input-value NAME=VALUE` (importer/input_values.py): an input fixed to a value at compile time
becomes a constant, is no longer an argument, and an If on it is decided, so TOSA takes a model
that picks its network by an input (Silero VAD's sample rate)."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnx_torch_mlir.errors import OnnxTorchMlirError


def _rate_model() -> onnx.ModelProto:
    """y = x * 2 when rate == 16000, else Gemm(x, W): two networks chosen by an input."""
    then_branch = helper.make_graph([helper.make_node("Mul", ["x", "two"], ["doubled"])], "sixteen", [],
                                    [helper.make_tensor_value_info("doubled", TensorProto.FLOAT, None)])
    else_branch = helper.make_graph([helper.make_node("Gemm", ["x", "w"], ["projected"])], "eight", [],
                                    [helper.make_tensor_value_info("projected", TensorProto.FLOAT, None)])
    nodes = [helper.make_node("Equal", ["rate", "sixteen_k"], ["is_sixteen"]),
             helper.make_node("If", ["is_sixteen"], ["y"], then_branch=then_branch, else_branch=else_branch)]
    graph = helper.make_graph(
        nodes, "rates",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4]), helper.make_tensor_value_info("rate", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=[numpy_helper.from_array(np.array(2, np.float32), "two"),
                     numpy_helper.from_array(np.array(16000, np.int64), "sixteen_k"),
                     numpy_helper.from_array(np.ones((4, 5), np.float32), "w")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _x() -> np.ndarray:
    return np.arange(8, dtype=np.float32).reshape(2, 4) / 3


def test_an_if_on_a_fixed_input_is_decided_and_the_input_is_no_argument():
    model = _rate_model()
    module = onnx_torch_mlir.compile(model, "linalg-on-tensors", input_values={"rate": 16000})
    signature = next(line for line in str(module).splitlines() if "func.func" in line)
    assert signature.count("%arg") == 1
    (want,) = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(
        None, {"x": _x(), "rate": np.array(16000, np.int64)})
    np.testing.assert_allclose(np.asarray(runtime.run(module, [_x()])[0]), want, rtol=1e-6)


@pytest.mark.parametrize("backend", ["tosa", "stablehlo"])
def test_tosa_and_stablehlo_take_it_with_the_input_fixed(backend):
    module = onnx_torch_mlir.compile(_rate_model(), backend, input_values=["rate=16000"])
    assert not any(op in str(module) for op in ("cond_if", "stablehlo.if", "select"))  # only one network
    got = runtime.compile_for_cpu(module, input_dialect=backend)(_x())[0]
    np.testing.assert_allclose(np.asarray(got), _x() * 2, rtol=1e-6)


@pytest.mark.parametrize("values, message", [
    ({"sample_rate": 16000}, r"--input-value sample_rate: the model has no input of that name \(its inputs: x, rate\)"),
    ({"rate": "fast"}, r"'fast' is not a value of the input's element type int64"),
    ({"rate": "1,2"}, r"2 values for the input's shape \[\] \(1 elements\)"),
    (["rate"], r"expected INPUT=VALUE"),
])
def test_bad_values_are_named(values, message):
    with pytest.raises(OnnxTorchMlirError, match=message):
        onnx_torch_mlir.compile(_rate_model(), "linalg-on-tensors", input_values=values)


def test_an_input_of_dynamic_shape_needs_its_shape_fixed():
    model = _rate_model()
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "batch"
    with pytest.raises(OnnxTorchMlirError, match="the input's shape is not static; fix it too with --input-shape"):
        onnx_torch_mlir.compile(model, "linalg-on-tensors", input_values={"x": 1.0})
    module = onnx_torch_mlir.compile(model, "linalg-on-tensors", input_values={"x": 0.5, "rate": 16000},
                                     input_shapes={"x": (2, 4)})
    np.testing.assert_allclose(np.asarray(runtime.run(module, [])[0]), np.full((2, 4), 1.0, np.float32))


def test_the_command_line_flag(tmp_path):
    path = tmp_path / "rates.onnx"
    onnx.save(_rate_model(), path)
    output = tmp_path / "rates.mlir"
    done = subprocess.run([str(Path(sys.executable).parent / "onnx-torch-mlir"), "compile", str(path), "--to", "tosa",
                           "--input-value", "rate=16000", "-o", str(output)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "tosa.mul" in output.read_text()
