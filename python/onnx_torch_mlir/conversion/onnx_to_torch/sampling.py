"""Sampling an image at computed positions: GridSample (opsets 16, 20), RoiAlign (10, 16) and
DeformConv (19), which share the sampling below. (AffineGrid, which makes GridSample's grids,
is a matrix product: linear_algebra.py.)

No backend lowers torch's grid sampler in every mode, so the sampling is composed: each input
spatial dim gives a few taps per output point (1 for nearest, 2 for linear, 4 for cubic), an
index and a weight computed by elementwise float arithmetic from the coordinates; all
combinations of taps are read by one `aten.gather` from the image flattened to [N, C, S] (S the
product of the spatial sizes), weighted and summed. Gather, floor, clamp, where and arithmetic
lower on Linalg, TOSA and StableHLO alike. Flat indices are computed in float32 and are exact
below 2^24 elements per image, which the patterns check where the sizes are static. GridSample's
image sizes may be dynamic (its bounds are then 0-d tensors); RoiAlign and DeformConv need a
static height and width.

GridSample-16 takes 4-D inputs and names its modes 'bilinear', 'nearest', 'bicubic';
GridSample-20 takes any rank and names them 'linear', 'nearest', 'cubic'. The coordinate rules
are ONNX's (and torch's): a normalized coordinate g in [-1, 1] maps to (g + 1) / 2 * (size - 1)
with align_corners, else ((g + 1) * size - 1) / 2; nearest rounds half to even; 'border' clamps a
coordinate outside [0, size - 1], 'reflection' mirrors it at the borders (-0.5 and size - 0.5, or
0 and size - 1 with align_corners), and each tap's index is clamped ('border') or mirrored
('reflection') the same way, or reads 0 outside the image ('zeros'). Cubic uses Keys'
coefficients with A = -0.75. (onnxruntime's cubic kernel pads each tap as torch does, without
first clamping or mirroring the coordinate: its results differ from ONNX's for cubic with
'border' or 'reflection' where a coordinate falls outside; we follow ONNX's reference, as the
conformance data does.)
"""

from __future__ import annotations

import itertools

import numpy as np
from torch_mlir import ir

from .builder import TorchBuilder, broadcast_sizes
from .node import OnnxNode
from .registry import converts

CUBIC_A = -0.75
MAX_EXACT_FLOAT_INDEX = 2**24
GRID_SAMPLE_16_MODES = {"bilinear": "linear", "nearest": "nearest", "bicubic": "cubic"}
GRID_SAMPLE_MODES = ("linear", "nearest", "cubic")
PADDING_MODES = ("zeros", "border", "reflection")


