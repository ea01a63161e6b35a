"""The graph walk shared by both spellings: scopes, types, order, locations, errors.

`GraphImporter` walks an (inferred) ONNX graph and asks an emitter
(`torch_onnx.TorchOnnxEmitter` or `onnx_dialect.OnnxDialectEmitter`) to build
each op. It owns what the spellings share: which value a name refers to, the
type of every result (an error naming the value and its producer when a used
value has none), the node order, the location of every op
(`loc("<node name>"("<model file>":0:0))`), and errors that name the file and
the node.
"""

from collections import ChainMap

import onnx
from torch_mlir import ir

from ..errors import ImportError_, OnnxTorchMlirError
from .contrib_types import untyped_reason
from .functions import specialize_function
from .ordering import node_label, ordered_nodes
from .progress import Progress
from .shape_inference import infer_types


class NodeError(ImportError_):
    """An error already prefixed with the file and node it concerns."""


class GraphImporter:
    def __init__(self, emitter, model_name: str, progress: Progress):
        self.emitter = emitter
        self.model_name = model_name
        self.progress = progress
        self.file_location = None if model_name.startswith("<") else ir.Location.file(model_name, 0, 0)
        self.module = None
        self.local_functions = {}  # (domain, name) -> FunctionProto, kept as functions
        self.opsets = {}  # domain -> version of the model
        self.specialized = {}  # call signature -> private function name

    def _map_type(self, type_proto):
        return self.emitter.types.from_type_proto(type_proto)

    def location(self, label: str) -> ir.Location:
        if self.file_location is None:
            return ir.Location.name(label)
        return ir.Location.name(label, childLoc=self.file_location)

    def import_main(self, model: onnx.ModelProto, module: ir.Module):
        """The main graph as the module's entry function (initialized inputs are constants)."""
        self.module = module
        self.local_functions = {(function.domain, function.name): function for function in model.functions}
        self.opsets = {opset.domain: opset.version for opset in model.opset_import}
        initialized = {tensor.name for tensor in model.graph.initializer}
        inputs = [value for value in model.graph.input if value.name not in initialized]
        self._import_function(model, inputs, self.emitter.main_function, main_graph=True)

    def _import_function(self, model: onnx.ModelProto, inputs, create, main_graph: bool):
        graph = model.graph
        types = _graph_types(graph, None, self._map_type)
        argument_types = [self._required_type(types, value.name, "graph input") for value in inputs]
        with self.location(graph.name or "main_graph"):
            function, block = create(self.module, model, inputs, argument_types, self.location)
        if _names_tensors(graph) and "arg_attrs" not in function.attributes:  # as the ONNX dialect names them
            function.attributes["arg_attrs"] = ir.ArrayAttr.get(
                [ir.DictAttr.get({"onnx.name": ir.StringAttr.get(value.name)}) for value in inputs])
        scope = {}
        for value, argument in zip(inputs, block.arguments):
            scope[value.name] = argument
        with ir.InsertionPoint(block):
            for tensor in graph.initializer:
                with self.location(tensor.name):
                    scope[tensor.name] = self._guard(
                        f"initializer '{tensor.name}'", lambda: self.emitter.initializer(tensor, main_graph=main_graph)
                    )
                if _names_tensors(graph):
                    _record_tensor_names([scope[tensor.name]], [tensor.name])
            results = self._import_body(graph, block, scope, types, main_graph)
            with self.location(graph.name or "main_graph"):
                self.emitter.function_return(function, results, [output.name for output in graph.output])
        return function

    def _call_local_function(self, node: onnx.NodeProto, operands, result_types, types) -> list:
        """A call of a model-local function kept as a function: one private function per signature."""
        function = self.local_functions[(node.domain, node.op_type)]
        key = (
            node.domain,
            node.op_type,
            tuple(str(value.type) for value in operands),
            tuple(attribute.SerializeToString() for attribute in node.attribute),
        )
        name = self.specialized.get(key)
        if name is None:
            earlier = sum(1 for other in self.specialized if other[:2] == key[:2])
            name = self.specialized[key] = f"{node.domain}.{node.op_type}" + (f"_{earlier}" if earlier else "")
            specialized = specialize_function(
                function,
                node,
                [types.proto(value) for value in node.input],
                [types.proto(value) for value in node.output],
                list(self.local_functions.values()),
            )
            specialized.graph.name = name
            typed = infer_types(specialized, self.model_name)
            with ir.InsertionPoint(self.module.body):
                self._import_function(typed, list(typed.graph.input), self.emitter.private_function, main_graph=False)
        return self.emitter.call(name, operands, result_types)

    def _import_body(self, graph: onnx.GraphProto, block: ir.Block, scope, types, counted: bool) -> list:
        """The nodes of `graph` into `block`; `counted`: advance the progress (main graph only)."""
        nodes, used = ordered_nodes(graph, scope, self.model_name)
        none_value = []

        def none():
            if not none_value:
                with ir.InsertionPoint.at_block_begin(block), self.location("onnx_importer.none"):
                    none_value.append(self.emitter.none())
            return none_value[0]

        names_tensors = _names_tensors(graph)
        for index, node in enumerate(nodes):
            label = node_label(node, index)
            with self.location(label):
                self._guard(f"node '{label}' ({node.op_type})", lambda: self._import_node(node, scope, types, used, none))
            if names_tensors and node.output and node.output[0] in scope:
                _record_tensor_names([scope[name] for name in node.output if name], [name for name in node.output if name])
            if counted:
                self.progress.advance()
        results = []
        for output in graph.output:
            if output.name not in scope:
                raise NodeError(f"{self.model_name}: graph output '{output.name}' is not produced by any node")
            results.append(scope[output.name])
        return results

    def _import_node(self, node, scope, types, used, none):
        operands = []
        outputs = list(node.output)
        for name in node.input:
            if not name:
                operands.append(none())
            elif name in scope:
                operands.append(scope[name])
            else:
                raise ImportError_(f"input '{name}' is not defined")
        result_types = []
        for name in outputs:
            found = types.get(name) if name else None
            if found is None:
                if name in used:
                    raise ImportError_(f"the type of result '{name}' is unknown ({self._untyped_reason(node)})")
                found = self.emitter.types.none()
            result_types.append(found)
        if self.emitter.form == "torch-onnx":
            node, operands = _two_bit_result_made_explicit(node, operands, types)
        if (node.domain, node.op_type) in self.local_functions:
            results = self._call_local_function(node, operands, result_types, types)
            for name, value in zip(outputs, results):
                if name:
                    scope[name] = value
            return
        results, graphs = self.emitter.node(node, operands, result_types)
        if isinstance(results, ir.Operation):
            for region, attribute in zip(results.regions, graphs):
                self._import_region(region, attribute, scope, types)
            results = list(results.results)
        for name, value in zip(outputs, results):
            if name:
                scope[name] = value

    def _untyped_reason(self, node: onnx.NodeProto) -> str:
        if (node.domain, node.op_type) in self.local_functions:
            return "shape inference could not infer it"
        return untyped_reason(node, self.opsets)

    def _import_region(self, region: ir.Region, attribute: onnx.AttributeProto, outer_scope, outer_types):
        graph = attribute.g
        types = _graph_types(graph, outer_types, self._map_type)
        argument_types = [self._required_type(types, value.name, f"input of subgraph '{attribute.name}'") for value in graph.input]
        block = region.blocks.append(*argument_types, arg_locs=[self.location(value.name) for value in graph.input])
        scope = ChainMap({}, outer_scope)
        for value, argument in zip(graph.input, block.arguments):
            scope[value.name] = argument
        with ir.InsertionPoint(block):
            for tensor in graph.initializer:
                with self.location(tensor.name):
                    scope[tensor.name] = self.emitter.initializer(tensor, main_graph=False)
                if _names_tensors(graph):
                    _record_tensor_names([scope[tensor.name]], [tensor.name])
            results = self._import_body(graph, block, scope, types, counted=False)
            with self.location(f"{attribute.name}.yield"):
                self.emitter.region_terminator(results)

    def _required_type(self, types, name: str, what: str) -> ir.Type:
        found = self._guard(f"{what} '{name}'", lambda: types.get(name))
        if found is None:
            raise NodeError(f"{self.model_name}: the type of {what} '{name}' is unknown")
        return found

    def _guard(self, what: str, action):
        """Run `action`; a user-facing error gets the file and `what` in front (once)."""
        try:
            return action()
        except NodeError:
            raise
        except OnnxTorchMlirError as error:
            prefix = f"{self.model_name}: {what}: "
            raise NodeError(str(error) if str(error).startswith(prefix) else f"{prefix}{error}") from None
        except (ir.MLIRError, ValueError) as error:
            message = " ".join(str(error).split())
            raise NodeError(f"{self.model_name}: {what}: MLIR rejected the op: {message}") from None


