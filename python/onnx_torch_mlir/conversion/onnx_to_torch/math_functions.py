"""More elementwise math: Pow, Mod, Erf, Sign, trigonometric and hyperbolic functions,
IsNaN, IsInf, Clip, Min, Max, Sum, Mean, Where, Cast, CastLike."""

from __future__ import annotations

import math
import re

import onnx
from torch_mlir import ir

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts
from .types import TensorInfo

# op_type -> (torch op, since_version); one torch op, same semantics at every opset.
UNARY = {
    "Erf": ("aten.erf", 9),
    "Sign": ("aten.sign", 9),
    "Sin": ("aten.sin", 7),
    "Cos": ("aten.cos", 7),
    "Tan": ("aten.tan", 7),
    "Asin": ("aten.asin", 7),
    "Acos": ("aten.acos", 7),
    "Atan": ("aten.atan", 7),
    "Sinh": ("aten.sinh", 9),
    "Cosh": ("aten.cosh", 9),
    "Asinh": ("aten.asinh", 9),
    "Acosh": ("aten.acosh", 9),
    "Atanh": ("aten.atanh", 9),
    "IsNaN": ("aten.isnan", 9),
}


def _exp_pair(b: TorchBuilder, x):
    return b.unary("aten.exp", x), b.unary("aten.exp", b.negate(x))


def _one_minus_square_root(b: TorchBuilder, x):
    """sqrt(1 - x*x): NaN for |x| > 1, as asin and acos give there."""
    one_minus = b.op("aten.rsub.Scalar", x.type, b.binary("aten.mul.Tensor", x, x), b.constant_float(1.0), b.constant_int(1))
    return b.unary("aten.sqrt", one_minus)


def _log_of_sum_with_root(b: TorchBuilder, x, shift: float):
    """log(x + sqrt(x*x + shift))."""
    radicand = b.scalar_op("aten.add.Scalar", b.binary("aten.mul.Tensor", x, x), shift)
    return b.unary("aten.log", b.binary("aten.add.Tensor", x, b.unary("aten.sqrt", radicand)))


def _tosa_sinh(b: TorchBuilder, x):
    up, down = _exp_pair(b, x)
    return b.scalar_op("aten.mul.Scalar", b.binary("aten.sub.Tensor", up, down), 0.5)


def _tosa_cosh(b: TorchBuilder, x):
    up, down = _exp_pair(b, x)
    return b.scalar_op("aten.mul.Scalar", b.binary("aten.add.Tensor", up, down), 0.5)


def _tosa_asinh(b: TorchBuilder, x):
    """sign(x) * log(|x| + sqrt(x*x + 1)): odd, so no cancellation for negative x."""
    magnitude = _log_of_sum_with_root(b, b.unary("aten.abs", x), 1.0)
    return b.binary("aten.mul.Tensor", b.unary("aten.sign", x), magnitude)


def _tosa_acosh(b: TorchBuilder, x):
    return _log_of_sum_with_root(b, x, -1.0)


def _tosa_atanh(b: TorchBuilder, x):
    """0.5 * log((1 + x) / (1 - x))."""
    one, alpha = b.constant_float(1.0), b.constant_int(1)
    ratio = b.binary("aten.div.Tensor", b.op("aten.add.Scalar", x.type, x, one, alpha), b.op("aten.rsub.Scalar", x.type, x, one, alpha))
    return b.scalar_op("aten.mul.Scalar", b.unary("aten.log", ratio), 0.5)


def _tosa_asin(b: TorchBuilder, x):
    """atan(x / sqrt(1 - x*x)); at x = +-1 the quotient is +-inf and atan gives +-pi/2."""
    return b.unary("aten.atan", b.binary("aten.div.Tensor", x, _one_minus_square_root(b, x)))


def _tosa_acos(b: TorchBuilder, x):
    """pi/2 - asin(x)."""
    return b.op("aten.rsub.Scalar", x.type, _tosa_asin(b, x), b.constant_float(math.pi / 2), b.constant_int(1))


