"""A Squeeze without axes over `?` dims takes the rank the rest of the graph declares.

speechmos' PLCMOS squeezes its `[batch_size, 1]` score with no axes (a TorchScript trace of
`x.squeeze()` at batch 1) and declares the graph's output `[]`: only "every `?` dim is 1" agrees
with that, so the importer types the Squeeze by it (`importer/squeeze_ranks.py`) and the conversion
squeezes the batch too, checking at run time that it is 1. Where both readings suit the graph, the
compile fails naming the node and the way out.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnx_torch_mlir.errors import OnnxTorchMlirError
from onnx_torch_mlir.importer.shape_inference import infer_types

WEIGHT = (np.arange(4, dtype=np.float32).reshape(1, 4) - 1.5) / 4


def _model(declared_output) -> onnx.ModelProto:
    """score = sigmoid(squeeze(x @ W^T)) + 1, x [batch, 4]; the output declared `declared_output`."""
    graph = helper.make_graph(
        [
            helper.make_node("Gemm", ["x", "w"], ["scores"], transB=1),
            helper.make_node("Squeeze", ["scores"], ["squeezed"], name="Squeeze_72"),
            helper.make_node("Sigmoid", ["squeezed"], ["probability"]),
            helper.make_node("Add", ["probability", "one"], ["score"]),
        ],
        "squeeze_ranks",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch_size", 4])],
        [helper.make_tensor_value_info("score", TensorProto.FLOAT, declared_output)],
        initializer=[numpy_helper.from_array(WEIGHT, "w"), numpy_helper.from_array(np.array(1, np.float32), "one")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], ir_version=7)


def _squeezed_type(model: onnx.ModelProto):
    typed = infer_types(model, "squeeze_ranks.onnx")
    entry = next((value for value in typed.graph.value_info if value.name == "squeezed"), None)
    if entry is None or not entry.type.tensor_type.HasField("shape"):
        return None
    return [dim.dim_value if dim.HasField("dim_value") else dim.dim_param or "?" for dim in entry.type.tensor_type.shape.dim]


def test_declared_scalar_output_decides_that_the_batch_is_squeezed():
    assert _squeezed_type(_model([])) == []


def test_declared_vector_output_decides_that_the_batch_is_kept():
    assert _squeezed_type(_model(["batch_size"])) == ["batch_size"]


def test_undeclared_output_leaves_the_rank_undecided():
    assert _squeezed_type(_model(None)) is None


def _ours(model: onnx.ModelProto, x: np.ndarray, **options) -> np.ndarray:
    module = onnx_torch_mlir.compile(model, output_type="linalg-on-tensors", **options)
    return np.asarray(runtime.run(module, [x])[0])


def test_squeezed_batch_matches_onnxruntime_at_batch_one():
    model = _model([])
    x = np.array([[0.5, -1.0, 2.0, 0.25]], np.float32)
    expected = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    got = _ours(model, x)
    assert got.shape == expected.shape == ()
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_kept_batch_matches_onnxruntime_at_batch_three():
    model = _model(["batch_size"])
    x = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
    expected = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    got = _ours(model, x)
    assert got.shape == expected.shape == (3,)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_squeezed_batch_of_two_fails_the_run_time_check():
    with pytest.raises(Exception, match="Squeeze_72"):
        _ours(_model([]), np.ones((2, 4), np.float32))


def test_undecided_rank_names_the_node_and_the_way_out():
    with pytest.raises(OnnxTorchMlirError, match=r"Squeeze_72.*--dim"):
        onnx_torch_mlir.compile(_model(None), output_type="linalg-on-tensors")


def test_fixed_batch_decides_it():
    assert _ours(_model(None), np.ones((1, 4), np.float32), dims={"batch_size": 1}).shape == ()


@pytest.mark.parametrize("consumer", ["reference", "iree"])
def test_stablehlo_checks_the_squeezed_batch(consumer):
    from consumers import program

    model = _model([])
    module = onnx_torch_mlir.compile(model, output_type="stablehlo")
    run = program(module, "stablehlo", consumer)
    x = np.array([[0.5, -1.0, 2.0, 0.25]], np.float32)
    expected = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    np.testing.assert_allclose(np.asarray(run(x)[0]), expected, rtol=1e-6)
    with pytest.raises(Exception, match="Squeeze_72"):
        run(np.ones((2, 4), np.float32))
