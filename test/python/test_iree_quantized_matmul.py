"""A QDQ MatMul by a matrix after a reshape with dynamic dims, compiled by IREE from our Linalg.

torch-mlir lowers the quantized `[batch, rows, K] x [K, N]` product to a
`linalg.quantized_batch_matmul` by the matrix broadcast over the batch. IREE (3.13) splits off the
rows' zero point's term, `zero_point * sum_k matrix[k, n]` per batch, a `[batch, N]` tensor sized by
the broadcast's batch size; where that size is worked out from a reshape (`[0, -1, 32]` after a
batched product, so `[B * 4] / 4` and an i64 `select`) and the residual add it is fused with has
its own dims, IREE fails: "'iree_codegen.workgroup_count_hint' op failed to resolve workgroup count
hint in terms of workload ordinals" (the wild `encoder-qdq-u8s8-matmul`). `REPRODUCER` below is
the smallest Linalg of that form (its last dispatch: the product and the residual add);
transforms/linalg/quantized_matrix_products.py rewrites it to a `linalg.quantized_matmul` on the
rows, which IREE compiles. When the reproducer compiles as it is, that step can go.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from torch_mlir import ir

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnx_torch_mlir.mlir_context import make_context
from onnx_torch_mlir.runtime.iree import IreeError, compile_with_iree
from onnx_torch_mlir.transforms.linalg.quantized_matrix_products import quantized_batch_products_by_a_matrix

_IDENTITY = "affine_map<(d0, d1, d2) -> (d0, d1, d2)>"
_PARALLEL = '["parallel", "parallel", "parallel"]'

# What our Linalg held for the graph of `_reshaped_qdq_matmul` (the quantize step shortened to a
# cast, the weights an argument): [B, 4, S, 8] x [B, 4, 8, 8], reshaped to [B, -1, 32], quantized
# with zero point 15, multiplied by %w broadcast over B, added to %residual.
REPRODUCER = f"""
func.func @main(%x: tensor<?x4x?x8xf32>, %y: tensor<?x4x8x8xf32>, %residual: tensor<?x?x32xf32>,
                %w: tensor<32x32xi8>) -> tensor<?x?x32xf32> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c0_i64 = arith.constant 0 : i64
  %c1_i64 = arith.constant 1 : i64
  %c32_i64 = arith.constant 32 : i64
  %c0_i32 = arith.constant 0 : i32
  %c15_i32 = arith.constant 15 : i32
  %zero = arith.constant 0.0 : f32
  %x_batch = tensor.dim %x, %c0 : tensor<?x4x?x8xf32>
  %0 = arith.index_cast %x_batch : index to i64
  %y_batch = tensor.dim %y, %c0 : tensor<?x4x8x8xf32>
  %1 = arith.index_cast %y_batch : index to i64
  %2 = arith.cmpi eq, %1, %c1_i64 : i64
  %3 = arith.extui %2 : i1 to i64
  %4 = arith.subi %0, %1 : i64
  %5 = arith.muli %4, %3 : i64
  %6 = arith.addi %1, %5 : i64
  %batch = arith.index_cast %6 : i64 to index
  %sequence = tensor.dim %x, %c2 : tensor<?x4x?x8xf32>
  %x_empty = tensor.empty(%batch, %sequence) : tensor<?x4x?x8xf32>
  %x_copy = linalg.copy ins(%x : tensor<?x4x?x8xf32>) outs(%x_empty : tensor<?x4x?x8xf32>) -> tensor<?x4x?x8xf32>
  %y_empty = tensor.empty(%batch) : tensor<?x4x8x8xf32>
  %y_copy = linalg.copy ins(%y : tensor<?x4x8x8xf32>) outs(%y_empty : tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  %x3 = tensor.collapse_shape %x_copy [[0, 1], [2], [3]] : tensor<?x4x?x8xf32> into tensor<?x?x8xf32>
  %y3 = tensor.collapse_shape %y_copy [[0, 1], [2], [3]] : tensor<?x4x8x8xf32> into tensor<?x8x8xf32>
  %heads = arith.muli %batch, %c4 : index
  %xy_empty = tensor.empty(%heads, %sequence) : tensor<?x?x8xf32>
  %xy_zero = linalg.fill ins(%zero : f32) outs(%xy_empty : tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  %xy = linalg.batch_matmul ins(%x3, %y3 : tensor<?x?x8xf32>, tensor<?x8x8xf32>) outs(%xy_zero : tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  %7 = arith.divsi %heads, %c4 : index
  %8 = arith.index_cast %7 : index to i64
  %flat = tensor.collapse_shape %xy [[0, 1, 2]] : tensor<?x?x8xf32> into tensor<?xf32>
  %9 = arith.cmpi slt, %8, %c0_i64 : i64
  %10 = arith.select %9, %c1_i64, %8 : i64
  %11 = arith.muli %10, %c32_i64 : i64
  %12 = affine.apply affine_map<()[s0, s1] -> ((s0 * s1) * 32)>()[%sequence, %batch]
  %13 = arith.index_cast %12 : index to i64
  %14 = arith.divsi %13, %11 : i64
  %15 = arith.select %9, %14, %8 : i64
  %shape = tensor.from_elements %15, %14, %c32_i64 : tensor<3xi64>
  %rows = tensor.reshape %flat(%shape) : (tensor<?xf32>, tensor<3xi64>) -> tensor<?x?x32xf32>
  %rows_batch = arith.index_cast %15 : i64 to index
  %rows_count = arith.index_cast %14 : i64 to index
  %q_empty = tensor.empty(%rows_batch, %rows_count) : tensor<?x?x32xi8>
  %q = linalg.generic {{indexing_maps = [{_IDENTITY}, {_IDENTITY}], iterator_types = {_PARALLEL}}}
      ins(%rows : tensor<?x?x32xf32>) outs(%q_empty : tensor<?x?x32xi8>) {{
  ^bb0(%in: f32, %out: i8):
    %v = arith.fptosi %in : f32 to i8
    linalg.yield %v : i8
  }} -> tensor<?x?x32xi8>
  %w_empty = tensor.empty(%rows_batch) : tensor<?x32x32xi8>
  %w_batch = linalg.broadcast ins(%w : tensor<32x32xi8>) outs(%w_empty : tensor<?x32x32xi8>) dimensions = [0]
  %acc_empty = tensor.empty(%rows_batch, %rows_count) : tensor<?x?x32xi32>
  %acc = linalg.fill ins(%c0_i32 : i32) outs(%acc_empty : tensor<?x?x32xi32>) -> tensor<?x?x32xi32>
  %product = linalg.quantized_batch_matmul ins(%q, %w_batch, %c15_i32, %c0_i32 : tensor<?x?x32xi8>, tensor<?x32x32xi8>, i32, i32)
      outs(%acc : tensor<?x?x32xi32>) -> tensor<?x?x32xi32>
  %r0 = tensor.dim %residual, %c0 : tensor<?x?x32xf32>
  %r1 = tensor.dim %residual, %c1 : tensor<?x?x32xf32>
  %sum_empty = tensor.empty(%r0, %r1) : tensor<?x?x32xf32>
  %sum = linalg.generic {{indexing_maps = [{_IDENTITY}, {_IDENTITY}, {_IDENTITY}], iterator_types = {_PARALLEL}}}
      ins(%residual, %product : tensor<?x?x32xf32>, tensor<?x?x32xi32>) outs(%sum_empty : tensor<?x?x32xf32>) {{
  ^bb0(%r: f32, %p: i32, %out: f32):
    %pf = arith.sitofp %p : i32 to f32
    %s = arith.addf %r, %pf : f32
    linalg.yield %s : f32
  }} -> tensor<?x?x32xf32>
  return %sum : tensor<?x?x32xf32>
}}
"""


def _reproducer_inputs(batch=2, sequence=3):
    rng = np.random.default_rng(0)
    return [rng.integers(-3, 4, (batch, 4, sequence, 8)).astype(np.float32),
            rng.integers(-1, 2, (batch, 4, 8, 8)).astype(np.float32),
            rng.standard_normal((batch, sequence, 32)).astype(np.float32),
            rng.integers(-127, 128, (32, 32)).astype(np.int8)]


def _rewritten_reproducer() -> ir.Module:
    with make_context():
        module = ir.Module.parse(REPRODUCER)
        assert quantized_batch_products_by_a_matrix(module) == 1
        module.operation.verify()
        return module


def test_iree_rejects_the_reproducer():
    with pytest.raises(IreeError, match="workload ordinals"):
        compile_with_iree(REPRODUCER, "linalg-on-tensors")


def test_the_rewritten_reproducer_compiles_with_iree_to_the_same_numbers():
    module = _rewritten_reproducer()
    text = str(module)
    assert "linalg.quantized_batch_matmul" not in text and "linalg.broadcast" not in text
    arrays = _reproducer_inputs()
    (before,) = runtime.run(REPRODUCER, arrays)
    (reference,) = runtime.run(module, arrays)
    (iree,) = compile_with_iree(module, "linalg-on-tensors")(*arrays)
    np.testing.assert_array_equal(reference, before)
    np.testing.assert_array_equal(iree, before)


def _reshaped_qdq_matmul():
    """The encoder's pattern in four nodes: a batched MatMul, a Reshape to [0, -1, 32], a uint8 QDQ
    pair (zero point 143), a MatMul by a DequantizeLinear int8 matrix, an Add of a residual."""
    rng = np.random.default_rng(1)
    weights = [numpy_helper.from_array(np.array([0, -1, 32], np.int64), "shape"),
               numpy_helper.from_array(np.float32(0.05), "rows_scale"),
               numpy_helper.from_array(np.uint8(143), "rows_zero_point"),
               numpy_helper.from_array(rng.integers(-127, 128, (32, 32)).astype(np.int8), "w"),
               numpy_helper.from_array(np.float32(0.0014), "w_scale"),
               numpy_helper.from_array(np.int8(0), "w_zero_point")]
    nodes = [helper.make_node("MatMul", ["x", "y"], ["xy"]),
             helper.make_node("Reshape", ["xy", "shape"], ["rows"]),
             helper.make_node("QuantizeLinear", ["rows", "rows_scale", "rows_zero_point"], ["rows_q"]),
             helper.make_node("DequantizeLinear", ["rows_q", "rows_scale", "rows_zero_point"], ["rows_d"]),
             helper.make_node("DequantizeLinear", ["w", "w_scale", "w_zero_point"], ["w_d"]),
             helper.make_node("MatMul", ["rows_d", "w_d"], ["product"]),
             helper.make_node("Add", ["residual", "product"], ["sum"])]
    graph = helper.make_graph(
        nodes, "reshaped_qdq_matmul",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4, "sequence", 8]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4, 8, 8]),
         helper.make_tensor_value_info("residual", TensorProto.FLOAT, ["batch", "sequence", 32])],
        [helper.make_tensor_value_info("sum", TensorProto.FLOAT, ["batch", "sequence", 32])],
        initializer=weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)], ir_version=9)
    arrays = [rng.standard_normal((2, 4, 3, 8)).astype(np.float32),
              rng.standard_normal((2, 4, 8, 8)).astype(np.float32),
              rng.standard_normal((2, 3, 32)).astype(np.float32)]
    return model, arrays


def test_reshaped_qdq_matmul_compiles_with_iree_from_linalg():
    model, arrays = _reshaped_qdq_matmul()
    module = onnx_torch_mlir.compile(model, "linalg-on-tensors")
    assert "linalg.quantized_matmul" in str(module)
    (expected,) = ReferenceEvaluator(model).run(None, dict(zip(["x", "y", "residual"], arrays)))
    (reference,) = runtime.run(module, arrays)
    (iree,) = compile_with_iree(module, "linalg-on-tensors")(*arrays)
    np.testing.assert_allclose(reference, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(iree, reference, rtol=1e-6, atol=1e-6)