# torch-mlir's TOSA lowering has no pattern for these aten ops: on TOSA they are written with
# exp, log, sqrt and atan, which it lowers.
_TOSA_DECOMPOSITIONS = {
    "aten.sinh": _tosa_sinh, "aten.cosh": _tosa_cosh, "aten.asinh": _tosa_asinh, "aten.acosh": _tosa_acosh,
    "aten.atanh": _tosa_atanh, "aten.asin": _tosa_asin, "aten.acos": _tosa_acos,
}


def _unary_pattern(torch_op: str):
    def pattern(node: OnnxNode, b: TorchBuilder):
        if node.target == "tosa" and torch_op in _TOSA_DECOMPOSITIONS:
            return b.cast_to(_TOSA_DECOMPOSITIONS[torch_op](b, node.input(0)), node.result_type())
        return b.op(torch_op, node.result_type(), node.input(0))

    return pattern


for _op_type, (_torch_op, _since) in UNARY.items():
    converts(_op_type, since=_since)(_unary_pattern(_torch_op))


@converts("IsInf", since=10)
def is_inf(node: OnnxNode, b: TorchBuilder):
    positive, negative = node.attr_int("detect_positive"), node.attr_int("detect_negative")
    x, result_type = node.input(0), node.result_type()
    if positive and negative:
        return b.op("aten.isinf", result_type, x)
    if positive:
        return b.op("aten.isposinf", result_type, x)
    if negative:
        return b.op("aten.isneginf", result_type, x)
    # Neither: all false.
    return b.op("aten.logical_and", result_type, b.op("aten.isposinf", result_type, x), b.op("aten.isneginf", result_type, x))


def _pow(node: OnnxNode, b: TorchBuilder, exponent):
    """Result has the base's type. The exponent is cast to it; integer powers run in f64
    because torch-mlir's backends lower `pow` on floats only."""
    base, result = node.input(0), node.result_info()
    if result.is_float:
        exponent = b.to_dtype(exponent, result.element)
        return b.op("aten.pow.Tensor_Tensor", node.result_type(), base, exponent)
    base64, exponent64 = b.to_dtype(base, "f64"), b.to_dtype(exponent, "f64")
    power = b.op("aten.pow.Tensor_Tensor", b.tensor_type(result.sizes, "f64"), base64, exponent64)
    return b.to_dtype(power, result.element)


@converts("Pow", since=1)
def pow_legacy(node: OnnxNode, b: TorchBuilder):
    return _pow(node, b, node.legacy_broadcast_input(b))


@converts("Pow", since=7)
def pow_(node: OnnxNode, b: TorchBuilder):
    return _pow(node, b, node.input(1))


@converts("Mod", since=10)
def mod(node: OnnxNode, b: TorchBuilder):
    """fmod=1: sign of the dividend (C fmod); fmod=0: sign of the divisor (Python %).

    ONNX's text asks for fmod=1 on floating-point inputs, but its own cases (and
    onnxruntime) give fmod=0 floats the Python meaning, which aten.remainder has.
    """
    fmod = node.attr_int("fmod")
    if not fmod and node.target in ("stablehlo", "tosa"):
        return _remainder_from_fmod(b, node.input(0), node.input(1), node.result_type())
    torch_op = "aten.fmod.Tensor" if fmod else "aten.remainder.Tensor"
    return b.op(torch_op, node.result_type(), node.input(0), node.input(1))


