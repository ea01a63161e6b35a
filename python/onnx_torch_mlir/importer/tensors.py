"""ONNX TensorProto -> MLIR elements attribute, built on the original bytes.

- raw little-endian payloads (inline `raw_data`, a mapped model file, mapped
  external data) become `DenseResourceElementsAttr`s that reference the bytes
  in place (no copy);
- splats (every element the same bits; one-element tensors among them) become
  `DenseElementsAttr` splats, as the importer's specification says: patterns read
  scalars without touching resources, and consumers fold a bias of zeros or a
  scale of ones (IREE runs such a model's constants as splats, not as buffers);
- typed proto fields (`float_data`, `int64_data`...) become `DenseElementsAttr`;
- sub-byte types (int4, uint4, float4e2m1, int2, uint2), packed several to a
  byte in ONNX, are unpacked to MLIR's one-element-per-byte storage first.
"""

import math
import re
import weakref

import numpy as np
from onnx import TensorProto
from torch_mlir import ir

from ..errors import ImportError_
from .types import SUB_BYTE_BITS, TypeMapper, element_type_name
from .weights import WeightStore

# Element type -> (numpy storage dtype, proto field holding typed values).
# Float16/bfloat16/float8 typed values are bit patterns in int32_data.
STORAGE = {
    TensorProto.FLOAT: (np.float32, "float_data"),
    TensorProto.UINT8: (np.uint8, "int32_data"),
    TensorProto.INT8: (np.int8, "int32_data"),
    TensorProto.UINT16: (np.uint16, "int32_data"),
    TensorProto.INT16: (np.int16, "int32_data"),
    TensorProto.INT32: (np.int32, "int32_data"),
    TensorProto.INT64: (np.int64, "int64_data"),
    TensorProto.BOOL: (np.bool_, "int32_data"),
    TensorProto.FLOAT16: (np.uint16, "int32_data"),
    TensorProto.DOUBLE: (np.float64, "double_data"),
    TensorProto.UINT32: (np.uint32, "uint64_data"),
    TensorProto.UINT64: (np.uint64, "uint64_data"),
    TensorProto.COMPLEX64: (np.complex64, "float_data"),
    TensorProto.COMPLEX128: (np.complex128, "double_data"),
    TensorProto.BFLOAT16: (np.uint16, "int32_data"),
    TensorProto.FLOAT8E4M3FN: (np.uint8, "int32_data"),
    TensorProto.FLOAT8E4M3FNUZ: (np.uint8, "int32_data"),
    TensorProto.FLOAT8E5M2: (np.uint8, "int32_data"),
    TensorProto.FLOAT8E5M2FNUZ: (np.uint8, "int32_data"),
    TensorProto.FLOAT8E8M0: (np.uint8, "int32_data"),
    TensorProto.FLOAT6E2M3: (np.uint8, "int32_data"),
    TensorProto.FLOAT6E3M2: (np.uint8, "int32_data"),
    TensorProto.UINT4: (np.uint8, "int32_data"),
    TensorProto.INT4: (np.int8, "int32_data"),
    TensorProto.FLOAT4E2M1: (np.uint8, "int32_data"),
    TensorProto.UINT2: (np.uint8, "int32_data"),
    TensorProto.INT2: (np.int8, "int32_data"),
}
SIGNED_SUB_BYTE = {TensorProto.INT4, TensorProto.INT2}


class ImportedBytes(np.ndarray):
    """The raw bytes (uint8) behind one resource, and the ONNX tensor they came from: `tensor_name`,
    and `tensor_dtype`, the numpy dtype of its elements in the model (None for sub-byte types, which
    the importer unpacked). A weights file names and types each weight by them
    (transforms/external_weights.py)."""

    # Class-level defaults: a view numpy derives from these bytes has no tensor of its own.
    tensor_name: str = ""
    tensor_dtype: "np.dtype | None" = None


# The bytes behind each resource the importer made, by (context, resource name), for a transform
# that must give a weight another element type of the same width (transforms/stablehlo/unsigned.py)
# or write it outside the module (transforms/external_weights.py). MLIR holds each buffer as long
# as the resource lives; the entry goes with it.
_RESOURCE_BYTES: "weakref.WeakValueDictionary[tuple[int, str], ImportedBytes]" = weakref.WeakValueDictionary()


