"""What the sequence patterns share: a sequence's elements (a `ListConstruct`'s operands, or the
rows of a stacked tensor), where a sequence of unknown content comes from, fitting elements
to a list's element type."""

from __future__ import annotations

from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import OnnxNode
from ..types import container_element_type, defining_op, tensor_info


LIST_CONSTRUCT = "torch.prim.ListConstruct"
UNREALIZED_CAST = "builtin.unrealized_conversion_cast"


def list_elements(node: OnnxNode, sequence: ir.Value, what: str) -> list[ir.Value]:
    """The elements of a sequence built by `prim.ListConstruct`; the node fails otherwise."""
    owner = defining_op(sequence)
    if owner is not None and owner.name == LIST_CONSTRUCT:
        return list(owner.operands)
    node.fail(
        f"the length of {what} is not known at compile time: it is {origin(sequence)}; only sequences built in "
        "the graph with a static length (SequenceConstruct, SequenceEmpty, SplitToSequence, ...) convert"
    )


def origin(value: ir.Value) -> str:
    """Where a sequence or optional of unknown content comes from, for a diagnostic."""
    owner = defining_op(value)
    if owner is not None and owner.name == UNREALIZED_CAST and len(owner.operands) == 1:
        return origin(owner.operands[0])  # the ONNX dialect's bridge
    if owner is None:
        carried = loop_carried_position(value)
        if carried is not None:
            return f"loop-carried value {carried} of a Loop body, which converts once for every iteration"
        return "a graph (or subgraph) input"
    if owner.name == "torch.operator":
        return f"the output of {ir.StringAttr(owner.attributes['name']).value}, which did not convert"
    if owner.name.startswith("onnx."):
        return f"the output of {owner.name}, which did not convert"
    return f"produced by {owner.name}"


def loop_carried_position(value: ir.Value) -> int | None:
    """N if `value` is the body argument for loop-carried value N of an ONNX Loop, else None."""
    if not isinstance(value, ir.BlockArgument) or value.arg_number < 2:
        return None
    parent = value.owner.owner.operation
    name = ir.StringAttr(parent.attributes["name"]).value if parent.name == "torch.operator" else parent.name
    return value.arg_number - 2 if name == "onnx.Loop" else None


def in_loop_body(node: OnnxNode) -> bool:
    """Whether the node lies in the body of an ONNX Loop (not converted yet: nested nodes convert first)."""
    parent = node.op.parent
    while parent is not None:
        parent = parent.operation if hasattr(parent, "operation") else parent
        name = parent.name
        if name == "torch.operator":
            name = ir.StringAttr(parent.attributes["name"]).value
        if name == "onnx.Loop":
            return True
        if name == "func.func":
            return False
        parent = parent.parent
    return False


def loop_carried(node: OnnxNode, index: int) -> ir.Value | None:
    """Sequence operand `index` if it is not built in the graph and the node is in a Loop body
    (a loop-carried sequence, known once the loop is unrolled), else None."""
    sequence = node.container_input(index)
    if sequence is None or not str(sequence.type).startswith("!torch.list<"):
        return None
    owner = defining_op(sequence)
    if owner is not None and owner.name == LIST_CONSTRUCT:
        return None
    return sequence if in_loop_body(node) else None


def elements_differ(elements) -> bool:
    types = {str(element.type) for element in elements}
    return len(types) > 1 or any(tensor_info(element.type) is None or tensor_info(element.type).sizes is None
                                 for element in elements)


def retyped_list(b: TorchBuilder, sequence: ir.Value, list_type: ir.Type) -> ir.Value:
    """A list value as `list_type` for `aten.append.t` (a list's type is not cast: a bridge pair)."""
    if sequence.type == list_type:
        return sequence
    return b.op(UNREALIZED_CAST, list_type, sequence)


def see_through_casts(value: ir.Value) -> ir.Value:
    """`value` before the bridges and static info casts that retyped it."""
    owner = defining_op(value)
    while owner is not None and owner.name in (UNREALIZED_CAST, "torch.tensor_static_info_cast") and len(owner.operands) == 1:
        value = owner.operands[0]
        owner = defining_op(value)
    return value


def stacked_rows(node: OnnxNode, index: int) -> ir.Value | None:
    """The [n, *element] tensor of sequence operand `index` if it is a stacked sequence (a Loop's
    appended sequence: a bridge from that tensor to the list type), else None."""
    sequence = node.container_input(index)
    owner = defining_op(sequence) if sequence is not None else None
    if owner is None or owner.name != UNREALIZED_CAST or len(owner.operands) != 1:
        return None
    return owner.operands[0] if tensor_info(owner.operands[0].type) is not None else None


def sequence_input(node: OnnxNode, index: int, what: str | None = None) -> list[ir.Value]:
    """The elements of sequence operand `index`."""
    sequence = node.container_input(index)
    if sequence is None:
        node.fail(f"input {index} is required but absent")
    if not str(sequence.type).startswith("!torch.list<"):
        node.fail(f"input {index} has type {sequence.type}, not a sequence")
    return list_elements(node, sequence, what or f"sequence input {index}")


def fits(value_info, element_info) -> bool:
    """Whether a tensor of `value_info` is already a subtype of the list element type."""
    if element_info.sizes is None:
        return True
    if value_info.sizes is None or len(value_info.sizes) != len(element_info.sizes):
        return False
    return all(want is None or want == have for have, want in zip(value_info.sizes, element_info.sizes))


def fit_element(node: OnnxNode, b: TorchBuilder, value: ir.Value, element_type: ir.Type) -> ir.Value:
    """`value` as an element of a list of `element_type`: kept if it is a subtype, else retyped."""
    if value.type == element_type:
        return value
    have, want = tensor_info(value.type), tensor_info(element_type)
    if have is None or want is None:
        node.fail(f"a sequence element of type {value.type} does not fit a sequence of {element_type}")
    if have.element != want.element:
        node.fail(f"a {have.element} tensor cannot be an element of a sequence of {want.element} tensors")
    if fits(have, want):
        return value
    if have.sizes is not None and want.sizes is not None and len(have.sizes) != len(want.sizes):
        node.fail(f"a rank-{len(have.sizes)} tensor cannot be an element of a sequence of rank-{len(want.sizes)} tensors")
    return b.op("tensor_static_info_cast", element_type, value)


def make_sequence(node: OnnxNode, b: TorchBuilder, elements, index: int = 0) -> ir.Value:
    """`prim.ListConstruct` of `elements` with the declared type of result `index`."""
    list_type = node.result_container_type(index)
    if not str(list_type).startswith("!torch.list<"):
        node.fail(f"output {index} has type {list_type}, not a sequence")
    element_type = container_element_type(list_type)
    return b.op(LIST_CONSTRUCT, list_type, *[fit_element(node, b, e, element_type) for e in elements])


def constant_position(node: OnnxNode, index: int, length: int, default: int, allow_end: bool) -> int:
    """Position operand `index` in [0, length) (or [0, length] if `allow_end`), `default` if absent."""
    if not node.has_input(index):
        return default
    value = node.constant_input(index)
    if value is None:
        node.fail("'position' must be a constant (a run-time position would make the sequence's layout data-dependent)")
    position = int(value.reshape(-1)[0])
    highest = length if allow_end else length - 1
    if not -length <= position <= highest:
        node.fail(f"position {position} is out of range for a sequence of {length} elements")
    return position + length if position < 0 else position
