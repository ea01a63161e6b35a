"""Which MLIR element types the runner can exchange with numpy, and as what dtype."""

import ml_dtypes
import numpy as np

from onnx_torch_mlir.errors import UnsupportedTypeError

# The numpy dtype a result of each element type comes back as. Linalg works on
# signless integers, which come back signed (i1 as bool); `run(result_dtypes=)`
# reinterprets them when the model declares them unsigned.
_NUMPY_DTYPE_OF_ELEMENT = {
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "i1": np.dtype(np.bool_),
    "complex<f32>": np.dtype(np.complex64),
    "complex<f64>": np.dtype(np.complex128),
    "index": np.dtype(np.int64),
}
for _bits in (8, 16, 32, 64):
    _NUMPY_DTYPE_OF_ELEMENT[f"i{_bits}"] = np.dtype(f"int{_bits}")
    _NUMPY_DTYPE_OF_ELEMENT[f"si{_bits}"] = np.dtype(f"int{_bits}")
    _NUMPY_DTYPE_OF_ELEMENT[f"ui{_bits}"] = np.dtype(f"uint{_bits}")

# Sub-byte integers. LLVM gives an iN element (N < 8) a whole byte in memory
# (its alloc size rounds up to a byte), writes it zero-extended and assumes so
# when it loads it; ml_dtypes' int4/uint4/int2/uint2 arrays also hold one
# element a byte, in the low bits. So such arrays are exchanged as they are,
# once any stray high bits of an input are cleared.
_SUB_BYTE_BITS: dict[np.dtype, int] = {}
_UNSIGNED_SUB_BYTE: set[np.dtype] = set()
for _bits in (2, 4):
    if hasattr(ml_dtypes, f"int{_bits}") and hasattr(ml_dtypes, f"uint{_bits}"):
        _signed, _unsigned = np.dtype(getattr(ml_dtypes, f"int{_bits}")), np.dtype(getattr(ml_dtypes, f"uint{_bits}"))
        _NUMPY_DTYPE_OF_ELEMENT[f"i{_bits}"] = _signed
        _NUMPY_DTYPE_OF_ELEMENT[f"si{_bits}"] = _signed
        _NUMPY_DTYPE_OF_ELEMENT[f"ui{_bits}"] = _unsigned
        _SUB_BYTE_BITS[_signed] = _SUB_BYTE_BITS[_unsigned] = _bits
        _UNSIGNED_SUB_BYTE.add(_unsigned)


# 8-bit and 4-bit floats, which the runner emulates (see small_floats.py): exchanged as
# ml_dtypes arrays of one byte an element (a float4 in the low bits), or as uint8
# arrays of their bit patterns.
SMALL_FLOAT_DTYPES = {
    "f8E4M3FN": "float8_e4m3fn",
    "f8E4M3FNUZ": "float8_e4m3fnuz",
    "f8E5M2": "float8_e5m2",
    "f8E5M2FNUZ": "float8_e5m2fnuz",
    "f8E4M3": "float8_e4m3",
    "f8E8M0FNU": "float8_e8m0fnu",
    "f4E2M1FN": "float4_e2m1fn",
}
_SMALL_FLOAT_BITS: dict[np.dtype, int] = {}
for _element, _name in SMALL_FLOAT_DTYPES.items():
    if hasattr(ml_dtypes, _name):
        _NUMPY_DTYPE_OF_ELEMENT[_element] = np.dtype(getattr(ml_dtypes, _name))
        _SMALL_FLOAT_BITS[_NUMPY_DTYPE_OF_ELEMENT[_element]] = 4 if _element.startswith("f4") else 8


def numpy_dtype_for(element_type: str, where: str) -> np.dtype:
    """The numpy dtype for an MLIR element type spelled `element_type`.

    `where` names the value for the error message ("argument 0", "result 1").
    Raises UnsupportedTypeError for anything the runner cannot exchange.
    """
    dtype = _NUMPY_DTYPE_OF_ELEMENT.get(element_type)
    if dtype is not None:
        return dtype
    if element_type.startswith(("f8", "f4", "f6")):
        raise UnsupportedTypeError(
            f"float type {element_type} ({where}) is not emulated by the reference CPU runner "
            "(MLIR's LLVM lowering cannot compute with it)"
        )
    raise UnsupportedTypeError(
        f"element type {element_type} ({where}) is not supported by the reference CPU runner"
    )


def accepts_input_dtype(expected: np.dtype, given: np.dtype) -> bool:
    """Whether an array of dtype `given` may be passed where `expected` is declared.

    Integers match by byte width regardless of signedness (Linalg's integers are
    signless), sub-byte integers (ml_dtypes) by bit width; every other kind must
    match exactly.
    """
    if expected in _SMALL_FLOAT_BITS:
        return given == expected or given == np.dtype(np.uint8)  # an ml_dtypes array, or bit patterns
    if expected in _SUB_BYTE_BITS:
        return _SUB_BYTE_BITS.get(given) == _SUB_BYTE_BITS[expected]
    if given in _SUB_BYTE_BITS:
        # A 2-bit integer the program holds in a byte (the importer widens INT2/UINT2 to 8 bits):
        # every value fits, except a negative one in an unsigned byte.
        return expected.kind in "iu" and expected.itemsize == 1 and (expected.kind == "i" or given in _UNSIGNED_SUB_BYTE)
    if expected.kind in "iu":
        return given.kind in "iu" and given.itemsize == expected.itemsize
    return given == expected


def canonical_input(array: np.ndarray, expected: np.dtype) -> np.ndarray:
    """`array` (of a dtype `expected` accepts) as the bytes the compiled code reads.

    Sub-byte integers and float4s get their unused high bits cleared, which LLVM assumes.
    """
    if expected in _SMALL_FLOAT_BITS:
        mask = np.uint8((1 << _SMALL_FLOAT_BITS[expected]) - 1)
        return (array.view(np.uint8) & mask).view(expected)
    if array.dtype in _SUB_BYTE_BITS and expected not in _SUB_BYTE_BITS:
        return array.astype(expected)  # widened to the byte the program holds it in
    bits = _SUB_BYTE_BITS.get(expected)
    if bits is None:
        return array
    return (array.view(np.uint8) & np.uint8((1 << bits) - 1)).view(expected)
