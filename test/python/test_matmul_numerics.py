"""MatMul of operands whose batch dims are dynamic or broadcast (the rotary-embedding product of
LLaMA-style decoders is [batch, 8, 1] x [batch, 1, sequence]): compiled to each backend that
takes the shapes, run on the reference runner, compared with numpy.

torch-mlir decomposes a 3-D `aten.matmul` only into `aten.bmm`, which needs equal batch dims,
so such products were left undecomposed and the backend contract rejected them; its Linalg
lowering of a 4-D product assumes dynamic batch dims equal, and a run-time batch of 1 against
3 gave wrong numbers."""

import numpy as np
import onnx
import pytest
from onnx import helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime

# (declared lhs dims, declared rhs dims, run-time lhs shape, run-time rhs shape)
CASES = {
    "dynamic-batches": (["B1", 8, 1], ["B2", 1, "S"], (3, 8, 1), (3, 1, 5)),
    "dynamic-broadcast-lhs": (["B1", 8, 4], ["B2", 4, "S"], (1, 8, 4), (3, 4, 5)),
    "dynamic-broadcast-rhs": (["B1", 8, 4], ["B2", 4, "S"], (2, 8, 4), (1, 4, 6)),
    "dynamic-broadcast-4d": (["B1", 2, 8, 4], ["B2", 2, 4, "S"], (1, 2, 8, 4), (3, 2, 4, 6)),
    "dynamic-broadcast-ranks": (["B1", 8, 4], [2, "B2", 4, 5], (1, 8, 4), (2, 3, 4, 5)),
    "static-broadcast": ([1, 8, 4], [3, 4, 5], (1, 8, 4), (3, 4, 5)),
}
# Dynamic dims run on Linalg only: TOSA needs static shapes, and the reference runner cannot yet
# lower dynamically shaped StableHLO (`bufferization.to_tensor` is left over; issue 11).
DYNAMIC_BACKENDS = ["linalg-on-tensors"]


def _model(lhs_dims, rhs_dims) -> onnx.ModelProto:
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["a", "b"], ["y"], name="product")], "g",
        [helper.make_tensor_value_info("a", onnx.TensorProto.FLOAT, lhs_dims),
         helper.make_tensor_value_info("b", onnx.TensorProto.FLOAT, rhs_dims)],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _backends(case: str):
    static = all(isinstance(d, int) for d in CASES[case][0] + CASES[case][1])
    return DYNAMIC_BACKENDS + (["tosa", "stablehlo"] if static else [])


@pytest.mark.parametrize("case,backend", [(case, backend) for case in CASES for backend in _backends(case)])
def test_3d_matmul_with_unproven_batch(case, backend):
    lhs_dims, rhs_dims, lhs_shape, rhs_shape = CASES[case]
    rng = np.random.default_rng(0)
    a = rng.standard_normal(lhs_shape, dtype=np.float32)
    b = rng.standard_normal(rhs_shape, dtype=np.float32)
    module = onnx_torch_mlir.compile(_model(lhs_dims, rhs_dims), backend)
    (got,) = runtime.run(module, [a, b], input_dialect=backend)
    np.testing.assert_allclose(got, np.matmul(a, b), rtol=1e-5, atol=1e-5)
