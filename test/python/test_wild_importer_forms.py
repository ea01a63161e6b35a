"""Importer forms that other people's tools write, each in its smallest model built with onnx.helper.

- **A declared dim of -1** (paddle2onnx writes `dim_value: -1` for a dynamic dim) is a dynamic dim
  without a name: `--input-shape` fixes it, `--dim` fixes the named dims next to it, and the rest
  stays dynamic (`importer/fixed_dims.without_negative_dims`).

Numerics are compared with onnxruntime on each backend (TOSA with the dims fixed), on the reference
runner and on IREE (`consumers.program`).
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from consumers import program

BACKENDS = ("linalg-on-tensors", "stablehlo", "tosa")
CONSUMERS = ("reference", "iree")


def _expected(model: onnx.ModelProto, feeds: dict) -> list:
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def _check(model: onnx.ModelProto, backend: str, consumer: str, feeds: dict, rtol=1e-5, atol=1e-5, **options):
    module = onnx_torch_mlir.compile(model, backend, **options)
    outputs = program(module, backend, consumer)(*feeds.values())
    expected = _expected(model, feeds)
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected):
        np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol)


# -- declared dims of -1 ---------------------------------------------------------------------
def _paddle_model() -> onnx.ModelProto:
    """x [batch, 3, -1, -1] scaled per channel, Relu, mean over the image: paddle2onnx's -1 dims in
    the input, a value_info and the output."""
    scale = numpy_helper.from_array(np.array([0.5, -1.0, 2.0], np.float32).reshape(1, 3, 1, 1), "scale")
    nodes = [
        helper.make_node("Mul", ["x", "scale"], ["scaled"]),
        helper.make_node("Relu", ["scaled"], ["relu"]),
        helper.make_node("ReduceMean", ["relu"], ["y"], axes=[2, 3], keepdims=1),
    ]
    graph = helper.make_graph(
        nodes, "paddle",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, -1, -1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [-1, 3, 1, 1])],
        [scale],
        value_info=[helper.make_tensor_value_info("relu", TensorProto.FLOAT, [-1, 3, -1, -1])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def _paddle_feeds(shape=(2, 3, 48, 192)) -> dict:
    return {"x": np.random.default_rng(0).standard_normal(shape).astype(np.float32)}


def test_a_declared_minus_one_is_a_dynamic_dim():
    text = str(onnx_torch_mlir.compile(_paddle_model(), "torch"))
    assert "!torch.vtensor<[?,3,?,?],f32>" in text and "-1," not in text
    fixed = str(onnx_torch_mlir.compile(_paddle_model(), "torch", input_shapes={"x": (2, 3, 48, 192)}))
    assert "!torch.vtensor<[2,3,48,192],f32>" in fixed and "?" not in fixed
    named = str(onnx_torch_mlir.compile(_paddle_model(), "torch", dims={"batch": 2}))
    assert "!torch.vtensor<[2,3,?,?],f32>" in named
    assert _paddle_model().graph.input[0].type.tensor_type.shape.dim[2].dim_value == -1  # the caller's model


def test_input_shape_refuses_a_size_against_a_static_dim_next_to_minus_ones():
    with pytest.raises(onnx_torch_mlir.OnnxTorchMlirError, match=r"dim 1 is declared 3 \(declared shape \[batch, 3, \?, \?\]\)"):
        onnx_torch_mlir.compile(_paddle_model(), "torch", input_shapes={"x": (2, 4, 48, 192)})


@pytest.mark.parametrize("consumer", CONSUMERS)
@pytest.mark.parametrize("backend", BACKENDS)
def test_minus_one_dims_fixed_by_input_shape_match_onnxruntime(backend, consumer):
    _check(_paddle_model(), backend, consumer, _paddle_feeds(), input_shapes={"x": (2, 3, 48, 192)})


@pytest.mark.parametrize("consumer", CONSUMERS)
@pytest.mark.parametrize("backend", ("linalg-on-tensors", "stablehlo"))
def test_minus_one_dims_left_dynamic_match_onnxruntime(backend, consumer):
    _check(_paddle_model(), backend, consumer, _paddle_feeds((2, 3, 5, 7)))


def test_made_up_inputs_give_a_minus_one_dim_size_one():
    from argparse import Namespace

    from onnx_torch_mlir.tools.model_inputs import model_inputs

    args = Namespace(input=[], dim=["batch=2"], input_shape=[], seed=0)
    assert model_inputs(_paddle_model(), args)[0].shape == (2, 3, 1, 1)
    args.input_shape = ["x=?x3x4x5"]
    assert model_inputs(_paddle_model(), args)[0].shape == (2, 3, 4, 5)

