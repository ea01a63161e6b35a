"""com.microsoft DynamicQuantizeLSTM (version 1): the LSTM onnxruntime's `quantize_dynamic` writes,
computed as onnxruntime's CPU kernel computes it (contrib_ops/cpu/quantization/dynamic_quantize_lstm.cc,
providers/cpu/rnn/uni_directional_lstm.cc and rnn_helpers.cc).

Inputs: X, W [D, input_size, 4H] and R [D, H, 4H] (int8 or uint8, transposed relative to LSTM's),
B, sequence_lens, initial_h, initial_c, P as LSTM's; W_scale, W_zero_point, R_scale,
R_zero_point of shape [D] (per tensor) or [D, 4H] (per output column). Attributes as LSTM's
(no `layout`). Each of its two products is an integer GEMM on dynamically quantized activations:

- the input projection quantizes X (the steps below the longest sequence_lens, all of them
  without it) to uint8 with one scale and zero point from its range extended to 0, as
  DynamicQuantizeLinear does (scale 1 for an all-zero range): q = saturate(round(x / scale) + zp);
- each step quantizes Ht-1 of the whole batch the same way; in the forward direction, when Y is
  produced, the entries whose sequence_lens has ended count as 0 (onnxruntime reads Ht-1 back
  from Y, where it wrote zeros for them). This is onnxruntime's single-threaded grouping: with
  several threads and a batch over 4, or of 2 or more with H <= 256, it quantizes each thread's
  rows apart, so its results depend on its thread count;
- the product is sum_k (q - zp) * (w - w_zp) exactly, times a_scale * w_scale (per column for a
  per-column scale), in float32; only the first zero point of a direction counts (onnxruntime
  requires per-column ones to be equal, and 0 for int8 weights).

The sums are computed on integer-valued floats: exact in float32 while they stay below 2^24 (the
bound is checked from the weights), else in float64 (float32 on TOSA, which has none). Literal
weights become float literals of w - w_zp at conversion time. The cell after the products is
LSTM's (cells.py) in onnxruntime's order of float operations: gates = (Xt·Wᵀ + Ht-1·Rᵀ) (+ the
peephole term) + (Wb + Rb), each product rescaled as float(sum) * (a_scale * w_scale); Sigmoid and
Tanh are onnxruntime's MLAS approximations (mlas_activations.py). On the reference runner that gives
onnxruntime's bits (checked on test_dynamic_quantize_lstm's cases and the three LSTMs of the wild
tashkeel BiLSTM), which matters here as nowhere else: a run-time quantization of Ht-1 turns an ulp
into a whole step when a value sits near a rounding boundary, and the recurrence carries it.

Differences from onnxruntime left: with sequence_lens of unequal lengths its reverse direction
reverses each entry's steps and quantizes the states of one step of every entry together, here
those of one time; on TOSA the divisions are reciprocal products (a quotient one ulp off rounds a value to the
other integer now and then), and Sigmoid and Tanh are TOSA's own; a consumer that contracts a float
multiply and add into a fused multiply-add (IREE on a CPU with FMA) rounds the cell differently. On
x86 CPUs without AVX-VNNI, onnxruntime's uint8 x int8 kernel adds pairs of products in int16
(vpmaddubsw), which saturates: exact sums do not reproduce that.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import OnnxNode
from ..registry import converts
from .cells import run_lstm
from .mlas_activations import onnxruntime_activate
from .sequence import RecurrentLayer, activate

MICROSOFT = "com.microsoft"
EXACT_FLOAT32_BOUND = 2**24


def _direction_parameter(node: OnnxNode, b: TorchBuilder, layer: RecurrentLayer, index: int, direction: int,
                         what: str) -> ir.Value:
    """Scale `index` of one direction: [] (per tensor) or [4H] (per column), float32."""
    info = node.input_info(index)
    columns = layer.gates * layer.hidden
    if info.rank not in (1, 2) or (info.rank == 2 and info.sizes[1] not in (None, columns)):
        node.fail(f"{what} must be [num_directions] or [num_directions, {columns}]; it is {info.sizes}")
    literal = node.constant_input(index)
    if literal is not None:
        return b.literal(np.asarray(literal[direction], np.float32), "f32")
    return b.to_dtype(layer.select(node.input(index), direction), "f32")


def _zero_point(node: OnnxNode, b: TorchBuilder, layer: RecurrentLayer, index: int, weight_index: int,
                direction: int, what: str):
    """The zero point of one direction as a number (literal) or a [] float32 value: its first element,
    the only one onnxruntime reads (it refuses per-column ones that differ, or that are not 0 for int8)."""
    if not node.has_input(index):
        return 0.0
    literal = node.constant_input(index)
    signed = node.input_info(weight_index).element == "si8"
    if literal is not None:
        values = np.asarray(literal[direction]).reshape(-1).astype(np.int64)
        if literal.ndim == 2 and (values != (0 if signed else values[0])).any():
            node.fail(f"{what} per column must be {'0' if signed else 'one value'}, as onnxruntime requires")
        return float(values[0])
    zero = layer.select(node.input(index), direction)
    if b.info(zero).rank == 1:
        zero = b.reshape(b.slice_range(zero, 0, 0, 1), [], [])
    return _integer_to_float(b, zero, "f32")


def _integer_to_float(b: TorchBuilder, x: ir.Value, element: str) -> ir.Value:
    """An int8/uint8 tensor as float `element`; uint8 through si32 masked to its low byte (TOSA's
    cast reads uint8 as int8)."""
    if b.info(x).element == "ui8":
        wide = b.to_dtype(x, "si32")
        x = b.op("aten.bitwise_and.Scalar", wide.type, wide, b.constant_int(0xFF))
    return b.to_dtype(x, element)


def _centered_weights(node: OnnxNode, b: TorchBuilder, layer: RecurrentLayer, index: int, zero_index: int,
                      direction: int, what: str) -> tuple[ir.Value, float]:
    """(w - w_zp of one direction [K, 4H] as float32, the largest |w - w_zp| or its bound)."""
    element = node.input_info(index).element
    if element not in ("si8", "ui8"):
        node.fail(f"{what} is {element}; int8 or uint8 is required")
    zero = _zero_point(node, b, layer, zero_index, index, direction, f"{what}_zero_point")
    literal = node.constant_input(index)
    if literal is not None and isinstance(zero, float):
        centered = literal[direction].astype(np.float32) - np.float32(zero)
        return b.literal(centered, "f32"), float(np.abs(centered).max(initial=0.0))
    weights = _integer_to_float(b, layer.select(node.input(index), direction), "f32")
    if isinstance(zero, float):
        weights = b.scalar_op("aten.sub.Scalar", weights, zero) if zero else weights
    else:
        weights = b.binary("aten.sub.Tensor", weights, zero)
    return weights, 255.0 if element == "ui8" else 128.0


def quantized_activation(b: TorchBuilder, x: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(q - zp as float32, scale []) of x quantized to uint8 as onnxruntime's GetQuantizationParameter
    and MlasQuantizeLinear do: range [min(x, 0), max(x, 0)], scale = range / 255 (1 for an empty
    range), zp = round(clamp(-min / scale, 0, 255)), q = clamp(round(x / scale) + zp, 0, 255)."""
    scalar = b.tensor_type([], "f32")
    high = b.op("aten.clamp_min", scalar, b.op("aten.max", scalar, x), b.constant_float(0.0))
    low = b.op("aten.clamp_max", scalar, b.op("aten.min", scalar, x), b.constant_float(0.0))
    spread = b.binary("aten.sub.Tensor", high, low)
    empty = b.op("aten.eq.Tensor", b.tensor_type([], "i1"), spread, b.literal(np.float32(0.0), "f32"))
    steps = b.binary("aten.div.Tensor", spread, b.literal(np.float32(255.0), "f32"))
    scale = b.op("aten.where.self", scalar, empty, b.literal(np.float32(1.0), "f32"), steps)
    shift = b.op("aten.clamp", scalar, b.binary("aten.div.Tensor", b.op("aten.neg", scalar, low), scale),
                 b.constant_float(0.0), b.constant_float(255.0))
    zero = b.op("aten.round", scalar, shift)
    rounded = b.op("aten.round", x.type, b.binary("aten.div.Tensor", x, scale))
    lowest = b.op("aten.neg", scalar, zero)
    highest = b.op("aten.rsub.Scalar", scalar, zero, b.constant_float(255.0), b.constant_int(1))
    centered = b.binary("aten.minimum", b.binary("aten.maximum", rounded, lowest), highest)
    return centered, scale