def _remainder_from_fmod(b: TorchBuilder, x, y, result_type):
    """x % y with the divisor's sign, from fmod: r = fmod(x, y), plus y where r is non-zero and
    its sign differs from y's. torch-mlir's StableHLO lowering of aten.remainder keeps the
    dividend's sign for integers, and its StableHLO and TOSA lowerings give NaN for a finite float
    over an infinite one. Comparisons are with literals of the operands' own type (`aten.isinf` and
    scalar comparisons became float64 ones on TOSA, which IREE refuses)."""
    r = b.op("aten.fmod.Tensor", result_type, x, y)
    element = b.info(result_type).element
    flags = b.tensor_type(b.info(result_type).sizes, "i1")
    if b.info(result_type).is_float:  # its fmod gives NaN too for a finite x over an infinite y (x itself)
        infinity = b.scalar_tensor_literal(math.inf, element)

        def is_infinite(v):
            magnitude = b.op("aten.abs", v.type, v)
            return b.op("aten.eq.Tensor", b.tensor_type(b.info(v).sizes, "i1"), magnitude, infinity)

        x_finite = b.op("aten.logical_not", b.tensor_type(b.info(x).sizes, "i1"), is_infinite(x))
        r = b.op("aten.where.self", result_type, b.op("aten.logical_and", flags, is_infinite(y), x_finite), x, r)
    if b.info(result_type).is_float:
        zero, compare = b.scalar_tensor_literal(0, element), "Tensor"
    else:  # (an unsigned literal is no valid TOSA constant; integer scalars stay integers)
        zero, compare = b.constant_int(0), "Scalar"
    nonzero = b.op(f"aten.ne.{compare}", flags, r, zero)
    r_negative = b.op(f"aten.lt.{compare}", flags, r, zero)
    y_negative = b.op(f"aten.lt.{compare}", b.tensor_type(b.info(y).sizes, "i1"), y, zero)
    signs_differ = b.op("aten.ne.Tensor", flags, r_negative, y_negative)
    adjust = b.op("aten.logical_and", flags, nonzero, signs_differ)
    return b.op("aten.where.self", result_type, adjust, b.binary("aten.add.Tensor", r, y, result_type), r)


@converts("Where", since=9)
def where(node: OnnxNode, b: TorchBuilder):
    return b.op("aten.where.self", node.result_type(), node.input(0), node.input(1), node.input(2))


def _clamp(node: OnnxNode, b: TorchBuilder, x, low, high):
    """min(max(x, low), high) with tensor bounds (either may be None)."""
    result_type = node.result_type()
    if low is not None:
        x = b.op("aten.maximum", result_type, x, low)
    if high is not None:
        x = b.op("aten.minimum", result_type, x, high)
    return x


@converts("Clip", since=1)
def clip_attributes(node: OnnxNode, b: TorchBuilder):
    """Opset 1 and 6: bounds are float attributes (defaults: the float range)."""
    x = node.input(0)
    low = node.attr_float("min", None)
    high = node.attr_float("max", None)
    none = b.constant_none()
    return b.op(
        "aten.clamp", node.result_type(), x,
        none if low is None else b.constant_float(low), none if high is None else b.constant_float(high),
    )


@converts("Clip", since=11)
def clip(node: OnnxNode, b: TorchBuilder):
    """From opset 11 the bounds are optional scalar-tensor inputs."""
    x = node.input(0)
    low, high = node.optional_input(1), node.optional_input(2)
    if low is None and high is None:
        return x
    return _clamp(node, b, x, low, high)


def _fold(node: OnnxNode, b: TorchBuilder, combine):
    """Combine variadic inputs left to right with numpy broadcasting; the last step gets the node's type."""
    values = node.inputs()
    if not values:
        node.fail("needs at least one input")
    result = values[0]
    for index, value in enumerate(values[1:], start=1):
        is_last = index == len(values) - 1
        result_type = node.result_type() if is_last else b.broadcast_type(result, value)
        result = combine(result_type, result, value)
    return result


@converts("Max", since=1)
def max_(node: OnnxNode, b: TorchBuilder):
    return _fold(node, b, lambda t, x, y: b.op("aten.maximum", t, x, y))


@converts("Min", since=1)
def min_(node: OnnxNode, b: TorchBuilder):
    return _fold(node, b, lambda t, x, y: b.op("aten.minimum", t, x, y))


@converts("Sum", since=1)
def sum_(node: OnnxNode, b: TorchBuilder):
    return _fold(node, b, lambda t, x, y: b.op("aten.add.Tensor", t, x, y, b.constant_int(1)))


