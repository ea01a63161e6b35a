"""Batch products by one matrix as one matrix product, on StableHLO.

torch-mlir's StableHLO lowering of an `aten.matmul` of a batch of rows by a matrix (ONNX's
`[..., M, K] x [K, N]` MatMul: a transformer's Linear, ConvNeXt's pointwise layers on its NHWC
image) broadcasts the matrix over the batch (`stablehlo.broadcast_in_dim` to `[..., K, N]`) and
takes a `stablehlo.dot_general` with those batch dims. IREE 3.13 on the CPU runs that as one small
product per batch entry over a materialized copy of the weights, as it does the Linalg lowering's
batch matmul (transforms/linalg/matrix_broadcasts.py says by how much on ConvNeXt).

So each such `dot_general` becomes a `stablehlo.reshape` of the rows to `[batch * M, K]`, one
`dot_general` by the matrix itself and a reshape back to `[..., M, N]`: each sum is the same, over
the same K, so the numbers are unchanged, and the broadcast weights are gone. Static shapes only.
Can go when torch-mlir lowers a matmul by a matrix without the broadcast, or IREE folds the
broadcast into the batch product's loops.
"""

from __future__ import annotations

import math

from torch_mlir import ir
from torch_mlir._mlir_libs import _stablehlo

from ..stablehlo.window_emitter import Emitter
from ..torch.rewriting import ops_named


def batch_products_by_a_matrix(module: ir.Module) -> int:
    """Rewrite each batch product by a broadcast matrix (module docstring); the count rewritten."""
    rewritten = 0
    with module.context, ir.Location.unknown():
        for op in ops_named(module, {"stablehlo.dot_general"}):
            matrix = _broadcast_matrix(op)
            if matrix is not None:
                _rewrite(op, matrix)
                rewritten += 1
    return rewritten


def _broadcast_matrix(op: ir.Operation) -> ir.Value | None:
    """The `[K, N]` matrix whose broadcast over the batch is `op`'s right operand, when `op` is a
    product of static `[batch..., M, K]` rows by it with the batch dims leading; else None."""
    lhs, rhs = op.operands[0], op.operands[1]
    types = [lhs.type, rhs.type, op.results[0].type]
    if not all(isinstance(t, ir.RankedTensorType) and t.has_static_shape for t in types):
        return None
    rank = lhs.type.rank
    batch = list(range(rank - 2))
    numbers = _stablehlo.DotDimensionNumbers(op.attributes["dot_dimension_numbers"])
    if (not batch or rhs.type.rank != rank or list(numbers.lhs_batching_dimensions) != batch
            or list(numbers.rhs_batching_dimensions) != batch
            or list(numbers.lhs_contracting_dimensions) != [rank - 1]
            or list(numbers.rhs_contracting_dimensions) != [rank - 2]):
        return None
    owner = rhs.owner
    if not isinstance(owner, ir.OpView) or owner.operation.name != "stablehlo.broadcast_in_dim":
        return None
    matrix = owner.operation.operands[0]
    dims = list(ir.DenseI64ArrayAttr(owner.operation.attributes["broadcast_dimensions"]))
    if not isinstance(matrix.type, ir.RankedTensorType) or matrix.type.rank != 2 or dims != [rank - 2, rank - 1]:
        return None
    return matrix if list(matrix.type.shape) == list(rhs.type.shape[-2:]) else None


def _rewrite(op: ir.Operation, matrix: ir.Value) -> None:
    emit = Emitter(op)
    lhs = op.operands[0]
    result_type = ir.RankedTensorType(op.results[0].type)
    *batch, rows, depth = lhs.type.shape
    features = matrix.type.shape[1]
    flat_rows = math.prod(batch) * rows
    numbers = _stablehlo.DotDimensionNumbers.get(lhs_batching_dimensions=[], rhs_batching_dimensions=[],
                                                 lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[0])
    attributes = {"dot_dimension_numbers": numbers}
    for name in ("precision_config", "algorithm"):
        if name in op.attributes:
            attributes[name] = op.attributes[name]
    product = emit.create("stablehlo.dot_general",
                          ir.RankedTensorType.get([flat_rows, features], result_type.element_type),
                          [emit.reshape(lhs, [flat_rows, depth]), matrix], **attributes)
    broadcast = op.operands[1].owner
    op.results[0].replace_all_uses_with(emit.reshape(product, list(result_type.shape)))
    op.erase()
    if not list(broadcast.results[0].uses):
        broadcast.operation.erase()
