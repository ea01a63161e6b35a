"""`tosa.gather` of 64-bit integers as two gathers of 32-bit halves.

TOSA's gather takes 8-, 16- and 32-bit integers (pro_int) and floats (pro_fp), not i64, and IREE
refuses such a gather ("'tosa.gather' op illegal: operation operand/result data types did not align
with any profile or extension, got (i64,i32,i64)"). torch-mlir's TOSA lowering gives one for every
`index_select`, `gather` or `embedding` of an si64 tensor: position ids, token ids, shape values
picked by index.

A gather only moves values, so each half moves on its own: the low half is the value cast to i32
(TOSA's narrowing cast wraps), the high half the value shifted right by 32 and cast; after the two
gathers the halves are widened again and joined, `(high << 32) | (low & 0xFFFFFFFF)`. Exact for
every value. Runs on the module torch-mlir's TOSA pipeline produced.
"""

from __future__ import annotations

from torch_mlir import ir

from ...ir_walk import ops_named
from ..torch.rewriting import OpsInFrontOf


def gathers_of_i64_as_i32_halves(module: ir.Module) -> int:
    """Rewrite each `tosa.gather` of i64 values (nested ones too); the count rewritten."""
    rewritten = 0
    with module.context:
        for operation in ops_named(module, {"tosa.gather"}):
            if _element_width(operation.operands[0].type) == 64:
                with operation.location:
                    _split_gather(operation)
                rewritten += 1
    return rewritten


def _element_width(type_: ir.Type) -> int | None:
    if not isinstance(type_, ir.RankedTensorType) or not isinstance(type_.element_type, ir.IntegerType):
        return None
    return type_.element_type.width


class _Builder(OpsInFrontOf):
    """TOSA ops in front of `op`, at its location."""

    op = OpsInFrontOf.create

    def constant(self, value: int, rank: int) -> ir.Value:
        """A rank-`rank` i64 tensor of one element (TOSA broadcasts only between equal ranks)."""
        type_ = ir.RankedTensorType.get([1] * rank, ir.IntegerType.get_signless(64))
        attribute = ir.DenseElementsAttr.get_splat(type_, ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value))
        return self.op("tosa.const", type_, [], {"values": attribute})


def _with_element(type_: ir.Type, width: int) -> ir.Type:
    tensor = ir.RankedTensorType(type_)
    return ir.RankedTensorType.get(tensor.shape, ir.IntegerType.get_signless(width), tensor.encoding)


def _split_gather(gather: ir.Operation) -> None:
    values, indices = gather.operands[0], gather.operands[1]
    result_type = gather.results[0].type
    rank = ir.RankedTensorType(values.type).rank
    tosa = _Builder(gather)
    halves_type, gathered_type = _with_element(values.type, 32), _with_element(result_type, 32)
    thirty_two = tosa.constant(32, rank)
    low = tosa.op("tosa.cast", halves_type, [values])
    shifted = tosa.op("tosa.arithmetic_right_shift", values.type, [values, thirty_two],
                      {"round": ir.BoolAttr.get(False)})
    high = tosa.op("tosa.cast", halves_type, [shifted])
    low_gathered = tosa.op("tosa.gather", gathered_type, [low, indices])
    high_gathered = tosa.op("tosa.gather", gathered_type, [high, indices])
    low_wide = tosa.op("tosa.bitwise_and", result_type, [tosa.op("tosa.cast", result_type, [low_gathered]),
                                                         tosa.constant(0xFFFFFFFF, rank)])
    high_wide = tosa.op("tosa.logical_left_shift", result_type,
                        [tosa.op("tosa.cast", result_type, [high_gathered]), thirty_two])
    joined = tosa.op("tosa.bitwise_or", result_type, [high_wide, low_wide])
    gather.results[0].replace_all_uses_with(joined)
    gather.erase()
