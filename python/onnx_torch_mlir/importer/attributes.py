"""ONNX node attributes -> MLIR attributes, for both spellings.

| ONNX type   | torch-ONNX (`torch.onnx.<name>`) | ONNX dialect (`<name>`)        |
|-------------|----------------------------------|--------------------------------|
| FLOAT       | f32 FloatAttr                    | f32 FloatAttr                  |
| INT         | si64 IntegerAttr                 | si64 IntegerAttr               |
| STRING      | StringAttr                       | StringAttr                     |
| TENSOR      | elements attr (see tensors.py)   | same, signless integer types   |
| FLOATS      | ArrayAttr of f32                 | ArrayAttr of f32               |
| INTS        | ArrayAttr of si64                | ArrayAttr of i64 (onnx-mlir)   |
| STRINGS     | ArrayAttr of StringAttr          | ArrayAttr of StringAttr        |
| TENSORS     | ArrayAttr of elements attrs      | same                           |
| TYPE_PROTO  | TypeAttr (special form)          | TypeAttr                       |
| GRAPH       | a region of the op, not an attribute                              |

Cast's `to` (an element type code) is a TypeAttr in the ONNX dialect, as in
onnx-mlir. SPARSE_TENSOR(S), GRAPHS and TYPE_PROTOS have no encoding: an op
carrying one is refused with an error naming the node and the attribute.
"""

import onnx
from onnx import AttributeProto
from torch_mlir import ir

from ..errors import ImportError_
from .tensors import TensorConverter


class AttributeConverter:
    def __init__(self, tensors: TensorConverter):
        self.tensors = tensors
        self.types = tensors.types
        self.torch_form = tensors.types.form == "torch-onnx"
        context = self.types.context
        self.i64 = ir.IntegerType.get_signed(64, context)
        self.array_i64 = self.i64 if self.torch_form else ir.IntegerType.get_signless(64, context)
        self.f32 = ir.F32Type.get(context)

    def convert(self, node: onnx.NodeProto, attribute: AttributeProto) -> ir.Attribute:
        kind = attribute.type
        if kind == AttributeProto.FLOAT:
            return ir.FloatAttr.get(self.f32, attribute.f)
        if kind == AttributeProto.INT:
            if not self.torch_form and node.op_type == "Cast" and attribute.name == "to":
                return ir.TypeAttr.get(self.types.element_type(attribute.i))
            return ir.IntegerAttr.get(self.i64, attribute.i)
        if kind == AttributeProto.STRING:
            return _string(attribute.s)
        if kind == AttributeProto.TENSOR:
            return self.tensors.attribute(attribute.t)
        if kind == AttributeProto.FLOATS:
            return ir.ArrayAttr.get([ir.FloatAttr.get(self.f32, value) for value in attribute.floats])
        if kind == AttributeProto.INTS:
            return ir.ArrayAttr.get([ir.IntegerAttr.get(self.array_i64, value) for value in attribute.ints])
        if kind == AttributeProto.STRINGS:
            return ir.ArrayAttr.get([_string(value) for value in attribute.strings])
        if kind == AttributeProto.TENSORS:
            return ir.ArrayAttr.get([self.tensors.attribute(tensor) for tensor in attribute.tensors])
        if kind == AttributeProto.TYPE_PROTO:
            mapped = self.types.from_type_proto(attribute.tp)
            if mapped is None:
                raise ImportError_(f"attribute '{attribute.name}' holds an empty type")
            return ir.TypeAttr.get(mapped)
        kind_name = AttributeProto.AttributeType.Name(kind) if kind in AttributeProto.AttributeType.values() else str(kind)
        raise ImportError_(f"attribute '{attribute.name}' of type {kind_name} is not supported")


def _string(value: bytes) -> ir.StringAttr:
    try:
        return ir.StringAttr.get(value.decode("utf-8"))
    except UnicodeDecodeError:
        return ir.StringAttr.get(value)