class _Floats:
    """Elementwise arithmetic on float tensors of one element type with numpy broadcasting;
    a right operand may be a tensor or a Python number."""

    def __init__(self, b: TorchBuilder, element: str):
        self.b, self.element = b, element

    @staticmethod
    def _is_tensor(value) -> bool:
        return isinstance(value, ir.Value) and str(value.type).startswith("!torch.vtensor")

    def _scalar(self, value) -> ir.Value:
        return value if isinstance(value, ir.Value) else self.b.constant_float(float(value))

    def _arith(self, name: str, x, y):
        return self.b.arith(name, x, y)

    def add(self, x, y):
        return self._arith("add", x, y)

    def sub(self, x, y):
        return self._arith("sub", x, y)

    def mul(self, x, y):
        return self._arith("mul", x, y)

    def div(self, x, y):
        return self._arith("div", x, y)

    def rsub(self, number, x):
        """number - x (number a Python number or a 0-d tensor)."""
        if self._is_tensor(number):
            return self.b.binary("aten.sub.Tensor", number, x)
        return self.b.op("aten.rsub.Scalar", self.b.type_like(x), x, self._scalar(number), self.b.constant_int(1))

    def bound(self, size, offset: float):
        """size + offset: a Python number for a static size, else a 0-d tensor of the dynamic one."""
        if not isinstance(size, ir.Value):
            return size + offset
        none = self.b.constant_none()
        tensor = self.b.op("aten.full", self.b.tensor_type([], self.element), self.b.int_list([]), size,
                           self.b.dtype(self.element), none, none, none)
        return self.add(tensor, offset)

    def clamp_min(self, x, low):
        return self.b.op("aten.clamp_min", self.b.type_like(x), x, self._scalar(low))

    def maximum(self, x, y):
        return self.b.binary("aten.maximum", x, y)

    def full_like(self, x, value: float):
        none = self.b.constant_none()
        return self.b.op("aten.full_like", self.b.type_like(x), x, self._scalar(value), none, none, none, none, none)

    def floor(self, x):
        return self.b.unary("aten.floor", x)

    def abs(self, x):
        return self.b.unary("aten.abs", x)

    def clamp(self, x, low, high):
        """x clamped to [low, high]: numbers, or 0-d tensors (dynamic sizes)."""
        if self._is_tensor(low) or self._is_tensor(high):
            low, high = (bound if self._is_tensor(bound) else self.b.scalar_tensor_literal(bound, self.element)
                         for bound in (low, high))
            return self.b.op("aten.clamp.Tensor", self.b.type_like(x), x, low, high)
        return self.b.op("aten.clamp", self.b.type_like(x), x, self._scalar(low), self._scalar(high))

    def compare(self, name: str, x, y):
        """x <name> y as an i1 tensor (`lt`, `le`, `gt`, `ge`, `eq`)."""
        b = self.b
        if self._is_tensor(y):
            return b.op(f"aten.{name}.Tensor", b.broadcast_type(x, y, "i1"), x, y)
        return b.op(f"aten.{name}.Scalar", b.tensor_type(b.info(x).sizes, "i1"), x, self._scalar(y))

    def where(self, condition, x, y):
        b = self.b
        sizes = broadcast_sizes(broadcast_sizes(b.info(condition).sizes, b.info(x).sizes), b.info(y).sizes)
        return b.op("aten.where.self", b.tensor_type(sizes, b.info(x).element), condition, x, y)

    def logical(self, name: str, x, y):
        return self.b.op(f"aten.logical_{name}", self.b.broadcast_type(x, y, "i1"), x, y)

    def as_float(self, mask):
        return self.b.to_dtype(mask, self.element)

    def round_half_even(self, x):
        """Round to nearest, ties to even (numpy's rint): floor(x + 0.5), less one where x was a
        tie that rounded up to an odd number."""
        rounded = self.floor(self.add(x, 0.5))
        tie = self.compare("eq", self.sub(rounded, x), 0.5)
        half = self.mul(rounded, 0.5)
        odd = self.compare("ne", self.floor(half), half)
        return self.where(self.logical("and", tie, odd), self.sub(rounded, 1.0), rounded)

    def reflect(self, x, low: float, high):
        """x mirrored at `low` and `high` until inside [low, high] (ONNX's GridSample reflection);
        high is a number or a 0-d tensor."""
        span = self.sub(high, low) if self._is_tensor(high) else high - low
        below = self.compare("lt", x, low)
        above = self.compare("gt", x, high)
        distance = self.where(below, self.rsub(low, x), self.sub(x, high))
        folds = self.floor(self.div(distance, span)) if self._is_tensor(span) or span else self.mul(distance, 0.0)
        rest = self.sub(distance, self.mul(folds, span))
        half = self.mul(folds, 0.5)
        even = self.compare("eq", self.floor(half), half)
        from_low, from_high = self.add(rest, low), self.rsub(high, rest)
        mirrored_below = self.where(even, from_low, from_high)
        mirrored_above = self.where(even, from_high, from_low)
        return self.where(below, mirrored_below, self.where(above, mirrored_above, x))


@converts("GridSample", since=16)
def grid_sample_16(node: OnnxNode, b: TorchBuilder):
    """4-D only; modes 'bilinear', 'nearest', 'bicubic'."""
    mode = node.attr_string("mode")
    if mode not in GRID_SAMPLE_16_MODES:
        node.fail(f"mode '{mode}' is not one of {', '.join(repr(m) for m in GRID_SAMPLE_16_MODES)}")
    if node.rank(0) != 4:
        node.fail(f"GridSample-16 takes a 4-D input, not rank {node.rank(0)}")
    return _grid_sample(node, b, GRID_SAMPLE_16_MODES[mode])


