"""StableHLO convolutions and pools on dynamic sizes as strided slices: im2col and one contraction
for a convolution, an elementwise max/min/sum of the windows for a pool (`reduce_window`, below).

Neither StableHLO consumer (IREE, `stablehlo-legalize-to-linalg`) lowers a `stablehlo.convolution`
whose input has a dynamic dim other than the batch, so a CNN exported with a dynamic image size
stopped at its first convolution. Slices, pads, concatenations, reshapes and `dot_general` lower
on dynamic sizes, and a convolution is made of them. With the input channels last, `x: [N, S..., C]`,
the kernel `w: [O, C/G, K...]` and G feature groups:

- `x` is padded with zeros by the convolution's (static) padding: `[N, P..., C]`; an input dilation
  `d` (a transposed convolution: ONNX's `ConvTranspose` is a convolution of the input with `d - 1`
  zeros between its elements, `d` its stride) is the pad's interior padding, and a negative padding
  (a ConvTranspose's pads beyond its kernel) a crop;
- for every kernel offset `k` the window `k * dilation :: stride` of `P`, `out` positions long, is a
  `tensor.extract_slice` whose size is computed at run time, `out = (P - dilation * (K - 1) - 1) /
  stride + 1` (`tensor.dim` and `arith` on index values);
- the K1*K2... windows, concatenated along the channels in the order (offset, channel), contract
  with the kernel laid out `[K..., C/G, O]` in the same order by one `stablehlo.dot_general`:
  `[N*OUT..., K*C] x [K*C, O]` (`tensor.collapse_shape` / `expand_shape` around it);
- with groups (the depthwise convolutions of MobileNetV2, EfficientNet and ConvNeXt) the channels
  are split into `[G, C/G]` first and the product is batched over G, `[G, N*OUT..., K*C/G] x
  [G, K*C/G, O/G]`; so is it with one output channel (IREE rewrites an unbatched matrix-vector
  product around a dynamic reshape it cannot lower);
- the result goes back to the convolution's layout by a transpose.

Only convolutions with a dynamic spatial input dim, or grouped or transposed (input-dilated) ones on
a dynamic batch, are rewritten (an ungrouped one on a dynamic batch alone is lowered as a convolution). A kernel of more than MAX_WINDOW_POSITIONS positions is taken when its windows
tile the input (as large as their stride, no dilation: EfficientNet's 320x320 ceil-mode pooler),
as blocks of a reshape (stablehlo_dynamic_blocks.py), and, ungrouped, when it spans a few strides
(a 1-D audio front end's 256-sample kernel at stride 128), as blocks of the stride and one slice per
block offset (a kernel that is not a whole number of strides long, 512 taps at stride 160, first
gets zero taps to the next whole number, `_in_whole_strides`); otherwise, or with a `batch_group_count`, the convolution is kept, and
the consumers then refuse it by name (transforms/stablehlo/dynamic.py). A dynamic input channel
count (an export that names every dim) is first cast to the one the kernel implies.
"""

from __future__ import annotations

import itertools

import numpy as np
from torch_mlir import ir
from torch_mlir._mlir_libs import _stablehlo

from ..stablehlo.dynamic_blocks import (
    convolution_blocks, depth_to_space_convolution, fills_its_stride, is_ones_kernel, pool_blocks,
    strided_convolution_patches, tiles, window_sums)
from ..stablehlo.window_emitter import DYNAMIC, Emitter, edge_padding, integer, integers
from ..torch.rewriting import ops_named

# One slice per window position: a larger window (EfficientNet's 320x320 pooler would be ~10^5
# slices) is taken only as blocks (stablehlo_dynamic_blocks.py), else left to the refusal, which
# names the op and suggests fixing the dims.
MAX_WINDOW_POSITIONS = 64


def dynamic_convolutions_as_patches(module: ir.Module) -> int:
    """Rewrite the convolutions of `module` whose spatial input sizes are dynamic; the count."""
    found = ops_named(module, {"stablehlo.convolution"})
    rewritten = 0
    with module.context, ir.Location.unknown():
        for op in found:
            _give_input_its_channels(op)
            if _qualifies(op):
                _rewrite(op)
                rewritten += 1
    return rewritten


