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
