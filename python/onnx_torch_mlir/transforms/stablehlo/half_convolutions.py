"""StableHLO convolutions of f16 / bf16 computed in f32 and rounded once.

torch-mlir's Linalg lowering of `aten.convolution` on f16 or bf16 accumulates in f32 and rounds the
sum once; its StableHLO lowering emits a `stablehlo.convolution` of the half type, which the
consumers (the reference runner's stablehlo-legalize-to-linalg, IREE) accumulate in the half type,
rounding after every product: CausalConvWithState's fp16 case was off its reference by 3 ulps. Here
the operands are converted to f32, the convolution (same attributes) computes in f32, and its result
is converted back: the Linalg backend's numbers.
"""

from __future__ import annotations

from torch_mlir import ir

from ..torch.rewriting import ops_named

_HALF_TYPES = ("f16", "bf16")


def half_convolutions_in_f32(module: ir.Module) -> int:
    """Rewrite each half-precision `stablehlo.convolution` (module docstring); the count."""
    rewritten = 0
    with module.context, ir.Location.unknown():
        for convolution in ops_named(module, {"stablehlo.convolution"}):
            rewritten += _rewrite(convolution)
    return rewritten


def _widened(tensor_type: ir.RankedTensorType) -> ir.RankedTensorType:
    return ir.RankedTensorType.get(tensor_type.shape, ir.F32Type.get())


def _convert(value: ir.Value, result_type: ir.Type, ip: ir.InsertionPoint, location) -> ir.Value:
    return ir.Operation.create("stablehlo.convert", results=[result_type], operands=[value], ip=ip,
                               loc=location).results[0]


def _rewrite(convolution: ir.Operation) -> int:
    result_type = convolution.results[0].type
    operand_types = [operand.type for operand in convolution.operands]
    if len(operand_types) != 2 or not all(isinstance(t, ir.RankedTensorType) for t in [result_type, *operand_types]):
        return 0
    if any(str(t.element_type) not in _HALF_TYPES for t in [result_type, *operand_types]):
        return 0
    ip, location = ir.InsertionPoint(convolution), convolution.location
    operands = [_convert(operand, _widened(operand.type), ip, location) for operand in convolution.operands]
    attributes = {name: convolution.attributes[name] for name in convolution.attributes}
    wide = ir.Operation.create("stablehlo.convolution", results=[_widened(result_type)], operands=operands,
                               attributes=attributes, ip=ip, loc=location).results[0]
    convolution.results[0].replace_all_uses_with(_convert(wide, result_type, ip, location))
    convolution.erase()
    return 1