def _give_input_its_channels(op: ir.Operation) -> None:
    """A dynamic input channel count made the static one the kernel implies (its input channels times
    the groups), by a `tensor.cast`: an export that names every dim (a UNet's or a VAE decoder's
    `tensor<?x?x?x?xf32>`) was refused, though no other count is valid."""
    x, w = op.operands[0], op.operands[1]
    if not isinstance(x.type, ir.RankedTensorType) or not isinstance(w.type, ir.RankedTensorType):
        return
    numbers = _stablehlo.ConvDimensionNumbers(op.attributes["dimension_numbers"])
    feature = numbers.input_feature_dimension
    kernel_channels = w.type.shape[numbers.kernel_input_feature_dimension]
    if not x.type.is_dynamic_dim(feature) or ir.ShapedType.is_dynamic_size(kernel_channels):
        return
    shape = list(x.type.shape)
    shape[feature] = kernel_channels * integer(op, "feature_group_count")
    with op.location, ir.InsertionPoint(op):
        cast = ir.Operation.create("tensor.cast", results=[ir.RankedTensorType.get(shape, x.type.element_type)],
                                   operands=[x])
    op.operands[0] = cast.results[0]


def _qualifies(op: ir.Operation) -> bool:
    types = [op.operands[0].type, op.operands[1].type, op.results[0].type]
    if not all(isinstance(t, ir.RankedTensorType) for t in types) or not types[1].has_static_shape:
        return False
    numbers = _stablehlo.ConvDimensionNumbers(op.attributes["dimension_numbers"])
    spatial = list(numbers.input_spatial_dimensions)
    dynamic_spatial = any(types[0].is_dynamic_dim(d) for d in spatial)
    # Neither consumer lowers a grouped convolution on a dynamic batch either (IREE refuses it,
    # the runner's channels-last move leaves a dynamic `bufferization.to_tensor`).
    # Nor does the runner lower a transposed one (an input dilation) there (the same to_tensor).
    count = len(spatial)
    grouped_dynamic_batch = ((integer(op, "feature_group_count") > 1
                              or integers(op, "lhs_dilation", count, 1) != [1] * count)
                             and types[0].is_dynamic_dim(numbers.input_batch_dimension))
    if not (dynamic_spatial or grouped_dynamic_batch) or types[0].is_dynamic_dim(numbers.input_feature_dimension):
        return False
    if integer(op, "batch_group_count") != 1:
        return False
    return not _large_kernel(op) or _kernel_tiles(op) or _kernel_of_strides(op)


def _large_kernel(op: ir.Operation) -> bool:
    """Whether the kernel has more than MAX_WINDOW_POSITIONS positions (too many for a slice each)."""
    numbers = _stablehlo.ConvDimensionNumbers(op.attributes["dimension_numbers"])
    shape = op.operands[1].type.shape
    return int(np.prod([shape[d] for d in numbers.kernel_spatial_dimensions])) > MAX_WINDOW_POSITIONS


def _kernel_tiles(op: ir.Operation) -> bool:
    """Whether the kernel's windows tile the input (stablehlo_dynamic_blocks.py takes those)."""
    numbers = _stablehlo.ConvDimensionNumbers(op.attributes["dimension_numbers"])
    count = len(numbers.kernel_spatial_dimensions)
    kernel = [op.operands[1].type.shape[d] for d in numbers.kernel_spatial_dimensions]
    return (integers(op, "lhs_dilation", count, 1) == [1] * count
            and tiles(kernel, integers(op, "window_strides", count, 1), integers(op, "rhs_dilation", count, 1)))


