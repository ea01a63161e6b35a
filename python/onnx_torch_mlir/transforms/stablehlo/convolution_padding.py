"""StableHLO convolutions without the padding their windows never read.

IREE's StableHLO input miscompiles a convolution padded past its last window: a 3x5 image, a 3x3
kernel, stride 2 and one row and column of high padding (the "same" padding of a stride-2 layer in
MobileNetV2, EfficientNet and ConvNeXt at odd image sizes) fails with "'linalg.generic' op inferred
input/output operand #1 has shape's dimension #0 to be 4, but found 3". Padding no window reads
changes no result, so it is dropped, and input rows and columns no window reads are sliced off (IREE
miscompiles those too: ConvNeXt's 2x2 stride-2 downsampling of an odd size). A zero `stablehlo.pad` of the spatial dims that feeds a
convolution becomes the convolution's own padding first (the form torch-mlir emits for an ONNX `Pad`
before a `Conv`), so that the trim sees all of it. The spatial sizes must be static; a dynamic batch
is sliced with `tensor.extract_slice` ("slice along dimension 2 runs out-of-bounds: 3 >= 3" on a
voice-activity detector's length-4, kernel-3, stride-2 layer). A `stablehlo.reduce_window` of static
shape (a max or average pool) is trimmed the same way (IREE computed a 3x3 stride-2 pool of a 4x4
image wrongly, reading past the window).
"""

from __future__ import annotations

import re

import numpy as np
from torch_mlir import ir

from ..builtin_tensors import dynamic_sizes
from ..torch.rewriting import defining_op, ops_named

_DIMENSION_NUMBERS = re.compile(r"\[([^\]]*)\]x\[([^\]]*)\]->\[([^\]]*)\]")


def trim_convolution_padding(module: ir.Module) -> int:
    """Fold zero pads into convolutions and drop unread high padding and input rows from convolutions
    and static reduce windows; the ops changed."""
    changed = 0
    with module.context:
        for convolution in ops_named(module, {"stablehlo.convolution"}):
            layout = _spatial_layout(convolution)
            if layout is None:
                continue
            folded = _fold_zero_pad(convolution, layout)
            trimmed = _trim_high_padding(convolution, layout)
            changed += folded or trimmed
        for window in ops_named(module, {"stablehlo.reduce_window"}):
            changed += _trim_reduce_window(window)
    return changed


def _spatial_layout(convolution: ir.Operation) -> tuple[list[int], list[int], list[int]] | None:
    """The positions of the spatial dims in the input, kernel and output, from the dimension numbers."""
    match = _DIMENSION_NUMBERS.search(str(convolution.attributes["dimension_numbers"]))
    if match is None:
        return None
    specs = [[entry.strip() for entry in group.split(",")] for group in match.groups()]
    positions = []
    for spec in specs:
        spatial = {int(entry): index for index, entry in enumerate(spec) if entry.isdigit()}
        positions.append([spatial[dim] for dim in range(len(spatial))])
    return positions[0], positions[1], positions[2]


def _static_shape(value: ir.Value) -> list[int] | None:
    if not isinstance(value.type, ir.RankedTensorType) or not value.type.has_static_shape:
        return None
    return list(value.type.shape)


def _shape_static_at(value: ir.Value, positions: list[int]) -> list[int] | None:
    """`value`'s shape (dynamic sizes as ShapedType's dynamic marker) when static at `positions`."""
    if not isinstance(value.type, ir.RankedTensorType):
        return None
    shape = list(value.type.shape)
    return None if any(ir.ShapedType.is_dynamic_size(shape[position]) for position in positions) else shape


def _padding(convolution: ir.Operation, count: int) -> np.ndarray:
    if "padding" not in convolution.attributes:
        return np.zeros((count, 2), np.int64)
    return np.array(ir.DenseIntElementsAttr(convolution.attributes["padding"]), np.int64).reshape(count, 2)


def _integers(operation: ir.Operation, name: str, count: int, default: int) -> list[int]:
    if name not in operation.attributes:
        return [default] * count
    return list(ir.DenseI64ArrayAttr(operation.attributes[name]))


def _set_padding(convolution: ir.Operation, padding: np.ndarray) -> None:
    convolution.attributes["padding"] = ir.DenseIntElementsAttr.get(np.ascontiguousarray(padding, np.int64))


def _fold_zero_pad(convolution: ir.Operation, layout) -> bool:
    """`conv(pad(x, 0))` padding only spatial dims, by non-negative amounts, as `conv(x)` with them."""
    input_positions = layout[0]
    source = convolution.operands[0]
    pad = defining_op(source)
    if pad is None or pad.name != "stablehlo.pad" or len(list(source.uses)) != 1:
        return False
    rank = len(source.type.shape)
    low = _integers(pad, "edge_padding_low", rank, 0)
    high = _integers(pad, "edge_padding_high", rank, 0)
    interior = _integers(pad, "interior_padding", rank, 0)
    if any(interior) or min(low + high) < 0 or not _is_zero(pad.operands[1]):
        return False
    if any(low[dim] or high[dim] for dim in range(rank) if dim not in input_positions):
        return False
    if _integers(convolution, "lhs_dilation", len(input_positions), 1) != [1] * len(input_positions):
        return False
    padding = _padding(convolution, len(input_positions))
    for index, dim in enumerate(input_positions):
        padding[index] += (low[dim], high[dim])
    _set_padding(convolution, padding)
    convolution.operands[0] = pad.operands[0]
    pad.erase()
    return True


