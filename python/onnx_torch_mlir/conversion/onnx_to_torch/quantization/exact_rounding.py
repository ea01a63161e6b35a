"""ONNX's quantization rounding in float32 alone, exactly: for TOSA, which has no float64 and no
division (IREE refuses f64 in TOSA, and torch-mlir lowers `x / s` to `x * reciprocal(s)`, one
ulp off about a quarter of the time, which moves a value next to a half-way point to the other
integer).

Both functions give n = round_half_even(RN_p(v)), as a float32 holding an integer, where v is
an exact real (`x / s`, or `acc * m`) and RN_p rounds to a float of p significand bits (24 for a
float32 division, 11 for float16, 8 for bfloat16, 53 for ONNX's float64 requantization):

1. a = an approximation of v in float32 (relative error about 2^-23); k = floor(a) clamped to
   +-`bound` (beyond it the result saturates anyway), h = k + 0.5. Then n is k or k + 1.
2. RN_p(v) > h exactly when v lies above the upper edge of h's rounding interval, and
   RN_p(v) = h (a tie of the integer rounding, which goes to the even one of k, k + 1) when v
   lies inside it. So with E = h + g/2 when k is even, E = h - g/2 when k is odd (g = ulp_p(h)
   = ufp(|h|) * 2^(1-p), ufp by Rump's formula), n = k + [v > E]. A quotient of floats is
   never exactly E here; a product (requantization, 55 bits) can be, and is decided there.
3. [v > E] is the sign of x - E*s (or acc*m - E), a sum of terms that are each exact in
   float32: products of halves of operands split with Veltkamp's method (12 bits each, so a
   product has at most 24 bits), products with powers of two, and (requantization) Dekker's
   exact error of a float32 product. The sum's sign is exact: the terms are summed into a
   nonoverlapping expansion with Knuth's TwoSum (Shewchuk's Grow-Expansion), whose largest
   nonzero component has the sign of the sum. Few terms matter beyond the op count: LLVM's loop
   vectorizer (the reference runner's JIT) walks the paths of the expansion's DAG.

Every product here is exact (an inexact one reaches only a clamp), so a consumer that fuses a
product into the following addition (IREE does: `a * b - c` becomes an FMA) computes the same
values. Operands of one element are computed on two lanes (`on_lanes`: IREE's scalar dispatches
copy such DAGs into trees); the DynamicQuantizeLinear scale's division by 255 is
all_ones_divisor.py.
"""

from __future__ import annotations

import functools

import numpy as np
from torch_mlir import ir

from ..builder import TorchBuilder

# Past this |k|, the result saturates for every integer type of at most 16 bits (see bound_for).
_SPLIT_LIMIT = 2**11  # |k| <= this: k has 12 bits, and k times a 12-bit half is exact


def bound_for(low: int, high: int) -> int:
    """A power of two B with k + zero_point outside [low, high] for every |k| >= B and every
    zero point inside it."""
    return 1 << int(high - low).bit_length()


_LANES = 2


def on_lanes(function):
    """Run `function(b, *values, ...)` on two copies of its operands when they hold one element
    each (the result is the first copy's, shaped as the operands broadcast).

    IREE compiles a computation on one-element tensors as a scalar dispatch, in which it fuses
    every op with several users into each of them, copying the program's DAG into a tree: the
    ~500 ops of an exact DynamicQuantizeLinear scale and zero point became ~96,000 and took 3.5
    minutes to compile. On two lanes the ops stay ordinary elementwise ops (3.7 s)."""

    @functools.wraps(function)
    def wrapper(b: TorchBuilder, *args, **kwargs):
        values = [arg for arg in args if isinstance(arg, ir.Value)]
        sizes = [b.info(value).sizes for value in values]
        if any(size is None or any(dim != 1 for dim in size) for size in sizes):
            return function(b, *args, **kwargs)
        lanes = [_spread(b, arg) if isinstance(arg, ir.Value) else arg for arg in args]
        result = b.slice_range(function(b, *lanes, **kwargs), 0, 0, 1)
        shape = [1] * max(len(size) for size in sizes)
        return b.reshape(result, shape, shape)

    return wrapper