def _kernel_of_strides(op: ir.Operation) -> bool:
    """Whether an ungrouped, undilated kernel with several output channels spans at most
    MAX_WINDOW_POSITIONS strides of at least 2 in all (strided_convolution_patches, after
    `_in_whole_strides` where it is not a whole number of them)."""
    numbers = _stablehlo.ConvDimensionNumbers(op.attributes["dimension_numbers"])
    count = len(numbers.kernel_spatial_dimensions)
    kernel = [op.operands[1].type.shape[d] for d in numbers.kernel_spatial_dimensions]
    strides = integers(op, "window_strides", count, 1)
    if integer(op, "feature_group_count") != 1 or op.operands[1].type.shape[numbers.kernel_output_feature_dimension] == 1:
        return False
    if integers(op, "lhs_dilation", count, 1) != [1] * count or min(strides) < 2:
        return False
    return (integers(op, "rhs_dilation", count, 1) == [1] * count
            and int(np.prod([-(-k // s) for k, s in zip(kernel, strides)])) <= MAX_WINDOW_POSITIONS)


def _rewrite(op: ir.Operation) -> None:
    emit = Emitter(op)
    numbers = _stablehlo.ConvDimensionNumbers(op.attributes["dimension_numbers"])
    spatial = list(numbers.input_spatial_dimensions)
    count = len(spatial)
    # Channels last: x [N, S..., C]; the kernel channels first: w [O, C/G, K...].
    x = emit.transpose(op.operands[0], [numbers.input_batch_dimension] + spatial + [numbers.input_feature_dimension])
    kernel_order = [numbers.kernel_output_feature_dimension, numbers.kernel_input_feature_dimension]
    w = emit.transpose(op.operands[1], kernel_order + list(numbers.kernel_spatial_dimensions))
    kernel = list(w.type.shape[2:])
    strides = integers(op, "window_strides", count, 1)
    dilations = integers(op, "rhs_dilation", count, 1)
    input_dilation = integers(op, "lhs_dilation", count, 1)
    groups = integer(op, "feature_group_count")
    if fills_its_stride(kernel, input_dilation, edge_padding(op, count), strides, dilations, groups):
        _finish(op, emit, numbers, depth_to_space_convolution(emit, x, w))
        return
    padded = _padded(emit, x, edge_padding(op, count), input_dilation)
    # IREE turns an unbatched product with one column into a reshape it cannot lower: batch it.
    batched = groups > 1 or w.type.shape[0] == 1
    if not _large_kernel(op):
        outputs = [_output_size(emit, padded, 1 + i, kernel[i], strides[i], dilations[i]) for i in range(count)]
        patches = _patches(emit, padded, groups, batched, outputs, kernel, strides, dilations)
        result = _contract(emit, patches, w, groups, batched, outputs)  # [N, OUT..., O]
    elif groups == 1 and w.type.shape[0] == 1 and is_ones_kernel(op.operands[1]):
        result = window_sums(emit, padded, kernel)
    elif tiles(kernel, strides, dilations):
        patches, outputs = convolution_blocks(emit, padded, kernel, batched, groups)
        result = _contract(emit, patches, w, groups, batched, outputs)
    else:  # a kernel of strides (_kernel_of_strides)
        w, padded = _in_whole_strides(emit, w, padded, strides)
        kernel = list(w.type.shape[2:])
        outputs = [_output_size(emit, padded, 1 + i, kernel[i], strides[i], dilations[i]) for i in range(count)]
        patches = strided_convolution_patches(emit, padded, kernel, strides, outputs)
        result = _contract(emit, patches, w, groups, batched, outputs)
    _finish(op, emit, numbers, result)


def _in_whole_strides(emit: Emitter, w: ir.Value, padded: ir.Value, strides: list[int]):
    """(`w`, `padded`) with the kernel ([O, C, K...]) extended by zero taps at its end to a whole
    number of strides, `K' = ceil(K / s) * s`, and the input ([N, P..., C]) by as many zeros at its
    end: the windows are as many as before, `(P + K' - K - K') / s + 1`, and each extra tap
    multiplies a zero weight, so the result is the same (openWakeWord's mel front end: a 512-tap
    kernel at stride 160 is 4 strides of 160)."""
    kernel = list(w.type.shape[2:])
    extra = [-(-k // s) * s - k for k, s in zip(kernel, strides)]
    if not any(extra):
        return w, padded
    shape = list(w.type.shape[:2]) + [k + e for k, e in zip(kernel, extra)]
    zeros = [0] * len(w.type.shape)
    w = emit.create("stablehlo.pad", ir.RankedTensorType.get(shape, w.type.element_type), [w, emit.zero(w.type.element_type)],
                    edge_padding_low=ir.DenseI64ArrayAttr.get(zeros), edge_padding_high=ir.DenseI64ArrayAttr.get([0, 0] + extra),
                    interior_padding=ir.DenseI64ArrayAttr.get(zeros))
    return w, _padded(emit, padded, [(0, e) for e in extra], [1] * len(extra))


def _finish(op: ir.Operation, emit: Emitter, numbers, result: ir.Value) -> None:
    """Replace the convolution `op` by `result` (`[N, OUT..., O]`) in its layout and type."""
    output_order = [numbers.output_batch_dimension, *numbers.output_spatial_dimensions,
                    numbers.output_feature_dimension]
    result = emit.transpose(result, [output_order.index(d) for d in range(len(output_order))])
    result_type = op.results[0].type
    if result.type.element_type != result_type.element_type:
        converted = ir.RankedTensorType.get(result.type.shape, result_type.element_type)
        result = emit.create("stablehlo.convert", converted, [result])
    if result.type != result_type:
        result = emit.create("tensor.cast", result_type, [result])
    op.results[0].replace_all_uses_with(result)
    op.erase()


def _padded(emit: Emitter, x: ir.Value, padding: list[tuple[int, int]], dilation: list[int]) -> ir.Value:
    """`x` ([N, S..., C]) dilated (`d - 1` zeros between elements) and padded with zeros in its spatial
    dims; a negative padding (a ConvTranspose whose pads exceed its kernel) crops, a slice after the pad
    (the runner lowers no negative `stablehlo.pad` on dynamic sizes)."""
    if not any(low or high for low, high in padding) and all(d == 1 for d in dilation):
        return x
    low = [0] + [max(pair[0], 0) for pair in padding] + [0]
    high = [0] + [max(pair[1], 0) for pair in padding] + [0]
    interior = [0] + [d - 1 for d in dilation] + [0]
    if any(low + high + interior):
        shape = [size if size == DYNAMIC else _dilated(size, interior[d]) + low[d] + high[d]
                 for d, size in enumerate(x.type.shape)]
        x = emit.create("stablehlo.pad", ir.RankedTensorType.get(shape, x.type.element_type),
                        [x, emit.zero(x.type.element_type)], edge_padding_low=ir.DenseI64ArrayAttr.get(low),
                        edge_padding_high=ir.DenseI64ArrayAttr.get(high),
                        interior_padding=ir.DenseI64ArrayAttr.get(interior))
    crops = [(0, 0)] + [(max(-a, 0), max(-b, 0)) for a, b in padding] + [(0, 0)]
    if not any(front or back for front, back in crops):
        return x
    sizes = []
    for d, (front, back) in enumerate(crops):
        static, size = x.type.shape[d], emit.size(x, d)
        if front or back:
            static = static if static == DYNAMIC else static - front - back
            size = emit.arith("subi", size, front + back)
        sizes.append((static, size))
    return emit.window(x, [front for front, _ in crops], sizes, [1] * len(crops))


def _dilated(size: int, interior: int) -> int:
    """The length of `size` elements with `interior` zeros between each two."""
    return size + (size - 1) * interior if size else 0


def _output_size(emit: Emitter, padded: ir.Value, dim: int, kernel: int, stride: int, dilation: int):
    """(static size or DYNAMIC, index value) of the output along `dim`: (P - d(K - 1) - 1) / s + 1."""
    reach = dilation * (kernel - 1) + 1
    if not padded.type.is_dynamic_dim(dim):
        static = (padded.type.get_dim_size(dim) - reach) // stride + 1
        return static, emit.index_constant(static)
    windows = emit.arith("divsi", emit.arith("subi", emit.size(padded, dim), reach), stride)
    return DYNAMIC, emit.arith("addi", windows, 1)


def _patches(emit: Emitter, padded: ir.Value, groups: int, batched: bool, outputs, kernel, strides,
             dilations) -> ir.Value:
    """The windows of every kernel offset, concatenated along the channels: [N, OUT..., (G,) K*C/G]."""
    count = len(kernel)
    if batched:
        padded = emit.split_channels(padded, groups)
    if all(k == 1 and s == 1 for k, s in zip(kernel, strides)):
        return padded  # the one window of a 1x1 kernel at stride 1 is the whole input
    trailing = list(range(count + 1, padded.type.rank))
    sizes = [(padded.type.shape[0], emit.size(padded, 0)), *outputs]
    sizes += [(padded.type.shape[d], emit.size(padded, d)) for d in trailing]
    out_shape = [static for static, _ in sizes]
    step = [1, *strides] + [1] * len(trailing)
    windows = []
    for offsets in itertools.product(*(range(k) for k in kernel)):
        start = [0] + [o * d for o, d in zip(offsets, dilations)] + [0] * len(trailing)
        windows.append(emit.window(padded, start, sizes, step))
    if len(windows) == 1:
        return windows[0]
    shape = list(out_shape)
    shape[-1] *= len(windows)
    return emit.create("stablehlo.concatenate", ir.RankedTensorType.get(shape, padded.type.element_type), windows,
                       dimension=ir.IntegerAttr.get(emit.i64, len(shape) - 1))


def _contract(emit: Emitter, patches: ir.Value, w: ir.Value, groups: int, batched: bool, outputs) -> ir.Value:
    """The patches times the kernel laid out in their order, as [N, OUT..., O]: one matrix product
    [N*OUT..., K*C] x [K*C, O], or with groups one batched over them, [G, N*OUT..., K*C/G] x
    [G, K*C/G, O/G] (the forms IREE lowers without a reshape of its own)."""
    out_channels, group_channels = w.type.shape[:2]
    count = len(outputs)
    depth = int(np.prod(w.type.shape[2:])) * group_channels
    element = patches.type.element_type
    if w.type.element_type != element:
        w = emit.create("stablehlo.convert", ir.RankedTensorType.get(w.type.shape, element), [w])
    out_shape = [patches.type.shape[0]] + [static for static, _ in outputs]
    out_sizes = [emit.size(patches, 0)] + [size for _, size in outputs]
    rows = DYNAMIC if DYNAMIC in out_shape else int(np.prod(out_shape))
    if not batched:
        # w [O, C, K...] -> [K..., C, O] -> [K*C, O].
        flat = emit.reshape(emit.transpose(w, list(range(2, 2 + count)) + [1, 0]), [depth, out_channels])
        matrix = emit.collapse(patches, [list(range(count + 1)), [count + 1]], [rows, depth])
        product = emit.dot(matrix, flat, [rows, out_channels], batched=False)
    else:
        per_group = out_channels // groups
        # w [O, C/G, K...] -> [G, O/G, C/G, K...] -> [G, K..., C/G, O/G] -> [G, K*C/G, O/G].
        split = emit.reshape(w, [groups, per_group, group_channels] + list(w.type.shape[2:]))
        flat = emit.reshape(emit.transpose(split, [0] + list(range(3, 3 + count)) + [2, 1]), [groups, depth, per_group])
        # patches [N, OUT..., G, K*C/G] -> [G, N, OUT..., K*C/G] -> [G, N*OUT..., K*C/G].
        moved = emit.transpose(patches, [count + 1] + list(range(count + 1)) + [count + 2])
        batch = emit.collapse(moved, [[0], list(range(1, count + 2)), [count + 2]], [groups, rows, depth])
        product = emit.dot(batch, flat, [groups, rows, per_group], batched=True)
        # [G, N*OUT..., O/G] -> [N*OUT..., G, O/G] -> [N*OUT..., O].
        product = emit.collapse(emit.transpose(product, [1, 0, 2]), [[0], [1, 2]], [rows, out_channels])
    return emit.expand(product, [list(range(count + 1)), [count + 1]], out_shape + [out_channels],
                       out_sizes + [emit.index_constant(out_channels)])


# `stablehlo.reduce_window` on dynamic sizes (pools): the same windows, combined elementwise.

_COMBINERS = ("stablehlo.maximum", "stablehlo.minimum", "stablehlo.add")


def dynamic_reduce_windows_as_slices(module: ir.Module) -> int:
    """Rewrite the dynamically shaped pools of `module`; the count.

    torch-mlir lowers max and average pools to `stablehlo.reduce_window`, which neither consumer
    lowers with a dynamic dim. With the body one `maximum`, `minimum` or `add` and the initial
    value its identity (-inf, +inf, 0; padding reads it), the pool is that op over the strided
    slices of the padded input, one per window offset (as the convolution's windows above); a
    window of more than MAX_WINDOW_POSITIONS as large as its stride is a `stablehlo.reduce` of
    blocks (stablehlo_dynamic_blocks.py)."""
    found = ops_named(module, {"stablehlo.reduce_window"})
    rewritten = 0
    with module.context, ir.Location.unknown():
        for op in found:
            combiner = _window_combiner(op)
            if combiner is not None:
                _rewrite_window(op, combiner)
                rewritten += 1
    return rewritten


def _window_combiner(op: ir.Operation) -> str | None:
    """The body's op name when `op` is a pool this rewrite takes (see above), else None."""
    if len(op.operands) != 2 or len(op.results) != 1:
        return None
    operand_type = op.operands[0].type
    if not isinstance(operand_type, ir.RankedTensorType) or operand_type.has_static_shape:
        return None
    rank = operand_type.rank
    window = integers(op, "window_dimensions", rank, 1)
    if integers(op, "base_dilations", rank, 1) != [1] * rank:
        return None
    strides, dilations = integers(op, "window_strides", rank, 1), integers(op, "window_dilations", rank, 1)
    if int(np.prod(window)) > MAX_WINDOW_POSITIONS and not tiles(window, strides, dilations):
        return None
    if min((value for pair in edge_padding(op, rank) for value in pair), default=0) < 0:
        return None
    body = list(op.regions[0].blocks[0].operations)
    if len(body) != 2 or body[0].name not in _COMBINERS or body[1].name != "stablehlo.return":
        return None
    arguments = list(op.regions[0].blocks[0].arguments)
    if sorted(map(str, body[0].operands)) != sorted(map(str, arguments)) or body[1].operands[0] != body[0].results[0]:
        return None
    return body[0].name if _is_identity(op.operands[1], body[0].name) else None


def _is_identity(init: ir.Value, combiner: str) -> bool:
    owner = init.owner
    owner = owner.operation if hasattr(owner, "operation") else owner
    if not isinstance(owner, ir.Operation) or owner.name != "stablehlo.constant":
        return False
    splat = ir.DenseElementsAttr(owner.attributes["value"]).get_splat_value()
    if isinstance(splat, ir.FloatAttr):
        value = splat.value
        return {"stablehlo.maximum": -np.inf, "stablehlo.minimum": np.inf, "stablehlo.add": 0.0}[combiner] == value
    element = ir.IntegerType(init.type.element_type)
    width, value = element.width, ir.IntegerAttr(splat).value
    lowest, highest = (0, 2**width - 1) if element.is_unsigned else (-(2 ** (width - 1)), 2 ** (width - 1) - 1)
    return {"stablehlo.maximum": lowest, "stablehlo.minimum": highest, "stablehlo.add": 0}[combiner] == value


def _rewrite_window(op: ir.Operation, combiner: str) -> None:
    emit = Emitter(op)
    x, init = op.operands
    rank = x.type.rank
    window = integers(op, "window_dimensions", rank, 1)
    strides = integers(op, "window_strides", rank, 1)
    dilations = integers(op, "window_dilations", rank, 1)
    padding = edge_padding(op, rank)
    padded = x
    if any(low or high for low, high in padding):
        shape = [s if s == DYNAMIC else s + low + high for s, (low, high) in zip(x.type.shape, padding)]
        padded = emit.create("stablehlo.pad", ir.RankedTensorType.get(shape, x.type.element_type), [x, init],
                             edge_padding_low=ir.DenseI64ArrayAttr.get([pair[0] for pair in padding]),
                             edge_padding_high=ir.DenseI64ArrayAttr.get([pair[1] for pair in padding]),
                             interior_padding=ir.DenseI64ArrayAttr.get([0] * rank))
    if int(np.prod(window)) > MAX_WINDOW_POSITIONS:
        _replace(op, pool_blocks(emit, padded, init, combiner, window))
        return
    outputs = [_output_size(emit, padded, d, window[d], strides[d], dilations[d]) for d in range(rank)]
    out_type = ir.RankedTensorType.get([static for static, _ in outputs], x.type.element_type)
    result = None
    for offsets in itertools.product(*(range(w) for w in window)):
        slice_ = emit.window(padded, [o * d for o, d in zip(offsets, dilations)], outputs, strides)
        result = slice_ if result is None else emit.create(combiner, out_type, [result, slice_])
    _replace(op, result)


def _replace(op: ir.Operation, result: ir.Value) -> None:
    """Replace `op`'s one result by `result` (cast to its type) and erase `op`."""
    if result.type != op.results[0].type:
        result = Emitter(op).create("tensor.cast", op.results[0].type, [result])
    op.results[0].replace_all_uses_with(result)
    op.erase()
