"""Signal constants: HannWindow, HammingWindow, BlackmanWindow, MelWeightMatrix.

Their values depend on a few scalars only. When the size is a literal or the declared result
type fixes it (a window's size is its length), a window is a literal computed in float64 at
conversion time: their function bodies read the size with `aten.item` through Range, which
TOSA and StableHLO cannot lower. Only a size known at run time with a dynamic result reads
the size (Linalg only).

MelWeightMatrix: with all five scalars literal the matrix is a literal (ONNX's formula in
numpy); otherwise it is computed from the scalars as tensors, its shape from the declared
result (num_mel_bins columns, dft_length / 2 + 1 rows).
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts

# sum_m a_m cos(2 pi m n / N'): the coefficients of each window.
WINDOW_COEFFICIENTS = {
    "HannWindow": (0.5, -0.5),
    "HammingWindow": (25 / 46, -21 / 46),
    "BlackmanWindow": (0.42, -0.5, 0.08),
}


def _window_values(op_type: str, size: int, periodic: bool) -> np.ndarray:
    denominator = size if periodic else size - 1
    positions = np.arange(size, dtype=np.float64)
    values = np.zeros(size)
    for m, coefficient in enumerate(WINDOW_COEFFICIENTS[op_type]):
        values += coefficient * np.cos(2 * np.pi * m * positions / denominator) if denominator else coefficient
    return values


def _window_at_run_time(node: OnnxNode, b: TorchBuilder, element: str, periodic: bool) -> ir.Value:
    """The window of a size read at run time (`aten.item`: Linalg only)."""
    size = b.item(b.to_dtype(node.input(0), "si64"))
    positions = b.to_dtype(b.arange(size), "f64")
    denominator = size if periodic else b.dim_sub(size, 1)
    angles = b.op("aten.div.Scalar", b.type_like(positions),
                  b.scalar_op("aten.mul.Scalar", positions, 2 * np.pi), denominator)
    result = None
    for m, coefficient in enumerate(WINDOW_COEFFICIENTS[node.op_type]):
        term = b.scalar_op("aten.mul.Scalar", b.unary("aten.cos", b.scalar_op("aten.mul.Scalar", angles, m)),
                           coefficient)
        result = term if result is None else b.binary("aten.add.Tensor", result, term)
    return b.to_dtype(result, element)


def _window(node: OnnxNode, b: TorchBuilder):
    """sum_m a_m cos(2 pi m n / N'), n in [0, size), N' = size (periodic) or size - 1."""
    periodic = bool(node.attr_int("periodic"))
    element = node.result_info().element
    constant = node.constant_input(0)
    if constant is not None:
        size = int(constant.reshape(-1)[0])
    else:
        declared = node.static_result_sizes()
        if declared is None:
            return _window_at_run_time(node, b, element, periodic)
        size = declared[0]
    if size < 0:
        node.fail(f"size must not be negative, not {size}")
    return b.literal(_window_values(node.op_type, size, periodic).astype(_numpy_type(node, element)), element)


def _numpy_type(node: OnnxNode, element: str):
    types = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "si8": np.int8, "si16": np.int16,
             "si32": np.int32, "si64": np.int64, "ui8": np.uint8}
    if element not in types:
        node.fail(f"output_datatype {element} is not supported")
    return types[element]


for _op_type in WINDOW_COEFFICIENTS:
    converts(_op_type, since=17)(_window)


# -- MelWeightMatrix ---------------------------------------------------------------------
def _mel_bin_edges(num_mel_bins: int, dft_length: int, sample_rate, lower, upper) -> np.ndarray:
    """The num_mel_bins + 2 triangle corners as spectrogram bin indices (ONNX's formula)."""
    low_mel = 2595 * np.log1p(lower / 700) / np.log(10)
    high_mel = 2595 * np.log1p(upper / 700) / np.log(10)
    step = (high_mel - low_mel) / (num_mel_bins + 2)
    mels = np.arange(num_mel_bins + 2) * step + low_mel
    hertz = 700 * np.expm1(mels / 2595 * np.log(10))
    return (((dft_length + 1) * hertz) // sample_rate).astype(np.int64)


def _mel_matrix(num_mel_bins: int, dft_length: int, edges: np.ndarray) -> np.ndarray:
    """Triangles rising from edge i to edge i+1 (1 there) and falling to edge i+2."""
    j = np.arange(dft_length // 2 + 1)[:, None]
    left, center, right = edges[:-2][None, :], edges[1:-1][None, :], edges[2:][None, :]
    rising = (j - left) / np.maximum(center - left, 1)
    falling = (right - j) / np.maximum(right - center, 1)
    values = np.where((j >= left) & (j < center), rising, 0.0)
    values = np.where((j > center) & (j < right), falling, values)
    return np.where(j == center, 1.0, values)


def _mel_matrix_at_run_time(node: OnnxNode, b: TorchBuilder, rows: int, columns: int) -> ir.Value:
    """`_mel_bin_edges` and `_mel_matrix` as tensor ops on the run-time scalars (f64, f32 on TOSA)."""
    element = "f32" if node.target == "tosa" else "f64"

    def scalar(index):
        value = b.to_dtype(node.input(index), element)
        return b.reshape(value, [1], [1]) if b.info(value).rank != 1 else value

    dft_length, sample_rate, lower, upper = (scalar(i) for i in (1, 2, 3, 4))

    def to_mel(hertz):
        return b.scalar_op("aten.mul.Scalar", b.unary("aten.log", b.scalar_op(
            "aten.add.Scalar", b.scalar_op("aten.div.Scalar", hertz, 700.0), 1.0)), 2595 / np.log(10))

    low_mel, high_mel = to_mel(lower), to_mel(upper)
    step = b.scalar_op("aten.div.Scalar", b.binary("aten.sub.Tensor", high_mel, low_mel), float(columns + 2))
    positions = b.to_dtype(b.arange(columns + 2), element)
    mels = b.binary("aten.add.Tensor", b.binary("aten.mul.Tensor", positions, step), low_mel)
    exponent = b.unary("aten.exp", b.scalar_op("aten.mul.Scalar", mels, np.log(10) / 2595))
    hertz = b.scalar_op("aten.mul.Scalar", b.scalar_op("aten.sub.Scalar", exponent, 1.0), 700.0)
    scaled = b.binary("aten.mul.Tensor", hertz, b.scalar_op("aten.add.Scalar", dft_length, 1.0))
    edges = b.unary("aten.floor", b.binary("aten.div.Tensor", scaled, sample_rate))
    left, center, right = (b.unsqueeze(b.slice_range(edges, 0, i, i + columns), 0) for i in range(3))
    j = b.unsqueeze(b.to_dtype(b.arange(rows), element), 1)
    one = b.scalar_tensor_literal(1.0, element)
    zero = b.scalar_tensor_literal(0.0, element)
    matrix_type = b.tensor_type([rows, columns], element)
    mask_type = b.tensor_type([rows, columns], "i1")

    def compare(op, lhs, rhs):
        return b.op(op, mask_type, lhs, rhs)

    def between(low_op, low, high_op, high):
        return b.op("aten.logical_and", mask_type, compare(low_op, j, low), compare(high_op, j, high))

    def ratio(numerator, denominator):
        width = b.op("aten.maximum", denominator.type, denominator, one)
        return b.op("aten.div.Tensor", matrix_type, numerator, width)

    rising = ratio(b.binary("aten.sub.Tensor", j, left, matrix_type), b.binary("aten.sub.Tensor", center, left))
    falling = ratio(b.binary("aten.sub.Tensor", right, j, matrix_type), b.binary("aten.sub.Tensor", right, center))
    values = b.op("aten.where.self", matrix_type, between("aten.ge.Tensor", left, "aten.lt.Tensor", center),
                  rising, zero)
    values = b.op("aten.where.self", matrix_type, between("aten.gt.Tensor", center, "aten.lt.Tensor", right),
                  falling, values)
    values = b.op("aten.where.self", matrix_type, compare("aten.eq.Tensor", j, center), one, values)
    return b.to_dtype(values, node.result_info().element)


@converts("MelWeightMatrix", since=17)
def mel_weight_matrix(node: OnnxNode, b: TorchBuilder):
    """[dft_length / 2 + 1, num_mel_bins] triangular filters evenly spaced on the mel scale between
    lower_edge_hertz and upper_edge_hertz."""
    element = node.result_info().element
    constants = [node.constant_input(i) for i in range(5)]
    if all(c is not None for c in constants):
        num_mel_bins, dft_length, sample_rate, lower, upper = (c.reshape(-1)[0] for c in constants)
        edges = _mel_bin_edges(int(num_mel_bins), int(dft_length), sample_rate, lower, upper)
        matrix = _mel_matrix(int(num_mel_bins), int(dft_length), edges)
        return b.literal(matrix.astype(_numpy_type(node, element)), element)
    declared = node.static_result_sizes()
    if declared is None:
        node.fail("with scalars known only at run time the result shape must be declared static "
                  "([dft_length / 2 + 1, num_mel_bins])")
    return _mel_matrix_at_run_time(node, b, declared[0], declared[1])
