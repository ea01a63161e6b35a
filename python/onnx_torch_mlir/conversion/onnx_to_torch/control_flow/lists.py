"""Sequences in loop bodies: a Loop that carries a sequence (or reads one at its iteration
number) is unrolled, and the body's list operations are resolved on each copy.

Outside loops every ONNX sequence is one `torch.prim.ListConstruct` known at conversion time
(see `sequences.py`). Inside a Loop body a sequence may be the loop-carried argument, whose
elements are not known until the loop is unrolled, and a SequenceAt may read a sequence of
differently shaped elements at the iteration number. The sequence patterns then emit torch's
own list operations on the list value, which this module resolves once the body is copied for
one iteration (its arguments bound to `ListConstruct`s and literal iteration numbers):

- `torch.aten.append.t(list, x)` (SequenceInsert at the end): the list's elements and `x`;
- `torch.aten.__getitem__.t(list, i)` (SequenceAt): element i (i negative counts from the back);
- `torch.aten.len.t(list)` (SequenceLength): the number of elements.

`torch.aten.cat` / `torch.aten.stack` (ConcatFromSequence) take the list value as it is, and
see the copy's `ListConstruct`. torch-mlir lowers no list that a `torch.prim.Loop` carries
(its backends take lists only as `ListConstruct` operands of the ops that read them), so a loop
with any of these is unrolled on every target: it needs a trip count known at conversion time
(a loop of a run-time trip count whose sequences are only appended to carries them as stacked
tensors instead, `stacked.py`).
"""

from __future__ import annotations

from torch_mlir import ir

from ..builder import TorchBuilder
from ..types import container_element_type, defining_op, is_onnx_container, is_torch_container, tensor_info, to_torch_type  # noqa: F401 (re-exported to branches.py)

LIST_CONSTRUCT = "torch.prim.ListConstruct"
UNREALIZED_CAST = "builtin.unrealized_conversion_cast"
APPEND, GET_ITEM, LENGTH = "torch.aten.append.t", "torch.aten.__getitem__.t", "torch.aten.len.t"
LIST_OPERATIONS = (APPEND, GET_ITEM, LENGTH)
_SEE_THROUGH = (UNREALIZED_CAST, "torch.tensor_static_info_cast", "torch.derefine")


class UnresolvedList(Exception):
    """A list operation of an unrolled body that could not be resolved (the reason)."""


def body_has_list_operations(block: ir.Block) -> bool:
    """Whether a body holds list operations that only unrolling resolves (nested regions too)."""
    return any(_first_list_operation(op) is not None for op in block.operations)


def _first_list_operation(root: ir.Operation) -> ir.Operation | None:
    """The first list operation in `root` or nested in it, else None."""
    root = root.operation if hasattr(root, "operation") else root
    found = []

    def visit(op):
        op = op.operation if hasattr(op, "operation") else op
        if op.name in LIST_OPERATIONS:
            found.append(op)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    root.walk(visit)
    return found[0] if found else None


def is_container(mlir_type: ir.Type) -> bool:
    return is_torch_container(mlir_type) or is_onnx_container(mlir_type)


def list_construct(value: ir.Value) -> ir.Operation | None:
    """The `ListConstruct` behind `value` (seen through bridges), or None."""
    while True:
        owner = defining_op(value)
        if owner is None:
            return None
        if owner.name == LIST_CONSTRUCT:
            return owner
        if owner.name == UNREALIZED_CAST and len(owner.operands) == 1:
            value = owner.operands[0]
            continue
        return None


def as_torch_list(b: TorchBuilder, value: ir.Value, list_type: ir.Type | None = None) -> ir.Value:
    """A sequence value as a `ListConstruct` of `list_type` (an ONNX-dialect `!onnx.Seq` type is
    taken as its torch list type); its elements are cast to the element type where needed."""
    construct = list_construct(value)
    if construct is None:
        raise UnresolvedList("a sequence whose elements are not known after unrolling")
    if list_type is not None and is_onnx_container(list_type):
        list_type = to_torch_type(list_type)
    list_type = list_type or construct.result.type
    if construct.result.type == list_type:
        return construct.result
    element_type = container_element_type(list_type)
    return b.op(LIST_CONSTRUCT, list_type, *[fit_element(b, e, element_type) for e in construct.operands])


def fit_element(b: TorchBuilder, value: ir.Value, element_type: ir.Type) -> ir.Value:
    """`value` as an element of a list of `element_type` (a static info cast where the types differ)."""
    if value.type == element_type:
        return value
    have, want = tensor_info(value.type), tensor_info(element_type)
    if have is None or want is None or have.element != want.element:
        raise UnresolvedList(f"a sequence element of type {value.type} does not fit a sequence of {element_type}")
    if want.sizes is None:
        return value
    if have.sizes is None or len(have.sizes) != len(want.sizes):
        raise UnresolvedList(f"a sequence element of type {value.type} does not fit a sequence of {element_type}")
    return b.op("tensor_static_info_cast", element_type, value)


