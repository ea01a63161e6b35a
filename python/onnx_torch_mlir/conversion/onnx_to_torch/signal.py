"""Fourier transforms: DFT and STFT.

No backend has complex tensors, so a transform is real matrix products: the signal (the
trailing dim holds 1 real or 2 real/imaginary values) is moved to the last dim, multiplied
by cos and sin matrices built at conversion time, and moved back. That needs the signal
length and `dft_length` known at conversion time; a dynamic one fails the node.

DFT-17 takes `axis` as an attribute, DFT-20 as input 2 (default -2). An axis known only at
run time transforms along every axis that gives the declared result shape and selects the
one the axis names (as CumSum does). With `dft_length` L the signal is cut or zero-padded to
L; the zero padding is implicit (the matrices only have rows for the samples present).
`onesided` forward keeps bins 0..L/2; `onesided` inverse takes those bins of a real signal's
spectrum (bins past the input are zero, as numpy's irfft) and gives the real signal
(trailing dim 1), with L defaulting to 2 * (bins - 1).
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts

# Matrices are built and multiplied in f32 (f64 for f64 signals), then cast to the result type.
_COMPUTE_ELEMENTS = {"f64": ("f64", np.float64)}


def _compute_element(element: str):
    return _COMPUTE_ELEMENTS.get(element, ("f32", np.float32))


def _angles(inputs: int, outputs: int, length: int) -> np.ndarray:
    """2 pi (n k mod L) / L for input index n (rows) and output index k (columns), exact mod L."""
    products = np.outer(np.arange(inputs, dtype=np.int64), np.arange(outputs, dtype=np.int64)) % length
    return 2.0 * np.pi * products / length


def _trig(angles: np.ndarray):
    """cos and sin with the values that are exactly 0 or +-1 made exact."""
    def exact(values):
        values = np.where(np.abs(values) < 1e-15, 0.0, values)
        return np.where(np.abs(np.abs(values) - 1.0) < 1e-15, np.sign(values), values)

    return exact(np.cos(angles)), exact(np.sin(angles))


def _matmul(b: TorchBuilder, x: ir.Value, matrix: np.ndarray, element: str) -> ir.Value:
    """x [..., M] @ matrix [M, K] -> [..., K]."""
    sizes = list(b.info(x).sizes)
    literal = b.literal(matrix.astype(_compute_element(element)[1]), element)
    return b.op("aten.matmul", b.tensor_type(sizes[:-1] + [matrix.shape[1]], element), x, literal)


def _combine(b: TorchBuilder, terms: list) -> ir.Value:
    """The sum of (value, matrix) products (value None is zero)."""
    result = None
    for value, matrix, element in terms:
        if value is None:
            continue
        product = _matmul(b, value, matrix, element)
        result = product if result is None else b.binary("aten.add.Tensor", result, product)
    return result


def _swap(b: TorchBuilder, x: ir.Value, first: int, second: int) -> ir.Value:
    if first == second:
        return x
    sizes = list(b.info(x).sizes)
    sizes[first], sizes[second] = sizes[second], sizes[first]
    return b.op("aten.transpose.int", b.tensor_type(sizes, b.info(x).element), x, b.constant_int(first),
                b.constant_int(second))


def _parts(b: TorchBuilder, x: ir.Value, element: str):
    """(real, imaginary or None) of a [..., 1 or 2] signal, without the trailing dim."""
    info = b.info(x)
    part_type = b.tensor_type(info.sizes[:-1], info.element)

    def part(index):
        selected = b.op("aten.select.int", part_type, x, b.constant_int(-1), b.constant_int(index))
        return b.to_dtype(selected, element)

    return part(0), (part(1) if info.sizes[-1] == 2 else None)


def transform(node: OnnxNode, b: TorchBuilder, x: ir.Value, axis: int, length: int | None, inverse: bool,
              onesided: bool, result_element: str) -> ir.Value:
    """The DFT of `x` [..., 1 or 2] along `axis` (not the trailing dim): [..., 2] (or [..., 1] for
    the onesided inverse). `length` is dft_length, None for the default."""
    info = b.info(x)
    rank = info.rank
    count = info.sizes[axis]
    if count is None:
        node.fail(f"the signal length (dim {axis}) must be static: the transform is a product with "
                  f"constant cos and sin matrices")
    if info.sizes[-1] not in (1, 2):
        node.fail(f"the last dim must be 1 (real) or 2 (complex), not {info.sizes[-1]}")
    real_output = inverse and onesided
    if length is None:
        length = 2 * (count - 1) if real_output else count
    if length < 1:
        node.fail(f"dft_length must be positive, not {length}")
    element, _ = _compute_element(result_element)
    real, imaginary = _parts(b, x, element)
    real, imaginary = (None if v is None else _swap(b, v, axis, rank - 2) for v in (real, imaginary))
    used = min(count, length // 2 + 1 if real_output else length)
    if used < count:
        real, imaginary = (None if v is None else b.slice_range(v, rank - 2, 0, used) for v in (real, imaginary))
    if real_output:
        # x[n] = 1/L sum_k w_k (Re X[k] cos - Im X[k] sin): bins k and L-k fold into one (w = 2),
        # except bin 0 and, for even L, bin L/2.
        weights = np.full(used, 2.0)
        weights[0] = 1.0
        if length % 2 == 0 and used > length // 2:
            weights[length // 2] = 1.0
        cos, sin = _trig(_angles(used, length, length))
        cos, sin = cos * weights[:, None] / length, sin * weights[:, None] / length
        outputs = [_combine(b, [(real, cos, element), (imaginary, -sin, element)])]
    else:
        bins = length // 2 + 1 if onesided else length
        cos, sin = _trig(_angles(used, bins, length))
        if inverse:
            cos, sin = cos / length, sin / length
            outputs = [_combine(b, [(real, cos, element), (imaginary, -sin, element)]),
                       _combine(b, [(real, sin, element), (imaginary, cos, element)])]
        else:
            outputs = [_combine(b, [(real, cos, element), (imaginary, sin, element)]),
                       _combine(b, [(real, -sin, element), (imaginary, cos, element)])]
    outputs = [b.unsqueeze(_swap(b, value, axis, rank - 2), -1) for value in outputs]
    sizes = list(b.info(outputs[0]).sizes)
    sizes[-1] = len(outputs)
    result = outputs[0] if len(outputs) == 1 else b.op(
        "aten.cat", b.tensor_type(sizes, element), b.tensor_list(outputs), b.constant_int(-1))
    return b.to_dtype(result, result_element)


def _dft_length(node: OnnxNode) -> int | None:
    if not node.has_input(1):
        return None
    constant = node.constant_input(1)
    if constant is None:
        node.fail("'dft_length' must be a constant: the transform is a product with constant matrices")
    return int(constant.reshape(-1)[0])


def _signal_axis(node: OnnxNode, axis: int, rank: int) -> int:
    if not (-rank <= axis <= -2 or 0 <= axis <= rank - 2):
        node.fail(f"axis {axis} is out of range for a signal of rank {rank} (the last dim holds the parts)")
    return axis % rank


def _dft(node: OnnxNode, b: TorchBuilder, axes: list[int], axis_input: ir.Value | None):
    x = node.input(0)
    rank = node.rank()
    length = _dft_length(node)
    inverse, onesided = bool(node.attr_int("inverse")), bool(node.attr_int("onesided"))
    element = node.result_info().element
    if len(axes) == 1:
        return transform(node, b, x, axes[0], length, inverse, onesided, element)
    declared = node.result_info().sizes
    candidates = {}
    for axis in axes:
        sizes = list(node.input_info(0).sizes)
        if sizes[axis] is None:
            continue
        try_length = length if length is not None else (2 * (sizes[axis] - 1) if inverse and onesided else sizes[axis])
        sizes[axis] = try_length // 2 + 1 if onesided and not inverse else try_length
        sizes[-1] = 1 if inverse and onesided else 2
        if declared is None or all(d is None or d == s for d, s in zip(declared, sizes)):
            candidates[axis] = sizes
    if not candidates:
        node.fail("no axis gives the declared result shape")
    if len({tuple(sizes) for sizes in candidates.values()}) > 1:
        node.fail("an axis known only at run time needs a declared result shape that tells the axes apart "
                  "(or a constant axis)")
    axes = list(candidates)
    result = transform(node, b, x, axes[-1], length, inverse, onesided, element)
    for axis in reversed(axes[:-1]):
        candidate = transform(node, b, x, axis, length, inverse, onesided, element)
        scalar_bool = b.tensor_type(b.info(axis_input).sizes, "i1")
        hit = b.op("aten.logical_or", scalar_bool,
                   b.op("aten.eq.Scalar", scalar_bool, axis_input, b.constant_int(axis)),
                   b.op("aten.eq.Scalar", scalar_bool, axis_input, b.constant_int(axis - rank)))
        result = b.op("aten.where.self", result.type, hit, candidate, result)
    return result


@converts("DFT", since=17)
def dft_axis_attribute(node: OnnxNode, b: TorchBuilder):
    """DFT-17: `axis` attribute (default 1)."""
    rank = node.rank()
    return _dft(node, b, [_signal_axis(node, node.attr_int("axis"), rank)], None)


@converts("DFT", since=20)
def dft(node: OnnxNode, b: TorchBuilder):
    """DFT-20: `axis` is input 2 (a scalar, default -2), possibly known only at run time."""
    rank = node.rank()
    if not node.has_input(2):
        return _dft(node, b, [_signal_axis(node, -2, rank)], None)
    constant = node.constant_input(2)
    if constant is not None:
        return _dft(node, b, [_signal_axis(node, int(constant.reshape(-1)[0]), rank)], None)
    return _dft(node, b, list(range(rank - 1)), node.input(2))


# -- STFT ----------------------------------------------------------------------------------
MAX_RUN_TIME_CANDIDATES = 8


def _frames(b: TorchBuilder, signal: ir.Value, count: int, step: int, width: int) -> ir.Value:
    """[batch, count, width, parts]: frame f holds samples f * step ... f * step + width - 1."""
    info = b.info(signal)
    indices = (np.arange(count)[:, None] * step + np.arange(width)[None, :]).reshape(-1)
    gathered = b.op("aten.index_select", b.tensor_type([info.sizes[0], count * width, info.sizes[2]], info.element),
                    signal, b.constant_int(1), b.literal(indices.astype(np.int64), "si64"))
    return b.reshape(gathered, [b.dim(signal, 0), count, width, info.sizes[2]],
                     [info.sizes[0], count, width, info.sizes[2]])


def _stft_candidates(node: OnnxNode, samples: int, window_length: int | None, onesided: bool):
    """(frame_length, frame_step) pairs that the literals and the declared result allow."""
    declared = node.result_info().sizes
    if node.has_input(3) and node.constant_input(3) is not None:
        lengths = [int(node.constant_input(3).reshape(-1)[0])]
    elif not node.has_input(3):
        lengths = [window_length if window_length is not None else samples]
    elif declared is not None and declared[2] is not None:
        bins = declared[2]
        lengths = [2 * (bins - 1), 2 * bins - 1] if onesided else [bins]
    else:
        node.fail("a run-time 'frame_length' needs a declared number of bins (result dim 2)")
    if node.constant_input(1) is not None:
        steps = [int(node.constant_input(1).reshape(-1)[0])]
    else:
        steps = list(range(1, samples + 1))
    pairs = []
    for length in lengths:
        for step in steps:
            if length < 1 or length > samples or step < 1:
                continue
            count = 1 + (samples - length) // step
            bins = length // 2 + 1 if onesided else length
            if declared is None or all(d is None or d == s for d, s in zip(declared[1:3], (count, bins))):
                pairs.append((length, step))
    if not pairs:
        node.fail("no frame_length and frame_step give the declared result shape")
    if len(pairs) > MAX_RUN_TIME_CANDIDATES:
        node.fail("'frame_step' and 'frame_length' known only at run time leave too many possibilities: make them "
                  "constants or declare the result shape")
    return pairs


def _stft_for(node: OnnxNode, b: TorchBuilder, length: int, step: int, window_length: int | None) -> ir.Value:
    signal = node.input(0)
    samples = node.input_info(0).sizes[1]
    width = window_length if window_length is not None else length
    count = 1 + (samples - length) // step
    overrun = (count - 1) * step + width - samples
    if overrun > 0:  # a window longer than frame_length: the last frames read zeros past the end
        signal = b.pad_spatial(signal, [0, 0], [overrun, 0], 0.0)
    frames = _frames(b, signal, count, step, width)
    if node.has_input(2):
        window = b.reshape(node.input(2), [1, 1, width, 1], [1, 1, width, 1])
        frames = b.binary("aten.mul.Tensor", frames, b.to_dtype(window, b.info(frames).element))
    return transform(node, b, frames, 2, length, False, bool(node.attr_int("onesided")),
                     node.result_info().element)


@converts("STFT", since=17)
def stft(node: OnnxNode, b: TorchBuilder):
    """Frames of the signal [batch, samples, 1 or 2] every `frame_step` samples, times the window,
    each transformed by DFT (length `frame_length`): [batch, frames, bins, 2]. The frames are an
    index_select at constant positions: the signal length must be static, and a frame_step or
    frame_length known only at run time is resolved from the declared result shape (several
    possibilities are computed and the run-time values select)."""
    if node.rank() != 3:
        node.fail(f"the signal must be [batch, samples, 1 or 2], not rank {node.rank()}")
    samples = node.input_info(0).sizes[1]
    if samples is None:
        node.fail("the signal length (dim 1) must be static")
    window_length = None
    if node.has_input(2):
        window_length = node.input_info(2).sizes[0] if node.input_info(2).rank == 1 else None
        if window_length is None:
            node.fail("the window must be 1-D of static length")
    onesided = bool(node.attr_int("onesided"))
    pairs = _stft_candidates(node, samples, window_length, onesided)
    length, step = pairs[-1]
    result = _stft_for(node, b, length, step, window_length)
    for length, step in reversed(pairs[:-1]):
        candidate = _stft_for(node, b, length, step, window_length)
        hit = None
        for index, number in ((1, step), (3, length)):
            if node.has_input(index) and node.constant_input(index) is None:
                value = node.input(index)
                equal = b.op("aten.eq.Scalar", b.tensor_type(b.info(value).sizes, "i1"), value, b.constant_int(number))
                hit = equal if hit is None else b.op("aten.logical_and", b.broadcast_type(hit, equal, "i1"), hit, equal)
        result = b.op("aten.where.self", result.type, hit, candidate, result)
    return result
