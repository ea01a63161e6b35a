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


def numpy_dtype_for(element_type: str, where: str) -> np.dtype:
    """The numpy dtype for an MLIR element type spelled `element_type`.

    `where` names the value for the error message ("argument 0", "result 1").
    Raises UnsupportedTypeError for anything the runner cannot exchange.
    """
    dtype = _NUMPY_DTYPE_OF_ELEMENT.get(element_type)
    if dtype is not None:
        return dtype
    if element_type.startswith("f8"):
        raise UnsupportedTypeError(
            f"float8 type {element_type} ({where}) cannot be lowered to native code "
            "by MLIR's LLVM lowering in this toolchain"
        )
    raise UnsupportedTypeError(
        f"element type {element_type} ({where}) is not supported by the reference CPU runner"
    )


def accepts_input_dtype(expected: np.dtype, given: np.dtype) -> bool:
    """Whether an array of dtype `given` may be passed where `expected` is declared.

    Integers match by byte width regardless of signedness (Linalg's integers are
    signless); every other kind must match exactly.
    """
    if expected.kind in "iu":
        return given.kind in "iu" and given.itemsize == expected.itemsize
    return given == expected
