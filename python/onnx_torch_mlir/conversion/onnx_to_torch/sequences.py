"""Sequences: SequenceConstruct, SequenceEmpty, SequenceInsert, SequenceAt, SequenceErase,
SequenceLength, SplitToSequence, ConcatFromSequence, SequenceMap.

An ONNX sequence becomes a `!torch.list<vtensor<...>>` built by one `torch.prim.ListConstruct`
whose operands are its elements. Every pattern reads the elements of its input sequence from
that ListConstruct at conversion time and builds a new one, so the length of every sequence is
known while converting and torch-mlir's pipeline finds no list left to lower: SequenceAt is the
element itself, SequenceLength a literal, ConcatFromSequence an `aten.cat` of the elements.

So a sequence must be built in the graph (SequenceConstruct, SequenceEmpty, SplitToSequence,
...); a sequence whose length depends on run-time data (a graph input, a run-time scalar
`split`) fails with a diagnostic naming the node. In a Loop body, a loop-carried sequence (and
SequenceAt at a run-time position of elements of different types) becomes torch's list ops
(`aten.append.t`, `aten.__getitem__.t`, `aten.len.t`), which the Loop resolves when it unrolls
(`control_flow/lists.py`). A run-time 1-D
`split` of static length is read with `aten.item` (Linalg only). Elements may differ in
shape: the list's element type then has `?` dims, and each element keeps its own type. A
position known only at run time needs elements of one type: SequenceAt picks the element
from their stack, SequenceInsert and SequenceErase select each result element with
`aten.where` (with elements of different shapes the result's shapes would depend on data; on
Linalg SequenceInsert then selects with `torch.prim.If`s, each result element typed with `?`
where the shapes differ).
Graph inputs and outputs that are sequences or optionals are refused for a backend target
(see the driver); `onnx_torch_mlir.sequence_io.specialize` makes them tensors.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from .builder import TorchBuilder
from .node import LOOPLESS_TARGETS, OnnxNode
from .registry import converts
from .types import container_element_type, defining_op, is_torch_container, tensor_info

LIST_CONSTRUCT = "torch.prim.ListConstruct"
UNREALIZED_CAST = "builtin.unrealized_conversion_cast"


def list_elements(node: OnnxNode, sequence: ir.Value, what: str) -> list[ir.Value]:
    """The elements of a sequence built by `prim.ListConstruct`; the node fails otherwise."""
    owner = defining_op(sequence)
    if owner is not None and owner.name == LIST_CONSTRUCT:
        return list(owner.operands)
    node.fail(
        f"the length of {what} is not known at compile time: it is {_origin(sequence)}; only sequences built in "
        "the graph with a static length (SequenceConstruct, SequenceEmpty, SplitToSequence, ...) convert"
    )


def _origin(value: ir.Value) -> str:
    """Where a sequence or optional of unknown content comes from, for a diagnostic."""
    owner = defining_op(value)
    if owner is not None and owner.name == UNREALIZED_CAST and len(owner.operands) == 1:
        return _origin(owner.operands[0])  # the ONNX dialect's bridge
    if owner is None:
        carried = _loop_carried_position(value)
        if carried is not None:
            return f"loop-carried value {carried} of a Loop body, which converts once for every iteration"
        return "a graph (or subgraph) input"
    if owner.name == "torch.operator":
        return f"the output of {ir.StringAttr(owner.attributes['name']).value}, which did not convert"
    if owner.name.startswith("onnx."):
        return f"the output of {owner.name}, which did not convert"
    return f"produced by {owner.name}"


def _loop_carried_position(value: ir.Value) -> int | None:
    """N if `value` is the body argument for loop-carried value N of an ONNX Loop, else None."""
    if not isinstance(value, ir.BlockArgument) or value.arg_number < 2:
        return None
    parent = value.owner.owner.operation
    name = ir.StringAttr(parent.attributes["name"]).value if parent.name == "torch.operator" else parent.name
    return value.arg_number - 2 if name == "onnx.Loop" else None


def _in_loop_body(node: OnnxNode) -> bool:
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


def _loop_carried(node: OnnxNode, index: int) -> ir.Value | None:
    """Sequence operand `index` if it is not built in the graph and the node is in a Loop body
    (a loop-carried sequence, known once the loop is unrolled), else None."""
    sequence = node.container_input(index)
    if sequence is None or not str(sequence.type).startswith("!torch.list<"):
        return None
    owner = defining_op(sequence)
    if owner is not None and owner.name == LIST_CONSTRUCT:
        return None
    return sequence if _in_loop_body(node) else None


def _differ(elements) -> bool:
    types = {str(element.type) for element in elements}
    return len(types) > 1 or any(tensor_info(element.type) is None or tensor_info(element.type).sizes is None
                                 for element in elements)


def _retyped_list(b: TorchBuilder, sequence: ir.Value, list_type: ir.Type) -> ir.Value:
    """A list value as `list_type` for `aten.append.t` (a list's type is not cast: a bridge pair)."""
    if sequence.type == list_type:
        return sequence
    return b.op(UNREALIZED_CAST, list_type, sequence)


def sequence_input(node: OnnxNode, index: int, what: str | None = None) -> list[ir.Value]:
    """The elements of sequence operand `index`."""
    sequence = node.container_input(index)
    if sequence is None:
        node.fail(f"input {index} is required but absent")
    if not str(sequence.type).startswith("!torch.list<"):
        node.fail(f"input {index} has type {sequence.type}, not a sequence")
    return list_elements(node, sequence, what or f"sequence input {index}")


def _fits(value_info, element_info) -> bool:
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
    if _fits(have, want):
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


# -- building and reading sequences ---------------------------------------------------------------
@converts("SequenceConstruct", since=11)
def sequence_construct(node: OnnxNode, b: TorchBuilder):
    return make_sequence(node, b, node.inputs())


@converts("SequenceEmpty", since=11)
def sequence_empty(node: OnnxNode, b: TorchBuilder):
    """An empty list of the declared element type (`dtype`, float by default)."""
    return make_sequence(node, b, [])


@converts("SequenceLength", since=11)
def sequence_length(node: OnnxNode, b: TorchBuilder):
    """The number of elements, a literal: every sequence has a static length here (in a Loop
    body, a loop-carried sequence's `aten.len.t`, resolved when the loop is unrolled)."""
    deferred = _loop_carried(node, 0)
    if deferred is not None:
        length = b.op("aten.len.t", b.type("!torch.int"), deferred)
        return b.op("prim.NumToTensor.Scalar", b.tensor_type([], "si64"), length)
    return b.literal(np.array(len(sequence_input(node, 0)), dtype=np.int64), "si64")


@converts("SequenceAt", since=11)
def sequence_at(node: OnnxNode, b: TorchBuilder):
    """The element at `position` (negative counts from the back). In a Loop body, an element of a
    loop-carried sequence, or one of elements of different types at a run-time position, is
    `aten.__getitem__.t`, resolved when the loop is unrolled."""
    deferred = _loop_carried(node, 0)
    if deferred is None and node.constant_input(1) is None and _in_loop_body(node) and _differ(sequence_input(node, 0)):
        deferred = node.container_input(0)
    if deferred is not None:
        info = node.result_info(0)
        position = node.scalar_input(1, b)
        position = b.constant_int(position) if isinstance(position, int) else position
        return b.op("aten.__getitem__.t", b.tensor_type(info.sizes, info.element), deferred, position)
    elements = sequence_input(node, 0)
    if not elements:
        node.fail("the sequence is empty: SequenceAt has no element to return")
    if node.constant_input(1) is not None:
        return elements[constant_position(node, 1, len(elements), 0, allow_end=False)]
    return _select_at_run_time(node, b, elements, node.input(1))


def _select_at_run_time(node: OnnxNode, b: TorchBuilder, elements, position: ir.Value) -> ir.Value:
    """Element `position` (a run-time scalar) of elements of one type: their stack, indexed.

    The index is (position + n) mod n, which maps [-n, n) onto [0, n) as ONNX counts; the
    dividend is never negative (StableHLO's lowering of `aten.remainder` truncates)."""
    types = {str(element.type) for element in elements}
    info = tensor_info(elements[0].type)
    if len(types) != 1 or info is None or info.sizes is None:
        node.fail("a run-time 'position' needs elements of one ranked type (this sequence's elements differ)")
    stacked_type = b.tensor_type([len(elements), *info.sizes], info.element)
    stacked = b.op("aten.stack", stacked_type, b.tensor_list(elements), b.constant_int(0))
    index = b.to_dtype(b.reshape(position, [1]), "si64")
    count = b.constant_int(len(elements))
    index = b.op("aten.add.Scalar", index.type, index, count, b.constant_int(1))
    index = b.op("aten.remainder.Scalar", index.type, index, count)
    picked = b.op("aten.index_select", b.tensor_type([1, *info.sizes], info.element), stacked, b.constant_int(0), index)
    return b.op("aten.squeeze.dim", elements[0].type, picked, b.constant_int(0))


@converts("SequenceInsert", since=11)
def sequence_insert(node: OnnxNode, b: TorchBuilder):
    """`tensor` inserted before `position` (default: appended). In a Loop body, appending to a
    loop-carried sequence is `aten.append.t`, resolved when the loop is unrolled."""
    deferred = _loop_carried(node, 0)
    if deferred is not None:
        if node.has_input(2):
            node.fail("a loop-carried sequence is only appended to (SequenceInsert without 'position') in a Loop body")
        list_type = node.result_container_type(0)
        tensor = fit_element(node, b, node.input(1), container_element_type(list_type))
        return b.op("aten.append.t", list_type, _retyped_list(b, deferred, list_type), tensor)
    elements = sequence_input(node, 0)
    tensor = node.input(1)
    if node.has_input(2) and node.constant_input(2) is None:
        return make_sequence(node, b, _insert_at_run_time(node, b, elements, tensor, node.input(2)))
    position = constant_position(node, 2, len(elements), len(elements), allow_end=True)
    return make_sequence(node, b, elements[:position] + [tensor] + elements[position:])


def _run_time_index(node: OnnxNode, b: TorchBuilder, values, position: ir.Value, length: int) -> ir.Value:
    """A run-time `position` over `length` elements as a rank-0 si64 index (position + length if
    negative); the values must share one ranked type, since each result element is selected."""
    types = {str(value.type) for value in values}
    info = tensor_info(values[0].type) if values else None
    if len(types) != 1 or info is None or info.sizes is None:
        node.fail("a run-time 'position' needs the sequence's elements (and the inserted tensor) to have one ranked type")
    index = b.to_dtype(b.reshape(position, [], []), "si64")
    negative = b.to_dtype(b.op("aten.lt.Scalar", b.tensor_type([], "i1"), index, b.constant_int(0)), "si64")
    shift = b.op("aten.mul.Scalar", index.type, negative, b.constant_int(length))
    return b.op("aten.add.Tensor", index.type, index, shift, b.constant_int(1))


def _compare(b: TorchBuilder, index: ir.Value, op: str, number: int) -> ir.Value:
    return b.op(f"aten.{op}.Scalar", b.tensor_type([], "i1"), index, b.constant_int(number))


def _where(b: TorchBuilder, condition: ir.Value, if_true: ir.Value, if_false: ir.Value) -> ir.Value:
    return b.op("aten.where.self", if_true.type, condition, if_true, if_false)


def _insert_at_run_time(node: OnnxNode, b: TorchBuilder, elements, tensor: ir.Value, position: ir.Value) -> list:
    """Element i of the result is e[i] before the position, the tensor at it, e[i - 1] after it:
    selected with `aten.where` when all share one type, else (Linalg) with `torch.prim.If`s
    whose result has the elements' common type (`?` where their dims differ)."""
    n = len(elements)
    values = [*elements, tensor]
    if len({str(value.type) for value in values}) != 1 and node.target not in LOOPLESS_TARGETS:
        joined = _common_type(node, b, values)
        index = b.item(_run_time_index(node, b, [position], position, n))

        def compare(op, number):
            return b.op(f"aten.{op}.int", b.type("!torch.bool"), index, b.constant_int(number))

        def select(condition, if_true, if_false):
            return _branch(b, condition, if_true, if_false, joined)
    else:
        index = _run_time_index(node, b, values, position, n)

        def compare(op, number):
            return _compare(b, index, op, number)

        def select(condition, if_true, if_false):
            return _where(b, condition, if_true, if_false)
    result = []
    for i in range(n + 1):
        after = elements[i - 1] if i > 0 else tensor
        chosen = select(compare("eq", i), tensor, after) if i > 0 else tensor
        result.append(select(compare("gt", i), elements[i], chosen) if i < n else chosen)
    return result


def _common_type(node: OnnxNode, b: TorchBuilder, values) -> ir.Type:
    """The type all `values` fit: one element type and rank, `?` where the dims differ."""
    infos = [tensor_info(value.type) for value in values]
    if any(info is None or info.sizes is None for info in infos) or len({(info.element, info.rank) for info in infos}) != 1:
        node.fail("a run-time 'position' needs the sequence's elements (and the inserted tensor) to have one element "
                  "type and rank")
    sizes = [dims.pop() if len(dims := {info.sizes[d] for info in infos}) == 1 else None for d in range(infos[0].rank)]
    return b.tensor_type(sizes, infos[0].element)


def _branch(b: TorchBuilder, condition: ir.Value, if_true: ir.Value, if_false: ir.Value, result_type: ir.Type) -> ir.Value:
    """`torch.prim.If` on a `!torch.bool` choosing between two tensors, each cast to `result_type`
    inside its branch (a branch that only forwards an outer value would be folded to a select
    of tensors, which torch-mlir's Linalg backend contract rejects)."""
    op = ir.Operation.create("torch.prim.If", results=[result_type], operands=[condition], regions=2,
                             loc=b.location, ip=ir.InsertionPoint(b.anchor))
    for region, value in zip(op.regions, (if_true, if_false)):
        block = region.blocks.append()
        end = ir.Operation.create("torch.prim.If.yield", operands=[value], loc=b.location, ip=ir.InsertionPoint(block))
        end.operands[0] = TorchBuilder(end, b.location).op("tensor_static_info_cast", result_type, value)
    return op.result


@converts("SequenceErase", since=11)
def sequence_erase(node: OnnxNode, b: TorchBuilder):
    """The sequence without the element at `position` (default: the last)."""
    elements = sequence_input(node, 0)
    if not elements:
        node.fail("the sequence is empty: SequenceErase has no element to remove")
    if node.has_input(1) and node.constant_input(1) is None:
        index = _run_time_index(node, b, elements, node.input(1), len(elements))
        kept = [_where(b, _compare(b, index, "gt", i), elements[i], elements[i + 1]) for i in range(len(elements) - 1)]
        return make_sequence(node, b, kept)
    position = constant_position(node, 1, len(elements), len(elements) - 1, allow_end=False)
    return make_sequence(node, b, elements[:position] + elements[position + 1 :])


# -- between tensors and sequences --------------------------------------------------------------
@converts("SplitToSequence", since=11)
def split_to_sequence(node: OnnxNode, b: TorchBuilder):
    """Slices of the input along `axis`: sizes `split` (1-D), chunks of `split` (a scalar, the
    last one smaller), or without `split` every index (kept as a size-1 dim unless keepdims=0)."""
    x = node.input(0)
    sizes = node.input_sizes(0)
    axis = node.axis(node.attr_int("axis", 0), len(sizes))
    length = sizes[axis]
    if not node.has_input(1):
        if length is None:
            node.fail(f"without 'split', dim {axis} of the input must be static (it is the sequence's length)")
        if node.attr_int("keepdims", 1):
            return make_sequence(node, b, [b.slice_range(x, axis, i, i + 1) for i in range(length)])
        element_type = b.tensor_type(sizes[:axis] + sizes[axis + 1 :], node.input_info(0).element)
        pieces = [b.op("aten.select.int", element_type, x, b.constant_int(axis), b.constant_int(i)) for i in range(length)]
        return make_sequence(node, b, pieces)
    split = node.constant_input(1)
    if split is None:
        return make_sequence(node, b, _split_at_run_time(node, b, x, axis))
    if split.ndim == 0:
        if length is None:
            node.fail(f"a scalar 'split' needs dim {axis} of the input to be static")
        chunk = int(split)
        if chunk <= 0:
            node.fail(f"'split' must be positive, got {chunk}")
        bounds = [(start, min(start + chunk, length)) for start in range(0, length, chunk)]
    else:
        parts = [int(v) for v in split.reshape(-1)]
        if any(part < 0 for part in parts) or (length is not None and sum(parts) != length):
            node.fail(f"'split' {parts} does not add up to dim {axis} of size {length}")
        starts = np.cumsum([0] + parts[:-1])
        bounds = [(int(start), int(start) + part) for start, part in zip(starts, parts)]
    return make_sequence(node, b, [b.slice_range(x, axis, start, end) for start, end in bounds])


def _split_at_run_time(node: OnnxNode, b: TorchBuilder, x: ir.Value, axis: int) -> list[ir.Value]:
    """Slices of sizes read at run time: a 1-D `split` of static length gives that many elements
    (their sizes along `axis` are `?`); a scalar or a split of unknown length would make the
    number of elements data-dependent."""
    info = node.input_info(1)
    if info.sizes is None or len(info.sizes) != 1 or info.sizes[0] is None:
        node.fail("'split' must be a constant, or a 1-D tensor of static length: otherwise the number of "
                  "sequence elements depends on run-time data")
    if node.target in ("tosa", "stablehlo"):
        node.fail(f"a run-time 'split' is read with aten.item, which {node.target} cannot lower; make it a constant")
    parts = node.int_elements(1, b, "split")
    sizes = list(node.input_info(0).sizes)
    pieces, start = [], 0
    for part in parts:
        end = b.dim_add(start, part)
        sizes[axis] = b.static_dim(part)
        pieces.append(b.op(
            "aten.slice.Tensor", b.tensor_type(sizes, node.input_info(0).element), x,
            b.constant_int(axis), b.dim_value(start), b.dim_value(end), b.constant_int(1),
        ))
        start = end
    return pieces


@converts("ConcatFromSequence", since=11)
def concat_from_sequence(node: OnnxNode, b: TorchBuilder):
    """`aten.cat` of the elements along `axis`, or `aten.stack` (a new dim at `axis`) with new_axis=1."""
    elements = sequence_input(node, 0)
    if not elements:
        node.fail("the sequence is empty: ConcatFromSequence has nothing to concatenate")
    infos = [tensor_info(element.type) for element in elements]
    if any(info is None or info.sizes is None for info in infos) or len({info.rank for info in infos}) != 1:
        node.fail("the sequence's elements need one static rank")
    rank = infos[0].rank
    stack = bool(node.attr_int("new_axis", 0))
    axis = node.axis(node.attr_int("axis"), rank + 1 if stack else rank)
    sizes = [_common_size([info.sizes[d] for info in infos]) for d in range(rank)]
    if stack:
        sizes.insert(axis, len(elements))
        result_type = b.tensor_type(sizes, infos[0].element)
        return b.op("aten.stack", result_type, b.tensor_list(elements), b.constant_int(axis))
    along = [info.sizes[axis] for info in infos]
    sizes[axis] = None if None in along else sum(along)
    result_type = b.tensor_type(sizes, infos[0].element)
    return b.op("aten.cat", result_type, b.tensor_list(elements), b.constant_int(axis))


def _common_size(sizes):
    """The size all elements have along a dim that is not concatenated (a static one if any)."""
    static = [size for size in sizes if size is not None]
    return static[0] if static else None


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
    if have is not None and want is not None and have.element == want.element and _fits(have, want):
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
           "change from one iteration to the next)" if _loop_carried_position(value) is not None else
           "only optionals built in the graph by Optional convert")
    node.fail(f"whether optional input {index} holds a value is not known at compile time: it is {_origin(value)}; {why}")


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
