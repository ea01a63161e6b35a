"""Types inside subgraphs (If branches, Loop and Scan bodies): the whole inference, per subgraph.

ONNX's shape inference types a subgraph's nodes with its plain rules only: no data propagation
of shape values from the enclosing graph's constants, none of our refinements (`shape_values`,
`contrib_inference`), and a Loop's loop-carried values lose their shapes (they may change from
one iteration to the next), so everything computed from them is unranked. An optimum-exported
merged decoder is one If whose branches are the whole decoder: an `Expand` in a branch stays
untyped, and the model cannot be imported.

So each subgraph is *lifted* into a model of its own: its inputs, plus the enclosing values it
uses as inputs of the types the enclosing graph inferred (the enclosing `Constant` nodes and
small initializers it uses are copied, so their values still propagate), and `infer_types` runs
on it (recursively for the subgraphs inside). Its value_info and nested subgraphs go back into
the subgraph. A Loop's loop-carried inputs without a shape take the initial value's type; where
the body yields another shape for it, the dims that differ become unknown and the body is
inferred again.
"""

from __future__ import annotations

from collections.abc import Callable

import onnx

# Initializers of the enclosing graph copied into a lifted subgraph when it uses them (larger
# ones become typed inputs: their values are not needed for shapes).
SMALL_INITIALIZER_ELEMENTS = 64
LOOP_ROUNDS = 3


def infer_subgraph_types(model: onnx.ModelProto, infer: Callable[[onnx.ModelProto], onnx.ModelProto]) -> None:
    """Type the subgraphs of `model`'s main graph in place; `infer` is the whole-model inference."""
    _infer_graph_subgraphs(model, model.graph, _known_types(model.graph, {}), _constants(model.graph, {}), infer)


def _known_types(graph: onnx.GraphProto, outer: dict) -> dict:
    types = dict(outer)
    for tensor in graph.initializer:
        types[tensor.name] = onnx.helper.make_tensor_type_proto(tensor.data_type, tensor.dims)
    for collection in (graph.input, graph.value_info, graph.output):
        for value in collection:
            if value.type.WhichOneof("value") is not None:
                types[value.name] = value.type
    return types


def _constants(graph: onnx.GraphProto, outer: dict) -> dict:
    """name -> a node (Constant) or initializer whose value a lifted subgraph may copy."""
    constants = dict(outer)
    for tensor in graph.initializer:
        if _element_count(tensor.dims) <= SMALL_INITIALIZER_ELEMENTS:
            constants[tensor.name] = tensor
    for node in graph.node:
        if node.op_type == "Constant" and node.domain in ("", "ai.onnx") and len(node.output) == 1:
            constants[node.output[0]] = node
    return constants


def _element_count(dims) -> int:
    count = 1
    for dim in dims:
        count *= dim
    return count


def _infer_graph_subgraphs(model, graph: onnx.GraphProto, types: dict, constants: dict, infer) -> None:
    for node in graph.node:
        for attribute in node.attribute:
            if attribute.type != onnx.AttributeProto.GRAPH:
                continue
            subgraph = attribute.g
            if node.op_type == "Loop" and attribute.name == "body":
                _type_loop_carried_inputs(node, subgraph, types)
                original = onnx.GraphProto()
                original.CopyFrom(subgraph)
                for _ in range(LOOP_ROUNDS):
                    _lift_and_infer(model, subgraph, types, constants, infer)
                    if not _relax_changing_loop_inputs(subgraph):
                        break
                    # infer again from the relaxed inputs: the types found from the old ones go
                    _restore_all_but_inputs(subgraph, original)
            else:
                _lift_and_infer(model, subgraph, types, constants, infer)


def _restore_all_but_inputs(subgraph: onnx.GraphProto, original: onnx.GraphProto) -> None:
    inputs = [onnx.ValueInfoProto() for _ in subgraph.input]
    for copy, value in zip(inputs, subgraph.input):
        copy.CopyFrom(value)
    subgraph.CopyFrom(original)
    del subgraph.input[:]
    subgraph.input.extend(inputs)


def _used_outer_names(graph: onnx.GraphProto) -> list[str]:
    """Names `graph` (and the subgraphs inside it) use but do not define, in first-use order."""
    defined = {value.name for value in graph.input} | {tensor.name for tensor in graph.initializer}
    used: list[str] = []
    seen = set()
    for node in graph.node:
        names = list(node.input)
        for attribute in node.attribute:
            if attribute.type == onnx.AttributeProto.GRAPH:
                names += _used_outer_names(attribute.g)
        for name in names:
            if name and name not in defined and name not in seen:
                seen.add(name)
                used.append(name)
        defined.update(node.output)
    return used