def _spread(b: TorchBuilder, value: ir.Value) -> ir.Value:
    element = b.info(value).element
    one = b.reshape(value, [1], [1])
    return b.op("aten.broadcast_to", b.tensor_type([_LANES], element), one, b.int_list([_LANES]))


@on_lanes
def rounded_quotient(b: TorchBuilder, x: ir.Value, scale: ir.Value, bits: int, bound: int) -> ir.Value:
    """round_half_even(RN_bits(x / scale)) for float32 x and scale (broadcasting), as float32."""
    x, scale = _moderate_scale(b, x, scale)
    approximate = b.binary("aten.mul.Tensor", x, b.op("aten.reciprocal", scale.type, scale))
    k, h, half_gap = _candidate(b, approximate, bits, bound)
    scale_high, scale_low = _split(b, scale)
    terms = [x] + [b.negate(term) for term in _products(b, k, scale_high, scale_low, bound)]
    terms += [b.negate(_times(b, scale, 0.5)), b.negate(b.binary("aten.mul.Tensor", half_gap, scale))]
    above = _sum_is_positive(b, terms)
    # x / scale > E is x > E * scale for a positive scale, x < E * scale for a negative one.
    return _k_plus(b, k, _xor(b, above, _compare(b, "aten.lt.Tensor", scale, _zero(b))))


@on_lanes
def rounded_product(b: TorchBuilder, accumulator: ir.Value, multiplier: ir.Value, bits: int, bound: int) -> ir.Value:
    """round_half_even(RN_bits(accumulator * multiplier)) for an si32 accumulator and a float32
    multiplier (broadcasting), as float32.

    accumulator = wide + rest (wide its float32 rounding, |rest| <= 64 exact), and
    wide * multiplier = p + e exactly with p = RN(wide * multiplier) and e from Dekker's product
    of their Veltkamp halves (each step exact); so v - E = p + e + rest * m_high + rest * m_low
    - h - (E - h), six exact terms. p reaches the sums only through a clamp that never binds, so
    no consumer fuses its inexact product into them. (A Grow-Expansion of the eight products of
    halves instead made LLVM's loop vectorizer take over a minute per QLinearConv in the
    reference runner's JIT: it walks the paths of the expansion's DAG.)"""
    wide = b.to_dtype(accumulator, "f32")  # rounded to 24 bits
    rest = b.to_dtype(b.binary("aten.sub.Tensor", accumulator, b.to_dtype(wide, "si32")), "f32")  # exact
    rounded = b.binary("aten.mul.Tensor", wide, multiplier)
    k, h, half_gap = _candidate(b, rounded, bits, bound)
    rounded = b.op("aten.clamp", rounded.type, rounded, b.constant_float(-(2.0**100)), b.constant_float(2.0**100))
    wide_high, wide_low = _split(b, wide)
    multiplier_high, multiplier_low = _split(b, multiplier)
    error = b.binary("aten.sub.Tensor", b.binary("aten.mul.Tensor", wide_high, multiplier_high), rounded)
    for left, right in ((wide_high, multiplier_low), (wide_low, multiplier_high), (wide_low, multiplier_low)):
        error = b.binary("aten.add.Tensor", error, b.binary("aten.mul.Tensor", left, right))
    terms = [rounded, error, b.binary("aten.mul.Tensor", rest, multiplier_high),
             b.binary("aten.mul.Tensor", rest, multiplier_low)]
    # v - E, exactly; v can be E here (a product has up to 55 bits): RN53 then ties to h (even
    # at 53 bits), whose integer tie goes to k + 1 when k is odd (E below h), to k when even.
    largest = _largest_nonzero(b, _expansion_of(b, terms + [b.negate(h), b.negate(half_gap)]))
    odd = _compare(b, "aten.lt.Tensor", half_gap, _zero(b))
    above = b.op("aten.where.self", b.broadcast_type(odd, largest, "i1"), odd,
                 _compare(b, "aten.ge.Tensor", largest, _zero(b)), _compare(b, "aten.gt.Tensor", largest, _zero(b)))
    return _k_plus(b, k, above)


