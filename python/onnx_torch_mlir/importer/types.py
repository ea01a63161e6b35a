"""ONNX types -> MLIR types, for both spellings.

The torch-ONNX spelling uses torch-mlir's conventions: signed integers are
`si<N>`, unsigned `ui<N>`, bool `i1`, and tensors are `!torch.vtensor<[dims],dtype>`
(`?` for a dimension shape inference could not fix, `*` for an unknown rank).
The ONNX-dialect spelling uses onnx-mlir's: builtin `tensor<...>` types with
signless `i<N>` for signed integers, `ui<N>` for unsigned, `!onnx.Seq<...>`,
`!onnx.Opt<...>` and `!onnx.String`.
"""

import onnx
from onnx import TensorProto
from torch_mlir import ir

from ..errors import ImportError_

# ONNX element type -> MLIR element type spelling, for the torch-ONNX form.
TORCH_ELEMENT_TYPES = {
    TensorProto.FLOAT: "f32",
    TensorProto.UINT8: "ui8",
    TensorProto.INT8: "si8",
    TensorProto.UINT16: "ui16",
    TensorProto.INT16: "si16",
    TensorProto.INT32: "si32",
    TensorProto.INT64: "si64",
    TensorProto.BOOL: "i1",
    TensorProto.FLOAT16: "f16",
    TensorProto.DOUBLE: "f64",
    TensorProto.UINT32: "ui32",
    TensorProto.UINT64: "ui64",
    TensorProto.COMPLEX64: "complex<f32>",
    TensorProto.COMPLEX128: "complex<f64>",
    TensorProto.BFLOAT16: "bf16",
    TensorProto.FLOAT8E4M3FN: "f8E4M3FN",
    TensorProto.FLOAT8E4M3FNUZ: "f8E4M3FNUZ",
    TensorProto.FLOAT8E5M2: "f8E5M2",
    TensorProto.FLOAT8E5M2FNUZ: "f8E5M2FNUZ",
    TensorProto.UINT4: "ui4",
    TensorProto.INT4: "si4",
    TensorProto.FLOAT4E2M1: "f4E2M1FN",
    TensorProto.FLOAT8E8M0: "f8E8M0FNU",
    # The Torch dialect has no 2-bit dtypes: 2-bit values are held exactly in 8 bits.
    TensorProto.UINT2: "ui8",
    TensorProto.INT2: "si8",
}

# The ONNX dialect spells signed integers signless, as onnx-mlir does.
ONNX_ELEMENT_TYPES = {
    code: spelling.replace("si", "i") if spelling.startswith("si") else spelling
    for code, spelling in TORCH_ELEMENT_TYPES.items()
}
ONNX_ELEMENT_TYPES.update(
    {
        TensorProto.UINT2: "ui2",
        TensorProto.INT2: "i2",
        TensorProto.FLOAT6E2M3: "f6E2M3FN",
        TensorProto.FLOAT6E3M2: "f6E3M2FN",
        TensorProto.STRING: "!onnx.String",
    }
)

# ONNX element types whose values are packed several to a byte in raw_data.
SUB_BYTE_BITS = {
    TensorProto.UINT4: 4,
    TensorProto.INT4: 4,
    TensorProto.FLOAT4E2M1: 4,
    TensorProto.UINT2: 2,
    TensorProto.INT2: 2,
}


def element_type_name(code: int) -> str:
    try:
        return TensorProto.DataType.Name(code)
    except ValueError:
        return f"unknown element type {code}"


class TypeMapper:
    """Maps ONNX types to MLIR types of one spelling, caching parsed types.

    `form` is "torch-onnx" or "onnx". `where` is a callable giving the
    "file: node" prefix for error messages.
    """

    def __init__(self, context: ir.Context, form: str):
        self.context = context
        self.form = form
        self.element_types = TORCH_ELEMENT_TYPES if form == "torch-onnx" else ONNX_ELEMENT_TYPES
        self._cache: dict[str, ir.Type] = {}
        self._tensors: dict[tuple, ir.Type] = {}

    def parse(self, spelling: str) -> ir.Type:
        found = self._cache.get(spelling)
        if found is None:
            found = self._cache[spelling] = ir.Type.parse(spelling, self.context)
        return found

    def element_spelling(self, code: int) -> str:
        spelling = self.element_types.get(code)
        if spelling is None:
            raise ImportError_(f"element type {element_type_name(code)} has no MLIR equivalent in the {self.form} form")
        return spelling

    def element_type(self, code: int) -> ir.Type:
        return self.parse(self.element_spelling(code))

    def tensor(self, code: int, dims) -> ir.Type:
        """A tensor type; `dims` is a sequence of int or None (dynamic), or None for unranked."""
        key = (code, None if dims is None else tuple(dims))
        found = self._tensors.get(key)
        if found is None:
            found = self._tensors[key] = self._parse_tensor(code, dims)
        return found

    def _parse_tensor(self, code: int, dims) -> ir.Type:
        element = self.element_spelling(code)
        if self.form == "torch-onnx":
            shape = "*" if dims is None else "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"
            return self.parse(f"!torch.vtensor<{shape},{element}>")
        if dims is None:
            return self.parse(f"tensor<*x{element}>")
        return self.parse("tensor<" + "".join(("?" if d is None else str(d)) + "x" for d in dims) + element + ">")

    def none(self) -> ir.Type:
        return self.parse("!torch.none" if self.form == "torch-onnx" else "none")

    def from_type_proto(self, type_proto: onnx.TypeProto) -> ir.Type | None:
        """The MLIR type of an ONNX TypeProto, or None when it carries no type."""
        kind = type_proto.WhichOneof("value")
        if kind == "tensor_type":
            tensor_type = type_proto.tensor_type
            if tensor_type.elem_type == TensorProto.UNDEFINED:
                return None
            return self.tensor(tensor_type.elem_type, _dims(tensor_type))
        if kind == "sequence_type":
            element = self.from_type_proto(type_proto.sequence_type.elem_type)
            return None if element is None else self._container("sequence", element)
        if kind == "optional_type":
            element = self.from_type_proto(type_proto.optional_type.elem_type)
            return None if element is None else self._container("optional", element)
        if kind is None:
            return None
        raise ImportError_(f"ONNX {kind.replace('_', ' ')}s have no MLIR equivalent in the {self.form} form")

    def _container(self, kind: str, element: ir.Type) -> ir.Type:
        if self.form == "torch-onnx":
            inner = str(element).removeprefix("!torch.")
            return self.parse(f"!torch.{'list' if kind == 'sequence' else 'optional'}<{inner}>")
        return self.parse(f"!onnx.{'Seq' if kind == 'sequence' else 'Opt'}<{element}>")


def _dims(tensor_type) -> list | None:
    if not tensor_type.HasField("shape"):
        return None
    # A negative dim_value (some shape inference results) is as unknown as a dim_param.
    return [dim.dim_value if dim.HasField("dim_value") and dim.dim_value >= 0 else None for dim in tensor_type.shape.dim]