@converts("GridSample", since=20)
def grid_sample(node: OnnxNode, b: TorchBuilder):
    """Any number of spatial dims; modes 'linear', 'nearest', 'cubic'."""
    mode = node.attr_string("mode")
    if mode not in GRID_SAMPLE_MODES:
        node.fail(f"mode '{mode}' is not one of {', '.join(repr(m) for m in GRID_SAMPLE_MODES)}")
    return _grid_sample(node, b, mode)


def _compute_element(element: str) -> str:
    return "f64" if element == "f64" else "f32"


def _grid_sample(node: OnnxNode, b: TorchBuilder, mode: str):
    x, grid = node.input(0), node.input(1)
    x_sizes, grid_sizes = node.input_sizes(0), node.input_sizes(1)
    spatial = len(x_sizes) - 2
    if spatial < 1:
        node.fail(f"input 0 has rank {len(x_sizes)}; GridSample needs N, C and at least one spatial dim")
    if len(grid_sizes) != spatial + 2 or grid_sizes[-1] not in (None, spatial):
        node.fail(f"grid of shape {grid_sizes} does not match a rank-{len(x_sizes)} input: it must be "
                  f"[N, out_1, ..., out_{spatial}, {spatial}]")
    if grid_sizes[-1] is None:
        node.fail("the grid's last dim must be static")
    padding = node.attr_string("padding_mode")
    if padding not in PADDING_MODES:
        node.fail(f"padding_mode '{padding}' is not one of {', '.join(repr(p) for p in PADDING_MODES)}")
    align_corners = bool(node.attr_int("align_corners"))
    element = _compute_element(node.input_info(0).element)
    f = _Floats(b, element)
    batch, channels = b.dim(x, 0), b.dim(x, 1)
    in_sizes = b.dims(x)[2:]
    out_sizes = b.dims(grid)[1:-1]
    points = b.dim_product(out_sizes)
    _check_exact_indices(node, in_sizes)
    grid = b.reshape(b.to_dtype(grid, element), [batch, points, spatial])
    taps = []
    for dim in range(spatial):
        # The grid lists coordinates innermost dim first: its entry 0 is the last spatial dim.
        coordinate = _select(b, grid, 2, spatial - 1 - dim)
        taps.append(_grid_taps(f, coordinate, in_sizes[dim], mode, padding, align_corners))
    image = b.reshape(b.to_dtype(x, element), [batch, channels, b.dim_product(in_sizes)])
    sampled = _weighted_gathers(b, f, image, taps, in_sizes)
    result = b.reshape(sampled, [batch, channels, *out_sizes], node.result_info().sizes)
    return b.to_dtype(result, node.result_info().element)


def _check_exact_indices(node: OnnxNode, sizes: list):
    static = [size for size in sizes if isinstance(size, int)]
    product = 1
    for size in static:
        product *= size
    if len(static) == len(sizes) and product >= MAX_EXACT_FLOAT_INDEX:
        node.fail(f"an image of {product} elements is too large: flat indices are computed in float32 "
                  f"(exact below {MAX_EXACT_FLOAT_INDEX})")


def _select(b: TorchBuilder, x: ir.Value, dim: int, index: int) -> ir.Value:
    """x[..., index, ...] along `dim`, that dim dropped."""
    info = b.info(x)
    sizes = [size for i, size in enumerate(info.sizes) if i != dim]
    return b.op("aten.select.int", b.tensor_type(sizes, info.element), x, b.constant_int(dim), b.constant_int(index))


