"""Batch products by one matrix as one matrix product (transforms/linalg/matrix_broadcasts.py and
transforms/stablehlo/matrix_broadcasts.py): ONNX MatMuls of a batch of rows by a constant matrix
compute what onnxruntime does, on the reference runner and on IREE (and XLA for StableHLO), with no
batch product left; a dynamic batch (kept a batch product on StableHLO, whose step takes static
shapes), a rank-3 and a rank-4 batch; a product of two batches stays a batch product."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from consumers import program
from onnxruntime_reference import assert_matches, expected

# name: (rows' shape, the matrix's shape; None in the rows' shape: a dynamic dim)
PRODUCTS = {
    "rank-4-image": ([2, 4, 4, 16], [16, 32]),  # ConvNeXt's pointwise layer on its NHWC image
    "rank-3-sequence": ([3, 5, 8], [8, 6]),  # a transformer's Linear
    "dynamic-batch": ([None, 5, 8], [8, 6]),
}


def _product_by_a_matrix(rows_shape, matrix_shape) -> onnx.ModelProto:
    rng = np.random.default_rng(5)
    matrix = numpy_helper.from_array(rng.standard_normal(matrix_shape).astype(np.float32), "w")
    bias = numpy_helper.from_array(rng.standard_normal(matrix_shape[1:]).astype(np.float32), "b")
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Add", ["m", "b"], ["y"])]
    dims = [size if size is not None else "batch" for size in rows_shape]
    graph = helper.make_graph(nodes, "product", [helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [matrix, bias])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


@pytest.mark.parametrize("backend,consumer", [("linalg-on-tensors", "reference"), ("linalg-on-tensors", "iree"),
                                              ("stablehlo", "reference"), ("stablehlo", "iree"), ("stablehlo", "xla")])
@pytest.mark.parametrize("name", PRODUCTS)
def test_batch_product_by_a_matrix_matches_onnxruntime(name, backend, consumer):
    rows_shape, matrix_shape = PRODUCTS[name]
    if consumer == "xla" and None in rows_shape:
        pytest.skip("XLA compiles static shapes only")
    model = _product_by_a_matrix(rows_shape, matrix_shape)
    x = np.random.default_rng(0).standard_normal([size or 2 for size in rows_shape]).astype(np.float32)
    xla = {"entry_name": "main", "weights": "inline"} if consumer == "xla" else {}
    module = onnx_torch_mlir.compile(model, backend, **xla)
    text = str(module)
    if backend == "linalg-on-tensors":
        assert "linalg.matmul" in text and "linalg.batch_matmul" not in text  # the rewrite ran
    else:
        assert ("batching_dims" in text) == (None in rows_shape)  # the rewrite ran where shapes are static
    run = _xla_program(module) if consumer == "xla" else program(module, backend, consumer)
    assert_matches(run(x), expected(model, [x]), rtol=1e-5, atol=1e-5)


def _xla_program(module):
    pytest.importorskip("jax", reason="XLA comes with the xla extra")
    from onnx_torch_mlir.runtime.xla import compile_with_xla

    return compile_with_xla(module)


def test_product_of_two_batches_stays_a_batch_product():
    inputs = [helper.make_tensor_value_info("a", TensorProto.FLOAT, [3, 5, 8]),
              helper.make_tensor_value_info("b", TensorProto.FLOAT, [3, 8, 6])]
    graph = helper.make_graph([helper.make_node("MatMul", ["a", "b"], ["y"])], "batches", inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    module = onnx_torch_mlir.compile(model, "linalg-on-tensors")
    assert "linalg.batch_matmul" in str(module)
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal([3, 5, 8]).astype(np.float32), rng.standard_normal([3, 8, 6]).astype(np.float32)
    assert_matches(program(module, "linalg-on-tensors", "reference")(a, b), expected(model, [a, b]), rtol=1e-5,
                   atol=1e-5)


# A transposed matrix (GPT-2's head, tied to its embedding) copied over a dynamic batch: IREE folds the
# transpose into the new matmul, and crashed (SIGSEGV in PropagateLinalgTranspose) while the matmul
# the Python builder made carried no indexing maps.
TRANSPOSED_MATRIX = """
func.func @main(%rows: tensor<?x5x8xf32>, %weight: tensor<6x8xf32>) -> tensor<?x5x6xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %batch = tensor.dim %rows, %c0 : tensor<?x5x8xf32>
  %columns = tensor.empty() : tensor<8x6xf32>
  %matrix = linalg.transpose ins(%weight : tensor<6x8xf32>) outs(%columns : tensor<8x6xf32>) permutation = [1, 0]
  %copies = tensor.empty(%batch) : tensor<?x8x6xf32>
  %repeated = linalg.broadcast ins(%matrix : tensor<8x6xf32>) outs(%copies : tensor<?x8x6xf32>) dimensions = [0]
  %empty = tensor.empty(%batch) : tensor<?x5x6xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<?x5x6xf32>) -> tensor<?x5x6xf32>
  %product = linalg.batch_matmul ins(%rows, %repeated : tensor<?x5x8xf32>, tensor<?x8x6xf32>) outs(%init : tensor<?x5x6xf32>) -> tensor<?x5x6xf32>
  return %product : tensor<?x5x6xf32>
}
"""


def test_product_by_a_transposed_matrix_compiles_in_iree():
    from torch_mlir import ir

    from onnx_torch_mlir.mlir_context import make_context
    from onnx_torch_mlir.transforms.linalg.matrix_broadcasts import batch_products_by_a_matrix

    module = ir.Module.parse(TRANSPOSED_MATRIX, make_context())
    assert batch_products_by_a_matrix(module) == 1
    rng = np.random.default_rng(2)
    rows, weight = rng.standard_normal([3, 5, 8]).astype(np.float32), rng.standard_normal([6, 8]).astype(np.float32)
    assert_matches(program(module, "linalg-on-tensors", "iree")(rows, weight), [rows @ weight.T], rtol=1e-5, atol=1e-5)
