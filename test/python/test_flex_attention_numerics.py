"""FlexAttention (ai.onnx.preview 1, a function op) with score_mod and prob_mod subgraphs,
compiled through each backend, run on the reference CPU runner and compared with ONNX's
reference evaluator (onnxruntime has no kernel for the preview domain).

The subgraphs are regions of the imported node; the expansion copies them into the function
body (conversion/onnx_to_torch/function_regions.py). Linalg compiles the model with symbolic
batch and sequence dims; TOSA and StableHLO with every dim fixed.
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
FLOAT = TensorProto.FLOAT


# The subgraphs' inputs are typed rank 4 (as exporters write them): the driver converts a
# subgraph's ops in place first, and a Shape of an unranked subgraph input cannot convert.
SCORES = ["b", "h", "l", "s"]


def _score_mod_causal() -> onnx.GraphProto:
    """Scores above the diagonal (key index > query index) become -inf."""
    nodes = [
        helper.make_node("Shape", ["s"], ["shape"]),
        helper.make_node("Constant", [], ["i2"], value=helper.make_tensor("i2", TensorProto.INT64, [], [2])),
        helper.make_node("Constant", [], ["i3"], value=helper.make_tensor("i3", TensorProto.INT64, [], [3])),
        helper.make_node("Constant", [], ["zero"], value=helper.make_tensor("zero", TensorProto.INT64, [], [0])),
        helper.make_node("Constant", [], ["one"], value=helper.make_tensor("one", TensorProto.INT64, [], [1])),
        helper.make_node("Constant", [], ["qshape"], value=helper.make_tensor("qshape", TensorProto.INT64, [4], [1, 1, -1, 1])),
        helper.make_node("Constant", [], ["neg_inf"], value=helper.make_tensor("neg_inf", FLOAT, [], [-np.inf])),
        helper.make_node("Gather", ["shape", "i2"], ["rows"], axis=0),
        helper.make_node("Gather", ["shape", "i3"], ["cols"], axis=0),
        helper.make_node("Range", ["zero", "rows", "one"], ["q_range"]),
        helper.make_node("Reshape", ["q_range", "qshape"], ["q_index"]),
        helper.make_node("Range", ["zero", "cols", "one"], ["k_index"]),
        helper.make_node("GreaterOrEqual", ["q_index", "k_index"], ["keep"]),
        helper.make_node("Where", ["keep", "s", "neg_inf"], ["masked"]),
    ]
    return helper.make_graph(nodes, "score_mod", [helper.make_tensor_value_info("s", FLOAT, SCORES)],
                             [helper.make_tensor_value_info("masked", FLOAT, None)])


def _prob_mod_square() -> onnx.GraphProto:
    return helper.make_graph([helper.make_node("Mul", ["p", "p"], ["squared"])], "prob_mod",
                             [helper.make_tensor_value_info("p", FLOAT, SCORES)],
                             [helper.make_tensor_value_info("squared", FLOAT, None)])


CASES = {
    "score_mod": dict(score_mod=_score_mod_causal()),
    "prob_mod": dict(prob_mod=_prob_mod_square()),
    "both_grouped_heads": dict(score_mod=_score_mod_causal(), prob_mod=_prob_mod_square(), scale=0.3),
}
SHAPES = {"Q": (2, 4, 5, 8), "K": (2, 2, 5, 8), "V": (2, 2, 5, 6)}
SYMBOLIC = {"Q": ["batch", 4, "seq", 8], "K": ["batch", 2, "seq", 8], "V": ["batch", 2, "seq", 6]}


def _model(name: str, static: bool) -> onnx.ModelProto:
    node = helper.make_node("FlexAttention", ["Q", "K", "V"], ["Y"], domain="ai.onnx.preview", **CASES[name])
    inputs = [helper.make_tensor_value_info(n, FLOAT, list(SHAPES[n]) if static else SYMBOLIC[n]) for n in SHAPES]
    output = helper.make_tensor_value_info("Y", FLOAT, [2, 4, 5, 6] if static else None)
    graph = helper.make_graph([node], "flex", inputs, [output])
    opsets = [helper.make_opsetid("", 26), helper.make_opsetid("ai.onnx.preview", 1)]
    return helper.make_model(graph, opset_imports=opsets, ir_version=10)


def _arrays() -> list:
    rng = np.random.default_rng(7)
    return [rng.standard_normal(shape).astype(np.float32) for shape in SHAPES.values()]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_reference(name, backend):
    arrays = _arrays()
    expected = ReferenceEvaluator(_model(name, static=True)).run(None, dict(zip(SHAPES, arrays)))
    module = onnx_torch_mlir.compile(_model(name, static=backend != "linalg-on-tensors"), backend)
    outputs = runtime.run(module, arrays, input_dialect=backend)
    np.testing.assert_allclose(outputs[0], expected[0], rtol=1e-4, atol=1e-5)
