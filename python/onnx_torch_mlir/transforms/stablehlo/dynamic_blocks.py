"""Windows as large as their stride on dynamic sizes, as blocks of a reshape instead of one slice per
window position (stablehlo_dynamic_convolution.py takes windows of at most 64 positions that way).

When every window is as long as its stride (no dilation), the windows tile the input: along a dim
of padded size `P` with window `K` there are `OUT = P / K` of them (rounded down), and the first
`OUT * K` positions of the dim, reshaped to `[OUT, K]`, hold one window per row. So

- a convolution's patches are that input (`[N, P..., C]`) cropped to `OUT * K` (a
  `tensor.extract_slice` with run-time sizes), expanded to `[N, OUT1, K1, OUT2, K2, ..., C]` and
  transposed to `[N, OUT..., K..., C]`: the layout of the slice form's patches, for the same
  contraction with the kernel;
- with a kernel of ones and one output channel (the sums torch-mlir computes an `AveragePool` with:
  EfficientNet's ceil-mode 320x320 pooler, its numerator and its divisor), the convolution is a
  `stablehlo.reduce` adding up the window and channel axes of the expanded input, no transpose;
- a `reduce_window` (a pool) is a `stablehlo.reduce` over the window axes with its own body and
  initial value.

The reshape is `tensor.expand_shape` with the run-time `OUT` sizes, which both consumers lower.
"""

from __future__ import annotations

import itertools

from torch_mlir import ir

from ..stablehlo.window_emitter import DYNAMIC, Emitter


def tiles(windows: list[int], strides: list[int], dilations: list[int]) -> bool:
    """Whether windows of these sizes, strides and dilations are as long as their stride."""
    return all(w == s for w, s in zip(windows, strides)) and all(d == 1 for d in dilations)


