"""A 64-bit integer `tosa.negate` as a subtraction from zero, for the runner's TOSA lowering.

The pinned `tosa-to-linalg` sizes the intermediate of an integer negate from the input's largest
value plus one, which overflows for i64, so it picks i16 and emits an invalid `arith.extsi` from
i64 to i16. Our conversion never negates integers this way (TorchBuilder.negate), but TOSA from
elsewhere does (torch-mlir's ONNX path on DeBERTa-v2's relative positions). With zero points of 0,
TOSA's negate is `0 - x` clipped to i64, so -2^63 gives 2^63 - 1: the runner computes
`0 - clamp(x, -2^63 + 1, 2^63 - 1)`. IREE takes the negate as it is; only the runner rewrites it.
"""

from torch_mlir import ir

from onnx_torch_mlir.ir_walk import ops_named


def wide_negations_to_subtractions(module: ir.Module) -> int:
    """Rewrite each i64 `tosa.negate` whose zero points are constant zeros; the count."""
    rewritten = 0
    with module.context, ir.Location.unknown():
        for op in ops_named(module, {"tosa.negate"}):
            rewritten += _rewrite(op)
    return rewritten


def _rewrite(op: ir.Operation) -> int:
    result_type = op.results[0].type
    if not isinstance(result_type, ir.RankedTensorType) or str(result_type.element_type) != "i64":
        return 0
    if not all(_is_zero_constant(zero_point) for zero_point in op.operands[1:]):
        return 0
    ip = ir.InsertionPoint(op)
    zero_type = ir.RankedTensorType.get([1] * result_type.rank, result_type.element_type)
    zero = ir.Operation.create(
        "tosa.const", results=[zero_type],
        attributes={"values": ir.DenseElementsAttr.get_splat(zero_type, ir.IntegerAttr.get(result_type.element_type, 0))},
        loc=op.location, ip=ip,
    )
    i64 = result_type.element_type
    clamped = ir.Operation.create(
        "tosa.clamp", results=[result_type], operands=[op.operands[0]],
        attributes={"min_val": ir.IntegerAttr.get(i64, -(2**63) + 1), "max_val": ir.IntegerAttr.get(i64, 2**63 - 1)},
        loc=op.location, ip=ip,
    )
    difference = ir.Operation.create("tosa.sub", results=[result_type], operands=[zero.results[0], clamped.results[0]],
                                     loc=op.location, ip=ip)
    op.results[0].replace_all_uses_with(difference.results[0])
    op.erase()
    return 1


def _is_zero_constant(value: ir.Value) -> bool:
    owner = value.owner
    if not isinstance(owner, ir.OpView) or owner.operation.name != "tosa.const":
        return False
    values = owner.operation.attributes["values"]
    return isinstance(values, ir.DenseIntElementsAttr) and values.is_splat and int(values.get_splat_value().value) == 0
