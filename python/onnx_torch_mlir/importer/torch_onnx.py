"""The torch-ONNX spelling, following torch-mlir's importer rules to the letter.

- the graph is a `func.func` named after the graph, carrying the model's
  metadata as `torch.onnx_meta.{ir_version,producer_name,producer_version,
  opset_version,opset_versions}`;
- a node is `torch.operator "onnx.<OpType>"` (default domain; another domain
  `d` gives `"d.<OpType>"`, so domains are never confused) with attributes
  `torch.onnx.<name>` (see attributes.py), results `!torch.vtensor<[dims],dtype>`;
- an absent optional input is one `torch.constant.none` per block;
- initializers and `Constant` nodes are `torch.operator "onnx.Constant"` with a
  `torch.onnx.value` tensor attribute;
- ConstantOfShape whose shape is a constant is the special form
  `torch.vtensor.literal(dense<value> : tensor<dims x dtype>)`;
- a subgraph (If, Loop, Scan) is a region of the operator, terminated by
  `torch.operator_terminator`, regions ordered by attribute name.
"""

import numpy as np
import onnx
from torch_mlir import ir
from torch_mlir.dialects import func

from .attributes import AttributeConverter
from .tensors import TensorConverter
from .types import TypeMapper

DEFAULT_DOMAINS = ("", "ai.onnx")
# ConstantOfShape's default value: a float 0.
DEFAULT_FILL = onnx.helper.make_tensor("value", onnx.TensorProto.FLOAT, [1], [0.0])
# Constant shapes are read for ConstantOfShape only up to this many dimensions.
MAX_CONSTANT_SHAPE_RANK = 64


def op_name(node: onnx.NodeProto) -> str:
    domain = "onnx" if node.domain in DEFAULT_DOMAINS else node.domain
    return f"{domain}.{node.op_type}"