def blocked(emit: Emitter, x: ir.Value, windows: list[int]):
    """`x` cut into its windows: every dim `d` with `windows[d] > 1` cropped to `OUT * K` and split
    into `(OUT, K)`. Returns the blocks, the axes of the windows in them and the (static or DYNAMIC,
    index value) size of every dim of the result of the windowed op (OUT, or the dim itself)."""
    rank = x.type.rank
    outputs, cropped, shape, sizes, reassociation, window_axes = [], [], [], [], [], []
    for d in range(rank):
        static, size = x.type.shape[d], emit.size(x, d)
        k = windows[d]
        if k == 1:
            outputs.append((static, size))
            cropped.append((static, size))
            reassociation.append([len(shape)])
            shape.append(static)
            sizes.append(size)
            continue
        if static == DYNAMIC:
            out = (DYNAMIC, emit.arith("divsi", size, k))
        else:
            out = (static // k, emit.index_constant(static // k))
        outputs.append(out)
        cropped.append((DYNAMIC if static == DYNAMIC else out[0] * k, emit.arith("muli", out[1], k)))
        reassociation.append([len(shape), len(shape) + 1])
        window_axes.append(len(shape) + 1)
        shape += [out[0], k]
        sizes += [out[1], emit.index_constant(k)]
    if any(k > 1 and (static == DYNAMIC or static % k) for k, static in zip(windows, x.type.shape)):
        x = emit.window(x, [0] * rank, cropped, [1] * rank)
    return emit.expand(x, reassociation, shape, sizes), window_axes, outputs


def convolution_blocks(emit: Emitter, padded: ir.Value, kernel: list[int], batched: bool, groups: int):
    """The patches of a convolution whose kernel is as large as its stride, laid out as the slice
    form's (`[N, OUT..., (G,) K*C/G]`: offsets row-major, then channels), and the output sizes.
    `padded` is `[N, P..., C]`."""
    count = len(kernel)
    if batched:
        padded = emit.split_channels(padded, groups)
    trailing = padded.type.rank - count - 1
    blocks, window_axes, outputs = blocked(emit, padded, [1, *kernel] + [1] * trailing)
    rank = blocks.type.rank
    kept = [d for d in range(rank) if d not in window_axes]  # N, OUT..., (G,) C/G
    order = kept[:-1] + window_axes + kept[-1:]
    moved = emit.transpose(blocks, order)
    depth = 1
    for d in window_axes + kept[-1:]:
        depth *= blocks.type.shape[d]
    lead = len(kept) - 1
    shape = list(moved.type.shape[:lead]) + [depth]
    patches = emit.collapse(moved, [[d] for d in range(lead)] + [list(range(lead, rank))], shape)
    return patches, outputs[1:count + 1]


def is_ones_kernel(w: ir.Value) -> bool:
    """Whether `w` is a `stablehlo.constant` splat of 1 (the kernel of torch-mlir's sum pools)."""
    owner = w.owner
    owner = owner.operation if hasattr(owner, "operation") else owner
    if not isinstance(owner, ir.Operation) or owner.name != "stablehlo.constant":
        return False
    value = ir.DenseElementsAttr(owner.attributes["value"])
    if not value.is_splat:
        return False
    splat = value.get_splat_value()
    return (splat.value if isinstance(splat, ir.FloatAttr) else ir.IntegerAttr(splat).value) == 1


def window_sums(emit: Emitter, padded: ir.Value, kernel: list[int]) -> ir.Value:
    """A convolution of `padded` (`[N, P..., C]`) by a kernel of ones with one output channel and as
    large as its stride: the sum of every window over all channels, `[N, OUT..., 1]`."""
    count = len(kernel)
    blocks, window_axes, outputs = blocked(emit, padded, [1, *kernel, 1])
    channel_axis = blocks.type.rank - 1
    sums = emit.reduce(blocks, emit.zero(blocks.type.element_type), "stablehlo.add", window_axes + [channel_axis])
    sizes = [size for _, size in outputs[:count + 1]] + [emit.index_constant(1)]
    shape = list(sums.type.shape) + [1]
    return emit.expand(sums, [[d] for d in range(count)] + [[count, count + 1]], shape, sizes)


def pool_blocks(emit: Emitter, padded: ir.Value, init: ir.Value, combiner: str, windows: list[int]) -> ir.Value:
    """A pool (`reduce_window` of `combiner` from `init`) whose windows are as large as their stride,
    on its padded input."""
    blocks, window_axes, _ = blocked(emit, padded, windows)
    return emit.reduce(blocks, init, combiner, window_axes)


def fills_its_stride(kernel: list[int], input_dilation: list[int], padding: list[tuple[int, int]],
                     strides: list[int], dilations: list[int], groups: int) -> bool:
    """Whether a convolution is a transposed convolution whose kernel is as large as its stride (UNet's
    2x2 stride-2 up-convolution, torch-mlir's form: input dilated by the stride, padded by K - 1 at
    both ends, stride 1): each output position then reads one input position."""
    return (groups == 1 and any(d > 1 for d in input_dilation) and kernel == input_dilation
            and padding == [(k - 1, k - 1) for k in kernel] and all(s == 1 for s in strides)
            and all(d == 1 for d in dilations))


def depth_to_space_convolution(emit: Emitter, x: ir.Value, w: ir.Value) -> ir.Value:
    """A convolution that `fills_its_stride`, of `x` (`[N, S..., C]`) by `w` (`[O, C, K...]`), as one
    product per input position and a depth-to-space reshape: `y[n, i*K + a, ..., o] = sum_c x[n, i,
    ..., c] * w[o, c, K-1-a, ...]` (the dilated input's zeros leave one kernel offset per output
    position; the convolution's kernel is the transposed one flipped). The product is `[N*S..., C] x
    [C, K*O]`, then `[N, S..., K..., O]` is interleaved to `[N, S1, K1, S2, K2, ..., O]` and collapsed to
    `[N, S1*K1, S2*K2, ..., O]`."""
    count = w.type.rank - 2
    out_channels, channels = w.type.shape[:2]
    kernel = list(w.type.shape[2:])
    element = x.type.element_type
    if w.type.element_type != element:
        w = emit.create("stablehlo.convert", ir.RankedTensorType.get(w.type.shape, element), [w])
    spatial = list(range(2, 2 + count))
    flipped = emit.create("stablehlo.reverse", w.type, [w], dimensions=ir.DenseI64ArrayAttr.get(spatial))
    columns = out_channels * _product(kernel)
    matrix = emit.reshape(emit.transpose(flipped, [1, *spatial, 0]), [channels, columns])  # [C, K*O]
    leading = list(x.type.shape[:-1])
    rows = DYNAMIC if DYNAMIC in leading else _product(leading)
    product = emit.dot(emit.collapse(x, [list(range(count + 1)), [count + 1]], [rows, channels]), matrix,
                       [rows, columns], batched=False)
    sizes = [emit.size(x, d) for d in range(count + 1)] + [emit.index_constant(k) for k in kernel]
    expanded = emit.expand(product, [list(range(count + 1)), list(range(count + 1, 2 * count + 2))],
                           leading + kernel + [out_channels], sizes + [emit.index_constant(out_channels)])
    order = [0] + [axis for i in range(count) for axis in (1 + i, 1 + count + i)] + [2 * count + 1]
    interleaved = emit.transpose(expanded, order)
    shape = [leading[0]] + [DYNAMIC if s == DYNAMIC else s * k for s, k in zip(leading[1:], kernel)] + [out_channels]
    return emit.collapse(interleaved, [[0]] + [[1 + 2 * i, 2 + 2 * i] for i in range(count)] + [[2 * count + 1]],
                         shape)


def _product(values: list[int]) -> int:
    product = 1
    for value in values:
        product *= value
    return product


def strided_convolution_patches(emit: Emitter, padded: ir.Value, kernel: list[int], strides: list[int], outputs):
    """The patches (`[N, OUT..., K*C]`, offsets row-major, then channels) of an ungrouped convolution
    whose kernel is `M` strides long along each dim: `padded` (`[N, P..., C]`) cut into blocks of
    the stride, `[N, B1, S1, ..., C]`, and for each block offset `J` (of `M...`) the `OUT...` blocks
    from `J` on; stacked, they are laid out `[N, OUT..., J1, S1, J2, S2, ..., C]`, i.e. by kernel
    offset `J * S + R`. `M1*M2...` slices instead of one per kernel position."""
    count = len(kernel)
    blocks, _, _ = blocked(emit, padded, [1, *strides, 1])  # [N, B1, S1, ..., Bn, Sn, C]
    counts = [k // s for k, s in zip(kernel, strides)]
    rank = blocks.type.rank
    sizes = [(blocks.type.shape[0], emit.size(blocks, 0))]
    for (out_static, out_size), stride in zip(outputs, strides):
        sizes += [(out_static, out_size), (stride, emit.index_constant(stride))]
    sizes.append((blocks.type.shape[-1], emit.size(blocks, rank - 1)))
    piece_shape = [static for static, _ in sizes]
    stacked_shape = [1] + piece_shape
    pieces = []
    for offsets in itertools.product(*(range(m) for m in counts)):
        start = [0] + [value for offset in offsets for value in (offset, 0)] + [0]
        piece = emit.window(blocks, start, sizes, [1] * rank)
        pieces.append(emit.expand(piece, [[0, 1]] + [[d + 1] for d in range(1, rank)], stacked_shape,
                                  [emit.index_constant(1)] + [size for _, size in sizes]))
    total = _product(counts)
    stacked = pieces[0] if total == 1 else emit.create(
        "stablehlo.concatenate", ir.RankedTensorType.get([total] + piece_shape, padded.type.element_type), pieces,
        dimension=ir.IntegerAttr.get(emit.i64, 0))
    # [J, N, OUT1, S1, ..., C] -> [J1, ..., Jn, N, OUT1, S1, ..., C] -> [N, OUT..., J1, S1, ..., Jn, Sn, C].
    expanded_shape = counts + piece_shape
    split = emit.expand(stacked, [list(range(count))] + [[count + d] for d in range(rank)], expanded_shape,
                        [emit.index_constant(m) for m in counts] + [size for _, size in sizes])
    batch_axis = count
    outs = [count + 1 + 2 * d for d in range(count)]
    order = [batch_axis] + outs
    for d in range(count):
        order += [d, count + 2 + 2 * d]
    order.append(count + rank - 1)
    moved = emit.transpose(split, order)
    depth = _product(kernel) * padded.type.shape[-1]
    lead = 1 + count
    return emit.collapse(moved, [[d] for d in range(lead)] + [list(range(lead, moved.type.rank))],
                         list(moved.type.shape[:lead]) + [depth])
