"""Pooling: MaxPool (with Indices), AveragePool, LpPool, GlobalAveragePool, GlobalMaxPool,
GlobalLpPool, MaxRoiPool.

Forms torch's pooling ops take directly (symmetric pads of at most half the kernel, and for
averages no dilation, no ceil_mode and at most 2 spatial dims) map to
`aten.max_pool{1,2,3}d` / `aten.avg_pool{1,2}d`; ceil_mode becomes explicit end padding
when the shape is static. Elsewhere, so that every backend lowers the result:
- MaxPool with dilations or Indices: the maximum of one strided slice per kernel offset
  (Indices: the same slices of a tensor of ONNX indices), for static shapes and small
  windows; otherwise `aten.max_pool*d(_with_indices)`, the input padded with its lowest
  value where torch's symmetric padding cannot express the pads (not with Indices).
- AveragePool and LpPool: window sums as a convolution with a kernel of ones over
  [N * C, 1, ...], divided by the window sum of ones (the count of elements averaged).
"""

from __future__ import annotations

import itertools

from torch_mlir import ir

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts
from .types import lowest_value, static_product


# Dilated MaxPool unrolls one slice per kernel element up to this window size.
MAX_UNROLLED_WINDOW = 128
# Unsigned max pools are computed in these types (no backend compares unsigned integers right).
_WIDER_SIGNED = {"ui8": "si16", "ui16": "si32", "ui32": "si64"}


def _pool_attributes(node: OnnxNode, b: TorchBuilder, x):
    """(sizes, kernel, strides, dilations, begins, ends, ceil_mode) of a windowed pool; auto_pad
    SAME with a stride on a dynamic size gives pads computed at run time (dims)."""
    sizes = node.input_sizes(0)
    count = len(sizes) - 2
    kernel = node.attr_ints("kernel_shape")
    if count < 1 or len(kernel) != count:
        node.fail(f"attribute 'kernel_shape' {kernel} does not match input rank {len(sizes)}")
    strides = node.spatial_ints("strides", count, 1)
    dilations = node.spatial_ints("dilations", count, 1)
    begins, ends = node.resolve_pads(sizes[2:], kernel, strides, dilations, b, x)
    ceil_mode = node.attr_int("ceil_mode", 0)
    if ceil_mode and _run_time(begins + ends):
        node.fail(f"ceil_mode with auto_pad {node.attr_string('auto_pad')} on a dynamic spatial size is not "
                  "supported; fix the size with --dim NAME=SIZE")
    if ceil_mode:
        # Drop ceil_mode where it changes nothing: some backends lower only floor mode.
        floor = _output_sizes(sizes, kernel, strides, dilations, begins, ends, False)
        if None not in floor and floor == _output_sizes(sizes, kernel, strides, dilations, begins, ends, True):
            ceil_mode = 0
    return sizes, kernel, strides, dilations, begins, ends, ceil_mode


def _run_time(pads) -> bool:
    """Whether any of `pads` is computed at run time (a `!torch.int`, not an int)."""
    return any(TorchBuilder.static_dim(pad) is None for pad in pads)