@converts("Mean", since=1)
def mean(node: OnnxNode, b: TorchBuilder):
    """Sum of the inputs divided by their count."""
    count = len(node.inputs())
    total = _fold(node, b, lambda t, x, y: b.op("aten.add.Tensor", t, x, y, b.constant_int(1)))
    return b.op("aten.div.Scalar", node.result_type(), total, b.constant_int(count))


# ONNX's integer types narrower than a byte: torch-mlir types 4-bit tensors (si4, ui4) but has
# no dtype code to cast to them; 2-bit tensors have no Torch type at all, and our importer holds
# them exactly in 8 bits (si8, ui8) in the torch-ONNX form. A cast to int2/uint2 is therefore a
# cast to 8 bits with the value wrapped to 2 bits, as ONNX wraps integers that do not fit.
_TWO_BIT_TARGETS = {onnx.TensorProto.INT2: "int2", onnx.TensorProto.UINT2: "uint2"}
_FOUR_BIT = ("si4", "ui4")
_TWO_BIT_SPELLINGS = re.compile(r"(?:x|<)u?i2>$")
# TOSA's lowering reads an unsigned tensor as signed, so a cast that widens one sign-extends it
# there. Widening to the next signed type and masking gives the exact value on every backend; it
# is emitted for TOSA and for Torch output (whose consumer is unknown).
_UNSIGNED_WIDENING = {"ui4": ("si8", 0xF), "ui8": ("si16", 0xFF), "ui16": ("si32", 0xFFFF), "ui32": ("si64", 0xFFFFFFFF)}


def _bits(element: str) -> int:
    return 1 if element == "i1" else int(element.lstrip("suibf") or 0)


def _exact_unsigned(node: OnnxNode, b: TorchBuilder, x, target: str):
    """`x` itself, or for an unsigned x that the cast to `target` widens (to a float or a
    wider integer), the same values in the next wider signed type."""
    info = b.info(x)
    if node.target in ("linalg-on-tensors", "stablehlo"):
        return x
    if info.element not in _UNSIGNED_WIDENING or target == "i1":
        return x
    if not TensorInfo((), target).is_float and _bits(target) <= _bits(info.element):
        return x  # a truncation keeps the low bits whatever the signedness
    wider, mask = _UNSIGNED_WIDENING[info.element]
    widened = b.to_dtype(x, wider)
    return b.op("aten.bitwise_and.Scalar", widened.type, widened, b.constant_int(mask))


def _narrow_int64_for_tosa(node: OnnxNode, b: TorchBuilder, x, target: str):
    """On TOSA, a cast between a 64-bit integer and a float goes through i32.

    TOSA's profiles have no 64-bit integers: IREE refuses `tosa.cast` between i64 and a float
    (BERT's attention mask, T5's relative-position buckets) but takes i64 <-> i32. Exact for
    |x| < 2^31 (beyond, it wraps)."""
    if node.target != "tosa":
        return x
    source_is_float, target_is_float = b.info(x).is_float, TensorInfo((), target).is_float
    if (b.info(x).element == "si64" and target_is_float) or (source_is_float and target == "si64"):
        return b.to_dtype(x, "si32")
    return x


# Unsigned dtypes torch-mlir's Linalg lowering of aten.to.dtype cannot map (an LLVM fatal error).
_NO_LINALG_DTYPE = {"ui16": "uint16", "ui64": "uint64"}


def _float_to_unsigned_for_tosa(node: OnnxNode, b: TorchBuilder, x, target: str):
    """On TOSA, a float to uint8/uint16 goes through int32: TOSA's integers are signless and its
    float-to-i8 cast saturates at 127, so 200.0 became 127. The int32 value's low bits are the result."""
    if node.target != "tosa" or not b.info(x).is_float or target not in ("ui8", "ui16"):
        return x
    return b.to_dtype(x, "si32")