def resource_bytes(attribute: ir.Attribute) -> "ImportedBytes | None":
    """The raw bytes (uint8) of a `dense_resource` attribute the importer made, else None."""
    return _RESOURCE_BYTES.get(_resource_key(attribute))


def resource_over_bytes(data: ImportedBytes, name: str, tensor_type: ir.RankedTensorType, alignment: int) -> ir.Attribute:
    """A `dense_resource` of `tensor_type` over the importer's bytes `data` (no copy), known to
    `resource_bytes` like the importer's own."""
    attribute = ir.DenseResourceElementsAttr.get_from_buffer(data, name, tensor_type, alignment=alignment)
    _RESOURCE_BYTES[_resource_key(attribute)] = data
    return attribute


def resource_like(values: np.ndarray, name: str, tensor_type: ir.RankedTensorType) -> ir.Attribute:
    """A `dense_resource` of `tensor_type` over `values` (their element bytes, C order), named and
    typed like an importer weight `name`, so later steps read it as one (a transform that rewrites
    a weight, such as a filter transposed to channels-last, and the weights forms that write it)."""
    data = np.ascontiguousarray(values).reshape(-1).view(np.uint8).view(ImportedBytes)
    data.tensor_name, data.tensor_dtype = name, values.dtype
    itemsize = values.dtype.itemsize
    return resource_over_bytes(data, _resource_name(name), tensor_type, itemsize if itemsize in (1, 2, 4, 8, 16) else 1)


def _resource_key(attribute: ir.Attribute) -> tuple[int, str]:
    # One Python object stands for each live MLIR context; the printed form of a resource
    # attribute is its handle, never its data.
    handle = str(attribute).partition(" : ")[0]
    return id(attribute.context), handle


class TensorConverter:
    """Builds elements attributes for one spelling (the element types come from `types`)."""

    def __init__(self, types: TypeMapper, weights: WeightStore):
        self.types = types
        self.weights = weights

    def builtin_type(self, tensor: TensorProto) -> ir.RankedTensorType:
        return ir.RankedTensorType.get(list(tensor.dims), self.types.element_type(tensor.data_type))

    def attribute(self, tensor: TensorProto, *, main_graph_initializer: bool = False) -> ir.Attribute:
        """The value of `tensor` as an elements attribute; errors name the tensor."""
        code = tensor.data_type
        if code == TensorProto.STRING:
            return self._strings(tensor)
        if code not in STORAGE:
            raise ImportError_(f"tensor '{tensor.name}': {element_type_name(code)} is not a supported element type")
        tensor_type = self.builtin_type(tensor)
        count = math.prod(tensor.dims)
        raw = self.weights.raw_buffer(tensor, main_graph_initializer)
        if raw is None:
            return self._dense(self._typed_values(tensor, count), tensor_type)
        if code in SUB_BYTE_BITS:
            return self._resource_or_splat(_unpack_sub_byte(raw, code, count, tensor.name), tensor, tensor_type)
        dtype = np.dtype(STORAGE[code][0])
        if len(raw) != count * dtype.itemsize:
            raise ImportError_(
                f"tensor '{tensor.name}': {len(raw)} bytes of data for {count} elements of "
                f"{element_type_name(code)} (expected {count * dtype.itemsize})"
            )
        return self._resource_or_splat(raw, tensor, tensor_type, dtype)

    def _resource_or_splat(self, data, tensor, tensor_type, dtype=np.dtype(np.uint8)):
        if math.prod(tensor_type.shape) <= 1:
            return self._dense(np.frombuffer(data, dtype=dtype).copy(), tensor_type)
        if _is_splat(data, dtype):
            first = self._dense(np.frombuffer(data, dtype=dtype)[:1].copy(),
                                ir.RankedTensorType.get([1], tensor_type.element_type))
            return ir.DenseElementsAttr.get_splat(tensor_type, ir.DenseElementsAttr(first).get_splat_value())
        alignment = dtype.itemsize if dtype.itemsize in (1, 2, 4, 8, 16) else 1
        # The same bytes, as an object a weak reference can track and that knows its tensor.
        data = np.frombuffer(data, dtype=np.uint8).view(ImportedBytes)
        data.tensor_name = tensor.name
        data.tensor_dtype = None if tensor.data_type in SUB_BYTE_BITS else _model_dtype(tensor.data_type)
        return resource_over_bytes(data, _resource_name(tensor.name), tensor_type, alignment)

    @staticmethod
    def _dense(values: np.ndarray, tensor_type: ir.RankedTensorType) -> ir.Attribute:
        return ir.DenseElementsAttr.get(
            np.ascontiguousarray(values), type=tensor_type.element_type, shape=list(tensor_type.shape)
        )

    @staticmethod
    def _typed_values(tensor: TensorProto, count: int) -> np.ndarray:
        code = tensor.data_type
        dtype, field = STORAGE[code]
        values = getattr(tensor, field)
        if code in SUB_BYTE_BITS:
            packed = np.asarray(values, dtype=np.int64).astype(np.uint8)
            return _unpack_sub_byte(memoryview(packed), code, count, tensor.name)
        if code in (TensorProto.COMPLEX64, TensorProto.COMPLEX128):
            array = np.asarray(values, dtype=np.float32 if code == TensorProto.COMPLEX64 else np.float64).view(dtype)
        else:
            array = np.asarray(values).astype(dtype)
        if array.size != count:
            raise ImportError_(
                f"tensor '{tensor.name}': {array.size} values in {field} for {count} elements"
            )
        return array

    def _strings(self, tensor: TensorProto) -> ir.Attribute:
        if self.types.form == "torch-onnx":
            raise ImportError_(f"tensor '{tensor.name}': string tensors have no torch-ONNX equivalent")
        values = ", ".join(_quote(value) for value in tensor.string_data)
        shape = "".join(f"{dim}x" for dim in tensor.dims)
        return ir.Attribute.parse(f"dense<[{values}]> : tensor<{shape}!onnx.String>")


