"""Declared types checked against ONNX's inference before MLIR sees the model.

A model may declare, in `graph.output` or `graph.value_info`, a type its nodes
cannot produce (a Min of two uint64 tensors declared uint8 or float). Imported
as declared, such a value gives IR whose types contradict its ops: torch-mlir
then crashes, or compiles a program that lies. So each declaration is compared
with the type ONNX's inference derives from the graph inputs alone, on a
weightless copy with every declaration removed, and a genuine contradiction is
refused: a different element type, a different rank (both known), a static dim
that differs from an inferred static dim. A declaration more precise than the
inference (a static dim where inference has a symbol or nothing, a type where
inference has none) is not a contradiction. Subgraph bodies are not checked.
"""

import onnx

from ..errors import ImportError_
from .shape_inference import _infer


def check_declared_types(model: onnx.ModelProto, model_name: str) -> None:
    """Raise ImportError_ on the first declared type that contradicts the inferred one.

    `model` should already be weightless (`shape_inference.skeleton`): it is
    copied.
    """
    declared = _declarations(model.graph)
    if not declared:
        return
    inferred = _inferred_types(model, model_name)
    producers = _producers(model.graph)
    for name, declared_type in declared:
        found = inferred.get(name)
        if found is None:
            continue
        if _contradicts(declared_type, found):
            raise ImportError_(
                f"{model_name}: {_where(name, producers)}: value '{name}' is declared {describe_type(declared_type)} "
                f"but ONNX type inference gives {describe_type(found)}"
            )


def _declarations(graph: onnx.GraphProto) -> list[tuple[str, onnx.TypeProto]]:
    return [(value.name, value.type) for value in list(graph.output) + list(graph.value_info) if value.HasField("type")]


def _inferred_types(model: onnx.ModelProto, model_name: str) -> dict[str, onnx.TypeProto]:
    """name -> the type inference gives each value from the graph inputs alone."""
    bare = onnx.ModelProto()
    bare.CopyFrom(model)
    del bare.graph.value_info[:]
    for output in bare.graph.output:
        output.ClearField("type")
    result = _infer(bare, model_name)
    types = {value.name: value.type for value in result.graph.value_info if value.HasField("type")}
    for output in result.graph.output:
        if output.HasField("type") and output.type.WhichOneof("value") is not None:
            types.setdefault(output.name, output.type)
    return types


def _producers(graph: onnx.GraphProto) -> dict[str, tuple[int, onnx.NodeProto]]:
    return {output: (index, node) for index, node in enumerate(graph.node) for output in node.output if output}


def _where(name: str, producers: dict) -> str:
    if name not in producers:
        return "graph"
    index, node = producers[name]
    label = f"node '{node.name}'" if node.name else f"node #{index}"
    domain = f"{node.domain}." if node.domain not in ("", "ai.onnx") else ""
    return f"{label} ({domain}{node.op_type})"


def _contradicts(declared: onnx.TypeProto, inferred: onnx.TypeProto) -> bool:
    kind, inferred_kind = declared.WhichOneof("value"), inferred.WhichOneof("value")
    if kind is None or inferred_kind is None:
        return False
    if kind != inferred_kind:
        return True
    if kind == "tensor_type":
        return _tensor_contradicts(declared.tensor_type, inferred.tensor_type)
    if kind in ("sequence_type", "optional_type"):
        declared_element, inferred_element = getattr(declared, kind), getattr(inferred, kind)
        if declared_element.HasField("elem_type") and inferred_element.HasField("elem_type"):
            return _contradicts(declared_element.elem_type, inferred_element.elem_type)
    return False


def _tensor_contradicts(declared, inferred) -> bool:
    # An element type ONNX does not know is left to the importer's own error, which names its source.
    known = _is_known(declared.elem_type) and _is_known(inferred.elem_type)
    if known and declared.elem_type != inferred.elem_type:
        return True
    if not declared.HasField("shape") or not inferred.HasField("shape"):
        return False
    if len(declared.shape.dim) != len(inferred.shape.dim):
        return True
    return any(
        dim.HasField("dim_value") and proof.HasField("dim_value") and dim.dim_value != proof.dim_value
        for dim, proof in zip(declared.shape.dim, inferred.shape.dim)
    )


def _is_known(elem_type: int) -> bool:
    return elem_type != onnx.TensorProto.UNDEFINED and elem_type in onnx.TensorProto.DataType.values()


def describe_type(type_proto: onnx.TypeProto) -> str:
    """`uint8[3,batch,?]`, `float (rank unknown)`, `sequence(int64[2])`."""
    kind = type_proto.WhichOneof("value")
    if kind == "tensor_type":
        return _describe_tensor(type_proto.tensor_type)
    if kind in ("sequence_type", "optional_type"):
        inner = getattr(type_proto, kind)
        element = describe_type(inner.elem_type) if inner.HasField("elem_type") else "?"
        return f"{kind.removesuffix('_type')}({element})"
    return kind or "untyped"


def _describe_tensor(tensor) -> str:
    element = _element_name(tensor.elem_type)
    if not tensor.HasField("shape"):
        return f"{element} (rank unknown)"
    dims = ",".join(
        str(dim.dim_value) if dim.HasField("dim_value") else (dim.dim_param or "?") for dim in tensor.shape.dim
    )
    return f"{element}[{dims}]"


def _element_name(elem_type: int) -> str:
    if not elem_type:
        return "?"
    try:
        return onnx.TensorProto.DataType.Name(elem_type).lower()
    except ValueError:
        return f"element type {elem_type}"