def _unnormalize(f: _Floats, coordinate, size, align_corners: bool):
    """A normalized coordinate in [-1, 1] as a position in [0, size - 1] (or [-0.5, size - 0.5])."""
    shifted = f.add(coordinate, 1.0)
    if align_corners:
        if isinstance(size, ir.Value):
            return f.mul(f.mul(shifted, 0.5), f.bound(size, -1.0))
        return f.mul(shifted, 0.5 * (size - 1))
    return f.mul(f.sub(f.mul(shifted, size), 1.0), 0.5)


def _grid_taps(f: _Floats, coordinate, size, mode: str, padding: str, align_corners: bool):
    """(indices, weights) of one spatial dim's taps: float tensors [N, T, P] (T taps per point);
    weights None is 1. Indices are inside [0, size - 1]; a 'zeros' tap outside the image has
    weight 0."""
    return _position_taps(f, _unnormalize(f, coordinate, size, align_corners), size, mode, padding, align_corners)


def _position_taps(f: _Floats, position, size, mode: str, padding: str, align_corners: bool):
    """`_grid_taps` of a position in pixels (0 is the first pixel's centre)."""
    b = f.b
    last = f.bound(size, -1.0)
    low, high = (0.0, last) if align_corners else (-0.5, f.bound(size, -0.5))
    if mode == "nearest":
        position = f.round_half_even(position)
    if padding == "border":
        outside = f.logical("or", f.compare("lt", position, low), f.compare("gt", position, high))
        position = f.where(outside, f.clamp(position, 0.0, last), position)
    elif padding == "reflection":
        position = f.reflect(position, low, high)
    if mode == "nearest":
        return _taps_inside(f, b.unsqueeze(position, 1), None, size, padding, low, high)
    base = f.floor(position)
    fraction = f.sub(position, base)
    if mode == "linear":
        weights, offsets = [f.rsub(1.0, fraction), fraction], [0.0, 1.0]
    else:
        weights, offsets = _cubic_weights(f, fraction), [-1.0, 0.0, 1.0, 2.0]
    offsets = b.literal(np.array(offsets, dtype=np.float32)[:, None], "f32")
    indices = f.add(b.unsqueeze(base, 1), b.to_dtype(offsets, f.element))
    info = b.info(fraction)
    weights = b.op(
        "aten.stack", b.tensor_type([info.sizes[0], len(weights), info.sizes[1]], f.element), b.tensor_list(weights),
        b.constant_int(1),
    )
    return _taps_inside(f, indices, weights, size, padding, low, high)


def _taps_inside(f: _Floats, indices, weights, size, padding: str, low, high):
    """Taps at integer `indices` (float): their indices inside the image and their weights."""
    last = f.bound(size, -1.0)
    if padding == "zeros":
        inside = f.logical("and", f.compare("ge", indices, 0.0), f.compare("le", indices, last))
        mask = f.as_float(inside)
        weights = mask if weights is None else f.mul(weights, mask)
    elif padding == "reflection":
        indices = f.reflect(indices, low, high)
    # Reflected indices lie in [-0.5, size - 0.5]; ONNX truncates them, which clamping then flooring does.
    return f.floor(f.clamp(indices, 0.0, last)), weights


def _cubic_weights(f: _Floats, t):
    """Keys' cubic convolution weights of the taps at -1, 0, 1, 2 for a fraction t in [0, 1)."""
    a = CUBIC_A

    def near(distance):  # |d| <= 1: (a + 2)|d|^3 - (a + 3)|d|^2 + 1
        return f.add(f.mul(f.mul(f.sub(f.mul(distance, a + 2), a + 3), distance), distance), 1.0)

    def far(distance):  # 1 < |d| < 2: a|d|^3 - 5a|d|^2 + 8a|d| - 4a
        return f.sub(f.mul(f.add(f.mul(f.sub(f.mul(distance, a), 5 * a), distance), 8 * a), distance), 4 * a)

    one_minus = f.rsub(1.0, t)
    return [far(f.add(t, 1.0)), near(t), near(one_minus), far(f.rsub(2.0, t))]


