"""Channels-first StableHLO convolutions on dynamic shapes, moved to channels-last for the runner.

`stablehlo-legalize-to-linalg` lowers a convolution whose operand has a dynamic dim only in the
channels-last layout (`[b, 0, 1, f] x [0, 1, i, o] -> [b, 0, 1, f]`, linalg's `conv_2d_nhwc_hwcf`);
torch-mlir emits channels-first (`[b, f, 0, 1] x [o, i, 0, 1] -> [b, f, 0, 1]`), so a model with a
dynamic batch left the convolution unconverted (and the runner stopped at a left-over
`bufferization.to_tensor`). The runner transposes such a convolution's input, kernel and result
around a channels-last convolution; IREE does the same itself. Static convolutions are untouched.
"""

from torch_mlir import ir

from onnx_torch_mlir.ir_walk import ops_named

CHANNELS_FIRST = {
    1: "[b, f, 0]x[o, i, 0]->[b, f, 0]",
    2: "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]",
    3: "[b, f, 0, 1, 2]x[o, i, 0, 1, 2]->[b, f, 0, 1, 2]",
}
CHANNELS_LAST = {
    1: "[b, 0, f]x[0, i, o]->[b, 0, f]",
    2: "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]",
    3: "[b, 0, 1, 2, f]x[0, 1, 2, i, o]->[b, 0, 1, 2, f]",
}


def dynamic_convolutions_to_channels_last(module: ir.Module) -> int:
    """Rewrite the channels-first dynamically shaped convolutions of `module`; the count."""
    rewritten = 0
    with module.context, ir.Location.unknown():
        for op in ops_named(module, {"stablehlo.convolution"}):
            rewritten += _rewrite(op)
    return rewritten


def _rewrite(op: ir.Operation) -> int:
    input_type, result_type = op.operands[0].type, op.results[0].type
    if not isinstance(input_type, ir.RankedTensorType) or input_type.has_static_shape:
        return 0
    spatial = input_type.rank - 2
    numbers = str(op.attributes["dimension_numbers"])
    if spatial not in CHANNELS_FIRST or CHANNELS_FIRST[spatial] not in numbers:
        return 0
    ip = ir.InsertionPoint(op)
    to_last = [0] + list(range(2, spatial + 2)) + [1]  # [b, f, s...] -> [b, s..., f]
    kernel_to_last = list(range(2, spatial + 2)) + [1, 0]  # [o, i, s...] -> [s..., i, o]
    to_first = [0, spatial + 1] + list(range(1, spatial + 1))
    x = _transpose(op.operands[0], to_last, ip)
    kernel = _transpose(op.operands[1], kernel_to_last, ip)
    attributes = {op.attributes[i].name: op.attributes[i].attr for i in range(len(op.attributes))}
    attributes["dimension_numbers"] = ir.Attribute.parse(f"#stablehlo.conv<{CHANNELS_LAST[spatial]}>")
    last_type = _permuted_type(result_type, to_last)
    conv = ir.Operation.create("stablehlo.convolution", results=[last_type], operands=[x, kernel],
                               attributes=attributes, loc=op.location, ip=ip)
    result = _transpose(conv.results[0], to_first, ip)
    op.results[0].replace_all_uses_with(result)
    op.erase()
    return 1


def _permuted_type(tensor_type: ir.RankedTensorType, permutation: list[int]) -> ir.RankedTensorType:
    shape = [tensor_type.shape[i] for i in permutation]
    return ir.RankedTensorType.get(shape, tensor_type.element_type)


def _transpose(value: ir.Value, permutation: list[int], ip: ir.InsertionPoint) -> ir.Value:
    result_type = _permuted_type(value.type, permutation)
    return ir.Operation.create("stablehlo.transpose", results=[result_type], operands=[value],
                               attributes={"permutation": ir.DenseI64ArrayAttr.get(permutation)}, ip=ip).results[0]
