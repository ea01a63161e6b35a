"""TOSA forms IREE takes, for ops whose default TOSA form it refuses; each model is compiled to
TOSA, run on the reference runner and on IREE, and compared with onnxruntime.

- ScatterND and ScatterElements without reduction are a row gather on TOSA
  (conversion/onnx_to_torch/indexing.py): torch-mlir's `tosa.scatter` becomes a loop of one-element copies, and when all its operands
  are constant (T5's causal mask) IREE hoists the loop into an initializer where its stream
  pipeline stops with "maximum iteration count exceeded in fixed point pipeline".
- A gather of int64 values is two gathers of int32 halves (transforms/tosa/wide_gathers.py):
  TOSA's gather has no i64 and IREE refuses one ("did not align with any profile").
"""

from __future__ import annotations

import re

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnx_torch_mlir.runtime.iree import compile_with_iree

ONNX_TYPES = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int64): TensorProto.INT64}
CONSUMERS = ("reference", "iree")


def _model(nodes, inputs: dict, outputs: dict, initializers: dict, opset: int = 18) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes, "tosa_forms",
        [helper.make_tensor_value_info(name, ONNX_TYPES[array.dtype], list(array.shape)) for name, array in inputs.items()],
        [helper.make_tensor_value_info(name, element, None) for name, element in outputs.items()],
        initializer=[numpy_helper.from_array(array, name) for name, array in initializers.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=9)


def constant_scatter_nd():
    """T5's pattern: every ScatterND operand is computed from constants (float products keep them
    computations), and so is what the scatter feeds, before it meets a model input. Row 1 is
    written twice (the last update wins), row -1 is row 3."""
    data = np.arange(16, dtype=np.float32).reshape(4, 4)
    indices = np.array([[1], [-1], [1]], np.int64)
    updates = -np.arange(12, dtype=np.float32).reshape(3, 4) - 1
    nodes = [
        helper.make_node("Mul", ["data", "two"], ["doubled"]),
        helper.make_node("ScatterND", ["doubled", "indices", "updates"], ["scattered"]),
        helper.make_node("Mul", ["scattered", "two"], ["scaled"]),
        helper.make_node("Add", ["scaled", "x"], ["y"]),
    ]
    initializers = {"data": data, "two": np.array(2, np.float32), "indices": indices, "updates": updates}
    x = np.linspace(-1, 1, 16, dtype=np.float32).reshape(4, 4)
    return _model(nodes, {"x": x}, {"y": TensorProto.FLOAT}, initializers), [x]


def run_time_scatter_nd_rows():
    """Indices and updates known only at run time; index tuples of length 1 write [3, 2] slices."""
    data = np.arange(24, dtype=np.float32).reshape(4, 3, 2)
    indices = np.array([[2], [-4]], np.int64)
    updates = np.arange(100, 112, dtype=np.float32).reshape(2, 3, 2)
    nodes = [helper.make_node("ScatterND", ["data", "indices", "updates"], ["y"])]
    inputs = {"data": data, "indices": indices, "updates": updates}
    return _model(nodes, inputs, {"y": TensorProto.FLOAT}, {}), list(inputs.values())


def run_time_scatter_nd_elements():
    """Index tuples as long as data's rank: single elements, one written twice."""
    data = np.zeros((3, 4), np.int64)
    indices = np.array([[0, 1], [2, 3], [0, 1], [1, -1]], np.int64)
    updates = np.array([7, 8, 9, -(2**40)], np.int64)
    nodes = [helper.make_node("ScatterND", ["data", "indices", "updates"], ["y"])]
    inputs = {"data": data, "indices": indices, "updates": updates}
    return _model(nodes, inputs, {"y": TensorProto.INT64}, {}), list(inputs.values())


