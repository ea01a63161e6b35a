"""Reading the values of literals: dense elements and the `dense_resource` blobs of the importers.

The Python bindings cannot read a DenseResourceElementsAttr; MLIR's C API can,
so small resources are read through it with ctypes (our own prototypes on
fresh function objects: nobody else's are changed). Large ones are never read:
they are weights, not shape arithmetic.
"""

from __future__ import annotations

import ctypes
import functools
import os

import numpy as np
from torch_mlir import ir

# Literal inputs bigger than this are not read element by element.
MAX_READ_ELEMENTS = 1 << 16
# Boolean blobs up to this many elements are read into dense literals (one C call an element).
MAX_BOOL_BLOB_ELEMENTS = 1 << 22

_RESOURCE_GETTERS = {
    "i1": ("Bool", ctypes.c_bool), "si8": ("Int8", ctypes.c_int8), "i8": ("Int8", ctypes.c_int8),
    "ui8": ("UInt8", ctypes.c_uint8), "si16": ("Int16", ctypes.c_int16), "i16": ("Int16", ctypes.c_int16),
    "ui16": ("UInt16", ctypes.c_uint16), "si32": ("Int32", ctypes.c_int32), "i32": ("Int32", ctypes.c_int32),
    "ui32": ("UInt32", ctypes.c_uint32), "si64": ("Int64", ctypes.c_int64), "i64": ("Int64", ctypes.c_int64),
    "ui64": ("UInt64", ctypes.c_uint64), "f32": ("Float", ctypes.c_float), "f64": ("Double", ctypes.c_double),
}
NUMPY_DTYPES = {
    "i1": np.bool_, "si8": np.int8, "i8": np.int8, "ui8": np.uint8, "si16": np.int16, "i16": np.int16,
    "ui16": np.uint16, "si32": np.int32, "i32": np.int32, "ui32": np.uint32, "si64": np.int64, "i64": np.int64,
    "ui64": np.uint64, "f32": np.float32, "f64": np.float64,
}


@functools.lru_cache(maxsize=None)
def _capi():
    """(the MLIR C API library, PyCapsule_GetName, PyCapsule_GetPointer) with our own prototypes."""
    import torch_mlir._mlir_libs as libs

    library = ctypes.CDLL(os.path.join(os.path.dirname(libs.__file__), "libTorchMLIRAggregateCAPI.so"))
    library.mlirAttributeIsADenseResourceElements.argtypes = [ctypes.c_void_p]
    library.mlirAttributeIsADenseResourceElements.restype = ctypes.c_bool
    # pythonapi[...] gives fresh function objects: no prototype is changed for anyone else.
    get_name = ctypes.pythonapi["PyCapsule_GetName"]
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    get_pointer = ctypes.pythonapi["PyCapsule_GetPointer"]
    get_pointer.restype, get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return library, get_name, get_pointer


def _attribute_pointer(attribute: ir.Attribute) -> int:
    _, get_name, get_pointer = _capi()
    capsule = attribute._CAPIPtr
    return get_pointer(capsule, get_name(capsule))


def shaped_type(attribute: ir.Attribute):
    try:
        return ir.ShapedType(attribute.type)
    except (ValueError, AttributeError):
        return None


def read_resource(attribute: ir.Attribute, limit: int = MAX_READ_ELEMENTS) -> np.ndarray | None:
    """The values of a `dense_resource` elements attribute (small ones only), else None."""
    shaped = shaped_type(attribute)
    if shaped is None or not shaped.has_static_shape:
        return None
    element = str(shaped.element_type)
    count = int(np.prod(shaped.shape)) if shaped.rank else 1
    if element not in _RESOURCE_GETTERS or count > limit:
        return None
    library = _capi()[0]
    pointer = _attribute_pointer(attribute)
    if not library.mlirAttributeIsADenseResourceElements(pointer):
        return None
    name, restype = _RESOURCE_GETTERS[element]
    getter = getattr(library, f"mlirDense{name}ResourceElementsAttrGetValue")
    getter.argtypes, getter.restype = [ctypes.c_void_p, ctypes.c_long], restype
    values = [getter(pointer, i) for i in range(count)]
    return np.array(values, dtype=NUMPY_DTYPES[element]).reshape(shaped.shape)


def literal_value(value: ir.Value | None) -> np.ndarray | None:
    """The numpy value of `value` if a `torch.vtensor.literal` (dense or small resource) produces it."""
    if value is None:
        return None
    owner = value.owner
    owner = owner.operation if hasattr(owner, "operation") else owner
    if not isinstance(owner, ir.Operation) or owner.name != "torch.vtensor.literal":
        return None
    attribute = owner.attributes["value"].maybe_downcast()
    if isinstance(attribute, (ir.DenseIntElementsAttr, ir.DenseFPElementsAttr)):
        return np.array(attribute)
    if isinstance(attribute, ir.DenseElementsAttr):
        if attribute.is_splat:
            shaped = ir.ShapedType(attribute.type)
            return np.full(shaped.shape, np.array(ir.DenseElementsAttr(attribute).get_splat_value()))
        return None
    return read_resource(attribute)
