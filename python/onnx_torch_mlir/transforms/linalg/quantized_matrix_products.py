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

from ...ir_walk import ops_named
from ..builtin_tensors import dynamic_sizes

_ROWS = [[0, 1], [2]]  # [batch, M, X] <-> [batch * M, X]


def quantized_batch_products_by_a_matrix(module: ir.Module) -> int:
    """Rewrite each quantized batch product by a broadcast matrix (module docstring); the count."""
    rewritten = 0
    with module.context:
        for operation in ops_named(module, {"linalg.quantized_batch_matmul"}):
            matrix = _broadcast_matrix(operation.operands[1])
            rows, initial = operation.operands[0], operation.operands[4]
            if matrix is not None and _is_rank3_tensor(rows) and _is_rank3_tensor(initial):
                _rewrite(operation, matrix)
                rewritten += 1
    return rewritten


def _is_rank3_tensor(value: ir.Value) -> bool:
    return isinstance(value.type, ir.RankedTensorType) and value.type.rank == 3


def _owner(value: ir.Value) -> ir.Operation | None:
    owner = value.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation if hasattr(owner, "operation") else owner


def _broadcast_matrix(value: ir.Value) -> ir.Value | None:
    """The `[K, N]` matrix that `value` (`[batch, K, N]`) repeats over its batch, or None: a
    `linalg.broadcast` over dim 0, or the copying `linalg.generic` torch-mlir writes for one."""
    owner = _owner(value)
    if owner is None or len(owner.operands) != 2:
        return None
    source = owner.operands[0]
    if not isinstance(source.type, ir.RankedTensorType) or source.type.rank != 2:
        return None
    if owner.name == "linalg.broadcast":
        return source if list(ir.DenseI64ArrayAttr(owner.attributes["dimensions"])) == [0] else None
    if owner.name != "linalg.generic":
        return None
    maps = [ir.AffineMapAttr(attribute).value for attribute in ir.ArrayAttr(owner.attributes["indexing_maps"])]
    repeated = ir.AffineMap.get(3, 0, [ir.AffineDimExpr.get(1), ir.AffineDimExpr.get(2)])
    if maps != [repeated, ir.AffineMap.get_identity(3)]:
        return None
    body = owner.regions[0].blocks[0]
    operations = list(body.operations)
    if len(operations) != 1 or operations[0].name != "linalg.yield":
        return None
    yielded = operations[0].operands[0]
    return source if isinstance(yielded.owner, ir.Block) and yielded.arg_number == 0 else None


def _rewrite(operation: ir.Operation, matrix: ir.Value) -> None:
    rows, _, left_zero_point, right_zero_point, initial = operation.operands
    result_type = operation.results[0].type
    with operation.location, ir.InsertionPoint(operation):
        product = linalg.quantized_matmul(_collapse(rows), matrix, left_zero_point, right_zero_point,
                                          outs=[_collapse(initial)])
        product = product if isinstance(product, ir.Value) else product.results[0]
        expanded = _expand(product, result_type, initial)
    broadcast = _owner(operation.operands[1])
    operation.results[0].replace_all_uses_with(expanded)
    operation.erase()
    _erase_if_unread(broadcast)


def _erase_if_unread(operation: ir.Operation) -> None:
    """Erase the broadcast nothing reads any more, and the `tensor.empty` it filled if that is unread too."""
    if list(operation.results[0].uses):
        return
    destination = _owner(operation.operands[1])
    operation.erase()
    if destination is not None and destination.name == "tensor.empty" and not list(destination.results[0].uses):
        destination.erase()


def _collapse(value: ir.Value) -> ir.Value:
    """`value` (`[batch, M, X]`) as `[batch * M, X]`."""
    batch, rows, columns = value.type.shape
    dynamic = ir.ShapedType.get_dynamic_size()
    merged = dynamic if dynamic in (batch, rows) else batch * rows
    collapsed = ir.RankedTensorType.get([merged, columns], value.type.element_type)
    return ir.Operation.create("tensor.collapse_shape", results=[collapsed], operands=[value],
                               attributes={"reassociation": _reassociation()}).result


def _expand(value: ir.Value, result_type: ir.RankedTensorType, like: ir.Value) -> ir.Value:
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