def _is_splat(data, dtype: np.dtype) -> bool:
    """Whether every element of `data` has the bits of the first (NaN and -0.0 compared as bits).
    A weight of differing values is told by its first, middle and last elements, without a scan."""
    if dtype.itemsize not in (1, 2, 4, 8):
        return False
    bits = np.frombuffer(data, dtype=np.dtype(f"u{dtype.itemsize}"))
    first = bits[0]
    if bits[-1] != first or bits[len(bits) // 2] != first:
        return False
    return bool((bits == first).all())


def _unpack_sub_byte(raw, code: int, count: int, name: str) -> memoryview:
    """ONNX packs 4-bit (2-bit) values low bits first; MLIR stores one value per byte."""
    bits = SUB_BYTE_BITS[code]
    per_byte = 8 // bits
    packed = np.frombuffer(raw, dtype=np.uint8)
    if packed.size != -(-count // per_byte):
        raise ImportError_(f"tensor '{name}': {packed.size} bytes of packed data for {count} {element_type_name(code)} values")
    shifts = np.arange(per_byte, dtype=np.uint8) * bits
    values = ((packed[:, None] >> shifts) & ((1 << bits) - 1)).reshape(-1)[:count].astype(np.uint8)
    if code in SIGNED_SUB_BYTE:
        values = np.where(values >= 1 << (bits - 1), values.astype(np.int16) - (1 << bits), values).astype(np.int8)
    return memoryview(values)


def _model_dtype(code: int) -> "np.dtype | None":
    """The numpy dtype of ONNX element type `code` (ml_dtypes for bfloat16 and float8), or None."""
    from onnx import helper

    try:
        return np.dtype(helper.tensor_dtype_to_np_dtype(code))
    except (KeyError, TypeError, ValueError):
        return None


def _resource_name(name: str) -> str:
    """A valid MLIR resource key from a tensor name (MLIR renames on collision)."""
    cleaned = re.sub(r"[^\w.]", "_", name) or "tensor"
    return cleaned if not cleaned[0].isdigit() else f"_{cleaned}"


def _quote(value: bytes) -> str:
    text = value.decode("utf-8", "replace")
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
