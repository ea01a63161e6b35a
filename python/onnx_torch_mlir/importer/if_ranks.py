"""An If whose run-time condition picks between branches of different ranks gets the rank that
the rest of its graph can take.

TorchScript writes `x.squeeze(-1)` on a dynamic size as `If(Shape(x)[-1] == 1, Squeeze(x), x)`:
the branches yield ranks N-1 and N, and which one runs is known only at run time. torch cannot
carry a value whose rank is decided at run time. Silero VAD's decoder does this before an
LSTMCell, whose export checks the rank again (`Size(Shape(h)) == 2`, batched or not) and, for
the other rank, would hand its LSTM a rank-4 input, which ONNX's LSTM refuses: only one of the
two ranks makes a valid graph, so a valid run never takes the other branch.

So, for such an If of the main graph (each subgraph is a main graph when `subgraph_inference`
lifts it), whose output types have no rank yet, each branch is tried: the If's outputs are given
that branch's types and the whole inference runs on the copy (static Ifs on the rank fold there
too), then ONNX's strict inference checks every node. When exactly one branch passes, the If's
outputs keep its types in the model. The If stays: the conversion reads its declared rank, takes
the branch that yields it and checks the condition at run time
(`conversion/onnx_to_torch/control_flow/branches.py`), so the other case fails with a message
instead of computing a wrong answer. An If whose output a model declares with one branch's rank
is left as declared (the conversion does the same with it); an If where both branches or neither
pass is left unranked, and its conversion fails naming the way out (`--dim`, `--input-shape`).
"""

from __future__ import annotations

from collections.abc import Callable

import onnx

from .shape_values import shape_values_of
from .static_if import _known_bool


def choose_if_ranks(model: onnx.ModelProto, well_typed: Callable[[onnx.ModelProto], bool]) -> bool:
    """Give each undecided main-graph If whose branches differ in rank the types of the one branch
    under which `well_typed(candidate)` holds; True if any was given."""
    graph = model.graph
    values = None
    chosen = False
    for node in graph.node:
        if node.op_type != "If" or node.domain not in ("", "ai.onnx") or not node.input:
            continue
        branch_types = _branch_output_types(node)
        if branch_types is None or _outputs_ranked(graph, node):
            continue
        if values is None:
            values = shape_values_of(model)
        if _known_bool(values.get(node.input[0])) is not None:
            continue  # static_if replaces it by its branch
        passing = [types for types in branch_types if well_typed(_with_output_types(model, node, types))]
        if len(passing) == 1:
            _set_output_types(graph, node, passing[0])
            chosen = True
            values = None
    return chosen


def _rank(type_proto: onnx.TypeProto):
    if type_proto.WhichOneof("value") != "tensor_type" or not type_proto.tensor_type.HasField("shape"):
        return None
    return len(type_proto.tensor_type.shape.dim)


def _branch_output_types(node: onnx.NodeProto):
    """[then types, else types] if every output is a ranked tensor in both branches and some
    output's ranks differ; else None."""
    graphs = {attribute.name: attribute.g for attribute in node.attribute if attribute.type == onnx.AttributeProto.GRAPH}
    if "then_branch" not in graphs or "else_branch" not in graphs:
        return None
    branches = [list(graphs[name].output) for name in ("then_branch", "else_branch")]
    if any(len(outputs) != len(node.output) for outputs in branches):
        return None
    types = [[value.type for value in outputs] for outputs in branches]
    if any(_rank(t) is None for branch in types for t in branch):
        return None
    if all(_rank(a) == _rank(b) for a, b in zip(*types)):
        return None
    return types


def _entries(graph: onnx.GraphProto) -> dict:
    return {value.name: value for value in list(graph.value_info) + list(graph.output)}


def _outputs_ranked(graph: onnx.GraphProto, node: onnx.NodeProto) -> bool:
    """Whether some output of `node` already has a rank (declared, or chosen before)."""
    entries = _entries(graph)
    return any(name in entries and _rank(entries[name].type) is not None for name in node.output if name)


def _with_output_types(model: onnx.ModelProto, node: onnx.NodeProto, types) -> onnx.ModelProto:
    candidate = onnx.ModelProto()
    candidate.CopyFrom(model)
    index = list(model.graph.node).index(node)
    _set_output_types(candidate.graph, candidate.graph.node[index], types)
    return candidate


def _set_output_types(graph: onnx.GraphProto, node: onnx.NodeProto, types) -> None:
    entries = _entries(graph)
    for name, type_proto in zip(node.output, types):
        if not name:
            continue
        if name not in entries:
            entries[name] = graph.value_info.add(name=name)
        entries[name].type.CopyFrom(type_proto)
        for dim in entries[name].type.tensor_type.shape.dim:
            if dim.HasField("dim_param"):  # a branch's own name for a dim: not a size the graph knows
                dim.Clear()


def strictly_typed(model: onnx.ModelProto) -> bool:
    """Whether ONNX's strict inference finds no node whose inputs break its schema's type rules."""
    try:
        onnx.shape_inference.infer_shapes(model, check_type=False, strict_mode=True, data_prop=True)
    except Exception:  # onnx raises several unrelated types here
        return False
    return True
