"""An If whose condition the shape values decide is replaced by the branch that runs.

Exporters trace Python `if`s on sizes into ONNX Ifs: transformers' DeBERTa-v2 checks
`if query_layer.size(-2) != key_layer.size(-2)`, which the TorchScript exporter writes as
`If(Cast(Not(Equal(Squeeze(Slice(Shape(q))), Squeeze(Slice(Shape(k)))))))`. Both sizes are the
input's sequence length (the same named dim), so the condition is False whatever the input; but
the branch that cannot run returns another rank than the one that does, and torch cannot carry
an If whose branches differ in rank: the whole model failed for a branch that never runs.

When the condition's shape value (`shape_values`) is a known bool, the If is replaced, at its
place in the graph, by the nodes of the branch taken: they keep their references to the
enclosing graph's values (an If's branches have no inputs), the values a branch yields get the
If's output names, and the branch's initializers become Constant nodes. The value_info of the
If's outputs is dropped (it was inferred from both branches) and shape inference runs again on
the result. A condition not known at import stays an If, converted as before.

Inside a subgraph the same happens when the subgraph's own nodes compute the condition:
`subgraph_inference` runs the whole inference on each subgraph lifted into a model and keeps the
nodes it returns. A condition computed in the enclosing graph is an outer input there, unknown.
(A Loop body is inferred with its loop-carried values typed as the initial ones and inferred
again with relaxed types, from its original nodes, when an iteration changes them.)
"""

from __future__ import annotations

import numpy as np
import onnx

from .shape_values import shape_values_of


def resolve_static_ifs(model: onnx.ModelProto) -> bool:
    """Replace each main-graph If whose condition is a known bool by its branch; True if any was."""
    graph = model.graph
    values = shape_values_of(model)
    decided = {}
    for index, node in enumerate(graph.node):
        if node.op_type == "If" and node.domain in ("", "ai.onnx") and node.input:
            condition = _known_bool(values.get(node.input[0]))
            if condition is not None:
                decided[index] = condition
    if not decided:
        return False
    nodes = []
    replaced_outputs = set()
    for index, node in enumerate(graph.node):
        if index not in decided:
            nodes.append(node)
            continue
        branch = _attribute_graph(node, "then_branch" if decided[index] else "else_branch")
        nodes.extend(_inlined(branch, list(node.output)))
        replaced_outputs.update(name for name in node.output if name)
    del graph.node[:]
    graph.node.extend(nodes)
    kept = [value for value in graph.value_info if value.name not in replaced_outputs]
    del graph.value_info[:]
    graph.value_info.extend(kept)
    return True


def _known_bool(value) -> bool | None:
    """The condition's value when it is one known bool (an If's cond is a single element)."""
    if value is None or value.size != 1:
        return None
    element = value.reshape(-1)[0]
    if isinstance(element, (bool, np.bool_)):
        return bool(element)
    if isinstance(element, (int, np.integer)):
        return bool(element)
    return None


def _attribute_graph(node: onnx.NodeProto, name: str) -> onnx.GraphProto:
    for attribute in node.attribute:
        if attribute.name == name:
            return attribute.g
    raise ValueError(f"If without {name}")  # the structure check rejects such a model before this


def _inlined(branch: onnx.GraphProto, if_outputs: list[str]) -> list[onnx.NodeProto]:
    """The branch's nodes, their results named as the If's outputs where the branch yields them."""
    produced = {name for node in branch.node for name in node.output if name}
    yielded = [value.name for value in branch.output]
    renames, copies = {}, []
    for inner, outer in zip(yielded, if_outputs):
        if not outer:
            continue
        if inner in produced and inner not in renames:
            renames[inner] = outer
        else:  # an enclosing value, a branch initializer, or a value yielded twice
            copies.append(onnx.helper.make_node("Identity", [renames.get(inner, inner)], [outer]))
    nodes = [_constant_node(tensor) for tensor in branch.initializer]
    for node in branch.node:
        copy = onnx.NodeProto()
        copy.CopyFrom(node)
        _rename_uses(copy, renames)
        nodes.append(copy)
    return nodes + copies


def _constant_node(tensor: onnx.TensorProto) -> onnx.NodeProto:
    return onnx.helper.make_node("Constant", [], [tensor.name], value=tensor)


def _rename_uses(node: onnx.NodeProto, renames: dict) -> None:
    """Rename `node`'s inputs and outputs, and the uses inside its subgraphs (outer references)."""
    if not renames:
        return
    for i, name in enumerate(node.input):
        node.input[i] = renames.get(name, name)
    for i, name in enumerate(node.output):
        node.output[i] = renames.get(name, name)
    for attribute in node.attribute:
        graphs = [attribute.g] if attribute.type == onnx.AttributeProto.GRAPH else list(attribute.graphs)
        for subgraph in graphs:
            local = {value.name for value in subgraph.input} | {tensor.name for tensor in subgraph.initializer}
            inner = {name: new for name, new in renames.items() if name not in local}
            for child in subgraph.node:
                _rename_uses(child, inner)
            for value in subgraph.output:
                value.name = inner.get(value.name, value.name)
