"""Emulating 8-bit and 4-bit floats, which MLIR's LLVM lowering cannot compute with.

LLVM has no float8 or float4 types: MLIR's LLVM type converter stores an
f8E4M3FN as an i8 (an f4E2M1FN as an i4, one byte in memory), so loads, stores,
copies and `arith.select`s of them lower as they are, but a conversion
(`arith.truncf` / `arith.extf`) or any arithmetic on them does not. This module
rewrites a program (bufferized and in loops, before the arith-to-LLVM
conversion) so that none is left:

1. `arith-emulate-unsupported-floats` turns arithmetic on these types into f32
   arithmetic between `arith.extf` and `arith.truncf` (exact for +, -, *, / and
   comparisons: f32 has more than twice their precision plus two bits, so the
   second rounding never differs from a direct one);
2. every `arith.extf` from, and `arith.truncf` to, one of them becomes a call
   to a helper function doing the conversion in integer arithmetic on the bit
   pattern, with an `arith.bitcast` between the type and its integer storage;
3. scalar `arith.constant`s of them become integer constants and a bitcast.

The conversions are those of `arith.truncf` / `arith.extf` (and of ml_dtypes
and ONNX's Cast without saturation): round to nearest, ties to even, from the
exact source value (f16, bf16 and f32 are first widened to f64, exactly);
subnormals kept; a value beyond the largest finite one becomes infinity where
the type has one, else NaN (NaN keeps its sign where the type has a signed
NaN); FNUZ types have no negative zero (-0 becomes +0) and one NaN, 0x80.
Saturation (ONNX Cast's `saturate`) is a clamp the conversion emits before.
Converting to f8E8M0FNU or f4E2M1FN is refused (nothing emits it: ONNX's
rounding modes for E8M0 are not arith's, and Torch has no float4 dtype to cast
to); converting from every type here is supported.
"""

from dataclasses import dataclass

from torch_mlir import ir
from torch_mlir.dialects import arith, func

from onnx_torch_mlir.errors import RunnerError
from onnx_torch_mlir.runtime.dtypes import SMALL_FLOAT_DTYPES


@dataclass(frozen=True)
class SmallFloat:
    """The encoding of a float type narrower than 16 bits."""

    name: str  # MLIR spelling
    bits: int  # storage width (the integer type the bit pattern is bitcast to)
    mantissa_bits: int
    bias: int
    signed: bool  # a sign bit (E8M0 has none)
    subnormals: bool  # exponent field 0 denotes subnormals (E8M0: 2^-bias)
    max_finite: int  # the code of the largest finite magnitude
    infinity: int | None  # the code of +infinity, if any
    nan: int | None  # the code of NaN (with the sign bit clear unless unsigned_nan)
    unsigned_nan: bool = False  # FNUZ: the only NaN is the code `nan` itself (0x80)
    encodable: bool = True  # arith.truncf to this type is emulated

    @property
    def storage(self) -> str:
        return f"i{self.bits}"

    @property
    def min_normal_exponent(self) -> int:
        return 1 - self.bias


SMALL_FLOATS = {
    f.name: f
    for f in (
        SmallFloat("f8E4M3FN", 8, 3, 7, True, True, 0x7E, None, 0x7F),
        SmallFloat("f8E4M3FNUZ", 8, 3, 8, True, True, 0x7F, None, 0x80, unsigned_nan=True),
        SmallFloat("f8E5M2", 8, 2, 15, True, True, 0x7B, 0x7C, 0x7E),
        SmallFloat("f8E5M2FNUZ", 8, 2, 16, True, True, 0x7F, None, 0x80, unsigned_nan=True),
        SmallFloat("f8E4M3", 8, 3, 7, True, True, 0x77, 0x78, 0x7C),
        SmallFloat("f8E8M0FNU", 8, 0, 127, False, False, 0xFE, None, 0xFF, encodable=False),
        SmallFloat("f4E2M1FN", 4, 1, 1, True, True, 0x7, None, None, encodable=False),
    )
}

HELPER_PREFIX = "otm_small_float_"


def uses_small_floats(module: ir.Module) -> bool:
    """Whether any op of the program takes or yields a value of (or shaped of) an emulated type."""
    found: list[bool] = []

    def find(operation: ir.Operation) -> ir.WalkResult:
        for value in list(operation.operands) + list(operation.results):
            if _element_name(value.type) in SMALL_FLOATS:
                found.append(True)
                return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.operation.walk(find)
    return bool(found)


