"""Casts between floats and 64-bit integers in TOSA forms a profile takes, with the same answers.

`tosa.cast` from f32 (f16, bf16) to i64 is in no TOSA profile or extension: EXT-INT64 casts i64 only
from and to i1 and i32, and `tosa-validate` refuses the op (IREE too). torch-mlir's TOSA lowering
emits it for every float-to-int64 conversion: ONNX `Cast` to INT64 and to the narrow types
computed through it, and the index arithmetic of its own decompositions (grid sampling, resize,
RoIAlign, deformable convolution, one-hot).

Going through i32 alone is exact only where |x| < 2^31, and the input's range is unknown at
compile time, so the rewrite keeps every value exact:
- |x| < 2^31: `cast(cast(x, i32), i64)` - the same round-to-nearest-even as the direct cast;
- 2^31 <= |x| < 2^63: x is then a whole number; hi = floor(x / 2^32) and lo = x - hi * 2^32 in
  [0, 2^32) are exact in f32 (x is a multiple of 2^8 there), and lo - 2^31 fits i32, so
  `(hi << 32) + (lo - 2^31) + 2^31` computed in i64 is x;
- beyond: INT64_MAX or INT64_MIN, as the direct cast saturates; NaN gives INT64_MAX, as the direct
  cast of an f32 NaN does in MLIR's TOSA-to-Linalg lowering.
An f16 or bf16 input is widened to f32 first (exact). Every op used (f32 arithmetic, casts between
f32/i32/i64, i64 add and shift, select) is in pro_fp, pro_int or EXT-INT64.

The other way, `tosa.cast` from i64 to f32 (f16, bf16) is in no profile either, and through i32 it is
exact only below 2^31. The result must be x rounded once to the nearest float (ties to even), so
the magnitude |x| (unsigned, INT64_MIN included) is first rounded to odd at p + 2 significant bits
(p the float's precision: 24, 11, 8): shifted right by k = max(bits(|x|) - (p + 2), 0) (`tosa.clz`
on i64), with the lowest kept bit set when a dropped bit was. That value fits i32; its one rounding
to the float (`tosa.cast` i32->f32, or an exact i32->f32 then f32->f16/bf16) is the rounding of |x|,
since rounding to odd with two spare bits never moves a value across a rounding boundary. Scaling by
2^k (two exact power-of-two products) and the sign are exact.
"""

from __future__ import annotations

from torch_mlir import ir

from ...ir_walk import ops_named

_FLOATS = ("f32", "f16", "bf16")
_PRECISION = {"f32": 24, "f16": 11, "bf16": 8}
_INT64_MAX, _INT64_MIN = 2**63 - 1, -(2**63)


def exact_casts_between_floats_and_int64(module: ir.Module) -> int:
    """Rewrite every `tosa.cast` between a float and i64 as the module docstring says; the count rewritten."""
    rewritten = 0
    with module.context:
        for cast in ops_named(module, {"tosa.cast"}):
            source, result = (ir.RankedTensorType(value.type) for value in (cast.operands[0], cast.results[0]))
            if str(result.element_type) == "i64" and str(source.element_type) in _FLOATS:
                with cast.location:
                    _rewrite(cast, source)
                rewritten += 1
            elif str(source.element_type) == "i64" and str(result.element_type) in _FLOATS:
                with cast.location:
                    _rewrite_int64_to_float(cast, source, str(result.element_type))
                rewritten += 1
    return rewritten


class _Builder:
    """TOSA ops in front of `anchor`, shaped like `shape` (a ranked tensor type)."""

    def __init__(self, anchor: ir.Operation, shape: ir.RankedTensorType):
        self.ip, self.location, self.shape = ir.InsertionPoint(anchor), anchor.location, shape

    def like(self, element: str) -> ir.Type:
        return ir.RankedTensorType.get(self.shape.shape, ir.Type.parse(element))

    def op(self, name: str, element: str, operands: list, attributes=None) -> ir.Value:
        return ir.Operation.create(name, results=[self.like(element)], operands=operands,
                                   attributes=attributes or {}, loc=self.location, ip=self.ip).results[0]

    def constant(self, value, element: str) -> ir.Value:
        shape = [1] * self.shape.rank
        spelling = "x".join(map(str, shape + [element]))
        literal = repr(float(value)) if element.startswith(("f", "bf")) else str(int(value))
        attribute = ir.Attribute.parse(f"dense<{literal}> : tensor<{spelling}>")
        return ir.Operation.create("tosa.const", results=[attribute.type], attributes={"values": attribute},
                                   loc=self.location, ip=self.ip).results[0]

    def cast(self, value: ir.Value, element: str) -> ir.Value:
        return self.op("tosa.cast", element, [value])

    def i64(self, name: str, *operands) -> ir.Value:
        """An i64 op; an int operand is a constant."""
        return self.op(name, "i64", [self.constant(v, "i64") if isinstance(v, int) else v for v in operands])

    def mul(self, a: ir.Value, b: ir.Value) -> ir.Value:
        shift = ir.Attribute.parse("dense<0> : tensor<1xi8>")
        zero = ir.Operation.create("tosa.const", results=[shift.type], attributes={"values": shift},
                                   loc=self.location, ip=self.ip).results[0]
        return self.op("tosa.mul", "f32", [a, b, zero])


