"""An If's outputs get the common type of what its branches yield: a dim the branches give
different static sizes is `?`.

ONNX's inference merges a value's inferred type into the type it already has, and keeps the
existing one where the two disagree. The first inference of the main graph types an If's outputs
from its branches as ONNX typed them (their declared outputs: an exporter writes the size of the
branch its example took, for both), and `subgraph_inference` types the branches only afterwards;
so an If whose branches yield [2,2] and [2,3] stayed [2,2], and the program returned the wrong
size for the other branch (Linalg) or was invalid (TOSA, StableHLO). A declared type of the If's
output (value_info, a graph output) that fixes such a dim is relaxed the same way, with the
warning of a declaration the graph contradicts. The values computed from a relaxed output lose
the types inferred from it (not the declared ones), and inference runs again.
"""

from __future__ import annotations

import warnings

import onnx

from ..errors import OnnxTorchMlirWarning


def relax_if_outputs(model: onnx.ModelProto, declared: dict, model_name: str) -> bool:
    """Relax `model`'s main-graph If output types to their branches' common type; True if any was
    (the caller infers again). `declared`: name -> the type the model itself declares (graph
    outputs and value_info, before inference)."""
    graph = model.graph
    entries = {value.name: value for value in list(graph.value_info) + list(graph.output)}
    relaxed = set()
    for node in graph.node:
        if node.op_type != "If" or node.domain not in ("", "ai.onnx"):
            continue
        graphs = {attribute.name: attribute.g for attribute in node.attribute}
        if "then_branch" not in graphs or "else_branch" not in graphs:
            continue
        branches = [graphs["then_branch"], graphs["else_branch"]]
        for index, name in enumerate(node.output):
            if not name or name not in entries or any(index >= len(branch.output) for branch in branches):
                continue
            before = onnx.TypeProto()
            before.CopyFrom(entries[name].type)
            if _relax(entries[name].type, [branch.output[index].type for branch in branches]):
                relaxed.add(name)
                if _dims(declared.get(name, onnx.TypeProto())) is not None:
                    warnings.warn(
                        f"{model_name}: node '{node.name or 'If:' + name}' (If): value '{name}' is declared "
                        f"{_describe(before)} but its branches yield {_describe(branches[0].output[index].type)} and "
                        f"{_describe(branches[1].output[index].type)}; the declaration is ignored",
                        OnnxTorchMlirWarning, stacklevel=4,
                    )
    if relaxed:
        _forget_types_computed_from(graph, relaxed, declared)
    return bool(relaxed)


def _dims(type_proto: onnx.TypeProto):
    if type_proto.WhichOneof("value") != "tensor_type" or not type_proto.tensor_type.HasField("shape"):
        return None
    return type_proto.tensor_type.shape.dim


def _relax(output: onnx.TypeProto, branch_types: list) -> bool:
    """Clear each static dim of `output` that a branch yields with another static size (a named
    dim already stands for any size)."""
    dims, branch_dims = _dims(output), [_dims(branch) for branch in branch_types]
    if dims is None or any(other is None or len(other) != len(dims) for other in branch_dims):
        return False
    changed = False
    for axis, dim in enumerate(dims):
        sizes = {other[axis].dim_value for other in branch_dims if other[axis].HasField("dim_value")}
        if dim.HasField("dim_value") and sizes - {dim.dim_value}:
            dim.Clear()
            changed = True
    return changed


def _forget_types_computed_from(graph: onnx.GraphProto, relaxed: set, declared: dict) -> None:
    """Give every value computed (transitively) from `relaxed` back its declared type: none for a
    value_info entry inference wrote, the model's own for a declared one or a graph output."""
    stale = set(relaxed)
    for node in graph.node:
        if any(name in stale for name in node.input):
            stale.update(name for name in node.output if name)
    stale -= relaxed
    kept = [value for value in graph.value_info if value.name not in stale or value.name in declared]
    del graph.value_info[:]
    graph.value_info.extend(kept)
    for value in list(graph.value_info) + list(graph.output):
        if value.name in stale and value.name in declared:
            value.type.CopyFrom(declared[value.name])


def _describe(type_proto: onnx.TypeProto) -> str:
    dims = _dims(type_proto)
    element = onnx.TensorProto.DataType.Name(type_proto.tensor_type.elem_type).lower()
    if dims is None:
        return f"{element} (rank unknown)"
    return element + "[" + ",".join(str(d.dim_value) if d.HasField("dim_value") else (d.dim_param or "?") for d in dims) + "]"
