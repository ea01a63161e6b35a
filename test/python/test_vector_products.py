"""One row times a matrix (transforms/linalg/vector_products.py, transforms/stablehlo/vector_products.py):
a Gemm with transB and a MatMul by a [K, N] initializer on one row read the weights as [N, K] rows,
and compute what onnxruntime does on the reference runner, IREE and XLA; products of several rows
and products by a run-time matrix are left as they are."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from consumers import program
from onnxruntime_reference import assert_matches, expected

DEPTH, FEATURES = 24, 40


def _model(kind: str, rows: int = 1) -> onnx.ModelProto:
    """A one-op model: "gemm-transb" Gemm(x, w[N, K], b, transB=1); "matmul" MatMul(x, w[K, N]);
    "matmul-3d" MatMul of [1, rows, K] by w[K, N]; "run-time-matrix" MatMul(x, w) with w an input."""
    rng = np.random.default_rng(5)
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, rows, DEPTH] if kind == "matmul-3d"
                                            else [rows, DEPTH])]
    initializers = []
    if kind == "gemm-transb":
        initializers = [numpy_helper.from_array(rng.standard_normal([FEATURES, DEPTH]).astype(np.float32), "w"),
                        numpy_helper.from_array(rng.standard_normal([FEATURES]).astype(np.float32), "b")]
        node = helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)
    else:
        weights = rng.standard_normal([DEPTH, FEATURES]).astype(np.float32)
        if kind == "run-time-matrix":
            inputs.append(helper.make_tensor_value_info("w", TensorProto.FLOAT, [DEPTH, FEATURES]))
        else:
            initializers = [numpy_helper.from_array(weights, "w")]
        node = helper.make_node("MatMul", ["x", "w"], ["y"])
    graph = helper.make_graph([node], kind, inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _inputs(model: onnx.ModelProto) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.standard_normal([dim.dim_value for dim in value.type.tensor_type.shape.dim]).astype(np.float32)
            for value in model.graph.input]


# backend: what the module holds when the product reads [N, K] rows
ROWS_FORM = {"linalg-on-tensors": "affine_map<(d0, d1, d2) -> (d1, d2)>",
             "stablehlo": f"(tensor<{FEATURES}x{DEPTH}xf32>, tensor<{DEPTH}xf32>) -> tensor<{FEATURES}xf32>"}


@pytest.mark.parametrize("consumer", ["reference", "iree"])
@pytest.mark.parametrize("backend", ROWS_FORM)
@pytest.mark.parametrize("kind", ["gemm-transb", "matmul", "matmul-3d"])
def test_one_row_product_reads_weight_rows(kind, backend, consumer):
    model = _model(kind)
    module = onnx_torch_mlir.compile(model, backend)
    assert ROWS_FORM[backend] in str(module)  # the rewrite ran
    inputs = _inputs(model)
    assert_matches(program(module, backend, consumer)(*inputs), expected(model, inputs), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("backend", ROWS_FORM)
@pytest.mark.parametrize("kind, rows", [("matmul", 3), ("gemm-transb", 2), ("run-time-matrix", 1)])
def test_several_rows_and_run_time_matrices_are_left_as_they_are(kind, rows, backend):
    model = _model(kind, rows)
    module = onnx_torch_mlir.compile(model, backend)
    assert ROWS_FORM[backend] not in str(module)
    inputs = _inputs(model)
    assert_matches(program(module, backend, "reference")(*inputs), expected(model, inputs), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kind", ["gemm-transb", "matmul"])
def test_stablehlo_row_products_run_in_xla(kind):
    pytest.importorskip("jax", reason="XLA comes with the xla extra")
    from onnx_torch_mlir.runtime.xla import compile_with_xla

    model = _model(kind)
    module = onnx_torch_mlir.compile(model, "stablehlo", entry_name="main", weights="inline")
    assert ROWS_FORM["stablehlo"] in str(module)
    inputs = _inputs(model)
    assert_matches(compile_with_xla(module)(*inputs), expected(model, inputs), rtol=1e-5, atol=1e-5)
