"""Reshapes of tensors with several dynamic dims give the right elements on every family's path.

torch-mlir's Linalg lowering of a reshape guesses which input dims each result dim collapses or
expands, and with several dynamic input dims it guessed wrong: GatherND on [?,?] data read
column-major (a dynamic LLaMA's position ids came out wrong, and its program then wrote out of
bounds). Every family reshapes through TorchBuilder.reshape, which flattens such inputs first.
"""

import numpy as np
import pytest
from onnx import TensorProto, helper

from onnx_torch_mlir import compile as compile_model
from onnx_torch_mlir.runtime import compile_for_cpu

onnxruntime = pytest.importorskip("onnxruntime")


def _model(nodes, inputs, outputs):
    graph = helper.make_graph(nodes, "dynamic_reshapes", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _check_at_sizes(model, make_inputs, sizes):
    program = compile_for_cpu(compile_model(model, output_type="linalg-on-tensors"), input_dialect="linalg-on-tensors")
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [value.name for value in model.graph.input]
    for size in sizes:
        inputs = make_inputs(*size)
        expected = session.run(None, dict(zip(names, inputs)))
        for ours, reference in zip(program(*inputs), expected):
            np.testing.assert_allclose(ours, reference, rtol=1e-5, atol=1e-6)


def test_gather_nd_on_two_dynamic_dims():
    model = _model(
        [helper.make_node("GatherND", ["x", "i"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.INT64, ["b", "s"]),
         helper.make_tensor_value_info("i", TensorProto.INT64, ["b", "s", 2])],
        [helper.make_tensor_value_info("y", TensorProto.INT64, ["b", "s"])],
    )

    def inputs(batch, sequence):
        rng = np.random.default_rng(batch * 100 + sequence)
        rows = rng.integers(0, batch, (batch, sequence))
        columns = rng.integers(0, sequence, (batch, sequence))
        return [np.arange(batch * sequence, dtype=np.int64).reshape(batch, sequence), np.stack([rows, columns], -1)]

    _check_at_sizes(model, inputs, [(3, 11), (2, 2), (5, 1)])


def test_softmax_of_opset_11_over_two_dynamic_dims():
    """Opset-11 Softmax flattens dims [axis, rank) and reshapes back (activations family)."""
    model = _model(
        [helper.make_node("Softmax", ["x"], ["y"], axis=1)],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["a", "b", "c"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["a", "b", "c"])],
    )
    model.opset_import[0].version = 11
    _check_at_sizes(model, lambda a, b, c: [np.random.default_rng(a).standard_normal((a, b, c)).astype(np.float32)],
                    [(2, 3, 4), (3, 1, 5)])


def test_flatten_of_two_dynamic_dims_to_a_trailing_one():
    """Flatten(axis=2) of [b, s] is [b*s, 1]: optimum's GPT-2 attention mask; it came out [b, 1]."""
    model = _model(
        [helper.make_node("Flatten", ["x"], ["y"], axis=2)],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", "s"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 1])],
    )
    _check_at_sizes(model, lambda b, s: [np.arange(b * s, dtype=np.float32).reshape(b, s)], [(3, 11), (1, 4)])
