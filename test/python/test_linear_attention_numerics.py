"""LinearAttention (opset 27) compiled with our importer and conversion to each backend, run on
the reference CPU runner and compared with ONNX's reference evaluator
(onnx/reference/ops/op_linear_attention.py), one case per update rule plus an f16 case.

Linalg compiles the model with a symbolic batch dim; TOSA and StableHLO with every dim fixed.
The recurrence is unrolled over the static sequence length; both sides compute in f32 (f16
inputs are widened, the outputs rounded back), so f32 agrees to rounding (rtol 1e-4, atol 1e-5)
and f16 to one f16 rounding step of outputs of magnitude ~1 (atol 2e-3).
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import onnx_torch_mlir
from onnx_torch_mlir import runtime

BACKENDS = ("linalg-on-tensors", "tosa", "stablehlo")
ONNX_TYPES = {np.float32: TensorProto.FLOAT, np.float16: TensorProto.FLOAT16}
B, T = 2, 3


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _case(rule, q_heads, kv_heads, d_k, d_v, decay_per_head=False, beta_shared=False, past=False, dtype=np.float32,
          scale=None):
    """(node, inputs as name -> array) on seeded inputs; keys L2-normalized as the delta rules expect."""
    rng = np.random.default_rng(len(rule) + 7 * q_heads + 3 * d_k)
    keys = rng.standard_normal((B, T, kv_heads, d_k))
    keys /= np.linalg.norm(keys, axis=-1, keepdims=True)
    inputs = {
        "query": rng.standard_normal((B, T, q_heads * d_k)),
        "key": keys.reshape(B, T, kv_heads * d_k),
        "value": rng.standard_normal((B, T, kv_heads * d_v)),
    }
    names = ["query", "key", "value", "", "", ""]
    if past:
        inputs["past_state"], names[3] = 0.5 * rng.standard_normal((B, kv_heads, d_k, d_v)), "past_state"
    if rule in ("gated", "gated_delta"):
        width = kv_heads if decay_per_head else kv_heads * d_k
        inputs["decay"], names[4] = -np.abs(0.3 * rng.standard_normal((B, T, width))), "decay"
    if rule in ("delta", "gated_delta"):
        width = 1 if beta_shared else kv_heads
        inputs["beta"], names[5] = _sigmoid(rng.standard_normal((B, T, width))), "beta"
    while names and names[-1] == "":
        names.pop()
    attributes = {"update_rule": rule, "q_num_heads": q_heads, "kv_num_heads": kv_heads}
    if scale is not None:
        attributes["scale"] = scale
    node = helper.make_node("LinearAttention", names, ["output", "present_state"], **attributes)
    return node, {name: array.astype(dtype) for name, array in inputs.items()}


CASES = {
    "linear_gqa_past": lambda: _case("linear", 4, 2, 3, 5, past=True),
    "gated_per_key_dim": lambda: _case("gated", 2, 2, 4, 4, scale=0.3),
    "gated_per_head_mqa": lambda: _case("gated", 3, 1, 4, 2, decay_per_head=True),
    "delta": lambda: _case("delta", 2, 2, 4, 3, past=True),
    "gated_delta_shared_beta_gqa": lambda: _case("gated_delta", 4, 2, 4, 4, beta_shared=True),
    "gated_delta_f16": lambda: _case("gated_delta", 2, 2, 4, 4, past=True, dtype=np.float16),
}


def _model(node, inputs, static: bool) -> onnx.ModelProto:
    values = [
        helper.make_tensor_value_info(name, ONNX_TYPES[array.dtype.type], list(array.shape) if static else
                                      ["batch", *array.shape[1:]])
        for name, array in inputs.items()
    ]
    element = ONNX_TYPES[inputs["query"].dtype.type]
    outputs = [helper.make_tensor_value_info("output", element, None),
               helper.make_tensor_value_info("present_state", element, None)]
    graph = helper.make_graph([node], "linear_attention", values, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 27)], ir_version=10)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_the_onnx_reference(name, backend):
    node, inputs = CASES[name]()
    expected = ReferenceEvaluator(_model(node, inputs, static=True)).run(None, inputs)
    module = onnx_torch_mlir.compile(_model(node, inputs, static=backend != "linalg-on-tensors"), backend)
    outputs = runtime.run(module, list(inputs.values()), input_dialect=backend)
    atol = 2e-3 if inputs["query"].dtype == np.float16 else 1e-5
    assert len(outputs) == 2
    for got, want in zip(outputs, expected):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=1e-4, atol=atol)


def _function_body_model(node, inputs) -> onnx.ModelProto:
    """The node replaced by ONNX's function body for it (a Scan over the steps), as the
    conformance suite's *_expanded cases are."""
    schema = onnx.defs.get_schema("LinearAttention", 27)
    types = [helper.make_tensor_type_proto(ONNX_TYPES[inputs[name].dtype.type], list(inputs[name].shape)) if name
             else onnx.TypeProto() for name in node.input]
    function = onnx.FunctionProto()
    function.ParseFromString(schema.get_context_dependent_function(
        node.SerializeToString(), [t.SerializeToString() for t in types]))
    rename = dict(zip(function.input, node.input)) | dict(zip(function.output, node.output))

    def bind(nodes):
        for body_node in nodes:
            body_node.input[:] = [rename.get(name, name) for name in body_node.input]
            body_node.output[:] = [rename.get(name, name) for name in body_node.output]
            for attribute in body_node.attribute:
                if attribute.type == onnx.AttributeProto.GRAPH:
                    bind(attribute.g.node)

    bind(function.node)
    model = _model(node, inputs, static=True)
    del model.graph.node[:]
    model.graph.node.extend(function.node)
    return model


def test_the_function_body_with_gqa_runs():
    """The function body's Scan yields rows [B, H_q, ?] (d_v only known at run time inside the
    body) while its GQA read has static dims too: the Scan's first-row output collector starts
    from a [0, B, H_q, 0] tensor (it was [0, 0, 0, 0], which does not cast to [?, B, H_q, ?])."""
    node, inputs = _case("gated_delta", 4, 2, 4, 3)
    model = _function_body_model(node, inputs)
    assert any(body_node.op_type == "Scan" for body_node in model.graph.node)
    expected = ReferenceEvaluator(model).run(None, inputs)
    outputs = runtime.run(onnx_torch_mlir.compile(model, "linalg-on-tensors"), list(inputs.values()))
    for got, want in zip(outputs, expected):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