_LARGE_SCALE, _LARGE_SCALE_FACTOR = 2.0**100, 2.0**-64


def _moderate_scale(b: TorchBuilder, x: ir.Value, scale: ir.Value) -> tuple[ir.Value, ir.Value]:
    """x and scale both times 2^-64 where |scale| > 2^100, else as they are: the same quotient, and
    the splitting (scale * 4097) and the products k * scale stay finite. (onnxruntime's quantizer
    gives an attention mask of float32's lowest value the scale 1.3e36, where they overflowed and
    the rounding came out one step low.) Both products are exact, except for an x so small that
    x * 2^-64 is subnormal; there x / scale is below 2^-126 and rounds to 0 either way."""
    magnitude = b.op("aten.abs", scale.type, scale)
    # large = 1 where |scale| >= 2^100, else 0, by arithmetic: written as a comparison and a
    # where.self, the flag came out false on TOSA for a literal scale of 1.3e36 (not reproduced with
    # torch-mlir-opt alone, so the cause is not known). factor = 1 - large + large * 2^-64, exact.
    large = b.op("aten.floor", scale.type, b.op("aten.clamp", scale.type, _times(b, magnitude, 1.0 / _LARGE_SCALE),
                                                  b.constant_float(0.0), b.constant_float(1.0)))
    factor = b.binary("aten.add.Tensor", _plus(b, b.negate(large), 1.0), _times(b, large, _LARGE_SCALE_FACTOR))
    return b.binary("aten.mul.Tensor", x, factor), b.binary("aten.mul.Tensor", scale, factor)


def _candidate(b: TorchBuilder, approximate: ir.Value, bits: int, bound: int):
    """(k, h = k + 0.5, +-g/2: the offset of E from h) for an approximation of v."""
    clamped = b.op("aten.clamp", approximate.type, approximate, b.constant_float(-bound), b.constant_float(bound))
    k = b.op("aten.floor", clamped.type, clamped)
    h = _plus(b, k, 0.5)
    # k odd -> -1, k even -> +1: 1 - 2 * (k - 2 * floor(k / 2))
    halves = b.op("aten.floor", k.type, _times(b, k, 0.5))
    parity = b.binary("aten.sub.Tensor", k, _times(b, halves, 2.0))
    sign = _plus(b, _times(b, parity, -2.0), 1.0)
    half_gap = _times(b, _unit_in_first_place(b, b.op("aten.abs", h.type, h)), 2.0 ** -bits)
    return k, h, b.binary("aten.mul.Tensor", sign, half_gap)


def _unit_in_first_place(b: TorchBuilder, p: ir.Value) -> ir.Value:
    """2^floor(log2(p)) for a positive float32 p (Rump: q = (2^23 + 1) p, |q - (1 - 2^-24) q|),
    with the products written as exact ones (p * 2^23, q * 2^-24)."""
    q = b.binary("aten.add.Tensor", p, _times(b, p, 2.0 ** 23))
    w = b.binary("aten.sub.Tensor", q, _times(b, q, 2.0 ** -24))
    return b.op("aten.abs", q.type, b.binary("aten.sub.Tensor", q, w))


def _split(b: TorchBuilder, a: ir.Value) -> tuple[ir.Value, ir.Value]:
    """Veltkamp: a = high + low, each with at most 12 significant bits (c = a + a * 2^12, the
    product exact, so no fused multiply-add can change it)."""
    c = b.binary("aten.add.Tensor", a, _times(b, a, 4096.0))
    high = b.binary("aten.sub.Tensor", c, b.binary("aten.sub.Tensor", c, a))
    return high, b.binary("aten.sub.Tensor", a, high)


