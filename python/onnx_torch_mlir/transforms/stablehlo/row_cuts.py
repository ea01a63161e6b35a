"""After torch-mlir's StableHLO pipeline: the markers of rows cut to a run-time count
(torch/dynamic_rows.py) become `stablehlo.real_dynamic_slice` ops to the count.

The marker `stablehlo.custom_call @onnx_torch_mlir.rows_to_count(%padded, %count)` (its
`backend_config` the dim of the rows) carries the cut through torch-mlir's pipeline; here it becomes

    %n = stablehlo.clamp %zero, %count, %rows : tensor<i64>         (a count past the padding reads nothing)
    %limit = stablehlo.concatenate (reshape %n), [3] ... : tensor<2xi64>
    %cut = stablehlo.real_dynamic_slice %padded, [0, 0], %limit, [1, 1] : (tensor<18x3xi64>, ...) -> tensor<?x3xi64>

StableHLO ops only, so the module stays one that XLA and a portable artifact take; the result's
dynamic dim is what torch-mlir's own lowering of the cut gives, and finish-dynamic-stablehlo treats
it the same.
"""

import numpy as np
from torch_mlir import ir

from ..torch.dynamic_rows import STABLEHLO_MARKER
from ..torch.rewriting import OpsInFrontOf, ops_named


def cut_marked_rows(module: ir.Module) -> int:
    """Each marker custom call as a `stablehlo.real_dynamic_slice` to its count; the count of them."""
    rewritten = 0
    with module.context, ir.Location.unknown():
        for op in ops_named(module, ("stablehlo.custom_call",)):
            if ir.StringAttr(op.attributes["call_target_name"]).value == STABLEHLO_MARKER:
                _marker_as_dynamic_slice(op)
                rewritten += 1
    return rewritten


def _marker_as_dynamic_slice(op: ir.Operation) -> None:
    padded, count = op.operands
    padded_type = ir.RankedTensorType(padded.type)
    dim = int(ir.StringAttr(op.attributes["backend_config"]).value)
    builder = _Builder(op)
    count = builder.clamped_i64(count, padded_type.get_dim_size(dim))
    rank = padded_type.rank
    limits = [builder.reshaped_to_one(count) if axis == dim else builder.vector([padded_type.get_dim_size(axis)])
              for axis in range(rank)]
    limit = limits[0] if rank == 1 else builder.create(
        "stablehlo.concatenate", builder.vector_type(rank), limits,
        {"dimension": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0)})
    cut = builder.create("stablehlo.real_dynamic_slice", op.results[0].type,
                         [padded, builder.vector([0] * rank), limit, builder.vector([1] * rank)])
    op.results[0].replace_all_uses_with(cut)
    op.erase()


class _Builder(OpsInFrontOf):
    """StableHLO index arithmetic on i64 tensors, in front of the marker."""

    i64 = property(lambda self: ir.IntegerType.get_signless(64))

    def vector_type(self, size: int) -> ir.RankedTensorType:
        return ir.RankedTensorType.get([size], self.i64)

    def scalar(self, value: int) -> ir.Value:
        scalar_type = ir.RankedTensorType.get([], self.i64)
        return self.create("stablehlo.constant", scalar_type,
                           [], {"value": ir.DenseElementsAttr.get_splat(scalar_type, ir.IntegerAttr.get(self.i64, value))})

    def vector(self, values: list[int]) -> ir.Value:
        vector_type = self.vector_type(len(values))
        return self.create("stablehlo.constant", vector_type, [],
                           {"value": ir.DenseElementsAttr.get(np.array(values, dtype=np.int64), type=vector_type)})

    def clamped_i64(self, count: ir.Value, most: int) -> ir.Value:
        """The 0-d `count` as i64 in [0, most]."""
        scalar_type = ir.RankedTensorType.get([], self.i64)
        if ir.RankedTensorType(count.type).element_type != self.i64:
            count = self.create("stablehlo.convert", scalar_type, [count])
        return self.create("stablehlo.clamp", scalar_type, [self.scalar(0), count, self.scalar(most)])

    def reshaped_to_one(self, scalar: ir.Value) -> ir.Value:
        return self.create("stablehlo.reshape", self.vector_type(1), [scalar])