# Nodes that name tensors in attributes instead of taking them as operands (Gradient names y and
# xs). In a graph holding one, the op producing each tensor records the ONNX names of its results in
# TENSOR_NAMES_ATTRIBUTE and a function's arguments their `onnx.name`, so the conversion can find a
# tensor by name (OnnxNode.graph); the IR of every other graph is unchanged.
TENSOR_NAMING_NODES = {("ai.onnx.preview.training", "Gradient")}
TENSOR_NAMES_ATTRIBUTE = "onnx_output_names"


def _names_tensors(graph: onnx.GraphProto) -> bool:
    return any((node.domain, node.op_type) in TENSOR_NAMING_NODES for node in graph.node)


def _record_tensor_names(values: list, names: list) -> None:
    """Name the results of the op producing `values` (all from one op); block arguments have their name as location."""
    owner = values[0].owner if values else None
    if owner is None or isinstance(owner, ir.Block):
        return
    owner = owner.operation if hasattr(owner, "operation") else owner
    if any(value.owner != values[0].owner for value in values):
        return
    owner.attributes[TENSOR_NAMES_ATTRIBUTE] = ir.ArrayAttr.get([ir.StringAttr.get(name) for name in names])


_TWO_BIT = {onnx.TensorProto.INT2, onnx.TensorProto.UINT2}