def _weighted_gathers(b: TorchBuilder, f: _Floats, image, taps: list, in_sizes: list):
    """sum over tap combinations of prod(weights) * image[n, c, flat index]: image is [N, C, S],
    each dim's tap indices and weights [N, T, P]; the result is [N, C, P]. The taps of spatial dim k are
    stacked on axis 1 + k of an [N, T_0, ..., T_r-1, P] tensor, so that broadcasting forms every
    combination's flat index and weight at once, and one gather reads them all."""
    spatial = len(taps)
    batch, channels, points = b.dim(image, 0), b.dim(image, 1), b.dim(taps[0][0], 2)
    counts = [b.info(indices).sizes[1] for indices, _ in taps]
    total = 1
    for count in counts:
        total *= count
    strides, stride = [], 1
    for size in reversed(in_sizes):
        strides.insert(0, stride)
        stride = b.dim_mul(stride, size)
    flat, weight = None, None
    for k, (indices, weights) in enumerate(taps):
        shape = [batch] + [counts[k] if j == k else 1 for j in range(spatial)] + [points]
        index = b.reshape(indices, shape)
        index = index if isinstance(strides[k], int) and strides[k] == 1 else f.mul(index, strides[k])
        flat = index if flat is None else f.add(flat, index)
        if weights is not None:
            weights = b.reshape(weights, shape)
            weight = weights if weight is None else f.mul(weight, weights)
    flat = b.reshape(flat, [batch, b.dim_mul(total, points)])
    gathered = _gather_points(b, f, image, flat)
    if weight is None and total == 1:
        return gathered
    if weight is not None:
        # A dim without weights (nearest) has one tap, so the weight covers every combination but
        # may lack the size-1 axes' broadcast: make it the full [N, T_0, ..., P] first.
        full_shape = [batch] + counts + [points]
        weight = b.op(
            "aten.broadcast_to", b.tensor_type([b.static_dim(d) for d in full_shape], f.element), weight,
            b.int_list(full_shape),
        )
        weight = b.reshape(weight, [batch, 1, b.dim_mul(total, points)])
        gathered = f.mul(gathered, weight)
    gathered = b.reshape(gathered, [batch, channels, total, points])
    return b.op(
        "aten.sum.dim_IntList", b.tensor_type([b.static_dim(batch), b.static_dim(channels), b.static_dim(points)], f.element),
        gathered, b.int_list([2]), b.constant_bool(False), b.constant_none(),
    )


@converts("RoiAlign", since=10)
def roi_align_10(node: OnnxNode, b: TorchBuilder):
    """Opset 10: regions are not shifted by half a pixel ('output_half_pixel')."""
    return _roi_align(node, b, half_pixel=False)


@converts("RoiAlign", since=16)
def roi_align(node: OnnxNode, b: TorchBuilder):
    """From opset 16: `coordinate_transformation_mode` 'half_pixel' (the default) shifts the
    region by -0.5 and does not stretch regions smaller than a pixel; 'output_half_pixel' is
    opset 10's behaviour."""
    mode = node.attr_string("coordinate_transformation_mode")
    if mode not in ("half_pixel", "output_half_pixel"):
        node.fail(f"coordinate_transformation_mode '{mode}' is not one of 'half_pixel', 'output_half_pixel'")
    return _roi_align(node, b, half_pixel=mode == "half_pixel")