def _element_name(value_type: ir.Type) -> str:
    if isinstance(value_type, ir.ShapedType):
        return str(value_type.element_type)
    return str(value_type)


def emulation_passes() -> list[str]:
    """Step 1 of the module docstring, as a pass pipeline."""
    types = ",".join(SMALL_FLOATS)
    return [f"func.func(arith-emulate-unsupported-floats{{source-types={types} target-type=f32}})"]


def replace_conversions(module: ir.Module) -> None:
    """Steps 2 and 3 of the module docstring, in place."""
    conversions: list[ir.Operation] = []

    def collect(operation: ir.Operation) -> ir.WalkResult:
        if operation.name in ("arith.extf", "arith.truncf", "arith.constant"):
            if _small_float_involved(operation) is not None:
                conversions.append(operation)
        return ir.WalkResult.ADVANCE

    module.operation.walk(collect)
    helpers: dict[str, str] = {}
    for operation in conversions:
        with ir.Location.unknown(), ir.InsertionPoint(operation):
            if operation.name == "arith.constant":
                replacement = _constant(operation)
            else:
                replacement = _convert(operation, helpers)
        operation.results[0].replace_all_uses_with(replacement)
        operation.erase()
    _add_helpers(module, helpers)


def _small_float_involved(operation: ir.Operation) -> SmallFloat | None:
    for value in list(operation.operands) + list(operation.results):
        found = SMALL_FLOATS.get(str(value.type))
        if found is not None:
            return found
    return None


def _constant(operation: ir.Operation) -> ir.Value:
    import ml_dtypes
    import numpy as np

    small = SMALL_FLOATS[str(operation.results[0].type)]
    attribute = operation.attributes["value"]
    if not isinstance(attribute, ir.FloatAttr):
        raise RunnerError(f"a constant of {small.name} that is not a scalar ({attribute}) cannot be emulated")
    dtype = np.dtype(getattr(ml_dtypes, SMALL_FLOAT_DTYPES[small.name]))
    code = int(np.array(attribute.value).astype(dtype).view(np.uint8))
    storage = ir.IntegerType.get_signless(small.bits)
    bits = arith.ConstantOp(storage, ir.IntegerAttr.get(storage, code)).result
    return arith.BitcastOp(operation.results[0].type, bits).result




def _convert(operation: ir.Operation, helpers: dict[str, str]) -> ir.Value:
    """An `arith.extf` / `arith.truncf` with a small float on either side (or both): a small
    source decoded to its exact f32 value, a small result encoded from the value widened to
    f64 (exactly), any other side reached by a standard extf/truncf (one rounding at most)."""
    if "roundingmode" in operation.attributes and "to_nearest_even" not in str(operation.attributes["roundingmode"]):
        raise RunnerError(f"{operation.location}: {operation.name} with rounding mode "
                          f"{operation.attributes['roundingmode']} to or from a float8/float4 type cannot be "
                          "emulated by the reference CPU runner (round to nearest even only)")
    value = operation.operands[0]
    if str(value.type) in SMALL_FLOATS:
        value = _decoded(value, helpers)
    result_type = operation.results[0].type
    small = SMALL_FLOATS.get(str(result_type))
    if small is None:
        return _float_convert(value, result_type)
    if not small.encodable:
        raise RunnerError(f"a conversion to {small.name} cannot be emulated by the reference CPU runner "
                          "(only conversions from it are)")
    name = HELPER_PREFIX + "from_f64_" + small.name
    helpers.setdefault(name, _encoder_source(name, small))
    storage = ir.IntegerType.get_signless(small.bits)
    bits = func.CallOp([storage], ir.FlatSymbolRefAttr.get(name), [_float_convert(value, ir.F64Type.get())]).result
    return arith.BitcastOp(result_type, bits).result


def _decoded(value: ir.Value, helpers: dict[str, str]) -> ir.Value:
    """The exact f32 value of `value`, of a small float type."""
    small = SMALL_FLOATS[str(value.type)]
    name = HELPER_PREFIX + "to_f32_" + small.name
    helpers.setdefault(name, _decoder_source(name, small))
    bits = arith.BitcastOp(ir.IntegerType.get_signless(small.bits), value).result
    return func.CallOp([ir.F32Type.get()], ir.FlatSymbolRefAttr.get(name), [bits]).result