def _two_bit_result_made_explicit(node: onnx.NodeProto, operands: list, types):
    """(node, operands) with a 2-bit result type named by an attribute instead of by an operand.

    The torch-ONNX form holds INT2/UINT2 values in 8 bits (torch has no 2-bit dtype), so an op that
    takes its result type from an operand's would saturate or wrap at 8 bits. QuantizeLinear gets
    the equivalent `output_dtype` (ONNX requires it to match the zero point's type), CastLike becomes
    the equivalent Cast with `to`; the conversion then keeps the 2-bit range. The node is a copy:
    the user's model is never edited."""
    if node.domain not in ("", "ai.onnx") or node.op_type not in ("QuantizeLinear", "CastLike") or not node.output:
        return node, operands
    element = types.proto(node.output[0]).tensor_type.elem_type if node.output[0] else 0
    if element not in _TWO_BIT:
        return node, operands
    explicit = onnx.NodeProto()
    explicit.CopyFrom(node)
    if node.op_type == "CastLike":
        explicit.op_type = "Cast"
        del explicit.input[1:]
        explicit.ClearField("attribute")
        explicit.attribute.extend([onnx.helper.make_attribute("to", element)]
                                  + [a for a in node.attribute if a.name == "saturate"])
        return explicit, operands[:1]
    if not any(attribute.name == "output_dtype" for attribute in node.attribute):
        explicit.attribute.extend([onnx.helper.make_attribute("output_dtype", element)])
    return explicit, operands


class _LazyTypes:
    """Name -> MLIR type for one graph, parsed on first use, falling back to enclosing graphs."""

    def __init__(self, type_protos: dict, initializers: dict, parent, mapper):
        self.type_protos = type_protos
        self.initializers = initializers
        self.parent = parent
        self.mapper = mapper
        self.cache = {}

    def proto(self, name: str) -> onnx.TypeProto:
        """The ONNX type of `name` (empty when unknown), looking through enclosing graphs."""
        found = self._own_proto(name)
        if found is not None:
            return found
        return self.parent.proto(name) if self.parent is not None else onnx.TypeProto()

    def _own_proto(self, name: str):
        found = self.type_protos.get(name)
        if found is None and name in self.initializers:
            tensor = self.initializers[name]
            found = onnx.helper.make_tensor_type_proto(tensor.data_type, tensor.dims)
        return found

    def get(self, name: str):
        if name in self.cache:
            return self.cache[name]
        proto = self._own_proto(name)
        if proto is None:
            found = self.parent.get(name) if self.parent is not None else None
        else:
            found = self.mapper(proto)
        self.cache[name] = found
        return found


def _graph_types(graph: onnx.GraphProto, parent, mapper) -> _LazyTypes:
    """Declared types first: outputs, then value_info, then inputs; initializers by their dims."""
    protos = {}
    for collection in (graph.input, graph.value_info, graph.output):
        for value in collection:
            if value.type.WhichOneof("value") is not None:
                protos[value.name] = value.type
    return _LazyTypes(protos, {tensor.name: tensor for tensor in graph.initializer}, parent, mapper)