def _roi_align(node: OnnxNode, b: TorchBuilder, half_pixel: bool):
    """Y[r, c, ph, pw] pools sampling_ratio^2 bilinear samples of X[batch_indices[r], c] in bin
    (ph, pw) of region r (average, or the maximum of each sample's largest weighted corner as
    ONNX's reference and onnxruntime do for 'max'). A sample more than one pixel outside the
    image reads 0; others are clamped to the image. All samples of all regions are gathered at
    once: four `aten.gather`s from X[batch_indices] flattened to [R, C, H * W]."""
    mode = node.attr_string("mode")
    if mode not in ("avg", "max"):
        node.fail(f"mode '{mode}' is not one of 'avg', 'max'")
    sampling_ratio = node.attr_int("sampling_ratio")
    if sampling_ratio <= 0:
        node.fail("sampling_ratio 0 (as many samples as the region is pixels high and wide, different per "
                  "region) is not supported: set a positive sampling_ratio")
    out_h, out_w = node.attr_int("output_height"), node.attr_int("output_width")
    scale = node.attr_float("spatial_scale")
    x_sizes = node.input_sizes(0)
    if len(x_sizes) != 4 or None in x_sizes[2:]:
        node.fail(f"input X must be 4-D with static height and width, not {x_sizes}")
    if node.input_sizes(1)[-1:] not in ([4], [None]):
        node.fail(f"rois must be [num_rois, 4], not {node.input_sizes(1)}")
    height, width = x_sizes[2], x_sizes[3]
    _check_exact_indices(node, [height, width])
    element = _compute_element(node.input_info(0).element)
    f = _Floats(b, element)
    x = b.to_dtype(node.input(0), element)
    rois = b.to_dtype(node.input(1), element)
    batch_indices = b.to_dtype(node.input(2), "si64")
    channels = b.dim(x, 1)
    count = b.dim(batch_indices, 0)
    images = b.op(
        "aten.index_select", b.tensor_type([b.static_dim(count), b.static_dim(channels), height, width], element),
        x, b.constant_int(0), batch_indices,
    )
    images = b.reshape(images, [count, channels, height * width])
    offset = 0.5 if half_pixel else 0.0
    start_w, start_h, end_w, end_h = (f.sub(f.mul(_column(b, rois, i), scale), offset) for i in range(4))
    roi_w, roi_h = f.sub(end_w, start_w), f.sub(end_h, start_h)
    if not half_pixel:
        roi_w, roi_h = f.clamp_min(roi_w, 1.0), f.clamp_min(roi_h, 1.0)
    # Sample points in the order (ph, pw, iy, ix), each at start + bin * (p + (i + 0.5) / ratio).
    grid = np.arange(sampling_ratio, dtype=np.float64)
    steps_h = (np.arange(out_h)[:, None] + (grid[None, :] + 0.5) / sampling_ratio)
    steps_w = (np.arange(out_w)[:, None] + (grid[None, :] + 0.5) / sampling_ratio)
    steps_y = np.broadcast_to(steps_h[:, None, :, None], (out_h, out_w, sampling_ratio, sampling_ratio)).reshape(-1)
    steps_x = np.broadcast_to(steps_w[None, :, None, :], (out_h, out_w, sampling_ratio, sampling_ratio)).reshape(-1)
    y = f.add(b.unsqueeze(start_h, 1), f.mul(b.unsqueeze(f.div(roi_h, out_h), 1), b.literal(steps_y.astype(np.float32), element)))
    x_position = f.add(b.unsqueeze(start_w, 1), f.mul(b.unsqueeze(f.div(roi_w, out_w), 1), b.literal(steps_x.astype(np.float32), element)))
    outside = f.logical("or", f.logical("or", f.compare("lt", y, -1.0), f.compare("gt", y, float(height))),
                        f.logical("or", f.compare("lt", x_position, -1.0), f.compare("gt", x_position, float(width))))
    inside = f.as_float(f.b.op("aten.logical_not", b.type_like(outside), outside))
    rows, columns = _roi_corners(f, y, height), _roi_corners(f, x_position, width)
    values = []
    for (row, row_weight), (column, column_weight) in itertools.product(rows, columns):
        weight = f.mul(f.mul(row_weight, column_weight), inside)
        values.append(f.mul(_gather_points(b, f, images, f.add(f.mul(row, float(width)), column)), b.unsqueeze(weight, 1)))
    samples = sampling_ratio * sampling_ratio
    shape = [count, channels, out_h, out_w, samples]
    if mode == "avg":
        total = f.add(f.add(values[0], values[1]), f.add(values[2], values[3]))
        pooled = b.op(
            "aten.sum.dim_IntList", b.reduced_type(b.reshape(total, shape), [4], False), b.reshape(total, shape),
            b.int_list([4]), b.constant_bool(False), b.constant_none(),
        )
        pooled = f.div(pooled, float(samples))
    else:
        largest = f.maximum(f.maximum(values[0], values[1]), f.maximum(values[2], values[3]))
        largest = b.reshape(largest, shape)
        pooled = b.op("aten.amax", b.reduced_type(largest, [4], False), largest, b.int_list([4]), b.constant_bool(False))
    return b.to_dtype(b.cast_to(pooled, b.tensor_type(node.result_info().sizes, element)), node.result_info().element)


