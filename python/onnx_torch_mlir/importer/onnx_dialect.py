"""The ONNX dialect spelling, the way onnx-mlir prints it.

- module attributes `onnx.ir_version`, `onnx.producer_name`,
  `onnx.producer_version` and `onnx.opset_import` (a dictionary from domain,
  `ai.onnx` for the default one, to version);
- `func.func @main_graph` with `{onnx.name = "..."}` on arguments and results,
  followed by `"onnx.EntryPoint"() {func = @main_graph}`;
- a node is the generic-form op `onnx.<OpType>` with the ONNX attribute names
  (see attributes.py) and `onnx_node_name` when the node has a name; a node of
  another domain is `"onnx.Custom"` with `domain_name` and `function_name`;
- results have builtin `tensor<...>` types (signless integers, `ui<N>` for
  unsigned), `!onnx.Seq<...>`, `!onnx.Opt<...>`;
- an absent optional input is `"onnx.NoValue"() {value} : () -> none`;
- initializers are `"onnx.Constant"() {value = dense... | dense_resource<...>}`;
- subgraphs are regions (If: then_branch, else_branch; otherwise attribute
  order) terminated by `"onnx.Yield"`.
"""

import onnx
from torch_mlir import ir
from torch_mlir.dialects import func

from .attributes import AttributeConverter
from .tensors import TensorConverter
from .types import TypeMapper

DEFAULT_DOMAINS = ("", "ai.onnx", "ai.onnx.ml")
MAIN_FUNCTION = "main_graph"
REGION_ORDER = {"If": ("then_branch", "else_branch")}


class OnnxDialectEmitter:
    form = "onnx"

    def __init__(self, context: ir.Context, weights):
        self.types = TypeMapper(context, self.form)
        self.tensors = TensorConverter(self.types, weights)
        self.attributes = AttributeConverter(self.tensors)
        self.i64 = ir.IntegerType.get_signless(64, context)

    def main_function(self, module, model, inputs, argument_types, location):
        self._module_attributes(module, model)
        function, block = self._function(module, MAIN_FUNCTION, inputs, argument_types, location, private=False)
        with ir.InsertionPoint(module.body), location("onnx.EntryPoint"):
            ir.Operation.create("onnx.EntryPoint", attributes={"func": ir.FlatSymbolRefAttr.get(MAIN_FUNCTION)})
        return function, block

    def private_function(self, module, model, inputs, argument_types, location):
        """A model-local function kept as a function."""
        return self._function(module, model.graph.name, inputs, argument_types, location, private=True)

    def _function(self, module, name, inputs, argument_types, location, private: bool):
        with ir.InsertionPoint(module.body):
            function = func.FuncOp(name, ir.FunctionType.get(argument_types, []), visibility="private" if private else None)
        block = function.add_entry_block([location(value.name) for value in inputs])
        function.arg_attrs = ir.ArrayAttr.get([_name_dictionary(value.name) for value in inputs])
        return function, block

    def call(self, name: str, operands, result_types) -> list:
        return list(func.CallOp(result_types, ir.FlatSymbolRefAttr.get(name), operands).results)

    def _module_attributes(self, module, model) -> None:
        attributes = module.operation.attributes
        attributes["onnx.ir_version"] = ir.IntegerAttr.get(self.i64, model.ir_version)
        attributes["onnx.producer_name"] = ir.StringAttr.get(model.producer_name)
        attributes["onnx.producer_version"] = ir.StringAttr.get(model.producer_version)
        attributes["onnx.opset_import"] = ir.DictAttr.get(
            {opset.domain or "ai.onnx": ir.IntegerAttr.get(self.i64, opset.version) for opset in model.opset_import}
        )

    def function_return(self, function, results, names):
        func.ReturnOp(results)
        function.attributes["function_type"] = ir.TypeAttr.get(
            ir.FunctionType.get(function.type.inputs, [value.type for value in results])
        )
        function.attributes["res_attrs"] = ir.ArrayAttr.get([_name_dictionary(name) for name in names])

    def region_terminator(self, results):
        ir.Operation.create("onnx.Yield", operands=results)

    def none(self) -> ir.Value:
        return ir.Operation.create("onnx.NoValue", results=[self.types.none()], attributes={"value": ir.UnitAttr.get()}).result

    def initializer(self, tensor: onnx.TensorProto, main_graph: bool) -> ir.Value:
        value = self.tensors.attribute(tensor, main_graph_initializer=main_graph)
        result_type = self.types.tensor(tensor.data_type, list(tensor.dims))
        return ir.Operation.create("onnx.Constant", results=[result_type], attributes={"value": value}).result

    def node(self, node: onnx.NodeProto, operands, result_types):
        """The op for `node` and its GRAPH attributes in region order."""
        attributes = {}
        if node.domain in DEFAULT_DOMAINS:
            name = f"onnx.{node.op_type}"
        else:
            name = "onnx.Custom"
            attributes["domain_name"] = ir.StringAttr.get(node.domain)
            attributes["function_name"] = ir.StringAttr.get(node.op_type)
        graphs = []
        for attribute in node.attribute:
            if attribute.type == onnx.AttributeProto.GRAPH:
                graphs.append(attribute)
            else:
                attributes[attribute.name] = self.attributes.convert(node, attribute)
        if node.name:
            attributes["onnx_node_name"] = ir.StringAttr.get(node.name)
        graphs = _region_order(node.op_type, graphs)
        operation = ir.Operation.create(
            name, results=result_types, operands=operands, attributes=attributes, regions=len(graphs)
        )
        return operation, graphs


def _region_order(op_type: str, graphs: list) -> list:
    """onnx-mlir's order: If's then_branch before else_branch, otherwise attribute names sorted."""
    order = REGION_ORDER.get(op_type, ())
    return sorted(graphs, key=lambda attribute: (order.index(attribute.name) if attribute.name in order else len(order), attribute.name))


def _name_dictionary(name: str) -> ir.DictAttr:
    return ir.DictAttr.get({"onnx.name": ir.StringAttr.get(name)})
