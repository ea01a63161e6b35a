"""One row times a matrix as a product by the transposed weights.

A `[1, K] x [K, N]` `linalg.matmul` by a constant (a decoder step's Linear on one token, an ONNX
MatMul by a `[K, N]` initializer on one row) reaches IREE 3.13's CPU code as a `linalg.vecmat`, which it
runs at a third of the speed of the same product over the weights stored `[N, K]`: 314 us as `vecmat`,
117 us as a `linalg.matmul` reading the weights transposed and 109 us as `linalg.matvec`, for K = 576
and N = 1024 (one-op modules, IREE's dispatch profile). The StableHLO route's step
(stablehlo/vector_products.py) has the whole-model numbers.

So each static one-row `linalg.matmul` whose right operand is a constant, or a `linalg.transpose` of
`[N, K]` weights (torch-mlir's lowering of Gemm's `transB`, which IREE folds itself), becomes a
`linalg.matmul` reading the `[N, K]` weights through its indexing maps (`rhs[j, k]`), the constant's
elements transposed here at compile time. Each output is a sum over the same K products. Can go when
IREE runs `vecmat` as fast as `matvec`.
"""

from __future__ import annotations

from torch_mlir import ir
from torch_mlir.dialects import linalg

from ...ir_walk import erase_unread, ops_named
from ..transposed_constants import matrix_rows
from .matrix_broadcasts import plain_product

_MATMUL_MAPS = ["(d0, d1, d2) -> (d0, d2)", "(d0, d1, d2) -> (d2, d1)", "(d0, d1, d2) -> (d0, d1)"]
# What the rewritten products read their weights from (a transpose and its empty output, a constant),
# erased when nothing else reads it.
_WEIGHT_SOURCES = {"linalg.transpose", "tensor.empty", "arith.constant"}


def row_by_matrix_products_by_rows(module: ir.Module) -> int:
    """Rewrite each one-row product by a matrix with its `[N, K]` form at hand (module docstring); the
    count rewritten."""
    rewritten = 0
    with module.context, ir.Location.unknown():
        for operation in ops_named(module, {"linalg.matmul"}):
            weights = (matrix_rows(operation.operands[1], operation, "linalg.transpose", ("arith.constant",),
                                   "arith.constant") if _row_by_matrix(operation) else None)
            if weights is not None:
                _rewrite(operation, weights)
                rewritten += 1
        if rewritten:
            erase_unread(module, _WEIGHT_SOURCES)
    return rewritten


def _row_by_matrix(operation: ir.Operation) -> bool:
    """A static `[1, K] x [K, N]` matmul with the default maps and no cast."""
    if not plain_product(operation, _MATMUL_MAPS):
        return False
    types = [value.type for value in [*operation.operands, *operation.results]]
    return (all(isinstance(t, ir.RankedTensorType) and t.has_static_shape and t.rank == 2 for t in types)
            and types[0].shape[0] == 1)


def _rewrite(operation: ir.Operation, weights: ir.Value) -> None:
    """`initial + row x weights^T` as a `linalg.matmul` reading `weights[j, k]`."""
    row, _, initial = operation.operands
    i, j, k = (ir.AffineDimExpr.get(position) for position in range(3))
    maps = [ir.AffineMap.get(3, 0, results) for results in ([i, k], [j, k], [i, j])]
    with operation.location, ir.InsertionPoint(operation):
        product = linalg.matmul(row, weights, outs=[initial], indexing_maps=maps)
    product = product if isinstance(product, ir.Value) else product.results[0]
    operation.results[0].replace_all_uses_with(product)
    operation.erase()