def _column(b: TorchBuilder, matrix, index: int):
    return _select(b, matrix, 1, index)


def _roi_corners(f: _Floats, position, size: int):
    """The low and high pixel of a sample position along one dim and their weights, as
    RoiAlign clamps them: position below 0 reads pixel 0, at or beyond size - 1 the last pixel."""
    position = f.clamp_min(position, 0.0)
    low = f.floor(position)
    at_end = f.compare("ge", low, float(size - 1))
    low = f.where(at_end, f.full_like(low, float(size - 1)), low)
    position = f.where(at_end, low, position)
    high = f.where(at_end, low, f.add(low, 1.0))
    fraction = f.sub(position, low)
    return [(low, f.rsub(1.0, fraction)), (high, fraction)]


def _gather_points(b: TorchBuilder, f: _Floats, images, flat_index):
    """images [R, C, S] read at flat_index [R, P] (float, integral) for every channel: [R, C, P]."""
    count, channels, points = b.dim(images, 0), b.dim(images, 1), b.dim(flat_index, 1)
    index = b.unsqueeze(b.to_dtype(flat_index, "si64"), 1)
    sizes = [count, channels, points]
    index = b.op("aten.broadcast_to", b.tensor_type([b.static_dim(s) for s in sizes], "si64"), index, b.int_list(sizes))
    return b.op(
        "aten.gather", b.tensor_type(b.info(index).sizes, f.element), images, b.constant_int(2), index, b.constant_bool(False)
    )