def _torch_pads_fit(kernel, begins, ends) -> bool:
    return not _run_time(begins + ends) and begins == ends and all(0 <= p <= k // 2 for p, k in zip(begins, kernel))


def _output_sizes(sizes, kernel, strides, dilations, begins, ends, ceil_mode):
    """Spatial output sizes (None if dynamic); with ceil_mode a window must start inside the
    input or its leading pad (torch's rule, also ONNX's reference since opset 19)."""
    out = []
    for i, size in enumerate(sizes[2:]):
        if size is None:
            out.append(None)
            continue
        span = size + begins[i] + ends[i] - ((kernel[i] - 1) * dilations[i] + 1)
        count = (-(-span // strides[i]) if ceil_mode else span // strides[i]) + 1
        if ceil_mode and (count - 1) * strides[i] >= size + begins[i]:
            count -= 1
        out.append(count)
    return out


def _ceil_extra(size: int, out_size: int, kernel: int, stride: int, dilation: int, begin: int, end: int) -> int:
    """How far the last of `out_size` windows reaches past the padded input of a static dim."""
    reach = (out_size - 1) * stride + (kernel - 1) * dilation + 1
    return max(reach - (size + begin + end), 0)


def _ceil_extras(sizes, out_sizes, kernel, strides, dilations, begins, ends) -> list[int]:
    """_ceil_extra of every spatial dim (all static)."""
    return [_ceil_extra(*dim) for dim in zip(sizes[2:], out_sizes, kernel, strides, dilations, begins, ends)]


@converts("MaxPool", since=1)
def max_pool(node: OnnxNode, b: TorchBuilder):
    """Max over windows; Indices (opset 8) index the flattened input, row-major or, with
    storage_order=1, column-major within each plane."""
    x = node.input(0)
    wider = _WIDER_SIGNED.get(node.input_info(0).element)
    if wider is not None:
        # torch-mlir's Linalg and TOSA lowerings compare unsigned bytes as signed (200 < 100), and
        # its StableHLO lowering of an unsigned max pool crashes: the max is exact in a wider signed type.
        x = b.unsigned_widened(x, wider)
    sizes, kernel, strides, dilations, begins, ends, ceil_mode = _pool_attributes(node, b, x)
    count = len(kernel)
    if count > 3:
        node.fail(f"{count} spatial dims: only 1 to 3 are supported")
    want_indices = node.num_results > 1 and node.result_is_used(1)
    storage_order = node.attr_int("storage_order", 0)
    small_kernel = static_product(kernel) <= MAX_UNROLLED_WINDOW
    window = (kernel, strides, dilations, begins, ends, ceil_mode)
    if want_indices and small_kernel and None not in sizes:
        if storage_order == 1 and count != 2:
            node.fail(f"storage_order 1 with {count} spatial dims is not supported")
        return _unrolled_max_pool(node, b, x, sizes, *window, indices_order=storage_order)
    if not want_indices and any(d != 1 for d in dilations) and small_kernel and None not in sizes[2:]:
        return _unrolled_max_pool(node, b, x, sizes, *window)
    if node.target == "tosa" and not want_indices and any(d != 1 for d in dilations) and None not in sizes[2:] \
            and all(stride % dilation == 0 for stride, dilation in zip(strides, dilations)):
        return _max_pool_of_one_phase(node, b, x, sizes, *window)
    if ceil_mode and not want_indices and None not in sizes[2:]:
        # The windows ceil_mode adds, as explicit padding: StableHLO mis-lowers ceil_mode.
        out_sizes = _output_sizes(sizes, kernel, strides, dilations, begins, ends, ceil_mode)
        extras = _ceil_extras(sizes, out_sizes, kernel, strides, dilations, begins, ends)
        ends = [end + extra for end, extra in zip(ends, extras)]
        ceil_mode = 0
    lowest = lowest_value(node.input_info(0).element)
    padding = begins
    if not _torch_pads_fit(kernel, begins, ends):
        if want_indices:
            pads = "computed at run time" if _run_time(begins + ends) else f"{begins + ends} (asymmetric or over half the kernel)"
            node.fail(f"output Indices with pads {pads} needs a static input shape; fix it with --dim NAME=SIZE")
        x = b.pad_spatial(x, begins, ends, lowest)
        padding = [0] * count
    operands = [
        x, b.int_list(kernel), b.int_list(strides), b.int_list(padding), b.int_list(dilations),
        b.constant_bool(bool(ceil_mode)),
    ]
    if not want_indices:
        pooled_type = b.tensor_type(node.result_info().sizes, b.info(x).element)
        result = b.to_dtype(b.op(f"aten.max_pool{count}d", pooled_type, *operands), node.result_info().element)
        return [result, None] if node.num_results > 1 else result
    indices_info = node.result_info(1)
    plane_type = b.tensor_type(indices_info.sizes, "si64")
    pooled_type = b.tensor_type(node.result_info().sizes, b.info(x).element)
    values, indices = b.op(f"aten.max_pool{count}d_with_indices", [pooled_type, plane_type], *operands)
    values = b.to_dtype(values, node.result_info().element)
    if storage_order == 1:
        if count != 2:
            node.fail(f"storage_order 1 with {count} spatial dims is not supported")
        height, width = sizes[2], sizes[3]
        if height is None or width is None:
            node.fail("storage_order 1 needs static spatial sizes")
        row = b.op("aten.floor_divide.Scalar", plane_type, indices, b.constant_int(width))
        column = b.op("aten.remainder.Scalar", plane_type, indices, b.constant_int(width))
        column = b.op("aten.mul.Scalar", plane_type, column, b.constant_int(height))
        indices = b.binary("aten.add.Tensor", row, column, plane_type)
    return [values, b.binary("aten.add.Tensor", indices, _plane_offsets(node, b, sizes), node.result_type(1))]


def _max_pool_of_one_phase(node: OnnxNode, b: TorchBuilder, x, sizes, kernel, strides, dilations, begins, ends,
                           ceil_mode):
    """A dilated max pool whose strides are multiples of its dilations, without dilation (TOSA's
    max_pool2d has none, and a large window is too many slices to unroll): every window of output o
    reads the padded input at o * stride + k * dilation, all multiples of the dilation, so the pool
    runs over every dilation-th element of the padded input (one strided slice a dim) with kernel
    `kernel` and stride stride / dilation, and gives the same number of outputs (floor division
    nests). Static spatial sizes; ceil_mode as explicit end padding."""
    lowest = lowest_value(node.input_info(0).element)
    out_sizes = _output_sizes(sizes, kernel, strides, dilations, begins, ends, ceil_mode)
    extras = _ceil_extras(sizes, out_sizes, kernel, strides, dilations, begins, ends)
    x = b.pad_spatial(x, begins, [end + extra for end, extra in zip(ends, extras)], lowest)
    for i, dilation in enumerate(dilations):
        phase_sizes = list(b.info(x).sizes)
        length = phase_sizes[i + 2]
        phase_sizes[i + 2] = -(-length // dilation)
        x = b.op("aten.slice.Tensor", b.tensor_type(phase_sizes, b.info(x).element), x, b.constant_int(i + 2),
                 b.constant_int(0), b.constant_int(length), b.constant_int(dilation))
    count = len(kernel)
    operands = [x, b.int_list(kernel), b.int_list([s // d for s, d in zip(strides, dilations)]),
                b.int_list([0] * count), b.int_list([1] * count), b.constant_bool(False)]
    pooled = b.op(f"aten.max_pool{count}d", b.tensor_type(node.result_info().sizes, b.info(x).element), *operands)
    result = b.to_dtype(pooled, node.result_info().element)
    return [result, None] if node.num_results > 1 else result


def _unrolled_max_pool(
    node: OnnxNode, b: TorchBuilder, x, sizes, kernel, strides, dilations, begins, ends, ceil_mode, indices_order=None
):
    """Max pooling as the maximum of one strided slice per kernel offset: TOSA lowers no
    dilated pooling and no pooling with indices. With `indices_order` (the storage order) the
    same slices of a tensor of ONNX indices follow the first maximum. Needs static spatial
    sizes (and a static shape for indices) and a small window."""
    lowest = lowest_value(node.input_info(0).element)
    out_sizes = _output_sizes(sizes, kernel, strides, dilations, begins, ends, ceil_mode)
    count = len(kernel)
    extra = _ceil_extras(sizes, out_sizes, kernel, strides, dilations, begins, ends)
    padded_ends = [e + extra_i for e, extra_i in zip(ends, extra)]
    x = b.pad_spatial(x, begins, padded_ends, lowest)
    indices = None
    if indices_order is not None:
        indices = b.pad_spatial(_onnx_indices(b, sizes, indices_order), begins, padded_ends, -1)

    def window_of(value, offsets):
        for i, offset in enumerate(offsets):
            start = offset * dilations[i]
            window_sizes = list(b.info(value).sizes)
            window_sizes[i + 2] = out_sizes[i]
            value = b.op(
                "aten.slice.Tensor", b.tensor_type(window_sizes, b.info(value).element), value, b.constant_int(i + 2),
                b.constant_int(start), b.constant_int(start + (out_sizes[i] - 1) * strides[i] + 1),
                b.constant_int(strides[i]),
            )
        return value

    result = result_indices = None
    for offsets in itertools.product(*[range(k) for k in kernel]):
        window = window_of(x, offsets)
        if result is None:
            result, result_indices = window, None if indices is None else window_of(indices, offsets)
            continue
        if indices is not None:
            greater = b.op("aten.gt.Tensor", b.tensor_type(b.info(window).sizes, "i1"), window, result)
            chosen = window_of(indices, offsets)
            result_indices = b.op("aten.where.self", chosen.type, greater, chosen, result_indices)
        result = b.op("aten.maximum", window.type, result, window)
    result = b.cast_to(result, node.result_type())
    if indices is not None:
        return [result, b.cast_to(result_indices, node.result_type(1))]
    return [result, None] if node.num_results > 1 else result


def _onnx_indices(b: TorchBuilder, sizes, storage_order: int) -> ir.Value:
    """si64 tensor of x's shape holding each element's flattened ONNX index; storage_order 1
    numbers each plane column-major."""
    total = static_product(sizes)
    none = b.constant_none()
    flat = b.op(
        "aten.arange.start_step", b.tensor_type([total], "si64"), b.constant_int(0), b.constant_int(total),
        b.constant_int(1), b.dtype("si64"), none, none, none,
    )
    if storage_order == 0:
        return b.op("aten.view", b.tensor_type(sizes, "si64"), flat, b.int_list(sizes))
    swapped = sizes[:2] + [sizes[3], sizes[2]]
    planes = b.op("aten.view", b.tensor_type(swapped, "si64"), flat, b.int_list(swapped))
    return b.op(
        "aten.transpose.int", b.tensor_type(sizes, "si64"), planes, b.constant_int(2), b.constant_int(3)
    )


def _plane_offsets(node: OnnxNode, b: TorchBuilder, sizes) -> ir.Value:
    """[N, C, 1, ...] si64 tensor of (n * C + c) * plane size: torch's indices are per plane."""
    plane = static_product(sizes[2:])
    if plane is None or sizes[1] is None:
        node.fail("output Indices needs static channel and spatial sizes")
    batch = sizes[0]
    batch_dim = b.dim(node.input(0), 0)
    total = b.dim_value(b.dim_mul(batch_dim, sizes[1] * plane))
    none = b.constant_none()
    flat = b.op(
        "aten.arange.start_step", b.tensor_type([None if batch is None else batch * sizes[1]], "si64"),
        b.constant_int(0), total, b.constant_int(plane), b.dtype("si64"), none, none, none,
    )
    return b.op(
        "aten.view", b.tensor_type([batch, sizes[1]] + [1] * (len(sizes) - 2), "si64"), flat,
        b.int_list([batch_dim, sizes[1]] + [1] * (len(sizes) - 2)),
    )


def _window_sum(node: OnnxNode, b: TorchBuilder, x, kernel, strides, dilations, begins, ends, ceil_mode, pad_value):
    """Sum over each window, as a convolution with ones of [N * C, 1, ...]; pads filled with
    pad_value, the windows ceil_mode adds past the end filled with zeros. (Not a depthwise
    convolution: torch-mlir lowers grouped 3-D convolutions on no backend.)"""
    sizes = list(b.info(x).sizes)
    count = len(kernel)
    out_sizes = _output_sizes(sizes, kernel, strides, dilations, begins, ends, ceil_mode)
    extra = [0] * count
    if ceil_mode:
        for i, size in enumerate(sizes[2:]):
            window = (kernel[i], strides[i], dilations[i])
            extra[i] = (
                _dynamic_ceil_extra(node, i, *window, ends[i]) if size is None
                else _ceil_extra(size, out_sizes[i], *window, begins[i], ends[i])
            )
    outer = [b.dim(x, 0), b.dim(x, 1)]
    x = b.pad_spatial(x, begins, ends, pad_value)
    x = b.pad_spatial(x, [0] * count, extra, 0.0)
    info = b.info(x)
    element = info.element
    planes = None if None in sizes[:2] else sizes[0] * sizes[1]
    x = b.op(
        "aten.flatten.using_ints", b.tensor_type([planes] + list(info.sizes[2:]), element), x, b.constant_int(0),
        b.constant_int(1),
    )
    x = b.unsqueeze(x, 1)
    none = b.constant_none()
    ones = b.op(
        "aten.ones", b.tensor_type([1, 1] + list(kernel), element), b.int_list([1, 1] + list(kernel)),
        b.dtype(element), none, none, none,
    )
    total = b.op(
        "aten.convolution", b.tensor_type([planes, 1] + out_sizes, element), x, ones, none, b.int_list(strides),
        b.int_list([0] * count), b.int_list(dilations), b.constant_bool(False), b.int_list([0] * count),
        b.constant_int(1),
    )
    spatial = [b.dim(total, 2 + i) if size is None else size for i, size in enumerate(out_sizes)]
    return b.op("aten.view", b.tensor_type(sizes[:2] + out_sizes, element), total, b.int_list(outer + spatial))


def _dynamic_ceil_extra(node: OnnxNode, i: int, kernel: int, stride: int, dilation: int, end: int) -> int:
    """The end padding that makes floor mode count ceil mode's windows on a dim of unknown size S.

    Padding by stride - 1 gives floor((S' - K + s - 1) / s) + 1 = ceil((S' - K) / s) + 1 windows
    (S' the padded size, K the dilated kernel), which is ceil mode's count unless its last window
    would start in the end padding (then ceil mode drops it). That needs end + s - 1 >= K, known
    without S; where it can happen, the count depends on S and this form does not apply.
    """
    reach = (kernel - 1) * dilation + 1
    if end + stride - 1 >= reach:
        node.fail(
            f"ceil_mode with end pad {end}, stride {stride} and kernel {reach} on spatial dim {i + 2} needs "
            "its static size (the last window may start in the padding); fix it with --dim NAME=SIZE"
        )
    return stride - 1


@converts("AveragePool", since=1)
def average_pool(node: OnnxNode, b: TorchBuilder):
    """Mean over windows; count_include_pad counts the pads (never the ceil_mode overflow). One
    window over the whole input is the mean over the spatial dims."""
    x = node.input(0)
    sizes, kernel, strides, dilations, begins, ends, ceil_mode = _pool_attributes(node, b, x)
    count = len(kernel)
    include_pad = bool(node.attr_int("count_include_pad", 0))
    # 3-D: the window-sum form, which every backend lowers (TOSA has no 3-D average pool).
    # Likewise with ceil_mode, which StableHLO mis-lowers.
    # (aten.avg_pool3d too when the user keeps it backend-legal: it is then never decomposed.)
    if _one_window_over_the_whole_input(sizes, kernel, strides, dilations, begins, ends, ceil_mode, include_pad):
        return b.op("aten.mean.dim", node.result_type(), x, b.int_list(list(range(2, 2 + count))),
                    b.constant_bool(True), b.constant_none())
    three_d = count == 3 and node.is_backend_legal("aten.avg_pool3d")
    direct = (count <= 2 or three_d) and not ceil_mode and all(d == 1 for d in dilations)
    if direct and _torch_pads_fit(kernel, begins, ends):
        operands = [
            x, b.int_list(kernel), b.int_list(strides), b.int_list(begins), b.constant_bool(bool(ceil_mode)),
            b.constant_bool(include_pad),
        ]
        if count > 1:
            operands.append(b.constant_none())
        return b.op(f"aten.avg_pool{count}d", node.result_type(), *operands)
    window = (kernel, strides, dilations, begins, ends, ceil_mode)
    total = _window_sum(node, b, x, *window, 0.0)
    none = b.constant_none()
    ones = b.op("aten.ones_like", x.type, x, none, none, none, none, none)
    counted = _window_sum(node, b, ones, *window, 1.0 if include_pad else 0.0)
    return b.cast_to(b.binary("aten.div.Tensor", total, counted), node.result_type())


def _one_window_over_the_whole_input(sizes, kernel, strides, dilations, begins, ends, ceil_mode,
                                     include_pad: bool) -> bool:
    """Whether the pool has one output position whose window reads every input element and
    averages over exactly those (no counted pads): then it is the mean over the spatial dims.
    transformers' EfficientNet pools its 2x2 (or 7x7) last map with a kernel of its hidden size and
    ceil_mode; as a window sum that is a convolution padded to the kernel's size, and on TOSA one
    region the integer walk cannot read."""
    spatial = sizes[2:]
    if None in spatial or any(d != 1 for d in dilations):
        return False
    if _output_sizes(sizes, kernel, strides, dilations, begins, ends, ceil_mode) != [1] * len(spatial):
        return False
    covered = all(size_k - begin >= size for size_k, begin, size in zip(kernel, begins, spatial))
    counted_pads = include_pad and any(begins + ends)
    return covered and not counted_pads


@converts("LpPool", since=1)
def lp_pool(node: OnnxNode, b: TorchBuilder):
    """(sum over the window of |x|^p)^(1/p); pads add zeros."""
    x = node.input(0)
    _, kernel, strides, dilations, begins, ends, ceil_mode = _pool_attributes(node, b, x)
    p = node.attr_float("p")
    powered = b.unary("aten.abs", x)
    if p != 1.0:
        powered = b.scalar_op("aten.pow.Tensor_Scalar", powered, p)
    total = _window_sum(node, b, powered, kernel, strides, dilations, begins, ends, ceil_mode, 0.0)
    if p != 1.0:
        total = b.scalar_op("aten.pow.Tensor_Scalar", total, 1.0 / p)
    return b.cast_to(total, node.result_type())


def _spatial_dims(node: OnnxNode) -> list[int]:
    rank = len(node.input_sizes(0))
    if rank < 3:
        node.fail(f"input rank {rank}: needs at least one spatial dim")
    return list(range(2, rank))


def _kept_adaptive_pool(node: OnnxNode, b: TorchBuilder, kind: str, dims: list[int]):
    """aten.adaptive_{avg,max}_pool{1,2,3}d to size 1 when the user keeps it backend-legal, else None."""
    name = f"aten.adaptive_{kind}_pool{len(dims)}d"
    if len(dims) > 3 or not node.is_backend_legal(name):
        return None
    if kind == "avg":
        return b.op(name, node.result_type(), node.input(0), b.int_list([1] * len(dims)))
    indices_type = b.tensor_type(node.result_info().sizes, "si64")
    values, _ = b.op(name, [node.result_type(), indices_type], node.input(0), b.int_list([1] * len(dims)))
    return values


@converts("GlobalAveragePool", since=1)
def global_average_pool(node: OnnxNode, b: TorchBuilder):
    dims = _spatial_dims(node)
    kept = _kept_adaptive_pool(node, b, "avg", dims)
    if kept is not None:
        return kept
    return b.op(
        "aten.mean.dim", node.result_type(), node.input(0), b.int_list(dims), b.constant_bool(True), b.constant_none()
    )


@converts("GlobalMaxPool", since=1)
def global_max_pool(node: OnnxNode, b: TorchBuilder):
    dims = _spatial_dims(node)
    kept = _kept_adaptive_pool(node, b, "max", dims)
    if kept is not None:
        return kept
    return b.op("aten.amax", node.result_type(), node.input(0), b.int_list(dims), b.constant_bool(True))


@converts("GlobalLpPool", since=1)
def global_lp_pool(node: OnnxNode, b: TorchBuilder):
    """The p-norm over all spatial dims (p is a float at opset 1, an int from opset 2)."""
    dims = _spatial_dims(node)
    return b.op(
        "aten.linalg_vector_norm", node.result_type(), node.input(0), b.constant_float(node.attr_float("p")),
        b.int_list(dims), b.constant_bool(True), b.constant_none(),
    )


@converts("MaxRoiPool", since=1)
def max_roi_pool(node: OnnxNode, b: TorchBuilder):
    """Caffe's RoI max pooling. Each row of rois is (batch index, x1, y1, x2, y2); corners are
    scaled by spatial_scale and rounded half away from zero; bin (ph, pw) of a roi of h x w
    covers rows [floor(ph*h/PH), ceil((ph+1)*h/PH)) from y1, clipped to the input, likewise
    columns; an empty bin gives 0. Built from masks (rows, then columns), so it needs static
    sizes; torch-mlir lowers torchvision's roi_pool on no backend."""
    pooled = node.attr_ints("pooled_shape")
    if len(pooled) != 2:
        node.fail(f"attribute 'pooled_shape' {pooled} must have 2 values")
    x_sizes, rois_sizes = node.input_sizes(0), node.input_sizes(1)
    if len(x_sizes) != 4 or None in x_sizes or len(rois_sizes) != 2 or None in rois_sizes or rois_sizes[1] != 5:
        node.fail(f"needs a static [N, C, H, W] input and static [K, 5] rois, not {x_sizes} and {rois_sizes}")
    _, channels, height, width = x_sizes
    count = rois_sizes[0]
    pooled_height, pooled_width = pooled
    x, rois = node.input(0), node.input(1)
    element = node.input_info(0).element
    t = b.tensor_type
    none = b.constant_none()

    def column(index, scale=None):  # rois[:, index] (times scale, rounded half away from zero)
        value = b.op("aten.select.int", t([count], element), rois, b.constant_int(1), b.constant_int(index))
        if scale is None:
            return value
        value = b.scalar_op("aten.mul.Scalar", value, scale)
        magnitude = b.unary("aten.floor", b.scalar_op("aten.add.Scalar", b.unary("aten.abs", value), 0.5))
        return b.binary("aten.mul.Tensor", b.unary("aten.sign", value), magnitude)

    def positions(size):  # [size] of 0, 1, ... as floats
        return b.op(
            "aten.arange.start_step", t([size], element), b.constant_int(0), b.constant_int(size),
            b.constant_int(1), b.dtype(element), none, none, none,
        )

    def bins(start, end, bin_count, limit):
        """(mask [K, bins, limit], empty [K, bins]) of the bins of each roi along one axis."""
        extent = b.binary("aten.sub.Tensor", end, start)
        extent = b.op("aten.clamp_min", t([count], element), extent, b.constant_float(0.0))
        bin_size = b.scalar_op("aten.div.Scalar", b.scalar_op("aten.add.Scalar", extent, 1.0), float(bin_count))
        bin_size = b.unsqueeze(bin_size, 1)  # [K, 1]
        offset = b.unsqueeze(start, 1)
        index = b.unsqueeze(positions(bin_count), 0)  # [1, bins]
        kind = t([count, bin_count], element)
        lower = b.unary("aten.floor", b.binary("aten.mul.Tensor", index, bin_size, kind))
        next_index = b.scalar_op("aten.add.Scalar", index, 1.0)
        upper = b.unary("aten.ceil", b.binary("aten.mul.Tensor", next_index, bin_size, kind))
        lower, upper = [
            b.op(
                "aten.clamp", kind, b.binary("aten.add.Tensor", bound, offset, kind), b.constant_float(0.0),
                b.constant_float(float(limit)),
            )
            for bound in (lower, upper)
        ]
        empty = b.op("aten.le.Tensor", t([count, bin_count], "i1"), upper, lower)
        place = b.unsqueeze(b.unsqueeze(positions(limit), 0), 0)  # [1, 1, limit]
        mask_type = t([count, bin_count, limit], "i1")
        inside = b.op("aten.ge.Tensor", mask_type, place, b.unsqueeze(lower, 2))
        below = b.op("aten.lt.Tensor", mask_type, place, b.unsqueeze(upper, 2))
        return b.op("aten.logical_and", mask_type, inside, below), empty

    scale = node.attr_float("spatial_scale")
    column_mask, column_empty = bins(column(1, scale), column(3, scale), pooled_width, width)
    row_mask, row_empty = bins(column(2, scale), column(4, scale), pooled_height, height)
    batch = b.to_dtype(column(0), "si64")
    features = b.op("aten.index_select", t([count, channels, height, width], element), x, b.constant_int(0), batch)
    lowest = b.constant_float(lowest_value(element))
    # Max over each bin's columns: [K, C, H, PW, W] -> [K, C, H, PW].
    spread = b.unsqueeze(features, 3)
    mask = b.unsqueeze(b.unsqueeze(column_mask, 1), 1)
    masked_type = t([count, channels, height, pooled_width, width], element)
    masked = b.op("aten.where.ScalarOther", masked_type, mask, spread, lowest)
    by_column_type = t([count, channels, height, pooled_width], element)
    by_column = b.op("aten.amax", by_column_type, masked, b.int_list([4]), b.constant_bool(False))
    # Then over each bin's rows: [K, C, PH, H, PW] -> [K, C, PH, PW].
    spread = b.unsqueeze(by_column, 2)
    mask = b.unsqueeze(b.unsqueeze(row_mask, 1), -1)
    masked_type = t([count, channels, pooled_height, height, pooled_width], element)
    masked = b.op("aten.where.ScalarOther", masked_type, mask, spread, lowest)
    pooled_type = t([count, channels, pooled_height, pooled_width], element)
    pooled_values = b.op("aten.amax", pooled_type, masked, b.int_list([3]), b.constant_bool(False))
    empty_type = t([count, 1, pooled_height, pooled_width], "i1")
    empty = b.op(
        "aten.logical_or", empty_type, b.unsqueeze(b.unsqueeze(row_empty, 1), -1),
        b.unsqueeze(b.unsqueeze(column_empty, 1), 1),
    )
    return b.op("aten.where.ScalarSelf", node.result_type(), empty, b.constant_float(0.0), pooled_values)
