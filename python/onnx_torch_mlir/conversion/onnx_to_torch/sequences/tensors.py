"""Between tensors and sequences: SplitToSequence, ConcatFromSequence."""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import OnnxNode
from ..registry import converts
from ..types import tensor_info
from .elements import make_sequence, sequence_input, stacked_rows


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
    if node.target == "tosa":
        node.fail("a run-time 'split' is read with aten.item, which tosa cannot lower; make it a constant")
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
    rows = stacked_rows(node, 0)
    if rows is not None:
        return _concat_rows(node, b, rows)
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

def _concat_rows(node: OnnxNode, b: TorchBuilder, rows: ir.Value) -> ir.Value:
    """ConcatFromSequence of a stacked sequence [n, *element]: with new_axis=1 the stack with its
    dim 0 moved to `axis`; else that, with the moved dim merged into the next (`aten.flatten`)."""
    info = b.info(rows)
    rank = info.rank - 1
    stack = bool(node.attr_int("new_axis", 0))
    axis = node.axis(node.attr_int("axis"), rank + 1 if stack else rank)
    order = list(range(1, rank + 1))
    order.insert(axis, 0)
    sizes = [info.sizes[d] for d in order]
    moved = rows if axis == 0 else b.op("aten.permute", b.tensor_type(sizes, info.element), rows, b.int_list(order))
    if stack:
        return moved
    merged = None if None in sizes[axis : axis + 2] else sizes[axis] * sizes[axis + 1]
    flat_sizes = sizes[:axis] + [merged] + sizes[axis + 2 :]
    return b.op("aten.flatten.using_ints", b.tensor_type(flat_sizes, info.element), moved, b.constant_int(axis),
                b.constant_int(axis + 1))