@converts("DeformConv", since=19)
def deform_conv(node: OnnxNode, b: TorchBuilder):
    """Y[n, o] = B[o] + sum over input channels c of its group and kernel taps k of
    W[o, c, k] * mask[n, g, k] * X[n, c] sampled bilinearly (zeros outside) at the tap's position
    in the output's window plus offset[n, g, k] (g the offset group of c). The samples of all
    taps and output positions are one `_weighted_gathers` per offset group; the products with W
    one `aten.bmm` per group."""
    x_sizes, w_sizes, offset_sizes = node.input_sizes(0), node.input_sizes(1), node.input_sizes(2)
    if len(x_sizes) != 4 or None in x_sizes[1:] or None in w_sizes or None in offset_sizes[1:]:
        node.fail(f"X {x_sizes}, W {w_sizes} and offset {offset_sizes} must be 4-D with static sizes (but the batch)")
    channels, height, width = x_sizes[1:]
    out_channels, group_channels, kernel_h, kernel_w = w_sizes
    kernel = node.attr_ints("kernel_shape", None) or [kernel_h, kernel_w]
    group, offset_group = node.attr_int("group"), node.attr_int("offset_group")
    if kernel != [kernel_h, kernel_w] or group_channels * group != channels or out_channels % group:
        node.fail(f"W {w_sizes} does not fit X {x_sizes} with group {group} and kernel_shape {kernel}")
    taps = kernel_h * kernel_w
    out_h, out_w = offset_sizes[2:]
    if channels % offset_group or offset_sizes[1] != offset_group * taps * 2:
        node.fail(f"offset {offset_sizes} does not hold offset_group {offset_group} x {taps} x 2 offsets")
    strides, dilations = node.spatial_ints("strides", 2, 1), node.spatial_ints("dilations", 2, 1)
    pads = node.attr_ints("pads", None) or [0] * 4
    expected = [(size + pads[d] + pads[d + 2] - dilations[d] * (kernel[d] - 1) - 1) // strides[d] + 1
                for d, size in enumerate((height, width))]
    if [out_h, out_w] != expected:
        node.fail(f"offset's output size {[out_h, out_w]} is not {expected}, which pads, strides and dilations give")
    _check_exact_indices(node, [height, width])
    element = _compute_element(node.input_info(0).element)
    f = _Floats(b, element)
    x, offsets = b.to_dtype(node.input(0), element), b.to_dtype(node.input(2), element)
    batch, points = b.dim(x, 0), taps * out_h * out_w
    rows, columns = np.meshgrid(np.arange(kernel_h), np.arange(kernel_w), indexing="ij")
    out_rows, out_columns = np.meshgrid(np.arange(out_h), np.arange(out_w), indexing="ij")
    base_y = (rows.reshape(-1, 1) * dilations[0] + out_rows.reshape(1, -1) * strides[0] - pads[0]).reshape(-1)
    base_x = (columns.reshape(-1, 1) * dilations[1] + out_columns.reshape(1, -1) * strides[1] - pads[1]).reshape(-1)
    offsets = b.reshape(offsets, [batch, offset_group, taps, 2, out_h * out_w])
    mask = node.optional_input(4)
    if mask is not None:
        mask = b.reshape(b.to_dtype(mask, element), [batch, offset_group, 1, points])
    per_group = channels // offset_group
    image = b.reshape(x, [batch, channels, height * width])
    sampled = []
    for g in range(offset_group):
        group_offsets = _select(b, offsets, 1, g)  # [N, K, 2, P]
        positions = []
        for axis, base, size in ((0, base_y, height), (1, base_x, width)):
            shift = b.reshape(_select(b, group_offsets, 2, axis), [batch, points])
            position = f.add(shift, b.literal(base.astype(np.float32), element))
            positions.append(_position_taps(f, position, size, "linear", "zeros", True))
        group_image = b.slice_range(image, 1, g * per_group, (g + 1) * per_group)
        values = _weighted_gathers(b, f, group_image, positions, [height, width])  # [N, C/og, K*P]
        if mask is not None:
            values = f.mul(values, _select(b, mask, 1, g))
        sampled.append(values)
    sampled = sampled[0] if offset_group == 1 else b.op(
        "aten.cat", b.tensor_type([b.static_dim(batch), channels, points], element), b.tensor_list(sampled), b.constant_int(1)
    )
    return _deform_products(node, b, f, sampled, group, [batch, out_channels, out_h, out_w])


def _deform_products(node: OnnxNode, b: TorchBuilder, f: _Floats, sampled, group: int, out_shape: list):
    """sum over c, k of W[o, c, k] * sampled[n, c, k, p] per group, plus the bias."""
    batch, out_channels, out_h, out_w = out_shape
    static_batch, element = b.static_dim(batch), f.element
    weight = b.to_dtype(node.input(1), element)
    w_sizes = b.info(weight).sizes
    depth, per_group = w_sizes[1] * w_sizes[2] * w_sizes[3], out_channels // group
    weight = b.reshape(weight, [out_channels, depth])
    columns = b.reshape(sampled, [batch, group, depth, out_h * out_w])
    results = []
    for g in range(group):
        group_weight = b.unsqueeze(b.slice_range(weight, 0, g * per_group, (g + 1) * per_group), 0)
        group_weight = b.op(
            "aten.broadcast_to", b.tensor_type([static_batch, per_group, depth], element), group_weight,
            b.int_list([batch, per_group, depth]),
        )
        results.append(b.op(
            "aten.bmm", b.tensor_type([static_batch, per_group, out_h * out_w], element), group_weight,
            _select(b, columns, 1, g),
        ))
    result = results[0] if group == 1 else b.op(
        "aten.cat", b.tensor_type([static_batch, out_channels, out_h * out_w], element), b.tensor_list(results),
        b.constant_int(1),
    )
    bias = node.optional_input(3)
    if bias is not None:
        result = f.add(result, b.unsqueeze(b.to_dtype(bias, element), 1))
    result = b.reshape(result, [batch, out_channels, out_h, out_w], node.result_info().sizes)
    return b.to_dtype(result, node.result_info().element)
