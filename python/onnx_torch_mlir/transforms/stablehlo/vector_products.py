"""One row times a matrix as a matrix-vector product, on StableHLO.

A `[1, K] x [K, N]` product (a classifier's Gemm on one image, a decoder step's Linear on one token)
reaches IREE 3.13's CPU code as a `linalg.vecmat` over the weights stored `[K, N]`: torch-mlir lowers
Gemm's `transB` to a `stablehlo.transpose` of the `[N, K]` weights, and IREE folds that transpose into
the constant. IREE runs `vecmat` at a third of the speed of `linalg.matvec` over the same weights
stored `[N, K]`: 314 against 109 us for K = 576, N = 1024 (one-op modules in IREE's dispatch profile;
IREE's `matmul` with the transposed weights took 117 us), and MobileNetV3-Small's two classifier layers
took 538 and 512 us of its 4.4 ms from our StableHLO.

So each static `dot_general` of one row by a matrix whose `[N, K]` form is at hand (the operand of a
`stablehlo.transpose`, or a constant, transposed here at compile time) becomes

    dot_general(weights[N, K], reshape(row, [K])), contracting [1] x [0]      -> [N], reshaped to [1, N]

The Linalg route's step (linalg/vector_products.py) does the same. Each output is a sum over the same
K products (in an order the consumer picks, as before). Can go when IREE runs `vecmat` as fast as
`matvec`.
"""

from __future__ import annotations

from torch_mlir import ir
from torch_mlir._mlir_libs import _stablehlo

from ...ir_walk import erase_unread
from ..stablehlo.window_emitter import Emitter
from ..torch.rewriting import ops_named
from ..transposed_constants import matrix_rows

# What the rewritten products read their weights from, erased when nothing else reads it.
_WEIGHT_SOURCES = {"stablehlo.transpose", "stablehlo.constant", "arith.constant"}


def row_by_matrix_products_as_matrix_vector(module: ir.Module) -> int:
    """Rewrite each one-row product by a matrix with its `[N, K]` form at hand (module docstring); the
    count rewritten."""
    rewritten = 0
    with module.context, ir.Location.unknown():
        for op in ops_named(module, {"stablehlo.dot_general"}):
            weights = (matrix_rows(op.operands[1], op, "stablehlo.transpose", ("stablehlo.constant", "arith.constant"),
                                   "stablehlo.constant") if _row_by_matrix(op) else None)
            if weights is not None:
                _rewrite(op, weights)
                rewritten += 1
        if rewritten:
            erase_unread(module, _WEIGHT_SOURCES)
    return rewritten


def _row_by_matrix(op: ir.Operation) -> bool:
    """Whether `op` is a static `[1, K] x [K, N]` product with no batch dims."""
    lhs, rhs, result = op.operands[0].type, op.operands[1].type, op.results[0].type
    if not all(isinstance(t, ir.RankedTensorType) and t.has_static_shape and t.rank == 2 for t in (lhs, rhs, result)):
        return False
    numbers = _stablehlo.DotDimensionNumbers(op.attributes["dot_dimension_numbers"])
    return (lhs.shape[0] == 1 and not list(numbers.lhs_batching_dimensions)
            and list(numbers.lhs_contracting_dimensions) == [1] and list(numbers.rhs_contracting_dimensions) == [0])


def _rewrite(op: ir.Operation, weights: ir.Value) -> None:
    emit = Emitter(op)
    row = op.operands[0]
    result_type = ir.RankedTensorType(op.results[0].type)
    features, depth = weights.type.shape
    numbers = _stablehlo.DotDimensionNumbers.get(lhs_batching_dimensions=[], rhs_batching_dimensions=[],
                                                 lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[0])
    attributes = {"dot_dimension_numbers": numbers}
    if "algorithm" in op.attributes:
        attributes["algorithm"] = op.attributes["algorithm"]
    if "precision_config" in op.attributes:  # one per operand: the operands swap places
        attributes["precision_config"] = ir.ArrayAttr.get(list(ir.ArrayAttr(op.attributes["precision_config"]))[::-1])
    product = emit.create("stablehlo.dot_general", ir.RankedTensorType.get([features], result_type.element_type),
                          [weights, emit.reshape(row, [depth])], **attributes)
    op.results[0].replace_all_uses_with(emit.reshape(product, list(result_type.shape)))
    op.erase()