def as_argument(b: TorchBuilder, value: ir.Value, argument_type: ir.Type) -> ir.Value:
    """A sequence as a copied body's argument of `argument_type` (`!onnx.Seq` bridged)."""
    torch_list = as_torch_list(b, value, argument_type)
    if is_onnx_container(argument_type):
        return b.op(UNREALIZED_CAST, argument_type, torch_list)
    return torch_list


def constant_int(value: ir.Value) -> int | None:
    """The integer `value` holds at conversion time: a `torch.constant.int`, or a one-element
    literal tensor read by `aten.item` / `aten.Int.Tensor` (through casts and bridges)."""
    owner = defining_op(value)
    if owner is None:
        return None
    if owner.name == "torch.constant.int":
        return ir.IntegerAttr(owner.attributes["value"]).value
    if owner.name in ("torch.aten.item", "torch.aten.Int.Tensor"):
        return _literal_tensor_int(owner.operands[0])
    return None


def _literal_tensor_int(value: ir.Value) -> int | None:
    while True:
        owner = defining_op(value)
        if owner is None:
            return None
        if owner.name in (*_SEE_THROUGH, "torch.aten.reshape", "torch.aten.view") and owner.operands:
            value = owner.operands[0]
            continue
        if owner.name == "torch.prim.NumToTensor.Scalar":
            return constant_int(owner.operands[0])
        if owner.name != "torch.vtensor.literal":
            return None
        attribute = owner.attributes["value"]
        try:
            attribute = ir.DenseElementsAttr(attribute)
        except (ValueError, TypeError):
            return None
        if not attribute.is_splat and len(attribute) != 1:
            return None
        element = attribute.get_splat_value() if attribute.is_splat else attribute[0]
        try:
            return int(ir.IntegerAttr(element).value)
        except (ValueError, TypeError):
            return None


def resolve(b: TorchBuilder, op: ir.Operation) -> list[ir.Value] | None:
    """The values that replace list operation `op` of a copied body, or None where it is not a
    list operation or cannot be resolved (`check_resolved` then says why)."""
    if op.name not in LIST_OPERATIONS or unresolved_reason(op) is not None:
        return None
    elements = list(list_construct(op.operands[0]).operands)
    if op.name == APPEND:
        list_type = op.results[0].type
        element_type = container_element_type(list_type)
        fitted = [fit_element(b, e, element_type) for e in [*elements, op.operands[1]]]
        return [b.op(LIST_CONSTRUCT, list_type, *fitted)]
    if op.name == LENGTH:
        return [b.constant_int(len(elements))]
    element = elements[constant_int(op.operands[1])]
    result_type = op.results[0].type
    if element.type != result_type:
        element = b.op("tensor_static_info_cast", result_type, element)
    return [element]


def unresolved_reason(op: ir.Operation) -> str | None:
    """Why list operation `op` cannot be resolved where it is, or None."""
    construct = list_construct(op.operands[0])
    if construct is None:
        return f"{op.name} of a sequence whose elements are not known after unrolling"
    if op.name != GET_ITEM:
        return None
    position, length = constant_int(op.operands[1]), len(construct.operands)
    if position is None:
        return ("SequenceAt's position is computed from the iteration number; only the iteration number itself "
                "(or a constant) is resolved when the loop is unrolled")
    if not -length <= position < length:
        return f"position {position} is out of range for a sequence of {length} elements"
    return None


def check_resolved(ops: list[ir.Operation]) -> None:
    """Raises `UnresolvedList` if a list operation is left in the copied ops (or nested in them)."""
    for op in ops:
        found = _first_list_operation(op)
        if found is not None:
            reason = unresolved_reason(found) or "a sequence operation"
            top = op.operation if hasattr(op, "operation") else op
            raise UnresolvedList(reason + (" (inside a nested subgraph of the loop body)" if found != top else ""))


def is_optional(mlir_type: ir.Type) -> bool:
    torch_type = to_torch_type(mlir_type) if is_onnx_container(mlir_type) else mlir_type
    return str(torch_type).startswith("!torch.optional<")


def optional_parts(value: ir.Value) -> tuple[bool, ir.Value | None] | None:
    """(holds a value, the value) of an optional built by `torch.derefine` (seen through bridges),
    else None."""
    while True:
        owner = defining_op(value)
        if owner is None:
            return None
        if owner.name == UNREALIZED_CAST and len(owner.operands) == 1:
            value = owner.operands[0]
            continue
        if owner.name != "torch.derefine":
            return None
        inner = owner.operands[0]
        return (False, None) if str(inner.type) == "!torch.none" else (True, inner)


def content_elements(content: ir.Value) -> tuple[list[ir.Value], bool] | None:
    """An optional's content as (its elements, whether it is a sequence); None for a sequence
    not built by `ListConstruct`."""
    if tensor_info(content.type) is not None:
        return [content], False
    construct = list_construct(content)
    return (list(construct.operands), True) if construct is not None else None
