"""Batch products by one matrix as one matrix product.

torch-mlir's Linalg lowering of an `aten.matmul` of a batch of rows by a matrix (ONNX's
`[..., M, K] x [K, N]` MatMul: a transformer's Linear, ConvNeXt's pointwise layers on its NHWC
image) copies the matrix once per batch entry (a `linalg.generic` or `linalg.broadcast`, collapsed
to `[batch, K, N]`) and takes a `linalg.batch_matmul` of `[batch, M, K] x [batch, K, N]`. IREE 3.13
on the CPU runs that as `batch` small products over a materialized copy of the weights (its
constant evaluation hoists the copy to an initializer): the zoo's convnext-torchscript-static,
whose `[2, 2, 2, 128] x [128, 512]` became 4 products of 2 rows, took 118 us for it as a batch
matmul and 50 us as one `linalg.matmul` (each with its GELU), and the whole model 1.19 ms with its
ten such products as batch matmuls and 0.70 ms as matrix products (docs/performance.md).

So each `linalg.batch_matmul` whose right operand is such a copy becomes `tensor.collapse_shape` of
the rows to `[batch * M, K]`, one `linalg.matmul` by the matrix itself and `tensor.expand_shape`
back to `[batch, M, N]`. Each sum is the same, over the same K: the numbers are unchanged, and the
copied weights are gone. (The quantized product has its own step, quantized_matrix_products.py,
for a failure of IREE's; it shares `copied_matrix` and the reshapes.) Can go when torch-mlir lowers a matmul by a matrix without the broadcast,
or IREE folds the broadcast into the batch product's loops.
"""

from __future__ import annotations

from torch_mlir import ir
from torch_mlir.dialects import linalg

from ...ir_walk import erase_unread, ops_named
from ..builtin_tensors import dynamic_sizes

_ROWS = [[0, 1], [2]]  # [batch, M, X] <-> [batch * M, X]
_BATCH_MATMUL_MAPS = ["(d0, d1, d2, d3) -> (d0, d1, d3)", "(d0, d1, d2, d3) -> (d0, d3, d2)",
                      "(d0, d1, d2, d3) -> (d0, d1, d2)"]
COPIES = {"linalg.generic", "linalg.broadcast", "tensor.collapse_shape", "tensor.empty"}


def batch_products_by_a_matrix(module: ir.Module) -> int:
    """Rewrite each batch product by a copied matrix (module docstring); the count rewritten."""
    rewritten = 0
    with module.context:
        for operation in ops_named(module, {"linalg.batch_matmul"}):
            if _plain(operation) and (matrix := copied_matrix(operation.operands[1])) is not None:
                _rewrite(operation, matrix)
                rewritten += 1
        if rewritten:
            erase_unread(module, COPIES)
    return rewritten


def plain_product(operation: ir.Operation, default_maps: list[str]) -> bool:
    """No cast, and `default_maps` (no transposed operand) when the op spells its indexing maps out."""
    if "cast" in operation.attributes:
        return False
    if "indexing_maps" not in operation.attributes:
        return True
    maps = ir.ArrayAttr(operation.attributes["indexing_maps"])
    return [str(ir.AffineMapAttr(attribute).value) for attribute in maps] == default_maps


def _plain(operation: ir.Operation) -> bool:
    """A batch matmul of rank-3 tensors with the default maps (no transposed operand) and no cast."""
    return plain_product(operation, _BATCH_MATMUL_MAPS) and all(isinstance(value.type, ir.RankedTensorType) and value.type.rank == 3
               for value in [*operation.operands, *operation.results])


def _owner(value: ir.Value) -> ir.Operation | None:
    owner = value.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation if hasattr(owner, "operation") else owner