def _products(b: TorchBuilder, k: ir.Value, high: ir.Value, low: ir.Value, bound: int) -> list[ir.Value]:
    """k * (high + low) as exact products: k whole when it has at most 12 bits, else split as
    k_high * 512 + k_low (k_high at most 9 bits, k_low in [0, 512))."""
    if bound <= _SPLIT_LIMIT:
        return [b.binary("aten.mul.Tensor", k, high), b.binary("aten.mul.Tensor", k, low)]
    k_high = b.op("aten.floor", k.type, _times(b, k, 1.0 / 512))
    k_low = b.binary("aten.sub.Tensor", k, _times(b, k_high, 512.0))
    return [_times(b, b.binary("aten.mul.Tensor", k_high, high), 512.0),
            _times(b, b.binary("aten.mul.Tensor", k_high, low), 512.0),
            b.binary("aten.mul.Tensor", k_low, high), b.binary("aten.mul.Tensor", k_low, low)]


@on_lanes
def correctly_rounded_quotient(b: TorchBuilder, x: ir.Value, scale: ir.Value) -> ir.Value:
    """RN32(x / scale) for float32 x and scale: one Newton step from x * (1 / scale) with the
    exact residual, q1 = q0 + (x - q0 * scale) / scale, is within half an ulp and a hair of the
    quotient; then the edges of q1's rounding interval, q1 + gap_above / 2 and q1 - gap_below / 2,
    are tested exactly (the gaps to q1's neighbours: ulp(q1), half of it toward zero from a power
    of two). Meant for scalars (a DynamicQuantizeLinear scale): about 300 ops."""
    reciprocal = b.op("aten.reciprocal", scale.type, scale)
    q0 = b.binary("aten.mul.Tensor", x, reciprocal)
    residual = _expansion_of(b, [x] + _negated_product(b, q0, scale))[-1]
    q1 = b.binary("aten.add.Tensor", q0, b.binary("aten.mul.Tensor", residual, reciprocal))
    magnitude = b.op("aten.abs", q1.type, q1)
    first_place = _unit_in_first_place(b, magnitude)
    ulp = _times(b, first_place, 2.0 ** -23)
    toward_zero = b.op("aten.where.self", ulp.type, _compare(b, "aten.eq.Tensor", first_place, magnitude),
                       _times(b, ulp, 0.5), ulp)
    positive = _compare(b, "aten.ge.Tensor", q1, _zero(b))
    gap_above = b.op("aten.where.self", ulp.type, positive, ulp, toward_zero)
    gap_below = b.op("aten.where.self", ulp.type, positive, toward_zero, ulp)
    around = _expansion_of(b, [x] + _negated_product(b, q1, scale))  # x - q1 * scale
    half_above = b.negate(b.binary("aten.mul.Tensor", _times(b, gap_above, 0.5), scale))
    half_below = b.binary("aten.mul.Tensor", _times(b, gap_below, 0.5), scale)
    negative_scale = _compare(b, "aten.lt.Tensor", scale, _zero(b))
    above = _xor(b, _is_positive(b, _grow(b, around, half_above)), negative_scale)
    below = _xor(b, _is_positive(b, [b.negate(c) for c in _grow(b, around, half_below)]), negative_scale)
    moved_down = b.op("aten.where.self", q1.type, below, b.binary("aten.sub.Tensor", q1, gap_below), q1)
    rounded = b.op("aten.where.self", q1.type, above, b.binary("aten.add.Tensor", q1, gap_above), moved_down)
    # An infinite or NaN quotient (x infinite, scale zero) is x * (1 / scale)'s; so is the quotient
    # when x, the scale or the quotient is beyond 2^115, where the splitting overflows (there it
    # may be an ulp off).
    in_range = [_compare(b, "aten.le.Tensor", b.op("aten.abs", v.type, v), b.literal(np.float32(2.0**115), "f32"))
                for v in (q0, x, scale)]
    safe = b.op("aten.logical_and", b.broadcast_type(in_range[0], in_range[1], "i1"), in_range[0], in_range[1])
    safe = b.op("aten.logical_and", b.broadcast_type(safe, in_range[2], "i1"), safe, in_range[2])
    return b.op("aten.where.self", q1.type, safe, rounded, q0)