def quantized_product(b: TorchBuilder, x: ir.Value, weights: ir.Value, weight_scale: ir.Value, element: str,
                      result_sizes: list) -> ir.Value:
    """x quantized as `quantized_activation`, times the centered weights, exactly in `element`, then
    times x_scale * weight_scale in float32: [..., 4H]."""
    centered, scale = quantized_activation(b, x)
    if element != "f32":
        centered, weights = b.to_dtype(centered, element), b.to_dtype(weights, element)
    name = "aten.mm" if b.info(x).rank == 2 else "aten.matmul"
    sums = b.op(name, b.tensor_type(result_sizes, element), centered, weights)
    return b.binary("aten.mul.Tensor", b.to_dtype(sums, "f32"), b.binary("aten.mul.Tensor", scale, weight_scale))


def _masked_to_longest(b: TorchBuilder, layer: RecurrentLayer, x: ir.Value) -> ir.Value:
    """X with the steps at or beyond the longest sequence_lens zeroed: onnxruntime quantizes only the
    steps it runs (a zero does not change a range that includes 0)."""
    if layer.lengths is None:
        return x
    longest = b.op("aten.max", b.tensor_type([], "si64"), layer.lengths)
    steps = b.arange(layer.steps)
    running = b.op("aten.lt.Tensor", b.tensor_type(b.info(steps).sizes, "i1"), steps, longest)
    running = b.unsqueeze(b.unsqueeze(running, 1), 2)
    return b.op("aten.where.ScalarOther", x.type, running, x, b.constant_float(0.0))


