"""Optionals: `torch.derefine` of a value or of `torch.constant.none` (Optional,
OptionalHasElement, OptionalGetElement)."""

from __future__ import annotations

from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import OnnxNode
from ..registry import converts
from ..types import container_element_type, defining_op, is_torch_container, tensor_info
from .elements import LIST_CONSTRUCT, UNREALIZED_CAST, fit_element, list_elements, loop_carried_position, origin


# -- optionals: `torch.derefine` of a value or of `torch.constant.none` ---------------------------------
DEREFINE = "torch.derefine"


def optional_content(node: OnnxNode, index: int) -> tuple[bool | ir.Value, ir.Value | None]:
    """(holds a value, the value) of operand `index`: a tensor or sequence holds itself, an absent
    operand nothing, an optional its `torch.derefine` operand; an optional output of an If that
    only one branch holds gives a run-time flag (a boolean tensor) and the held branch's value.
    Fails where that is not known."""
    if not node.has_input(index):
        return False, None
    if node.input_is_tensor(index):
        return True, node.input(index)
    value = node.container_input(index)
    if str(value.type).startswith("!torch.list<"):
        return True, value
    owner = defining_op(value)
    if owner is not None and owner.name == DEREFINE:
        inner = owner.operands[0]
        return (False, None) if str(inner.type) == "!torch.none" else (True, inner)
    if owner is not None and owner.name == UNREALIZED_CAST and len(owner.operands) == 2:
        # an If's optional that only one branch holds: (whether it holds a value, the optional)
        flag, wrapped = owner.operands
        inner = defining_op(wrapped)
        if tensor_info(flag.type) is not None and inner is not None and inner.name == DEREFINE:
            return flag, inner.operands[0]
    why = ("a Loop carries no optional (torch-mlir has no run-time optional, and whether it holds a value may "
           "change from one iteration to the next)" if loop_carried_position(value) is not None else
           "only optionals built in the graph by Optional convert")
    node.fail(f"whether optional input {index} holds a value is not known at compile time: it is {origin(value)}; {why}")


def retyped(node: OnnxNode, b: TorchBuilder, value: ir.Value, target: ir.Type) -> ir.Value:
    """A tensor or sequence as `target` (tensors by a static info cast, sequences rebuilt)."""
    if value.type == target:
        return value
    if tensor_info(target) is not None and tensor_info(value.type) is not None:
        return b.cast_to(value, target)
    if str(target).startswith("!torch.list<") and str(value.type).startswith("!torch.list<"):
        element_type = container_element_type(target)
        elements = list_elements(node, value, "the sequence")
        return b.op(LIST_CONSTRUCT, target, *[fit_element(node, b, e, element_type) for e in elements])
    node.fail(f"a value of type {value.type} cannot become a {target}")


@converts("Optional", since=15)
def optional(node: OnnxNode, b: TorchBuilder):
    """`torch.derefine` of the input, or of `none` for an empty optional (of attribute `type`)."""
    optional_type = node.result_container_type(0)
    if not str(optional_type).startswith("!torch.optional<"):
        node.fail(f"output 0 has type {optional_type}, not an optional")
    if node.has_input(0):
        content = node.input(0) if node.input_is_tensor(0) else node.container_input(0)
        content = retyped(node, b, content, container_element_type(optional_type))
    else:
        content = b.constant_none()
    return b.op("derefine", optional_type, content)


@converts("OptionalHasElement", since=15)
def optional_has_element(node: OnnxNode, b: TorchBuilder):
    """A boolean literal: from opset 18 the input may be absent (false) or a tensor or sequence
    (true); for an If's optional that only one branch holds, the If's condition (or its negation)."""
    holds, _ = optional_content(node, 0)
    if isinstance(holds, ir.Value):
        return b.reshape(holds, [], []) if tensor_info(holds.type).rank else holds
    return b.scalar_tensor_literal(holds, "i1")


@converts("OptionalGetElement", since=15)
def optional_get_element(node: OnnxNode, b: TorchBuilder):
    """The optional's value; from opset 18 a tensor or sequence input is returned as it is. For
    an If's optional that only one branch holds, the held branch's value (ONNX makes reading an
    empty optional an error; here it reads that branch's value, which the other branch fills
    with zeros)."""
    holds, value = optional_content(node, 0)
    if not holds:
        node.fail("the optional input is empty: OptionalGetElement has no value to return")
    if is_torch_container(value.type):
        return retyped(node, b, value, node.result_container_type(0))
    return value
