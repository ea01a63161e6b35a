"""Building and reading sequences: SequenceConstruct, SequenceEmpty, SequenceLength, SequenceAt,
SequenceInsert, SequenceErase."""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import LOOPLESS_TARGETS, OnnxNode
from ..registry import converts
from ..types import container_element_type, defining_op, tensor_info
from .elements import (
    constant_position,
    elements_differ,
    fit_element,
    in_loop_body,
    loop_carried,
    make_sequence,
    retyped_list,
    see_through_casts,
    sequence_input,
    stacked_rows,
)


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
    body, a loop-carried sequence's `aten.len.t`, resolved when the loop is unrolled; a stacked
    sequence's dim 0)."""
    rows = stacked_rows(node, 0)
    if rows is not None:
        return b.op("prim.NumToTensor.Scalar", b.tensor_type([], "si64"), b.dim_value(b.dim(rows, 0)))
    deferred = loop_carried(node, 0)
    if deferred is not None:
        length = b.op("aten.len.t", b.type("!torch.int"), deferred)
        return b.op("prim.NumToTensor.Scalar", b.tensor_type([], "si64"), length)
    return b.literal(np.array(len(sequence_input(node, 0)), dtype=np.int64), "si64")


@converts("SequenceAt", since=11)
def sequence_at(node: OnnxNode, b: TorchBuilder):
    """The element at `position` (negative counts from the back). In a Loop body, an element of a
    loop-carried sequence, or one of elements of different types at a run-time position, is
    `aten.__getitem__.t`, resolved when the loop is unrolled."""
    deferred = loop_carried(node, 0)
    if deferred is None and node.constant_input(1) is None and in_loop_body(node) and elements_differ(sequence_input(node, 0)):
        deferred = node.container_input(0)
    rows = stacked_rows(node, 0)
    if rows is not None:
        return _row_at(b, rows, node.input(1))
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


def _row_at(b: TorchBuilder, rows: ir.Value, position: ir.Value) -> ir.Value:
    """Row `position` (a [] or [1] integer tensor, negative counting from the back) of a stacked
    sequence: index (position + n) mod n along dim 0."""
    info = b.info(rows)
    count = b.dim_value(b.dim(rows, 0))
    index = b.to_dtype(b.reshape(position, [1]), "si64")
    index = b.op("aten.add.Scalar", index.type, index, count, b.constant_int(1))
    index = b.op("aten.remainder.Scalar", index.type, index, count)
    picked = b.op("aten.index_select", b.tensor_type([1, *info.sizes[1:]], info.element), rows, b.constant_int(0), index)
    return b.op("aten.squeeze.dim", b.tensor_type(info.sizes[1:], info.element), picked, b.constant_int(0))




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
    loop-carried sequence (no position, or its SequenceLength) is `aten.append.t`, resolved when
    the loop is unrolled."""
    deferred = loop_carried(node, 0)
    if deferred is not None:
        if node.has_input(2) and not _is_length_of(node.input(2), deferred):
            node.fail("a loop-carried sequence is only appended to (SequenceInsert without 'position', or at its "
                      "SequenceLength) in a Loop body")
        list_type = node.result_container_type(0)
        tensor = fit_element(node, b, node.input(1), container_element_type(list_type))
        return b.op("aten.append.t", list_type, retyped_list(b, deferred, list_type), tensor)
    elements = sequence_input(node, 0)
    tensor = node.input(1)
    if node.has_input(2) and node.constant_input(2) is None:
        return make_sequence(node, b, _insert_at_run_time(node, b, elements, tensor, node.input(2)))
    position = constant_position(node, 2, len(elements), len(elements), allow_end=True)
    return make_sequence(node, b, elements[:position] + [tensor] + elements[position:])


def _is_length_of(position: ir.Value, sequence: ir.Value) -> bool:
    """Whether `position` is `sequence`'s SequenceLength (`aten.len.t` of it, seen through casts)."""
    owner = defining_op(see_through_casts(position))
    if owner is None or owner.name != "torch.prim.NumToTensor.Scalar":
        return False
    length = defining_op(owner.operands[0])
    return (length is not None and length.name == "torch.aten.len.t"
            and see_through_casts(length.operands[0]) == see_through_casts(sequence))


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
    # StableHLO takes the If (transforms/torch/control_flow.py makes it a stablehlo.if); TOSA does not.
    if len({str(value.type) for value in values}) != 1 and (node.target not in LOOPLESS_TARGETS
                                                            or node.target == "stablehlo"):
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
