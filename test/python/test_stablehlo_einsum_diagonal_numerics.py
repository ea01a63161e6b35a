"""Einsum with a letter repeated in an input term (a diagonal) on StableHLO, whose diagonal the
conversion takes itself (torch-mlir's decomposition emits aten.diagonal, which its StableHLO
lowering does not take), run on the reference CPU runner and on IREE and compared with numpy.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnx_torch_mlir.runtime.iree import compile_with_iree

# equation -> input shapes
EQUATIONS = {
    "ii->i": [(4, 4)],
    "...ii->...i": [(2, 3, 4, 4)],
    "iji->ji": [(3, 2, 3)],
    "ii->": [(5, 5)],
    "bii,bj->bij": [(2, 3, 3), (2, 4)],
    "iiii->i": [(2, 2, 2, 2)],
}


def _model(equation: str, shapes):
    names = [f"x{i}" for i in range(len(shapes))]
    node = helper.make_node("Einsum", names, ["y"], equation=equation)
    graph = helper.make_graph([node], "einsum", [helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape))
                                                 for name, shape in zip(names, shapes)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)], ir_version=8)


@pytest.mark.parametrize("consumer", ["reference", "iree"])
@pytest.mark.parametrize("equation", EQUATIONS)
def test_diagonal_matches_numpy(equation, consumer):
    shapes = EQUATIONS[equation]
    module = onnx_torch_mlir.compile(_model(equation, shapes), "stablehlo")
    assert "torch." not in str(module)
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(shape).astype(np.float32) for shape in shapes]
    if consumer == "iree":
        (got,) = compile_with_iree(module, "stablehlo")(*arrays)
    else:
        (got,) = runtime.compile_for_cpu(module, input_dialect="stablehlo")(*arrays)
    want = np.einsum(equation, *arrays)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
