"""Sequence- and optional-typed graph inputs and outputs, specialized to tensors.

A compiled function takes and returns tensors only, and the conversion needs every sequence's
length at compile time (see `conversion/onnx_to_torch/sequences.py`). A model whose graph
inputs or outputs are sequences or optionals compiles once they are specialized, as `--dim`
specializes a symbolic dim:

- a sequence input of n elements becomes n tensor inputs (named `<name>.0`, ...; types from
  the given arrays) joined by a `SequenceConstruct` (`SequenceEmpty` for none);
- an optional input becomes its value's inputs wrapped by an `Optional`, or, when absent, an
  empty `Optional` of the declared type;
- a sequence output of m elements becomes `SequenceLength` of it (a scalar int64 output, so a
  different length is seen) and its m elements by `SequenceAt`;
- an optional output becomes `OptionalHasElement` of it, then, when a value is expected, that
  value's outputs from `OptionalGetElement`.

`Specialization.inputs(values)` and `.expected(values)` flatten values (numpy arrays, lists of
them, None) the same way, so a caller feeds and compares tensors only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import onnx
from onnx import helper

SEQUENCE_OPSET = 11  # SequenceConstruct, SequenceAt, SequenceLength, SequenceEmpty
OPTIONAL_OPSET = 15  # Optional, OptionalHasElement, OptionalGetElement


def has_sequence_io(model: onnx.ModelProto) -> bool:
    """Whether any graph input or output of `model` is a sequence or an optional."""
    return any(_kind(value.type) != "tensor_type" for value in [*model.graph.input, *model.graph.output])


def _kind(type_proto: onnx.TypeProto) -> str:
    return type_proto.WhichOneof("value")


@dataclass
class Specialization:
    """The specialized model, and how values map onto its tensor inputs and outputs."""

    model: onnx.ModelProto
    input_types: list  # the original graph inputs' TypeProtos (initializers excluded)
    output_types: list  # the original graph outputs' TypeProtos

    def inputs(self, values) -> list[np.ndarray]:
        """Graph input values (arrays, lists of arrays, None) as the specialized model's inputs."""
        return [array for type_proto, value in zip(self.input_types, values) for array in _flat_input(type_proto, value)]

    def expected(self, values) -> list[np.ndarray]:
        """Graph output values as the specialized model's outputs."""
        return [array for type_proto, value in zip(self.output_types, values) for array in _flat_output(type_proto, value)]


def _flat_input(type_proto: onnx.TypeProto, value) -> list[np.ndarray]:
    kind = _kind(type_proto)
    if kind == "optional_type":
        return [] if value is None else _flat_input(type_proto.optional_type.elem_type, value)
    if kind == "sequence_type":
        return [np.asarray(element) for element in value]
    return [np.asarray(value)]


def _flat_output(type_proto: onnx.TypeProto, value) -> list[np.ndarray]:
    kind = _kind(type_proto)
    if kind == "optional_type":
        flat = [np.array(value is not None)]
        return flat if value is None else flat + _flat_output(type_proto.optional_type.elem_type, value)
    if kind == "sequence_type":
        return [np.array(len(value), dtype=np.int64)] + [np.asarray(element) for element in value]
    return [np.asarray(value)]


def specialize(model: onnx.ModelProto, input_values, output_values) -> Specialization:
    """`model` with tensor graph inputs and outputs, for these input values (their sequence lengths,
    element shapes, optionals' presence) and outputs of these values' structure (their sequence
    lengths, optionals' presence)."""
    model_copy = onnx.ModelProto()
    model_copy.CopyFrom(model)
    graph = model_copy.graph
    initializers = {initializer.name for initializer in graph.initializer}
    fed = [value for value in graph.input if value.name not in initializers]
    if len(fed) != len(input_values):
        raise ValueError(f"the model has {len(fed)} inputs, {len(input_values)} values were given")
    new_inputs, prologue = [], []
    for value_info, value in zip(fed, input_values):
        new_inputs += _specialize_input(value_info, value, prologue)
    new_outputs, epilogue = [], []
    if len(graph.output) != len(output_values):
        raise ValueError(f"the model has {len(graph.output)} outputs, {len(output_values)} values were given")
    for value_info, value in zip(graph.output, output_values):
        new_outputs += _specialize_output(value_info.name, value_info.type, value, epilogue)
    kept = [value for value in graph.input if value.name in initializers]
    del graph.input[:]
    graph.input.extend(new_inputs + kept)
    del graph.output[:]
    graph.output.extend(new_outputs)
    nodes = prologue + list(graph.node) + epilogue
    del graph.node[:]
    graph.node.extend(nodes)
    _require_opset(model_copy, OPTIONAL_OPSET if _uses_optionals(nodes) else SEQUENCE_OPSET)
    return Specialization(model_copy, [value.type for value in fed], [value.type for value in model.graph.output])


