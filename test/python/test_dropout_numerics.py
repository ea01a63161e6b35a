"""Dropout-13 with run-time `ratio` and `training_mode` on each backend: random values cannot match
a reference, so the checks are the rule's invariants. In training, Y is X / (1 - ratio) where the
mask is set and 0 elsewhere, and the kept fraction is near 1 - ratio (4096 draws: within 0.05,
about 4.6 standard deviations); in inference and with ratio 0, Y is X and the mask all true.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime

BACKENDS = ("linalg-on-tensors", "tosa", "stablehlo")
SHAPE = [64, 64]


def _module(backend):
    node = helper.make_node("Dropout", ["x", "r", "t"], ["y", "mask"])
    graph = helper.make_graph(
        [node], "dropout",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE),
         helper.make_tensor_value_info("r", TensorProto.FLOAT, []),
         helper.make_tensor_value_info("t", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, SHAPE),
         helper.make_tensor_value_info("mask", TensorProto.BOOL, SHAPE)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=10)
    return onnx_torch_mlir.compile(model, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_dropout_at_run_time(backend):
    module = _module(backend)
    x = np.random.default_rng(0).uniform(1.0, 2.0, size=SHAPE).astype(np.float32)
    for ratio, training in ((0.75, True), (0.3, True), (0.75, False), (0.0, True)):
        y, mask = runtime.run(module, [x, np.array(ratio, np.float32), np.array(training)], input_dialect=backend)
        assert mask.dtype == np.bool_ and mask.shape == x.shape
        if not training or ratio == 0.0:
            assert mask.all()
            np.testing.assert_array_equal(y, x)
            continue
        assert abs(mask.mean() - (1.0 - ratio)) < 0.05, mask.mean()
        np.testing.assert_allclose(y[mask], x[mask] / (1.0 - ratio), rtol=1e-6)
        assert (y[~mask] == 0).all()