def _float_convert(value: ir.Value, to: ir.Type) -> ir.Value:
    """`value` (f16, bf16, f32 or f64) as `to` (one of them) by a standard extf/truncf."""
    width, target_width = ir.FloatType(value.type).width, ir.FloatType(to).width
    if value.type == to:
        return value
    if target_width > width:
        return arith.ExtFOp(to, value).result
    return arith.TruncFOp(to, value).result


def _add_helpers(module: ir.Module, helpers: dict[str, str]) -> None:
    if not helpers:
        return
    parsed = ir.Module.parse("\n".join(helpers.values()))
    with ir.InsertionPoint(module.body):
        for operation in list(parsed.body.operations):
            operation.detach_from_parent()
            ir.InsertionPoint(module.body).insert(operation)


def _decoder_source(name: str, small: SmallFloat) -> str:
    """MLIR text of `func @name(iN) -> f32`: the exact value of a bit pattern of `small`.

    value = q * 2^(E - m), with q the significand as an integer (the implicit bit
    included for normal codes) and E the exponent, computed in f64 (exact: q has
    at most 4 bits and 2^(E - m) is a normal f64), then narrowed to f32 (exact:
    every value of these types is an f32)."""
    m, bits = small.mantissa_bits, small.bits
    magnitude_mask = (1 << (bits - 1)) - 1 if small.signed else (1 << bits) - 1
    lines = [
        f"%b = arith.extui %x : i{bits} to i64",
        f"%mag = arith.andi %b, %c{magnitude_mask} : i64",
        f"%e = arith.shrui %mag, %c{m} : i64",
        f"%mant = arith.andi %mag, %c{(1 << m) - 1} : i64",
    ]
    if small.subnormals:
        lines += [
            "%normal = arith.cmpi ne, %e, %c0 : i64",
            f"%implicit = arith.select %normal, %c{1 << m}, %c0 : i64",
            "%q = arith.ori %mant, %implicit : i64",
            "%e1 = arith.maxui %e, %c1 : i64",
        ]
    else:
        lines += [f"%q = arith.ori %mant, %c{1 << m} : i64", "%e1 = arith.addi %e, %c0 : i64"]
    # The f64 exponent field of 2^(E - m) = 2^(e1 - bias - m): e1 - bias - m + 1023.
    lines += [
        f"%pe = arith.addi %e1, %c{1023 - small.bias - m} : i64",
        "%pbits = arith.shli %pe, %c52 : i64",
        "%p = arith.bitcast %pbits : i64 to f64",
        "%qf = arith.uitofp %q : i64 to f64",
        "%v64 = arith.mulf %qf, %p : f64",
        "%v = arith.truncf %v64 : f64 to f32",
    ]
    result = "%v"
    if small.signed:
        lines += [
            f"%sbit = arith.shrui %b, %c{bits - 1} : i64",
            "%neg = arith.cmpi ne, %sbit, %c0 : i64",
            "%nv = arith.negf %v : f32",
            "%sv = arith.select %neg, %nv, %v : f32",
        ]
        result = "%sv"
    if small.infinity is not None:
        lines += [
            f"%isinf = arith.cmpi eq, %mag, %c{small.infinity} : i64",
            "%inf = arith.constant 0x7F800000 : f32",
            "%ninf = arith.constant 0xFF800000 : f32",
            f"%sinf = arith.select %neg, %ninf, %inf : f32",
            f"%r1 = arith.select %isinf, %sinf, {result} : f32",
        ]
        result = "%r1"
    if small.nan is not None:
        if small.unsigned_nan:
            lines.append(f"%isnan = arith.cmpi eq, %b, %c{small.nan} : i64")
        elif small.infinity is not None:  # IEEE-like: every code above infinity's
            lines.append(f"%isnan = arith.cmpi ugt, %mag, %c{small.infinity} : i64")
        else:
            lines.append(f"%isnan = arith.cmpi eq, %mag, %c{small.nan} : i64")
        lines += ["%nan = arith.constant 0x7FC00000 : f32", f"%r2 = arith.select %isnan, %nan, {result} : f32"]
        result = "%r2"
    lines.append(f"return {result} : f32")
    return _function(name, f"%x: i{bits}", "f32", lines)


