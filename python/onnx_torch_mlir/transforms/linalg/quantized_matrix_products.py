"""Quantized batch products by one matrix as one quantized matrix product.

torch-mlir's Linalg lowering of a quantized `aten.matmul` of a batch of rows by a matrix (a QDQ
model's `[batch, sequence, K] x [K, N]` MatMul, made quantized by `torch-fuse-quantized-ops`)
broadcasts the matrix over the batch and takes a `linalg.quantized_batch_matmul`. IREE (3.13)
rewrites that op as an integer batch product minus the zero points' terms, the right operand's being
`a_zero_point * sum_k b[batch, k, n]`: a `[batch, N]` tensor sized by the broadcast's batch size. When
that size is a value computed from a reshape (`[B, -1, 32]`, its `-1` worked out by `arith` on i64)
and the dispatch it lands in is sized by other values (a residual add's operand), IREE clones the
computation into the dispatch and fails: "'iree_codegen.workgroup_count_hint' op failed to resolve
workgroup count hint in terms of workload ordinals" (the wild `encoder-qdq-u8s8-matmul`, dynamic
batch and sequence; test/python/test_iree_quantized_matmul.py holds the smallest Linalg that fails).

So each `linalg.quantized_batch_matmul` whose right operand is a matrix broadcast over the batch
becomes `tensor.collapse_shape` of the rows to `[batch * M, K]`, a `linalg.quantized_matmul` by the
matrix itself, and `tensor.expand_shape` back to `[batch, M, N]`: the zero points' term on the matrix
is then `[N]`, sized by nothing dynamic, and the copy of the weights per batch is gone. Each sum is
the same, over the same K, in int32: the numbers are unchanged. A product with a zero point 0 on
the rows has no such term and compiled before; it is rewritten too (one rule, and no copied
weights). Can go when torch-mlir lowers a quantized matmul by a matrix without the broadcast, or
IREE sizes that term from its dispatch's workload (the test's reproducer then compiles).
"""

from __future__ import annotations

from torch_mlir import ir
from torch_mlir.dialects import linalg

from ...ir_walk import erase_unread, ops_named
from .matrix_broadcasts import COPIES, batch_rows_collapsed, batch_rows_expanded, copied_matrix


def quantized_batch_products_by_a_matrix(module: ir.Module) -> int:
    """Rewrite each quantized batch product by a broadcast matrix (module docstring); the count."""
    rewritten = 0
    with module.context:
        for operation in ops_named(module, {"linalg.quantized_batch_matmul"}):
            matrix = copied_matrix(operation.operands[1])
            rows, initial = operation.operands[0], operation.operands[4]
            if matrix is not None and _is_rank3_tensor(rows) and _is_rank3_tensor(initial):
                _rewrite(operation, matrix)
                rewritten += 1
        if rewritten:
            erase_unread(module, COPIES)
    return rewritten


def _is_rank3_tensor(value: ir.Value) -> bool:
    return isinstance(value.type, ir.RankedTensorType) and value.type.rank == 3


def _rewrite(operation: ir.Operation, matrix: ir.Value) -> None:
    rows, _, left_zero_point, right_zero_point, initial = operation.operands
    result_type = operation.results[0].type
    with operation.location, ir.InsertionPoint(operation):
        product = linalg.quantized_matmul(batch_rows_collapsed(rows), matrix, left_zero_point, right_zero_point,
                                          outs=[batch_rows_collapsed(initial)])
        product = product if isinstance(product, ir.Value) else product.results[0]
        expanded = batch_rows_expanded(product, result_type, initial)
    operation.results[0].replace_all_uses_with(expanded)
    operation.erase()