def _finished_zeroed(b: TorchBuilder, layer: RecurrentLayer, hidden: ir.Value, t) -> ir.Value:
    """Ht-1 with the entries that ended before step t (length < t) zeroed: onnxruntime's forward
    direction reads Ht-1 from Y, where it wrote zeros for them."""
    lengths_info = b.info(layer.lengths)
    ran = b.tensor_type(lengths_info.sizes, "i1")
    if isinstance(t, ir.Value) and b.info(t) is not None:  # a [] si64 tensor (tensor_loop.py)
        running = b.op("aten.ge.Tensor", ran, layer.lengths, t)
    else:
        running = b.op("aten.ge.Scalar", ran, layer.lengths, b.dim_value(t))
    return b.op("aten.where.ScalarOther", hidden.type, b.unsqueeze(running, 1), hidden, b.constant_float(0.0))


@converts("DynamicQuantizeLSTM", since=1, domain=MICROSOFT)
def dynamic_quantize_lstm(node: OnnxNode, b: TorchBuilder):
    """LSTM with Xt·Wᵀ and Ht-1·Rᵀ as integer GEMMs of dynamically uint8-quantized X and Ht-1 with the
    int8/uint8 weights (see the module docstring)."""
    if node.input_info(0).element != "f32":
        node.fail(f"X is {node.input_info(0).element}; float32 is required")
    layer = RecurrentLayer(node, b, 4, 0, weights_transposed=True)
    columns = layer.gates * layer.hidden
    x = _masked_to_longest(b, layer, layer.x)
    x_sizes = b.info(x).sizes
    projections, recurrences, gate_biases = [], [], []
    for d in range(len(layer.directions)):
        input_weights, input_bound = _centered_weights(node, b, layer, 1, 9, d, "W")
        recurrent_weights, recurrent_bound = _centered_weights(node, b, layer, 2, 11, d, "R")
        input_scale = _direction_parameter(node, b, layer, 8, d, "W_scale")
        recurrent_scale = _direction_parameter(node, b, layer, 10, d, "R_scale")
        input_size = node.input_info(1).sizes[1]
        input_element = _sum_element(node, input_bound, input_size)
        recurrent_element = _sum_element(node, recurrent_bound, layer.hidden)
        projections.append(quantized_product(b, x, input_weights, input_scale, input_element,
                                             [x_sizes[0], x_sizes[1], columns]))
        bias = layer.biases(d)
        gate_biases.append(None if bias[0] is None else b.binary("aten.add.Tensor", *bias))
        recurrences.append((recurrent_weights, recurrent_scale, recurrent_element))

    zero_finished = layer.lengths is not None and node.result_is_used(0)

    def recurrent_product(sb: TorchBuilder, d: int, hidden: ir.Value, t) -> ir.Value:
        weights, scale, element = recurrences[d]
        if zero_finished and layer.directions[d] == "forward":
            hidden = _finished_zeroed(sb, layer, hidden, t)
        return quantized_product(sb, hidden, weights, scale, element, [sb.info(hidden).sizes[0], columns])

    activation = activate if node.target == "tosa" else onnxruntime_activate
    return run_lstm(node, b, layer, projections, recurrent_product, gate_biases, activation)


def _sum_element(node: OnnxNode, largest_weight: float, depth: int | None) -> str:
    """float32 where every sum of `depth` products of |q - zp| <= 255 and |w - w_zp| <= largest_weight
    is exact, else float64 (float32 on TOSA, which has no float64)."""
    if depth is not None and depth * 255 * largest_weight < EXACT_FLOAT32_BOUND:
        return "f32"
    return "f32" if node.target == "tosa" else "f64"
