"""TOSA forms for cases that pass on Linalg and failed on TOSA; each model is compiled to TOSA, run on
the reference runner and on IREE, and compared with onnxruntime.

- Empty values the graph returns (transforms/tosa_empty_tensors.py): TOSA has no zero-sized tensor,
  so they are empty `arith.constant`s and the ops computing them are gone.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnx_torch_mlir.runtime.iree import compile_with_iree

ONNX_TYPES = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int64): TensorProto.INT64,
              np.dtype(np.bool_): TensorProto.BOOL}
CONSUMERS = ("reference", "iree")


def _model(nodes, inputs: dict, outputs: dict, initializers: dict, opset: int = 18) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes, "tosa_gap_forms",
        [helper.make_tensor_value_info(name, ONNX_TYPES[array.dtype], list(array.shape)) for name, array in inputs.items()],
        [helper.make_tensor_value_info(name, element, None) for name, element in outputs.items()],
        initializer=[numpy_helper.from_array(array, name) for name, array in initializers.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=9)


def empty_split_parts():
    """A Split with a zero-sized part, a Slice past the end, a ConstantOfShape of a zero dim, next to
    a non-empty result computed from the same input."""
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    nodes = [
        helper.make_node("Split", ["x", "split"], ["head", "none", "tail"], axis=0),
        helper.make_node("Slice", ["x", "starts", "ends"], ["past_end"]),
        helper.make_node("ConstantOfShape", ["zero_shape"], ["no_ints"],
                         value=numpy_helper.from_array(np.array([5], np.int64))),
        helper.make_node("Neg", ["tail"], ["y"]),
    ]
    initializers = {"split": np.array([1, 0, 3], np.int64), "starts": np.array([7], np.int64),
                    "ends": np.array([9], np.int64), "zero_shape": np.array([2, 0], np.int64)}
    outputs = {"head": TensorProto.FLOAT, "none": TensorProto.FLOAT, "past_end": TensorProto.FLOAT,
               "no_ints": TensorProto.INT64, "y": TensorProto.FLOAT}
    return _model(nodes, {"x": x}, outputs, initializers), [x]


MODELS = {function.__name__: function for function in (empty_split_parts,)}


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


def test_empty_results_are_empty_constants(compiled):
    text = str(compiled("empty_split_parts")[0])
    assert text.count("arith.constant dense<> :") == 2, text  # the two empty f32 results are one value (CSE)
    assert "torch." not in text