def _refuse_two_bit_types(node: OnnxNode):
    """The ONNX dialect spells 2-bit tensors i2/ui2, which no Torch type holds."""
    for value in list(node.op.operands) + list(node.op.results):
        if _TWO_BIT_SPELLINGS.search(str(value.type)):
            node.fail("2-bit integer tensors have no Torch dialect type; the torch-ONNX form of our "
                      "importer holds them in 8 bits")


# The largest finite value of each float8 type a cast can produce.
_FLOAT8_MAX = {"f8E4M3FN": 448.0, "f8E4M3FNUZ": 240.0, "f8E5M2": 57344.0, "f8E5M2FNUZ": 57344.0}


# 8-bit and 4-bit floats: every value of theirs is a float32.
_SMALL_FLOATS = {"f8E4M3FN", "f8E4M3FNUZ", "f8E5M2", "f8E5M2FNUZ", "f8E8M0FNU", "f4E2M1FN"}


def _float8_source(node: OnnxNode, b: TorchBuilder, x, element: str):
    """A cast from an 8-bit or 4-bit float goes through float32 (exactly): torch-mlir's Linalg
    and TOSA lowerings emit an invalid `arith.extf` between two 8-bit floats, and TOSA's
    float-to-int cast compares with the int range as constants of the source type (NaN in
    float8: every result became INT_MIN). A cast to float8 goes through float32 from a double:
    ONNX's reference (ml_dtypes) and PyTorch both convert a double to float first and round
    twice; a direct `arith.truncf` would round once and differ on a double just beside a tie.
    Then `_saturate_to_float8`."""
    source = b.info(x).element
    if element != "f32" and (source in _SMALL_FLOATS or (element in _FLOAT8_MAX and source == "f64")):
        x = b.to_dtype(x, "f32")
    return _saturate_to_float8(node, b, x, element)


def _saturate_to_float8(node: OnnxNode, b: TorchBuilder, x, element: str):
    """With `saturate` (opset 19, default 1), a cast to float8 clamps to the type's finite range
    first (infinities included); NaN stays NaN. torch-mlir's Linalg lowering of clamp turns NaN
    into the lower bound, and of maximum(a, b) / minimum(a, b) into `a > b ? a : b`, which keeps
    NaN only when it is b: so maximum/minimum with the limit first. Torch's own conversion overflows
    to inf or NaN, as `saturate=0` asks. A non-float input is clamped in f32 (exact up to 2^24,
    and larger integers saturate either way)."""
    if element not in _FLOAT8_MAX or not node.attr_int("saturate", 1):
        return x
    if not b.info(x).is_float:
        x = b.to_dtype(_exact_unsigned(node, b, x, "f32"), "f32")
    element_of_x = b.info(x).element
    limit = _FLOAT8_MAX[element]
    x = b.binary("aten.maximum", b.scalar_tensor_literal(-limit, element_of_x), x)
    return b.binary("aten.minimum", b.scalar_tensor_literal(limit, element_of_x), x)


# Float targets a cast cannot reach (casts from them work: the runner emulates them).
_UNREACHABLE_FLOAT_TARGETS = {
    "f4E2M1FN": "a cast to float4e2m1 is not supported: Torch has no float4 dtype to convert to (its "
                "float4_e2m1fn_x2 packs two values a byte); casts from float4e2m1 are",
    "f8E8M0FNU": "a cast to float8e8m0 is not supported: torch-mlir's lowerings have no float8_e8m0fnu "
                 "dtype for a torch op to produce; casts from float8e8m0 are",
}
_UNREACHABLE_FLOAT_CODES = {onnx.TensorProto.FLOAT4E2M1: "f4E2M1FN", onnx.TensorProto.FLOAT8E8M0: "f8E8M0FNU"}


def _refuse_unreachable_float_target(node: OnnxNode, element: str | None) -> None:
    if element in _UNREACHABLE_FLOAT_TARGETS:
        node.fail(_UNREACHABLE_FLOAT_TARGETS[element])