def _negated_product(b: TorchBuilder, p: ir.Value, q: ir.Value) -> list[ir.Value]:
    """-(p * q) as four exact products of Veltkamp halves."""
    p_high, p_low = _split(b, p)
    q_high, q_low = _split(b, q)
    return [b.negate(b.binary("aten.mul.Tensor", left, right)) for left in (p_high, p_low) for right in (q_high, q_low)]


def _sum_is_positive(b: TorchBuilder, terms: list[ir.Value]) -> ir.Value:
    """Whether the exact sum of float32 `terms` is positive (booleans, broadcast)."""
    return _is_positive(b, _expansion_of(b, terms))


def _expansion_of(b: TorchBuilder, terms: list[ir.Value]) -> list[ir.Value]:
    """Shewchuk's Grow-Expansion: components, in increasing magnitude (zeros anywhere), that do
    not overlap and sum exactly to the terms' sum; the last is an approximation of it."""
    expansion = [terms[0]]
    for term in terms[1:]:
        expansion = _grow(b, expansion, term)
    return expansion


def _grow(b: TorchBuilder, expansion: list[ir.Value], term: ir.Value) -> list[ir.Value]:
    grown, running = [], term
    for component in expansion:
        running, error = _two_sum(b, running, component)
        grown.append(error)
    return grown + [running]


def _is_positive(b: TorchBuilder, expansion: list[ir.Value]) -> ir.Value:
    """The sign of a nonoverlapping expansion is its largest nonzero component's."""
    return _compare(b, "aten.gt.Tensor", _largest_nonzero(b, expansion), _zero(b))


def _largest_nonzero(b: TorchBuilder, expansion: list[ir.Value]) -> ir.Value:
    last_nonzero = expansion[0]
    for component in expansion[1:]:
        nonzero = _compare(b, "aten.ne.Tensor", component, _zero(b))
        last_nonzero = b.op("aten.where.self", b.broadcast_type(component, last_nonzero), nonzero, component,
                            last_nonzero)
    return last_nonzero


def _compare(b: TorchBuilder, op: str, x: ir.Value, y: ir.Value) -> ir.Value:
    """A comparison with a tensor (a float Scalar would be an f64 constant on TOSA)."""
    return b.op(op, b.broadcast_type(x, y, "i1"), x, y)


def _two_sum(b: TorchBuilder, x: ir.Value, y: ir.Value) -> tuple[ir.Value, ir.Value]:
    """Knuth: s = RN(x + y) and the exact error x + y - s."""
    total = b.binary("aten.add.Tensor", x, y)
    y_part = b.binary("aten.sub.Tensor", total, x)
    x_part = b.binary("aten.sub.Tensor", total, y_part)
    error = b.binary("aten.add.Tensor", b.binary("aten.sub.Tensor", x, x_part), b.binary("aten.sub.Tensor", y, y_part))
    return total, error


def _xor(b: TorchBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    return b.op("aten.logical_xor", b.broadcast_type(x, y, "i1"), x, y)


def _zero(b: TorchBuilder) -> ir.Value:
    return b.literal(np.float32(0.0), "f32")


def _k_plus(b: TorchBuilder, k: ir.Value, above: ir.Value) -> ir.Value:
    return b.binary("aten.add.Tensor", k, b.to_dtype(above, "f32"))


def _times(b: TorchBuilder, x: ir.Value, factor: float) -> ir.Value:
    return b.binary("aten.mul.Tensor", x, b.literal(np.float32(factor), "f32"))


def _plus(b: TorchBuilder, x: ir.Value, addend: float) -> ir.Value:
    return b.binary("aten.add.Tensor", x, b.literal(np.float32(addend), "f32"))