def _encoder_source(name: str, small: SmallFloat) -> str:
    """MLIR text of `func @name(f64) -> iN`: the bit pattern of `small` nearest an f64.

    With sig the f64's significand as an integer (53 bits for a normal number) and
    e its exponent, the value is sig * 2^(e - 52). The target significand q keeps
    m bits below the leading one (fewer when the result is subnormal): q is sig
    shifted right by (52 - m) + max(emin - e, 0), rounded to nearest even on the
    bits shifted out. The code is then (max(e - emin, 0) << m) + q: a carry out of
    q moves into the exponent field, as it should."""
    m, bits, emin = small.mantissa_bits, small.bits, small.min_normal_exponent
    sign_shift = bits - 1
    overflow_code = small.infinity if small.infinity is not None else small.nan
    lines = [
        "%bits = arith.bitcast %x : f64 to i64",
        "%sign = arith.shrui %bits, %c63 : i64",
        f"%abs = arith.andi %bits, %c{(1 << 63) - 1} : i64",
        f"%isnan = arith.cmpi ugt, %abs, %c{0x7FF << 52} : i64",
        "%ebits = arith.shrui %abs, %c52 : i64",
        f"%frac = arith.andi %abs, %c{(1 << 52) - 1} : i64",
        "%normal = arith.cmpi ne, %ebits, %c0 : i64",
        f"%implicit = arith.select %normal, %c{1 << 52}, %c0 : i64",
        "%sig = arith.ori %frac, %implicit : i64",
        "%eb1 = arith.maxui %ebits, %c1 : i64",
        "%e = arith.subi %eb1, %c1023 : i64",
        f"%d = arith.subi %c{emin}, %e : i64",
        "%dpos = arith.maxsi %d, %c0 : i64",
        f"%shift0 = arith.addi %dpos, %c{52 - m} : i64",
        "%shift = arith.minsi %shift0, %c63 : i64",
        "%q0 = arith.shrui %sig, %shift : i64",
        "%unit = arith.shli %c1, %shift : i64",
        "%mask = arith.subi %unit, %c1 : i64",
        "%rem = arith.andi %sig, %mask : i64",
        "%half = arith.shrui %unit, %c1 : i64",
        "%odd = arith.andi %q0, %c1 : i64",
        "%above = arith.cmpi ugt, %rem, %half : i64",
        "%tie = arith.cmpi eq, %rem, %half : i64",
        "%isodd = arith.cmpi ne, %odd, %c0 : i64",
        "%tieup = arith.andi %tie, %isodd : i1",
        "%up = arith.ori %above, %tieup : i1",
        "%inc = arith.extui %up : i1 to i64",
        "%q = arith.addi %q0, %inc : i64",
        f"%de = arith.subi %e, %c{emin} : i64",
        "%depos = arith.maxsi %de, %c0 : i64",
        f"%ef = arith.shli %depos, %c{m} : i64",
        "%enc = arith.addi %ef, %q : i64",
        f"%over = arith.cmpi sgt, %enc, %c{small.max_finite} : i64",
        f"%mag = arith.select %over, %c{overflow_code}, %enc : i64",
    ]
    if small.unsigned_nan:
        lines += [
            f"%signed = arith.shli %sign, %c{sign_shift} : i64",
            "%withsign = arith.ori %mag, %signed : i64",
            "%iszero = arith.cmpi eq, %mag, %c0 : i64",
            "%r0 = arith.select %iszero, %c0, %withsign : i64",
            "%bad = arith.ori %isnan, %over : i1",
            f"%r = arith.select %bad, %c{small.nan}, %r0 : i64",
        ]
    else:
        lines += [
            f"%m2 = arith.select %isnan, %c{small.nan}, %mag : i64",
            f"%signed = arith.shli %sign, %c{sign_shift} : i64",
            "%r = arith.ori %m2, %signed : i64",
        ]
    lines += [f"%out = arith.trunci %r : i64 to i{bits}", f"return %out : i{bits}"]
    return _function(name, "%x: f64", f"i{bits}", lines)


def _function(name: str, arguments: str, result: str, lines: list[str]) -> str:
    """A private function with `lines` as its body, every `%cN` it uses defined as an i64 constant."""
    import re

    constants = sorted({int(n) for line in lines for n in re.findall(r"%c(-?\d+)\b", line)})
    definitions = [f"%c{n} = arith.constant {n} : i64".replace("%c-", "%cm") for n in constants]
    body = [re.sub(r"%c-(\d+)", r"%cm\1", line) for line in lines]
    text = "\n    ".join(definitions + body)
    return f"func.func private @{name}({arguments}) -> {result} {{\n    {text}\n}}"