def _cast(node: OnnxNode, b: TorchBuilder, element: str):
    x = node.input(0)
    info = b.info(x)
    if element in _FOUR_BIT and info.element != element:
        node.fail("a cast to int4 or uint4 is not supported: torch has no 4-bit dtype to cast to "
                  "(casts from them are)")
    if info.element == element:
        return x
    if node.target == "linalg-on-tensors" and element in _NO_LINALG_DTYPE:
        node.fail(f"a cast to {_NO_LINALG_DTYPE[element]} is not supported on linalg-on-tensors: torch-mlir's Linalg "
                  "lowering has no such dtype (it aborts); the tosa and stablehlo paths take it")
    x = _float8_source(node, b, x, element)
    x = _narrow_int64_for_tosa(node, b, x, element)  # a signed int64 input only, not a widened unsigned one
    x = _exact_unsigned(node, b, x, element)
    x = _float_to_unsigned_for_tosa(node, b, x, element)
    false, none = b.constant_bool(False), b.constant_none()
    return b.op("aten.to.dtype", node.result_type(), x, b.dtype(element), false, false, none)


def _cast_to_two_bit(node: OnnxNode, b: TorchBuilder, signed: bool):
    """To int2/uint2, held in 8 bits: truncated to an integer, then wrapped to [-2, 1] or [0, 3]."""
    x = node.input(0)
    wide = b.to_dtype(_exact_unsigned(node, b, x, "si64"), "si64")
    if signed:  # ((v + 2) & 3) - 2
        one = b.constant_int(1)
        wide = b.op("aten.add.Scalar", wide.type, wide, b.constant_int(2), one)
        wide = b.op("aten.bitwise_and.Scalar", wide.type, wide, b.constant_int(3))
        wide = b.op("aten.sub.Scalar", wide.type, wide, b.constant_int(2), one)
    else:
        wide = b.op("aten.bitwise_and.Scalar", wide.type, wide, b.constant_int(3))
    return b.to_dtype(wide, node.result_info().element)


def _cast_target(node: OnnxNode) -> int | None:
    """The ONNX data type code of `to` when it is a 2-bit or 4-bit integer type, else None."""
    raw = node.raw_attribute("to")
    if raw is None:
        return None
    raw = raw.maybe_downcast()
    if isinstance(raw, ir.IntegerAttr):
        return raw.value
    if isinstance(raw, ir.StringAttr):
        return onnx.TensorProto.DataType.Value(raw.value) if raw.value in onnx.TensorProto.DataType.keys() else None
    if isinstance(raw, ir.TypeAttr):
        return {"i2": onnx.TensorProto.INT2, "ui2": onnx.TensorProto.UINT2, "i4": onnx.TensorProto.INT4,
                "si4": onnx.TensorProto.INT4, "ui4": onnx.TensorProto.UINT4}.get(str(raw.value))
    return None


@converts("Cast", since=1)
def cast(node: OnnxNode, b: TorchBuilder):
    """`to` is an ONNX data type: an int, a type (ONNX dialect spelling) or, at opset 1, a name.

    Integers that do not fit the target are wrapped (two's complement); floats that do not
    fit are undefined in ONNX."""
    _refuse_two_bit_types(node)
    target = _cast_target(node)
    _refuse_unreachable_float_target(node, _UNREACHABLE_FLOAT_CODES.get(target))
    if target in (onnx.TensorProto.INT4, onnx.TensorProto.UINT4):
        return _cast(node, b, "si4" if target == onnx.TensorProto.INT4 else "ui4")
    if target in _TWO_BIT_TARGETS:
        return _cast_to_two_bit(node, b, signed=target == onnx.TensorProto.INT2)
    return _cast(node, b, node.attr_element_type("to"))


@converts("CastLike", since=15)
def cast_like(node: OnnxNode, b: TorchBuilder):
    """Casts to the element type of input 1. A 2-bit target_type reaches us as the 8 bits our
    importer holds it in, so no wrapping to 2 bits happens here (unlike Cast to int2/uint2)."""
    _refuse_two_bit_types(node)
    if node.input_info(1).element != node.input_info(0).element:
        _refuse_unreachable_float_target(node, node.input_info(1).element)
    return _cast(node, b, node.input_info(1).element)