def _specialize_input(value_info, value, prologue: list) -> list:
    kind = _kind(value_info.type)
    name = value_info.name
    if kind == "tensor_type":
        return [value_info]
    if kind == "sequence_type":
        return _sequence_input(name, value_info.type.sequence_type.elem_type, value, prologue)
    if kind == "optional_type":
        inner = value_info.type.optional_type.elem_type
        if value is None:
            prologue.append(helper.make_node("Optional", [], [name], type=inner))
            return []
        holder = f"{name}.value"
        inputs = (_sequence_input(holder, inner.sequence_type.elem_type, value, prologue)
                  if _kind(inner) == "sequence_type" else [_tensor_info(holder, value)])
        prologue.append(helper.make_node("Optional", [holder], [name]))
        return inputs
    raise ValueError(f"graph input '{name}' is a {kind}, which cannot be specialized to tensors")


def _sequence_input(name: str, element_type: onnx.TypeProto, value, prologue: list) -> list:
    if not isinstance(value, list):
        raise ValueError(f"graph input '{name}' is a sequence: give a list of arrays")
    if not value:
        dtype = element_type.tensor_type.elem_type
        prologue.append(helper.make_node("SequenceEmpty", [], [name], dtype=dtype))
        return []
    inputs = [_tensor_info(f"{name}.{index}", element) for index, element in enumerate(value)]
    prologue.append(helper.make_node("SequenceConstruct", [info.name for info in inputs], [name]))
    return inputs


def _tensor_info(name: str, array) -> onnx.ValueInfoProto:
    array = np.asarray(array)
    return helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(array.dtype), list(array.shape))


def _specialize_output(name: str, type_proto: onnx.TypeProto, value, epilogue: list) -> list:
    kind = _kind(type_proto)
    if kind == "tensor_type":
        return [helper.make_value_info(name, type_proto)]
    if kind == "sequence_type":
        if not isinstance(value, list):
            raise ValueError(f"graph output '{name}' is a sequence: its expected value must be a list")
        length = f"{name}.length"
        epilogue.append(helper.make_node("SequenceLength", [name], [length]))
        outputs = [helper.make_tensor_value_info(length, onnx.TensorProto.INT64, [])]
        element_type = type_proto.sequence_type.elem_type.tensor_type.elem_type
        for index in range(len(value)):
            position = f"{name}.position{index}"
            epilogue.append(helper.make_node(
                "Constant", [], [position], value=helper.make_tensor(position, onnx.TensorProto.INT64, [], [index])))
            element = f"{name}.{index}"
            epilogue.append(helper.make_node("SequenceAt", [name, position], [element]))
            outputs.append(helper.make_tensor_value_info(element, element_type, None))
        return outputs
    if kind == "optional_type":
        has = f"{name}.has_element"
        epilogue.append(helper.make_node("OptionalHasElement", [name], [has]))
        outputs = [helper.make_tensor_value_info(has, onnx.TensorProto.BOOL, [])]
        if value is None:
            return outputs
        got = f"{name}.value"
        epilogue.append(helper.make_node("OptionalGetElement", [name], [got]))
        return outputs + _specialize_output(got, type_proto.optional_type.elem_type, value, epilogue)
    raise ValueError(f"graph output '{name}' is a {kind}, which cannot be specialized to tensors")


def _uses_optionals(nodes) -> bool:
    return any(node.op_type.startswith("Optional") for node in nodes)


def _require_opset(model: onnx.ModelProto, opset: int) -> None:
    for entry in model.opset_import:
        if entry.domain in ("", "ai.onnx") and entry.version < opset:
            raise ValueError(f"specializing needs default-domain opset {opset}, the model imports {entry.version}")
