"""The arithmetic every quantization op shares: exact conversions, scale and zero-point layouts,
the division and rounding of quantization, requantization, and torch-mlir's quantized form.

Exactness rules (ONNX's reference is the definition, `onnx/reference/ops/op_quantize_linear.py`):
- `x / scale` is the correctly rounded division in the division type (the scale's, or
  `precision`; float64 for an int32 x). TOSA has no division and no float64 (IREE refuses it):
  torch-mlir lowers a division to a reciprocal and a product, which is off by an ulp about a
  quarter of the time and so moves values that sit near a half-way point to the other integer.
  On TOSA the rounding of the quotient (and the quotient itself, where it is a result) is found
  exactly in float32 (exact_rounding.py).
- Rounding is `aten.round` (half to even), then the zero point is added and the value clamped
  to the type's range, in a float type where all of that is exact, then converted through si32.
- Integer accumulations (QLinearMatMul, QLinearConv, ...) run in int32; their requantization
  `acc * multiplier` runs in float64, where it is exact, as ONNX's reference computes it (on
  TOSA its rounding is found exactly in float32).
- TOSA's lowering reads unsigned tensors as signed (a `tosa.cast` from ui8 sign-extends); an
  unsigned input is widened and masked there (and for Torch output, whose consumer is unknown).
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import OnnxNode
from ..types import TensorInfo
from . import all_ones_divisor
from .exact_rounding import bound_for, correctly_rounded_quotient, rounded_product, rounded_quotient

INTEGER_RANGES = {
    "si8": (-128, 127), "ui8": (0, 255), "si16": (-32768, 32767), "ui16": (0, 65535),
    "si4": (-8, 7), "ui4": (0, 15), "si2": (-2, 1), "ui2": (0, 3), "si32": (-(2**31), 2**31 - 1),
}
FLOAT8_MAX = {"f8E4M3FN": 448.0, "f8E4M3FNUZ": 240.0, "f8E5M2": 57344.0, "f8E5M2FNUZ": 57344.0}
# torch's quantized element types for the integer types that have one.
QUANTIZED_ELEMENTS = {"si8": "!torch.qint8", "ui8": "!torch.quint8", "si32": "!torch.qint32"}
# Integer types torch-mlir has no dtype code for (it cannot convert to them).
WITHOUT_DTYPE_CODE = {"ui16", "si4", "ui4"}
_UNSIGNED_MASKS = {"ui4": 0xF, "ui8": 0xFF, "ui16": 0xFFFF}
_FLOAT_RANK = {"f16": 1, "bf16": 1, "f32": 2, "f64": 3}
# Division types whose rounding exact_rounding.py reproduces in float32.
_SIGNIFICAND_BITS = {"f32": 24, "f16": 11, "bf16": 8}
# Element types ONNX quantizes to or from that no torch dtype holds.
NO_TORCH_DTYPE = {
    "f4E2M1FN": "float4e2m1", "f8E8M0FNU": "float8e8m0", "f6E2M3FN": "float6e2m3", "f6E3M2FN": "float6e3m2",
    "si2": "int2", "ui2": "uint2", "i2": "int2",
}


def refuse_types_without_torch_dtype(node: OnnxNode):
    """Fail for operands or results of types the Torch dialect cannot compute with."""
    for value in list(node.op.operands) + list(node.op.results):
        spelling = str(value.type)
        for element, name in NO_TORCH_DTYPE.items():
            if spelling.endswith(f"x{element}>") or spelling.endswith(f",{element}>") or spelling.endswith(f"<{element}>"):
                node.fail(f"{name} tensors are not supported: the Torch dialect has no {name} dtype")


def constant(node: OnnxNode, index: int) -> np.ndarray | None:
    """Operand `index` as numpy if it is a literal, else None (4-bit and float8 literals, which
    numpy cannot read from MLIR's attributes, count as not literal)."""
    if not node.has_input(index) or node.input_info(index).element in ("si4", "ui4", *FLOAT8_MAX):
        return None
    return node.constant_input(index)


def operand(node: OnnxNode, b: TorchBuilder, index: int) -> ir.Value:
    """Input `index`; for StableHLO an unsigned literal (a uint8 weight or bias) is made again as
    an si32 literal: StableHLO's lowering to Linalg mistypes unsigned constants. Literals too large
    to read keep their type (docs/quantization.md)."""
    if node.target == "stablehlo" and node.input_info(index).element in _UNSIGNED_MASKS:
        literal = constant(node, index)
        if literal is not None:
            return b.literal(literal.astype(np.int32), "si32")
    return node.input(index)


def literal_number(node: OnnxNode, index: int):
    """A one-element operand's value (a Python float or int) if it is a literal, else None."""
    value = constant(node, index)
    if value is None or value.size != 1:
        return None
    number = value.reshape(-1)[0]
    return float(number) if np.issubdtype(value.dtype, np.floating) else int(number)


def exact_unsigned_target(node: OnnxNode) -> bool:
    """Whether unsigned tensors must be widened by masking (TOSA, and Torch output)."""
    return node.target not in ("linalg-on-tensors", "stablehlo")


def widen(node: OnnxNode, b: TorchBuilder, x: ir.Value, element: str = "si32") -> ir.Value:
    """An integer tensor as the wider signed `element`, keeping every value (unsigned included)."""
    info = b.info(x)
    if info.element == element:
        return x
    wide = b.to_dtype(x, element)
    if info.element in _UNSIGNED_MASKS and exact_unsigned_target(node):
        wide = b.op("aten.bitwise_and.Scalar", wide.type, wide, b.constant_int(_UNSIGNED_MASKS[info.element]))
    return wide


def to_float(node: OnnxNode, b: TorchBuilder, x: ir.Value, element: str) -> ir.Value:
    """`x` as float `element`: exact for integers of up to 16 bits (through si32) and floats."""
    info = b.info(x)
    if info.element in _UNSIGNED_MASKS or info.element in ("si4", "si8", "si16"):
        x = widen(node, b, x, "si32")
    return b.to_dtype(x, element)


def division_element(x_element: str, scale_element: str, precision: str | None = None) -> str:
    """The type `x / scale` is computed in: `precision`, else numpy's promotion of the two."""
    if precision:
        return precision
    if x_element == "si32":
        return "f64"
    if x_element == scale_element:
        return x_element
    if {x_element, scale_element} == {"f16", "bf16"}:
        return "f32"
    return max((x_element, scale_element), key=lambda element: _FLOAT_RANK.get(element, 0))


def divide(node: OnnxNode, b: TorchBuilder, x: ir.Value, scale: ir.Value, element: str) -> ir.Value:
    """The correctly rounded quotient `x / scale` in float `element` (see the module docstring).
    For the large tensors of a quantization, `quotient_to_integer` is cheaper on TOSA."""
    if node.target == "tosa" and element in _SIGNIFICAND_BITS:
        # float32's correctly rounded quotient of float16 (bfloat16) numbers rounds to theirs
        # (a division rounded twice is rounded once when the first precision is 2p + 2 bits).
        quotient = correctly_rounded_quotient(b, to_float(node, b, x, "f32"), to_float(node, b, scale, "f32"))
        return b.to_dtype(quotient, element)
    quotient = b.binary("aten.div.Tensor", to_float(node, b, x, element), to_float(node, b, scale, element))
    return b.to_dtype(quotient, element)


def divide_by_all_ones(node: OnnxNode, b: TorchBuilder, x: ir.Value, divisor: int) -> ir.Value:
    """RN32(x / divisor) for a float32 x >= 0 and divisor = 2^a - 1 (DynamicQuantizeLinear's
    255); on TOSA exactly in about 30 float32 ops (all_ones_divisor.py)."""
    if node.target == "tosa":
        return all_ones_divisor.torch_quotient(b, x, divisor)
    return divide(node, b, x, b.literal(np.float32(divisor), "f32"), "f32")


def quotient_to_integer(node: OnnxNode, b: TorchBuilder, x: ir.Value, scale: ir.Value, zero_point: ir.Value | None,
                        element: str, division: str, bounds: tuple[int, int] | None = None) -> ir.Value:
    """saturate(round_half_even(x / scale) + zero_point), the quotient correctly rounded to
    `division` first. On TOSA, for float x, exactly in float32 (exact_rounding.py: TOSA has no
    float64 and no division), a float64 division's rounding included."""
    bits = {**_SIGNIFICAND_BITS, "f64": 53}.get(division)
    if node.target == "tosa" and bits and b.info(x).element in _SIGNIFICAND_BITS:
        low, high = bounds or INTEGER_RANGES[element]
        rounded = rounded_quotient(b, to_float(node, b, x, "f32"), to_float(node, b, scale, "f32"), bits,
                                   bound_for(low, high))
        return round_to_integer(node, b, rounded, zero_point, element, bounds, rounded=True)
    return round_to_integer(node, b, divide(node, b, x, scale, division), zero_point, element, bounds)


def round_to_integer(node: OnnxNode, b: TorchBuilder, q: ir.Value, zero_point: ir.Value | None,
                     element: str, bounds: tuple[int, int] | None = None, rounded: bool = False) -> ir.Value:
    """saturate(round_half_even(q) + zero_point) as integer `element` (clamped to `bounds`,
    default the element's range); `rounded`: q already holds integers."""
    low, high = bounds or INTEGER_RANGES[element]
    if not rounded:
        q = b.op("aten.round", q.type, q)
    if b.info(q).element in ("f16", "bf16"):
        q = b.to_dtype(q, "f32")  # the zero point is added where it is exact
    if zero_point is not None:
        q = b.binary("aten.add.Tensor", q, to_float(node, b, zero_point, b.info(q).element))
    q = b.op("aten.clamp", q.type, q, b.constant_float(low), b.constant_float(high))
    q = b.to_dtype(q, "si32")
    if element not in WITHOUT_DTYPE_CODE:
        return b.to_dtype(q, element)
    # torch-mlir maps no dtype code to ui16 (its lowerings abort on one), torch has none for 4-bit
    # types: the result is made by an addition whose result type is `element`, which the
    # lowerings compute in that type.
    if zero_point is not None and b.info(zero_point).element == element:
        base = zero_point
        q = b.binary("aten.sub.Tensor", q, widen(node, b, zero_point))
    elif node.target == "tosa":
        node.fail(f"a {element} result without a {element} zero point is not supported on TOSA")
    else:
        base = b.literal(np.zeros((), dtype=np.int64), element)
    return b.op("aten.add.Tensor", b.tensor_type(b.info(q).sizes, element), base, q, b.constant_int(1))


def parameter_layout(node: OnnxNode, x_info: TensorInfo, p_info: TensorInfo, axis: int, block_size: int,
                     what: str) -> tuple[str, int]:
    """How a scale or zero point applies to x: ("tensor" | "axis" | "block", normalized axis)."""
    if p_info.rank is None or x_info.rank is None:
        node.fail(f"{what} and the input need static ranks")
    rank = x_info.rank
    if p_info.rank == 0 or (p_info.rank == 1 and p_info.sizes[0] == 1 and not block_size):
        return "tensor", 0
    axis = node.axis(axis, max(rank, 1))
    if block_size > 0:
        if p_info.rank != rank:
            node.fail(f"blocked quantization needs a {what} of the input's rank {rank}, not {p_info.rank}")
        return "block", axis
    if p_info.rank != 1:
        node.fail(f"a {what} of rank {p_info.rank} needs block_size (blocked quantization)")
    size, wanted = p_info.sizes[0], x_info.sizes[axis] if rank else 1
    if size is not None and wanted is not None and size != wanted:
        node.fail(f"per-axis {what} has {size} values for {wanted} elements of axis {axis}")
    return "axis", axis


def expand_parameter(node: OnnxNode, b: TorchBuilder, p: ir.Value, x_info: TensorInfo, layout: str, axis: int,
                     block_size: int, what: str) -> ir.Value:
    """A scale or zero point shaped to broadcast against x (see parameter_layout)."""
    info = b.info(p)
    if layout == "tensor":
        return b.reshape(p, [], []) if info.rank else p
    if layout == "axis":
        if x_info.rank <= 1:
            return p
        sizes = [1] * x_info.rank
        sizes[axis] = -1 if info.sizes[0] is None else info.sizes[0]
        return b.reshape(p, sizes, [None if s == -1 else s for s in sizes])
    length, blocks = x_info.sizes[axis], info.sizes[axis]
    if length is None:
        node.fail(f"blocked quantization needs a static size of the blocked axis {axis}")
    if blocks is not None and blocks != -(-length // block_size):
        node.fail(f"{what} has {blocks} blocks on axis {axis}, not ceil({length} / block_size {block_size})")
    indices = b.literal(np.arange(length, dtype=np.int64) // block_size, "si64")
    sizes = list(info.sizes)
    sizes[axis] = length
    return b.op("aten.index_select", b.tensor_type(sizes, info.element), p, b.constant_int(axis), indices)


def quantized_form_allowed(node: OnnxNode, *elements: str) -> bool:
    """Whether torch-mlir's quantized tensor form of these integer types lowers exactly for the
    target: Linalg (and Torch output) takes qint8 and quint8; TOSA only qint8 (it reads quint8
    as signed); StableHLO none (its lowering emits `!quant.uniform` types it then cannot lower)."""
    allowed = {None: {"si8", "ui8"}, "linalg-on-tensors": {"si8", "ui8"}, "tosa": {"si8"}}.get(node.target, set())
    return all(element in allowed for element in elements)


def make_quantized(b: TorchBuilder, x: ir.Value, scale: float, zero_point: int) -> ir.Value:
    """`aten._make_per_tensor_quantized_tensor`: the integer tensor x read as quantized."""
    info = b.info(x)
    result = b.tensor_type(info.sizes, QUANTIZED_ELEMENTS[info.element])
    return b.op("aten._make_per_tensor_quantized_tensor", result, x, b.constant_float(scale), b.constant_int(zero_point))


def to_signed_byte(node: OnnxNode, b: TorchBuilder, x: ir.Value, zero_point: int) -> tuple[ir.Value, int]:
    """A ui8 tensor and zero point as si8 ones with the same differences (x - 128, zp - 128):
    TOSA's quantized kernels take signed bytes only."""
    if b.info(x).element != "ui8":
        return x, zero_point
    wide = widen(node, b, x)
    shifted = b.op("aten.sub.Scalar", wide.type, wide, b.constant_int(128), b.constant_int(1))
    return b.to_dtype(shifted, "si8"), zero_point - 128


def requantize(node: OnnxNode, b: TorchBuilder, accumulator: ir.Value, multiplier: ir.Value,
               zero_point: ir.Value | None, element: str) -> ir.Value:
    """saturate(round(accumulator * multiplier) + zero_point): the product in float64 (exact for
    an int32 accumulator and a float32 multiplier up to the final rounding); on TOSA the same
    rounding in float32 (exact_rounding.py)."""
    if node.target == "tosa" and b.info(multiplier).element == "f32":
        low, high = INTEGER_RANGES[element]
        rounded = rounded_product(b, widen(node, b, accumulator), multiplier, 53, bound_for(low, high))
        return round_to_integer(node, b, rounded, zero_point, element, rounded=True)
    product = b.binary("aten.mul.Tensor", b.to_dtype(accumulator, "f64"), b.to_dtype(multiplier, "f64"))
    return round_to_integer(node, b, product, zero_point, element)
