"""SequenceMap: the body unrolled once per element."""

from __future__ import annotations

from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import OnnxNode
from ..registry import converts
from ..types import defining_op, tensor_info
from .elements import UNREALIZED_CAST, fits, make_sequence, sequence_input


# -- SequenceMap: the body unrolled once per element ------------------------------------------------
@converts("SequenceMap", since=17)
def sequence_map(node: OnnxNode, b: TorchBuilder):
    """The body applied to each element (sequence inputs give their i-th element, tensor inputs
    themselves); output k is the sequence of the body's k-th outputs. The body is already
    converted (nested nodes convert first) and is copied once per element, in front of the node."""
    body = node.op.regions[0].blocks[0]
    arguments = list(body.arguments)
    if len(arguments) != node.num_inputs:
        node.fail(f"the body takes {len(arguments)} inputs for {node.num_inputs} operands")
    _check_body_converted(node, body)
    inputs = [node.input(i) if node.input_is_tensor(i) else sequence_input(node, i) for i in range(node.num_inputs)]
    lengths = sorted({len(value) for value in inputs if isinstance(value, list)})
    if len(lengths) != 1:
        node.fail(f"the input sequences have different lengths {lengths}")
    outputs = [[] for _ in range(node.num_results)]
    for position in range(lengths[0]):
        mapping = {}
        for argument, value in zip(arguments, inputs):
            element = value[position] if isinstance(value, list) else value
            mapping[argument] = _as_argument(b, element, argument.type)
        for k, value in enumerate(_copy_body(node, body, mapping)):
            outputs[k].append(_as_torch_value(b, value))
    return [make_sequence(node, b, elements, k) for k, elements in enumerate(outputs)]


def _check_body_converted(node: OnnxNode, body: ir.Block) -> None:
    for op in list(body.operations)[:-1]:
        name = op.operation.name
        if name == "torch.operator" or (name.startswith("onnx.") and name != "onnx.NoValue"):
            node.fail("its body has nodes that did not convert (see their own errors)")


def _copy_body(node: OnnxNode, body: ir.Block, mapping: dict) -> list[ir.Value]:
    """Clones of the body's ops in front of the node, reading `mapping`'s values; the yielded values."""
    operations = [op.operation for op in body.operations]
    for op in operations[:-1]:
        clone = op.clone(ip=ir.InsertionPoint(node.op))
        _remap_operands(clone, mapping)
        for old, new in zip(op.results, clone.results):
            mapping[old] = new
    return [mapping.get(value, value) for value in operations[-1].operands]


def _remap_operands(op: ir.Operation, mapping: dict) -> None:
    def visit(nested):
        nested = nested.operation if hasattr(nested, "operation") else nested
        for index, operand in enumerate(nested.operands):
            if operand in mapping:
                nested.operands[index] = mapping[operand]
        return ir.WalkResult.ADVANCE

    op.walk(visit)


def _as_argument(b: TorchBuilder, value: ir.Value, argument_type: ir.Type) -> ir.Value:
    """A torch tensor as a body argument: kept when its type refines the argument's (its static
    sizes then reach the copied body: a Shape there folds), else retyped to the argument's
    (builtin in the ONNX dialect)."""
    if str(argument_type).startswith("tensor<"):
        return b.op(UNREALIZED_CAST, argument_type, value)
    have, want = tensor_info(value.type), tensor_info(argument_type)
    if have is not None and want is not None and have.element == want.element and fits(have, want):
        return value
    if want is not None:
        return b.cast_to(value, argument_type)
    return value


def _as_torch_value(b: TorchBuilder, value: ir.Value) -> ir.Value:
    """A value the body yields as a torch value (the ONNX dialect yields builtin tensors)."""
    if not str(value.type).startswith("tensor<"):
        return value
    owner = defining_op(value)
    if owner is not None and owner.name == UNREALIZED_CAST and len(owner.operands) == 1:
        return owner.operands[0]
    info = tensor_info(value.type)
    return b.op(UNREALIZED_CAST, b.tensor_type(info.sizes, info.element), value)