def _lift_and_infer(model, subgraph: onnx.GraphProto, types: dict, constants: dict, infer) -> None:
    outer_names = _used_outer_names(subgraph)
    copied_nodes, copied_initializers, outer_inputs = [], [], []
    for name in outer_names:
        constant = constants.get(name)
        if isinstance(constant, onnx.NodeProto):
            copied_nodes.append(constant)
        elif isinstance(constant, onnx.TensorProto):
            copied_initializers.append(constant)
        elif name in types:
            outer_inputs.append(onnx.helper.make_value_info(name, types[name]))
        else:
            outer_inputs.append(onnx.ValueInfoProto(name=name))
    lifted = onnx.ModelProto()
    lifted.ir_version = model.ir_version
    lifted.opset_import.extend(model.opset_import)
    lifted.functions.extend(model.functions)
    graph = lifted.graph
    graph.name = subgraph.name or "subgraph"
    graph.node.extend(copied_nodes)
    graph.node.extend(subgraph.node)
    graph.input.extend(subgraph.input)
    graph.input.extend(outer_inputs)
    graph.initializer.extend(copied_initializers)
    graph.initializer.extend(subgraph.initializer)
    graph.output.extend(subgraph.output)
    # The subgraph's value_info is left out: ONNX's first pass typed it without the enclosing
    # values, and a type it got wrong would conflict with what the lifted inference finds. The
    # outputs are inferred without their declared shapes, which ONNX would keep over a
    # contradicting inferred one (an exporter declares one branch's sizes for both branches).
    for output in graph.output:
        if output.type.WhichOneof("value") == "tensor_type":
            output.type.tensor_type.ClearField("shape")
    try:
        typed = infer(lifted)
    except Exception:  # a subgraph inference cannot type is left as ONNX typed it
        return
    outer = set(outer_names)
    del subgraph.node[:]
    subgraph.node.extend(typed.graph.node[len(copied_nodes):])
    del subgraph.value_info[:]
    subgraph.value_info.extend(value for value in typed.graph.value_info if value.name not in outer)
    for output, typed_output in zip(subgraph.output, typed.graph.output):
        if _more_specific(typed_output.type, output.type) or _shapes_contradict(output.type, typed_output.type):
            output.type.CopyFrom(typed_output.type)
        else:
            _take_static_dims(output.type, typed_output.type)
    for index, typed_input in enumerate(typed.graph.input[: len(subgraph.input)]):
        if _more_specific(typed_input.type, subgraph.input[index].type):
            subgraph.input[index].type.CopyFrom(typed_input.type)


def _rank(type_proto: onnx.TypeProto):
    if type_proto.WhichOneof("value") != "tensor_type" or not type_proto.tensor_type.HasField("shape"):
        return None
    return len(type_proto.tensor_type.shape.dim)


def _more_specific(candidate: onnx.TypeProto, current: onnx.TypeProto) -> bool:
    if candidate.WhichOneof("value") is None:
        return False
    if current.WhichOneof("value") is None:
        return True
    if _rank(current) is None and _rank(candidate) is not None:
        return True
    return False


def _shapes_contradict(declared: onnx.TypeProto, inferred: onnx.TypeProto) -> bool:
    """Two ranked tensor types of different ranks, or with different static sizes in one dim."""
    if _rank(declared) is None or _rank(inferred) is None:
        return False
    if _rank(declared) != _rank(inferred):
        return True
    return any(
        a.HasField("dim_value") and b.HasField("dim_value") and a.dim_value != b.dim_value
        for a, b in zip(declared.tensor_type.shape.dim, inferred.tensor_type.shape.dim)
    )


def _take_static_dims(current: onnx.TypeProto, inferred: onnx.TypeProto) -> None:
    """Give `current`'s dims without a size the sizes `inferred` (of the same rank) found."""
    if _rank(current) is None or _rank(current) != _rank(inferred):
        return
    for dim, found in zip(current.tensor_type.shape.dim, inferred.tensor_type.shape.dim):
        if not dim.HasField("dim_value") and found.HasField("dim_value"):
            dim.dim_value = found.dim_value


def _type_loop_carried_inputs(node: onnx.NodeProto, body: onnx.GraphProto, types: dict) -> None:
    """A loop-carried body input without a shape takes the initial value's type."""
    for position in range(2, len(body.input)):
        if position >= len(node.input) or not node.input[position]:
            continue
        body_input = body.input[position]
        initial = types.get(node.input[position])
        if initial is None or initial.WhichOneof("value") != "tensor_type" or _rank(initial) is None:
            continue
        if _rank(body_input.type) is None:
            body_input.type.CopyFrom(initial)


def _relax_changing_loop_inputs(body: onnx.GraphProto) -> bool:
    """Make unknown the dims of loop-carried inputs that the body yields with another size;
    True if any changed (the body is inferred again)."""
    changed = False
    for position in range(2, len(body.input)):
        output_index = position - 1
        if output_index >= len(body.output):
            break
        body_input, body_output = body.input[position].type, body.output[output_index].type
        if _rank(body_input) is None:
            continue
        if _rank(body_output) is not None and _rank(body_output) != _rank(body_input):
            body_input.tensor_type.ClearField("shape")
            changed = True
            continue
        if _rank(body_output) is None:
            continue
        for dim_in, dim_out in zip(body_input.tensor_type.shape.dim, body_output.tensor_type.shape.dim):
            same = (dim_in.HasField("dim_value") and dim_out.HasField("dim_value") and dim_in.dim_value == dim_out.dim_value) or (
                dim_in.HasField("dim_param") and dim_out.HasField("dim_param") and dim_in.dim_param == dim_out.dim_param)
            if not same and (dim_in.HasField("dim_value") or dim_in.HasField("dim_param")):
                dim_in.Clear()
                changed = True
    return changed