def copied_matrix(value: ir.Value) -> ir.Value | None:
    """The `[K, N]` matrix that `value` (`[batch, K, N]`) repeats over its batch, or None: a copy over
    leading dims (a `linalg.broadcast`, or the `linalg.generic` torch-mlir writes for one), possibly
    collapsed to the one batch dim."""
    owner = _owner(value)
    if owner is not None and owner.name == "tensor.collapse_shape":
        groups = [[int(ir.IntegerAttr(dim)) for dim in ir.ArrayAttr(group)]
                  for group in ir.ArrayAttr(owner.attributes["reassociation"])]
        rank = ir.RankedTensorType(owner.operands[0].type).rank
        if len(groups) != 3 or groups[1:] != [[rank - 2], [rank - 1]]:
            return None
        owner = _owner(owner.operands[0])
    if owner is None or len(owner.operands) != 2:
        return None
    source, copy = owner.operands[0], owner.results[0]
    if not isinstance(source.type, ir.RankedTensorType) or source.type.rank != 2:
        return None
    rank = ir.RankedTensorType(copy.type).rank
    if owner.name == "linalg.broadcast":
        leading = list(range(rank - 2))
        return source if list(ir.DenseI64ArrayAttr(owner.attributes["dimensions"])) == leading else None
    if owner.name != "linalg.generic" or not _copies(owner, rank):
        return None
    return source


def _copies(generic: ir.Operation, rank: int) -> bool:
    """Whether `generic` yields its input read at the last two of `rank` parallel loops."""
    maps = [ir.AffineMapAttr(attribute).value for attribute in ir.ArrayAttr(generic.attributes["indexing_maps"])]
    last_two = ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(rank - 2), ir.AffineDimExpr.get(rank - 1)])
    if maps != [last_two, ir.AffineMap.get_identity(rank)]:
        return False
    operations = list(generic.regions[0].blocks[0].operations)
    if len(operations) != 1 or operations[0].name != "linalg.yield":
        return False
    yielded = operations[0].operands[0]
    return isinstance(yielded.owner, ir.Block) and yielded.arg_number == 0


def _rewrite(operation: ir.Operation, matrix: ir.Value) -> None:
    rows, _, initial = operation.operands
    result_type = operation.results[0].type
    with operation.location, ir.InsertionPoint(operation):
        expanded = batch_rows_expanded(matrix_product(batch_rows_collapsed(rows), matrix, batch_rows_collapsed(initial)),
                                       result_type, initial)
    operation.results[0].replace_all_uses_with(expanded)
    operation.erase()


def matrix_product(rows: ir.Value, matrix: ir.Value, initial: ir.Value) -> ir.Value:
    """`initial + rows x matrix` as a `linalg.matmul` that spells out its indexing maps: the Python
    builder leaves them out, and IREE 3.13 (reading our bytecode) crashes on a matmul without them
    when it folds a transpose into it (PropagateLinalgTranspose, GPT-2's dynamic export)."""
    i, j, k = (ir.AffineDimExpr.get(position) for position in range(3))
    maps = [ir.AffineMap.get(3, 0, results) for results in ([i, k], [k, j], [i, j])]
    product = linalg.matmul(rows, matrix, outs=[initial], indexing_maps=maps)
    return product if isinstance(product, ir.Value) else product.results[0]


def batch_rows_collapsed(value: ir.Value) -> ir.Value:
    """`value` (`[batch, M, X]`) as `[batch * M, X]`."""
    batch, rows, columns = value.type.shape
    dynamic = ir.ShapedType.get_dynamic_size()
    merged = dynamic if dynamic in (batch, rows) else batch * rows
    collapsed = ir.RankedTensorType.get([merged, columns], value.type.element_type)
    return ir.Operation.create("tensor.collapse_shape", results=[collapsed], operands=[value],
                               attributes={"reassociation": _reassociation()}).result


def batch_rows_expanded(value: ir.Value, result_type: ir.RankedTensorType, like: ir.Value) -> ir.Value:
    """`value` (`[batch * M, N]`) as `result_type` (`[batch, M, N]`), its dynamic sizes those of `like`."""
    sizes = dynamic_sizes(like, list(result_type.shape))
    return ir.Operation.create(
        "tensor.expand_shape", results=[result_type], operands=[value, *sizes],
        attributes={"reassociation": _reassociation(),
                    "static_output_shape": ir.DenseI64ArrayAttr.get(list(result_type.shape))},
    ).result


def _reassociation() -> ir.ArrayAttr:
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64, dim) for dim in group]) for group in _ROWS])