def constant_scatter_elements():
    """As constant_scatter_nd, with ScatterElements along axis 1 (every operand constant)."""
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    indices = np.array([[3, 0], [1, -1], [2, 2]], np.int64)
    updates = -np.arange(6, dtype=np.float32).reshape(3, 2) - 1
    nodes = [
        helper.make_node("Mul", ["data", "two"], ["doubled"]),
        helper.make_node("ScatterElements", ["doubled", "indices", "updates"], ["scattered"], axis=1),
        helper.make_node("Mul", ["scattered", "two"], ["scaled"]),
        helper.make_node("Add", ["scaled", "x"], ["y"]),
    ]
    initializers = {"data": data, "two": np.array(2, np.float32), "indices": indices, "updates": updates}
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    return _model(nodes, {"x": x}, {"y": TensorProto.FLOAT}, initializers), [x]


def run_time_scatter_elements():
    """Indices smaller than data on both dims, axis 0, int64 values beyond int32; element [0, 1]
    is written twice (the last update wins)."""
    data = np.arange(20, dtype=np.int64).reshape(4, 5) * 3_000_000_000
    indices = np.array([[1, 3, 0], [-1, 3, 2]], np.int64)
    updates = np.array([[-1, -2, -3], [-4, -(2**40), -6]], np.int64)
    nodes = [helper.make_node("ScatterElements", ["data", "indices", "updates"], ["y"], axis=0)]
    inputs = {"data": data, "indices": indices, "updates": updates}
    return _model(nodes, inputs, {"y": TensorProto.INT64}, {}), list(inputs.values())


_WIDE = np.array([[1, -1], [2**31, -(2**31) - 1], [5_000_000_000, -5_000_000_000], [2**63 - 1, -(2**63)],
                  [0, 2**32]], np.int64)


def gather_int64():
    """int64 values beyond int32 (both halves matter), negative indices."""
    indices = np.array([3, -3, 0, 4, 1], np.int64)
    nodes = [helper.make_node("Gather", ["data", "indices"], ["y"], axis=0)]
    inputs = {"data": _WIDE, "indices": indices}
    return _model(nodes, inputs, {"y": TensorProto.INT64}, {}), list(inputs.values())


def gather_elements_int64():
    indices = np.array([[4, 0], [2, 3], [1, 1]], np.int64)
    nodes = [helper.make_node("GatherElements", ["data", "indices"], ["y"], axis=0)]
    inputs = {"data": _WIDE, "indices": indices}
    return _model(nodes, inputs, {"y": TensorProto.INT64}, {}), list(inputs.values())


MODELS = {function.__name__: function for function in (
    constant_scatter_nd, run_time_scatter_nd_rows, run_time_scatter_nd_elements, constant_scatter_elements,
    run_time_scatter_elements, gather_int64, gather_elements_int64)}


def _onnxruntime(model: onnx.ModelProto, arrays: list) -> list:
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {entry.name: array for entry, array in zip(session.get_inputs(), arrays)})


@pytest.fixture(scope="module")
def compiled():
    cache = {}

    def compile_model(name):
        if name not in cache:
            model, arrays = MODELS[name]()
            cache[name] = (onnx_torch_mlir.compile(model, "tosa"), model, arrays)
        return cache[name]

    return compile_model


@pytest.mark.parametrize("consumer", CONSUMERS)
@pytest.mark.parametrize("name", list(MODELS))
def test_matches_onnxruntime(compiled, name, consumer):
    module, model, arrays = compiled(name)
    if consumer == "iree":
        outputs = compile_with_iree(module, "tosa")(*arrays)
    else:
        outputs = runtime.run(module, arrays, input_dialect="tosa")
    expected = _onnxruntime(model, arrays)
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", [name for name in MODELS if "scatter" in name])
def test_no_tosa_scatter(compiled, name):
    module, _, _ = compiled(name)
    text = str(module)
    assert "tosa.scatter" not in text
    assert "tosa.gather" in text


@pytest.mark.parametrize("name", list(MODELS))
def test_no_gather_of_int64(compiled, name):
    module, _, _ = compiled(name)
    gathers = re.findall(r"tosa\.gather .*", str(module))
    assert gathers
    assert not [line for line in gathers if re.search(r"\(tensor<[0-9x?]+xi64>", line)], gathers