class TorchOnnxEmitter:
    form = "torch-onnx"

    def __init__(self, context: ir.Context, weights):
        self.types = TypeMapper(context, self.form)
        self.tensors = TensorConverter(self.types, weights)
        self.attributes = AttributeConverter(self.tensors)
        self.constant_shapes = {}  # value name -> small int64 array, for ConstantOfShape
        self.fill_values = {}  # serialized ConstantOfShape value -> its element attribute
        self.op_names = {}  # (domain, op type) -> the `name` attribute
        self.weights = weights
        self.si64 = ir.IntegerType.get_signed(64, context)

    def main_function(self, module, model, inputs, argument_types, location):
        return self._function(module, model, inputs, argument_types, location, private=False)

    def private_function(self, module, model, inputs, argument_types, location):
        """A model-local function kept as a function (metadata from its own opsets)."""
        return self._function(module, model, inputs, argument_types, location, private=True)

    def _function(self, module, model, inputs, argument_types, location, private: bool):
        function_type = ir.FunctionType.get(argument_types, [])
        with ir.InsertionPoint(module.body):
            function = func.FuncOp(model.graph.name or "main_graph", function_type, visibility="private" if private else None)
        block = function.add_entry_block([location(value.name) for value in inputs])
        for name, value in self._metadata(model).items():
            function.attributes[name] = value
        return function, block

    def call(self, name: str, operands, result_types) -> list:
        return list(func.CallOp(result_types, ir.FlatSymbolRefAttr.get(name), operands).results)

    def _metadata(self, model) -> dict:
        versions = {}
        default_version = None
        for opset in model.opset_import:
            if opset.domain in DEFAULT_DOMAINS:
                default_version = opset.version
            else:
                versions[opset.domain] = ir.IntegerAttr.get(self.si64, opset.version)
        metadata = {}
        if default_version is not None:
            metadata["torch.onnx_meta.opset_version"] = ir.IntegerAttr.get(self.si64, default_version)
        if versions:
            metadata["torch.onnx_meta.opset_versions"] = ir.DictAttr.get(versions)
        metadata["torch.onnx_meta.ir_version"] = ir.IntegerAttr.get(self.si64, model.ir_version)
        metadata["torch.onnx_meta.producer_name"] = ir.StringAttr.get(model.producer_name)
        metadata["torch.onnx_meta.producer_version"] = ir.StringAttr.get(model.producer_version)
        return metadata

    def function_return(self, function, results, names):
        func.ReturnOp(results)
        function.attributes["function_type"] = ir.TypeAttr.get(
            ir.FunctionType.get(function.type.inputs, [value.type for value in results])
        )

    def region_terminator(self, results):
        ir.Operation.create("torch.operator_terminator", operands=results)

    def none(self) -> ir.Value:
        return ir.Operation.create("torch.constant.none", results=[self.types.none()]).result

    def initializer(self, tensor: onnx.TensorProto, main_graph: bool) -> ir.Value:
        value = self.tensors.attribute(tensor, main_graph_initializer=main_graph)
        self._remember_shape(tensor.name, tensor, main_graph)
        return self._constant(value, self.types.tensor(tensor.data_type, list(tensor.dims)))

    def _constant(self, value: ir.Attribute, result_type: ir.Type) -> ir.Value:
        attributes = {"name": ir.StringAttr.get("onnx.Constant"), "torch.onnx.value": value}
        return ir.Operation.create("torch.operator", results=[result_type], attributes=attributes).result

    def node(self, node: onnx.NodeProto, operands, result_types):
        """(the op, its GRAPH attributes in region order), or (the result values, []) for a special form."""
        if node.domain in DEFAULT_DOMAINS:
            if node.op_type == "Constant":
                self._remember_constant_node(node)
            elif node.op_type == "ConstantOfShape":
                literal = self._constant_of_shape(node, result_types[0])
                if literal is not None:
                    return [literal], []
        attributes = {"name": self._op_name(node)}
        graphs = []
        for attribute in node.attribute:
            if attribute.type == onnx.AttributeProto.GRAPH:
                graphs.append(attribute)
            else:
                attributes[f"torch.onnx.{attribute.name}"] = self.attributes.convert(node, attribute)
        graphs.sort(key=lambda attribute: attribute.name)
        if graphs and node.domain not in DEFAULT_DOMAINS:  # which graph attribute each region is (FlexAttention)
            attributes["torch.onnx_meta.region_names"] = ir.ArrayAttr.get([ir.StringAttr.get(g.name) for g in graphs])
        operation = ir.Operation.create(
            "torch.operator", results=result_types, operands=operands, attributes=attributes, regions=len(graphs)
        )
        return operation, graphs

    def _op_name(self, node: onnx.NodeProto) -> ir.StringAttr:
        key = (node.domain, node.op_type)
        found = self.op_names.get(key)
        if found is None:
            found = self.op_names[key] = ir.StringAttr.get(op_name(node))
        return found

    def _remember_constant_node(self, node: onnx.NodeProto) -> None:
        for attribute in node.attribute:
            if attribute.name == "value" and attribute.type == onnx.AttributeProto.TENSOR and node.output:
                self._remember_shape(node.output[0], attribute.t, False)

    def _remember_shape(self, name: str, tensor: onnx.TensorProto, main_graph: bool) -> None:
        if tensor.data_type != onnx.TensorProto.INT64 or len(tensor.dims) != 1 or tensor.dims[0] > MAX_CONSTANT_SHAPE_RANK:
            return
        raw = self.weights.raw_buffer(tensor, main_graph)
        values = np.frombuffer(raw, dtype="<i8") if raw is not None else np.asarray(tensor.int64_data, dtype=np.int64)
        if values.size == tensor.dims[0]:
            self.constant_shapes[name] = [int(value) for value in values]

    def _constant_of_shape(self, node: onnx.NodeProto, result_type: ir.Type):
        shape = self.constant_shapes.get(node.input[0]) if node.input else None
        if shape is None or any(dim < 0 for dim in shape):
            return None
        fill = next((a.t for a in node.attribute if a.name == "value" and a.type == onnx.AttributeProto.TENSOR), None)
        if fill is None:
            fill = DEFAULT_FILL
        if self.types.tensor(fill.data_type, shape) != result_type:
            return None
        scalar = self._fill_value(fill)
        if scalar is None:
            return None
        splat_type = ir.RankedTensorType.get(shape, self.types.element_type(fill.data_type))
        value = ir.DenseElementsAttr.get_splat(splat_type, scalar)
        return ir.Operation.create("torch.vtensor.literal", results=[result_type], attributes={"value": value}).result

    def _fill_value(self, fill: onnx.TensorProto):
        """The one element of ConstantOfShape's `value`, or None; cached (light models have thousands)."""
        key = fill.SerializeToString()
        if key not in self.fill_values:
            scalar = self.tensors.attribute(fill)
            splat = isinstance(scalar, ir.DenseElementsAttr) and scalar.is_splat
            self.fill_values[key] = scalar.get_splat_value() if splat else None
        return self.fill_values[key]
