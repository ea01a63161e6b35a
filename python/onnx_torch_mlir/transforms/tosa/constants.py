"""Tensor `arith.constant`s of TOSA output as `tosa.const`.

torch-mlir's TOSA pipeline leaves some tensor constants as `arith.constant` (a ViT's class token
and position embeddings, read by `tosa.concat` and `tosa.add`): MLIR's TOSA lowering to Linalg
takes them, but a TOSA graph has only TOSA ops, and the TOSA serializer (tosa-tools' `tosa-opt
--tosa-serialize`) stops at the first one ("unsupported tosa operator arith.constant", then "ERROR:
Failed to build TosaSerializationOperator"), so Arm's reference model and Vela never see the graph.
Each becomes a `tosa.const` of the same value (dense or `dense_resource`) and type; scalar and
`index` constants are left alone, and so are tensors with a zero dim, which TOSA has no type for
(`tosa.const` of `tensor<0x3xf32>` does not verify; an empty Reshape's result).

It can go when torch-mlir's TOSA pipeline ends with no tensor `arith.constant` (its TorchToTosa
lowering of a literal tensor, `torch.vtensor.literal`, emits `tosa.const`; the ones left come from
folding and canonicalization of other dialects' ops).

Runs after torch-mlir's TOSA pipeline, last (a rewrite after it may fold to `arith.constant`).
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ...ir_walk import ops_named


def tensor_constants_as_tosa_const(module: ir.Module) -> None:
    """Replace every ranked-tensor `arith.constant` of `module` with a `tosa.const`."""
    with module.context:
        for constant in ops_named(module, {"arith.constant"}):
            type_ = constant.results[0].type
            if not isinstance(type_, ir.RankedTensorType) or isinstance(type_.element_type, ir.IndexType) \
                    or 0 in type_.shape:
                continue
            replacement = ir.Operation.create("tosa.const", results=[type_], loc=constant.location,
                                              attributes={"values": constant.attributes["value"]},
                                              ip=ir.InsertionPoint(constant))
            constant.results[0].replace_all_uses_with(replacement.results[0])
            constant.erase()


_SIGNED = {8: np.int8, 16: np.int16, 32: np.int32}


def integer_casts_of_constants_folded(module: ir.Module) -> int:
    """Each `tosa.cast` of an integer `tosa.const` to a narrower integer type whose range holds its
    values becomes a `tosa.const` of that type; the count.

    TorchToTosa writes index tensors as i64 constants cast to i32 (a nearest upsampling's gather
    indices): Vela refuses the whole graph for the i64 ("TOSA FB Reader error: Unknown data
    type"), and TOSA 1.0's integer profiles have no i64. It can go when TorchToTosa builds its
    index constants as i32."""
    folded = 0
    with module.context:
        for cast in ops_named(module, {"tosa.cast"}):
            source = cast.operands[0].owner
            source = source.operation if hasattr(source, "operation") else source
            values = _dense_integers(source)
            result_type = ir.RankedTensorType(cast.results[0].type) if isinstance(
                cast.results[0].type, ir.RankedTensorType) else None
            if values is None or result_type is None or not isinstance(result_type.element_type, ir.IntegerType):
                continue
            dtype = _SIGNED.get(ir.IntegerType(result_type.element_type).width)
            if dtype is None or values.size == 0 or values.min() < np.iinfo(dtype).min or values.max() > np.iinfo(dtype).max:
                continue
            attribute = ir.DenseElementsAttr.get(np.ascontiguousarray(values.astype(dtype)), type=result_type)
            constant = ir.Operation.create("tosa.const", results=[result_type], attributes={"values": attribute},
                                           loc=cast.location, ip=ir.InsertionPoint(cast))
            cast.results[0].replace_all_uses_with(constant.results[0])
            cast.erase()
            if not list(source.results[0].uses):
                source.erase()
            folded += 1
    return folded


def _dense_integers(op) -> np.ndarray | None:
    """The values of a dense integer `tosa.const` (not a resource), else None."""
    if not isinstance(op, ir.Operation) or op.name != "tosa.const":
        return None
    attribute = op.attributes["values"]
    if not isinstance(attribute, ir.DenseIntElementsAttr):
        return None
    shape = list(ir.RankedTensorType(op.results[0].type).shape)
    if attribute.is_splat:
        return np.full(shape, attribute.get_splat_value().value, np.int64)
    return np.array(attribute, np.int64).reshape(shape)