def _rewrite(cast: ir.Operation, source: ir.RankedTensorType) -> None:
    b = _Builder(cast, source)
    x = cast.operands[0]
    if str(source.element_type) != "f32":
        x = b.cast(x, "f32")
    small = b.cast(b.cast(x, "i32"), "i64")
    hi = b.op("tosa.floor", "f32", [b.mul(x, b.constant(2.0**-32, "f32"))])
    lo = b.op("tosa.sub", "f32", [x, b.mul(hi, b.constant(2.0**32, "f32"))])
    lo_centred = b.op("tosa.sub", "f32", [lo, b.constant(2.0**31, "f32")])
    hi_shifted = b.op("tosa.logical_left_shift", "i64", [b.cast(b.cast(hi, "i32"), "i64"), b.constant(32, "i64")])
    big = b.op("tosa.add", "i64", [hi_shifted, b.cast(b.cast(lo_centred, "i32"), "i64")])
    big = b.op("tosa.add", "i64", [big, b.constant(2**31, "i64")])
    # Written as "x < bound ? ... : ..." so that NaN, for which every comparison is false, takes the
    # saturated INT64_MAX as the direct cast of an f32 NaN does (ONNX leaves NaN to int undefined).
    below_max = b.op("tosa.greater", "i1", [b.constant(2.0**63, "f32"), x])
    below_min = b.op("tosa.greater", "i1", [b.constant(-(2.0**63), "f32"), x])
    big = b.op("tosa.select", "i64", [below_max, big, b.constant(_INT64_MAX, "i64")])
    big = b.op("tosa.select", "i64", [below_min, b.constant(_INT64_MIN, "i64"), big])
    narrow = b.op("tosa.greater", "i1", [b.constant(2.0**31, "f32"), b.op("tosa.abs", "f32", [x])])
    result = b.op("tosa.select", "i64", [narrow, small, big])
    cast.results[0].replace_all_uses_with(result)
    cast.erase()


def _rewrite_int64_to_float(cast: ir.Operation, source: ir.RankedTensorType, element: str) -> None:
    b = _Builder(cast, source)
    x = cast.operands[0]
    negative = b.op("tosa.greater", "i1", [b.constant(0, "i64"), x])
    magnitude = b.op("tosa.select", "i64", [negative, b.i64("tosa.sub", 0, x), x])  # INT64_MIN: 2^63 unsigned
    bits = b.i64("tosa.sub", 64, b.op("tosa.clz", "i64", [magnitude]))
    k = b.i64("tosa.maximum", b.i64("tosa.sub", bits, _PRECISION[element] + 2), 0)
    kept = b.i64("tosa.logical_right_shift", magnitude, k)
    dropped = b.i64("tosa.bitwise_and", magnitude, b.i64("tosa.sub", b.i64("tosa.logical_left_shift", 1, k), 1))
    exact = b.op("tosa.equal", "i1", [dropped, b.constant(0, "i64")])
    odd = b.i64("tosa.bitwise_or", kept, b.i64("tosa.bitwise_xor", b.cast(exact, "i64"), 1))
    value = b.cast(b.cast(odd, "i32"), "f32")
    first = b.i64("tosa.minimum", k, 30)
    for part in (first, b.i64("tosa.sub", k, first)):
        value = b.mul(value, b.cast(b.cast(b.i64("tosa.logical_left_shift", 1, part), "i32"), "f32"))
    value = b.op("tosa.select", "f32", [negative, b.op("tosa.sub", "f32", [b.constant(0.0, "f32"), value]), value])
    if element != "f32":
        value = b.cast(value, element)
    cast.results[0].replace_all_uses_with(value)
    cast.erase()