_VALUE_PRESERVING = {"stablehlo.reshape", "stablehlo.convert", "stablehlo.broadcast_in_dim"}


def _is_zero(value: ir.Value) -> bool:
    """Whether `value` is a constant zero (looking through reshapes, converts and broadcasts)."""
    owner = defining_op(value)
    while owner is not None and owner.name in _VALUE_PRESERVING:
        owner = defining_op(owner.operands[0])
    if owner is None or owner.name not in ("stablehlo.constant", "arith.constant"):
        return False
    try:
        elements = ir.DenseElementsAttr(owner.attributes["value"])
        if elements.is_splat:
            splat = elements.get_splat_value()
            number = ir.FloatAttr(splat).value if isinstance(splat, ir.FloatAttr) else ir.IntegerAttr(splat).value
            return number == 0
        return not np.any(np.array(elements))
    except (TypeError, ValueError):
        return False


def _trim_high_padding(convolution: ir.Operation, layout) -> bool:
    """High padding beyond what the last window reads, dropped (the result's shape is unchanged)."""
    input_positions, kernel_positions, output_positions = layout
    count = len(input_positions)
    shapes = [_shape_static_at(value, positions) for value, positions in
              zip((convolution.operands[0], convolution.operands[1], convolution.results[0]), layout)]
    if None in shapes or _integers(convolution, "lhs_dilation", count, 1) != [1] * count:
        return False
    input_shape, kernel_shape, output_shape = shapes
    strides = _integers(convolution, "window_strides", count, 1)
    dilations = _integers(convolution, "rhs_dilation", count, 1)
    padding = _padding(convolution, count)
    changed = False
    limits = list(input_shape)
    for index in range(count):
        read = (output_shape[output_positions[index]] - 1) * strides[index] \
            + (kernel_shape[kernel_positions[index]] - 1) * dilations[index] + 1
        low, high = padding[index]
        size = input_shape[input_positions[index]]
        needed_high = max(0, read - low - size)
        if high > needed_high:
            padding[index][1] = needed_high
            changed = True
        if 0 <= low and low + size > read:  # trailing rows no window reads: sliced off
            limits[input_positions[index]] = read - low
    if changed:
        _set_padding(convolution, padding)
    if limits != input_shape:
        convolution.operands[0] = _sliced(convolution, convolution.operands[0], limits)
        changed = True
    return changed


def _trim_reduce_window(window: ir.Operation) -> bool:
    """A static reduce window's unread high padding dropped and unread input rows sliced off."""
    count = len(window.results)
    inputs = list(window.operands)[:count]
    shapes = [_static_shape(value) for value in inputs + [window.results[0]]]
    if None in shapes:
        return False
    input_shape, output_shape = shapes[0], shapes[-1]
    rank = len(input_shape)
    if _integers(window, "base_dilations", rank, 1) != [1] * rank:
        return False
    sizes = _integers(window, "window_dimensions", rank, 1)
    strides = _integers(window, "window_strides", rank, 1)
    dilations = _integers(window, "window_dilations", rank, 1)
    padding = _padding(window, rank)
    changed = False
    limits = list(input_shape)
    for dim in range(rank):
        read = (output_shape[dim] - 1) * strides[dim] + (sizes[dim] - 1) * dilations[dim] + 1
        low, high = padding[dim]
        needed_high = max(0, read - low - input_shape[dim])
        if high > needed_high:
            padding[dim][1] = needed_high
            changed = True
        if 0 <= low and low + input_shape[dim] > read:
            limits[dim] = read - low
    if changed:
        _set_padding(window, padding)
    if limits != input_shape:
        for position, value in enumerate(inputs):
            window.operands[position] = _sliced(window, value, limits)
        changed = True
    return changed


def _sliced(user: ir.Operation, source: ir.Value, limits: list[int]) -> ir.Value:
    """`source` from 0 to `limits` (a dynamic size: the whole dim), before `user`: a `stablehlo.slice`,
    a `tensor.extract_slice` where `source` has a dynamic dim."""
    with user.location, ir.InsertionPoint(user):
        sliced_type = ir.RankedTensorType.get(limits, source.type.element_type)
        rank = len(limits)
        if all(not ir.ShapedType.is_dynamic_size(limit) for limit in limits):
            return ir.Operation.create(
                "stablehlo.slice", results=[sliced_type], operands=[source],
                attributes={"start_indices": ir.DenseI64ArrayAttr.get([0] * rank),
                            "limit_indices": ir.DenseI64ArrayAttr.get(limits),
                            "strides": ir.DenseI64ArrayAttr.get([1] * rank)},
            ).results[0]
        sizes = dynamic_sizes(source, limits)
        return ir.Operation.create(
            "tensor.extract_slice", results=[sliced_type], operands=[source, *sizes],
            attributes={"static_offsets": ir.DenseI64ArrayAttr.get([0] * rank),
                        "static_sizes": ir.DenseI64ArrayAttr.get(limits),
                        "static_strides": ir.DenseI64ArrayAttr.get([1] * rank),
                        "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 0, len(sizes), 0])},
        ).results[0]
