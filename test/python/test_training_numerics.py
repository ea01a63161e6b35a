"""ONNX preview training optimizers (Adagrad, Adam, Momentum) compiled to each backend, run on the
reference CPU runner and compared with ONNX's reference evaluator (onnxruntime's CPU build has no
kernels for them). The conformance cases all have T = 0; these use T = 0 and T = 3, so the
bias-corrected Adam rate, the decayed Adagrad rate and Momentum's beta are checked too.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import onnx_torch_mlir
from onnx_torch_mlir import runtime

BACKENDS = ("linalg-on-tensors", "tosa", "stablehlo")
TRAINING = "ai.onnx.preview.training"
OPTIMIZERS = {
    "Adagrad": (("X", "G", "H"), ("X_new", "H_new"), dict(decay_factor=0.1, epsilon=1e-5, norm_coefficient=0.01)),
    "Momentum": (("X", "G", "V"), ("X_new", "V_new"), dict(alpha=0.9, beta=0.8, mode="standard",
                                                            norm_coefficient=0.01)),
    "Nesterov": (("X", "G", "V"), ("X_new", "V_new"), dict(alpha=0.9, beta=0.8, mode="nesterov",
                                                            norm_coefficient=0.01)),
    "Adam": (("X", "G", "V", "H"), ("X_new", "V_new", "H_new"),
             dict(alpha=0.9, beta=0.8, epsilon=1e-3, norm_coefficient=0.01, norm_coefficient_post=0.05)),
}


def _model(name: str, shapes: list[list[int]]):
    kinds, results, attributes = OPTIMIZERS[name]
    inputs = [f"{kind}{i}" for kind in kinds for i in range(len(shapes))]
    outputs = [f"{kind}{i}" for kind in results for i in range(len(shapes))]
    op_type = "Momentum" if name == "Nesterov" else name
    node = helper.make_node(op_type, ["R", "T", *inputs], outputs, domain=TRAINING, **attributes)
    count = len(shapes)
    values = [helper.make_tensor_value_info("R", TensorProto.FLOAT, []),
              helper.make_tensor_value_info("T", TensorProto.INT64, [])]
    values += [helper.make_tensor_value_info(n, TensorProto.FLOAT, shapes[i % count]) for i, n in enumerate(inputs)]
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, shapes[i % count]) for i, n in enumerate(outputs)]
    graph = helper.make_graph([node], "optimizer", values, outs)
    opsets = [helper.make_opsetid("", 21), helper.make_opsetid(TRAINING, 1)]
    return helper.make_model(graph, opset_imports=opsets, ir_version=10), ["R", "T", *inputs]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("step", [0, 3])
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_optimizer_matches_onnx_reference(name, step, backend):
    shapes = [[3], [2, 4]]
    model, names = _model(name, shapes)
    rng = np.random.default_rng(len(name) + step)
    arrays = [np.array(0.1, np.float32), np.array(step, np.int64)]
    arrays += [rng.uniform(0.1, 2.0, size=shapes[i % 2]).astype(np.float32) for i in range(len(names) - 2)]
    expected = ReferenceEvaluator(model).run(None, dict(zip(names, arrays)))
    actual = runtime.run(onnx_torch_mlir.compile(model, backend), arrays, input_dialect=backend)
    for got, want in zip(actual, expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
