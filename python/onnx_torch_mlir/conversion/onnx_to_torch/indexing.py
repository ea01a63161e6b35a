"""Indexing: Gather, GatherElements, GatherND, Scatter, ScatterElements, ScatterND, OneHot,
ReverseSequence. Resize and Upsample are in the `indexing_resize` package; NonZero and Compress
in `selection`.

ONNX indices may be negative (counted from the end of the indexed dimension) from opset 11
on; earlier opsets leave them undefined, so every pattern normalizes them the same way.
Multi-dimensional indexing (GatherND, ScatterND) is lowered to one-dimensional indexing on
a flattened view: the index tuple becomes a linear offset (Horner's rule over the indexed
dimensions), which keeps dynamic dimensions symbolic (`aten.size.int`) instead of
requiring static shapes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from torch_mlir import ir

from .builder import TorchBuilder
from .node import OnnxNode
from .padded_rows import PADDED_COUNT_TARGETS, padded_rows
from .registry import converts
from .types import highest_value, lowest_value

# ONNX reduction attribute -> aten.scatter_reduce.two reduce name.
SCATTER_REDUCTIONS = {"add": "sum", "mul": "prod", "max": "amax", "min": "amin"}


# -- helpers --------------------------------------------------------------------------------
def _to_int64(b: TorchBuilder, x: ir.Value) -> ir.Value:
    return b.to_dtype(x, "si64")


def _normalize_indices(b: TorchBuilder, indices: ir.Value, size) -> ir.Value:
    """Negative indices count from the end: where(i < 0, i + size, i), as si64 (`size` a dim)."""
    indices = _to_int64(b, indices)
    info = b.info(indices)
    negative = b.op("aten.lt.Scalar", b.tensor_type(info.sizes, "i1"), indices, b.constant_int(0))
    wrapped = b.op("aten.add.Scalar", indices.type, indices, b.dim_value(size), b.constant_int(1))
    return b.op("aten.where.self", indices.type, negative, wrapped, indices)


def _select_last(b: TorchBuilder, x: ir.Value, position: int) -> ir.Value:
    """x[..., position]."""
    info = b.info(x)
    return b.op(
        "aten.select.int", b.tensor_type(info.sizes[:-1], info.element), x,
        b.constant_int(len(info.sizes) - 1), b.constant_int(position),
    )


def _linear_index(b: TorchBuilder, indices: ir.Value, dims: Sequence) -> ir.Value:
    """Row-major offset of the index tuples in the last dimension of `indices` into `dims`."""
    offset = None
    for position, dim in enumerate(dims):
        component = _normalize_indices(b, _select_last(b, indices, position), dim)
        if offset is None:
            offset = component
        else:
            scaled = b.op("aten.mul.Scalar", offset.type, offset, b.dim_value(dim))
            offset = b.op("aten.add.Tensor", offset.type, scaled, component, b.constant_int(1))
    return offset


def _expand(b: TorchBuilder, x: ir.Value, dims: Sequence) -> ir.Value:
    static = [b.static_dim(dim) for dim in dims]
    return b.op("aten.expand", b.tensor_type(static, b.info(x).element), x, b.int_list(dims), b.constant_bool(False))


# -- Gather ------------------------------------------------------------------------------
@converts("Gather", since=1)
def gather(node: OnnxNode, b: TorchBuilder):
    """out[a..., i..., c...] = data[a..., indices[i...], c...] along `axis` (negative indices
    wrap, as defined from opset 11)."""
    picked = _gather_of_dims(node, b)
    if picked is None and node.target in ("tosa", "stablehlo"):
        picked = _gather_by_slices(node, b)
    if picked is not None:
        return picked
    data, indices = node.input(0), node.input(1)
    data_sizes, index_sizes = node.input_sizes(0), node.input_sizes(1)
    axis = node.axis(node.attr_int("axis"), len(data_sizes))
    padded = _padded_rows_along(node, b, data, axis)
    if padded is not None:
        return _gather_from_padded_rows(node, b, padded, indices, axis)
    data_dims = b.dims(data)
    flat = b.flatten(_normalize_indices(b, indices, data_dims[axis]))
    selected_sizes = list(data_sizes)
    selected_sizes[axis] = b.info(flat).sizes[0]
    selected = b.op(
        "aten.index_select", b.tensor_type(selected_sizes, b.info(data).element), data, b.constant_int(axis), flat
    )
    if len(index_sizes) == 1:
        return selected
    return b.reshape(selected, data_dims[:axis] + b.dims(indices) + data_dims[axis + 1 :])


def _padded_rows_along(node: OnnxNode, b: TorchBuilder, data, axis: int):
    """On StableHLO and TOSA, the padded rows of `data` when its dim `axis` is a data-dependent count
    (`padded_rows`), else None."""
    if node.target not in PADDED_COUNT_TARGETS or b.info(data).sizes[axis] is not None:
        return None
    rows = padded_rows(b, data)
    return rows if rows is not None and rows.axis == axis else None


def _gather_from_padded_rows(node: OnnxNode, b: TorchBuilder, rows, indices, axis: int):
    """Gather along a data-dependent count (a detector's boxes picked by NonMaxSuppression's kept
    indices): picked from the padded rows, which hold the same rows first, so no op computes on a
    run-time size; a negative index counts from the run-time count."""
    indices = _to_int64(b, indices)
    info = b.info(indices)
    negative = b.op("aten.lt.Scalar", b.tensor_type(info.sizes, "i1"), indices, b.constant_int(0))
    wrapped = b.binary("aten.add.Tensor", indices, b.to_dtype(rows.count, "si64"))
    flat = b.flatten(b.op("aten.where.self", indices.type, negative, wrapped, indices))
    padded_sizes = list(b.info(rows.padded).sizes)
    selected_sizes = list(padded_sizes)
    selected_sizes[axis] = b.info(flat).sizes[0]
    selected = b.op("aten.index_select", b.tensor_type(selected_sizes, b.info(rows.padded).element), rows.padded,
                    b.constant_int(axis), flat)
    if info.rank == 1:
        return selected
    return b.reshape(selected, padded_sizes[:axis] + b.dims(indices) + padded_sizes[axis + 1:])


def _gather_of_dims(node: OnnxNode, b: TorchBuilder):
    """Constant positions of a list of dims (a `Shape` result of a dynamic input): the picked dims,
    a literal when static; one position gives a 0-d tensor of the dim."""
    dims = node.dim_elements(0)
    positions = node.constant_input(1)
    if dims is None or positions is None or positions.ndim > 1:
        return None
    if any(not -len(dims) <= int(p) < len(dims) for p in positions.reshape(-1)):
        return None  # the general pattern reports it
    picked = [dims[int(p)] for p in positions.reshape(-1)]
    if positions.ndim == 1:
        return b.dims_tensor(picked)
    if isinstance(picked[0], int):
        return b.literal(np.array(picked[0], dtype=np.int64), "si64")
    return b.op("prim.NumToTensor.Scalar", b.tensor_type([], "si64"), picked[0])


def _gather_by_slices(node: OnnxNode, b: TorchBuilder):
    """A few constant positions along a dim of a dynamically shaped input, as slices: TOSA's and
    StableHLO's lowerings of `aten.index_select` take no dynamic shapes (`dynamic_gather`, which
    IREE refuses), their slices do (BERT's pooler picks token 0 of a dynamic sequence)."""
    positions = node.constant_input(1)
    info = node.input_info(0)
    if positions is None or positions.ndim > 1 or positions.size > 4 or info.sizes is None or info.is_static:
        return None
    axis = node.axis(node.attr_int("axis"), len(info.sizes))
    dim = info.sizes[axis]
    if any(int(p) < 0 for p in positions.reshape(-1)) and dim is None:
        return None
    data = node.input(0)
    starts = [int(p) + (dim if int(p) < 0 else 0) for p in positions.reshape(-1)]
    if dim is not None and any(not 0 <= start < dim for start in starts):
        return None  # the general pattern's bounds apply
    pieces = [b.slice_range(data, axis, start, start + 1) for start in starts]
    if positions.ndim == 0:
        return b.op("aten.squeeze.dim", node.result_type(), pieces[0], b.constant_int(axis))
    if len(pieces) == 1:
        return pieces[0]
    return b.op("aten.cat", node.result_type(), b.tensor_list(pieces), b.constant_int(axis))


@converts("GatherElements", since=11)
def gather_elements(node: OnnxNode, b: TorchBuilder):
    """out[i][j] = data[indices[i][j]][j] for axis 0 (likewise for other axes): aten.gather."""
    data, indices = node.input(0), node.input(1)
    axis = node.axis(node.attr_int("axis"), node.rank(0))
    indices = _normalize_indices(b, indices, b.dim(data, axis))
    return b.op("aten.gather", node.result_type(), data, b.constant_int(axis), indices, b.constant_bool(False))


@converts("GatherND", since=11)
def gather_nd(node: OnnxNode, b: TorchBuilder):
    """Index tuples in the last dimension of `indices` select slices of `data`; the first
    `batch_dims` dimensions (attribute from opset 12) are shared by data and indices.

    data [B..., D1..Dk, R...] is flattened to [prod(B) * prod(D), prod(R)], each tuple to
    its row (batch offset + linear offset), one index_select, then the result is reshaped
    to [B..., Q..., R...]."""
    data, indices = node.input(0), node.input(1)
    data_sizes, index_sizes = node.input_sizes(0), node.input_sizes(1)
    batch_dims = node.attr_int("batch_dims", 0)
    k = index_sizes[-1] if index_sizes else None
    if k is None:
        node.fail("needs a static last dimension of indices (the index tuple length)")
    if batch_dims < 0 or batch_dims + k > len(data_sizes) or batch_dims >= len(index_sizes):
        node.fail(f"batch_dims {batch_dims} with index tuples of length {k} does not fit data of rank {len(data_sizes)}")
    data_dims, index_dims = b.dims(data), b.dims(indices)
    batch, indexed = data_dims[:batch_dims], data_dims[batch_dims : batch_dims + k]
    rest, queries = data_dims[batch_dims + k :], index_dims[batch_dims:-1]

    offset = _linear_index(b, indices, indexed)  # [B..., Q...]
    if batch_dims:
        indexed_count = b.dim_value(b.dim_product(indexed))
        batch_start = b.arange(b.dim_product(batch))
        batch_start = b.op("aten.mul.Scalar", batch_start.type, batch_start, indexed_count)
        # [prod(B)] -> [B..., 1 (per query dim)] to broadcast over the queries.
        batch_start = b.reshape(batch_start, batch + [1] * len(queries))
        offset = b.op("aten.add.Tensor", offset.type, offset, batch_start, b.constant_int(1))
    width = b.dim_product(rest)
    table = b.reshape(data, [b.dim_product(batch + indexed), width])
    flat_offset = b.flatten(offset)
    picked = b.op(
        "aten.index_select", b.tensor_type([b.info(flat_offset).sizes[0], b.static_dim(width)], b.info(data).element),
        table, b.constant_int(0), flat_offset,
    )
    return b.reshape(picked, batch + queries + rest)


# -- Scatter -----------------------------------------------------------------------------
# Beyond this many (update, target position) pairs the masked scatter is refused: it compares
# every update with every position along the axis.
MASKED_SCATTER_LIMIT = 1 << 24


def _reduction_identity(reduction: str, element: str):
    return {"add": 0, "mul": 1, "max": lowest_value(element), "min": highest_value(element)}[reduction]


def _reduce_away(b: TorchBuilder, x, dim: int, reduction: str, result_type):
    element, false = b.info(x).element, b.constant_bool(False)
    if reduction == "add":
        return b.op("aten.sum.dim_IntList", result_type, x, b.int_list([dim]), false, b.dtype(element))
    if reduction == "mul":
        return b.op("aten.prod.dim_int", result_type, x, b.constant_int(dim), false, b.dtype(element))
    return b.op("aten.amax" if reduction == "max" else "aten.amin", result_type, x, b.int_list([dim]), false)


def _masked_scatter_reduce(node: OnnxNode, b: TorchBuilder, data, axis: int, indices, updates, reduction: str):
    """scatter_reduce without a scatter, for TOSA and StableHLO (torch-mlir's TOSA lowering has
    no scatter_reduce; its StableHLO lowering leaves the op's constants behind). Each update is
    compared with every position k along `axis` (a one-hot [indices..., k] mask), spread there
    with the reduction's identity elsewhere, reduced over `axis` of the indices, moved back to
    `axis`, padded with the identity to data's shape and combined with data (include_self)."""
    data_info, index_info = b.info(data), b.info(indices)
    data_sizes, index_sizes, element = list(data_info.sizes), list(index_info.sizes), data_info.element
    if None in data_sizes or None in index_sizes:
        node.fail(f"a scatter with reduction '{reduction}' needs static shapes on {node.target}")
    if data_sizes[axis] * int(np.prod(index_sizes)) > MASKED_SCATTER_LIMIT:
        node.fail(f"a scatter with reduction '{reduction}' is written as a comparison of every update with every "
                  f"position on {node.target} (no scatter-reduce there); beyond {MASKED_SCATTER_LIMIT} pairs it is refused")
    rank, width = len(data_sizes), data_sizes[axis]
    spread_sizes = index_sizes + [width]
    hit = b.op("aten.eq.Tensor", b.tensor_type(spread_sizes, "i1"), b.unsqueeze(indices, -1), b.arange(width))
    identity = _reduction_identity(reduction, element)
    spread = b.op("aten.where.self", b.tensor_type(spread_sizes, element), hit, b.unsqueeze(updates, -1),
                  b.scalar_tensor_literal(identity, element))
    reduced_sizes = index_sizes[:axis] + index_sizes[axis + 1:] + [width]
    reduced = _reduce_away(b, spread, axis, reduction, b.tensor_type(reduced_sizes, element))
    order = list(range(axis)) + [rank - 1] + list(range(axis, rank - 1))
    moved_sizes = [reduced_sizes[d] for d in order]
    moved = b.op("aten.permute", b.tensor_type(moved_sizes, element), reduced, b.int_list(order))
    if moved_sizes != data_sizes:
        pad = []
        for d in reversed(range(rank)):  # torch lists the last dim first
            pad += [0, data_sizes[d] - moved_sizes[d]]
        moved = b.op("aten.constant_pad_nd", b.tensor_type(data_sizes, element), moved, b.int_list(pad),
                     b.constant_float(float(identity)))
    combine = {"add": "aten.add.Tensor", "mul": "aten.mul.Tensor", "max": "aten.maximum", "min": "aten.minimum"}
    return b.binary(combine[reduction], data, moved, b.type_like(data))


def _scatter_along(node: OnnxNode, b: TorchBuilder, result_type, data, axis: int, indices, updates, reduction: str):
    if reduction == "none":
        return b.op("aten.scatter.src", result_type, data, b.constant_int(axis), indices, updates)
    if reduction not in SCATTER_REDUCTIONS:
        node.fail(f"reduction '{reduction}' is not one of 'none', 'add', 'mul', 'max', 'min'")
    if node.target in ("tosa", "stablehlo"):
        return b.cast_to(_masked_scatter_reduce(node, b, data, axis, indices, updates, reduction), result_type)
    return b.op(
        "aten.scatter_reduce.two", result_type, data, b.constant_int(axis), indices, updates,
        b.constant_string(SCATTER_REDUCTIONS[reduction]), b.constant_bool(True),
    )


def _scatter_elements(node: OnnxNode, b: TorchBuilder, reduction: str):
    data, indices, updates = node.input(0), node.input(1), node.input(2)
    axis = node.axis(node.attr_int("axis"), node.rank(0))
    indices = _normalize_indices(b, indices, b.dim(data, axis))
    if reduction == "none" and node.target == "tosa":
        written = _elements_written_by_gather(b, data, axis, indices, updates)
        if written is not None:
            return written
    return _scatter_along(node, b, node.result_type(), data, axis, indices, updates, reduction)


def _elements_written_by_gather(b: TorchBuilder, data, axis: int, indices, updates):
    """ScatterElements as ScatterND of single elements on TOSA (`_rows_written_by_gather`): each
    update's flat offset into data is indices * stride(axis) plus its own coordinates on the other
    dims (a literal). None (keep the scatter) for dynamic sizes or above MASKED_SCATTER_LIMIT pairs."""
    data_sizes, index_sizes = b.info(data).sizes, b.info(indices).sizes
    if None in data_sizes or None in index_sizes or not data_sizes:
        return None
    count, total = int(np.prod(index_sizes, dtype=np.int64)), int(np.prod(data_sizes, dtype=np.int64))
    if count * total > MASKED_SCATTER_LIMIT:
        return None
    strides = [int(np.prod(data_sizes[d + 1:], dtype=np.int64)) for d in range(len(data_sizes))]
    others = sum(np.arange(size, dtype=np.int64).reshape([-1 if d == dim else 1 for d in range(len(index_sizes))])
                 * strides[dim] for dim, size in enumerate(index_sizes) if dim != axis)
    offset = b.op("aten.mul.Scalar", indices.type, indices, b.constant_int(strides[axis]))
    if len(index_sizes) > 1:
        offset = b.binary("aten.add.Tensor", offset, b.literal(np.broadcast_to(others, index_sizes), "si64"))
    table = b.reshape(data, [total, 1])
    written = _rows_written_by_gather(b, table, b.flatten(offset), b.reshape(updates, [count, 1]))
    return None if written is None else b.reshape(written, data_sizes)


@converts("Scatter", since=9)
def scatter(node: OnnxNode, b: TorchBuilder):
    """Deprecated spelling of ScatterElements without reduction."""
    return _scatter_elements(node, b, "none")


@converts("ScatterElements", since=11)
def scatter_elements(node: OnnxNode, b: TorchBuilder):
    """data[indices[i][j]][j] = updates[i][j] (axis 0); `reduction` from opset 16 (add, mul),
    18 (max, min); duplicate indices without reduction: the last update wins."""
    return _scatter_elements(node, b, node.attr_string("reduction", "none"))


@converts("ScatterND", since=11)
def scatter_nd(node: OnnxNode, b: TorchBuilder):
    """data[indices[q...]] = updates[q...] (slices), with `reduction` from opset 16/18.

    data [D1..Dk, R...] is viewed as [prod(D), prod(R)] and each index tuple as its row;
    the update rows scatter along dim 0 with the row index broadcast over the row."""
    data, indices, updates = node.input(0), node.input(1), node.input(2)
    data_sizes, index_sizes = node.input_sizes(0), node.input_sizes(1)
    node.rank(2)
    k = index_sizes[-1] if index_sizes else None
    if k is None:
        node.fail("needs a static last dimension of indices (the index tuple length)")
    if k > len(data_sizes):
        node.fail(f"index tuples of length {k} do not fit data of rank {len(data_sizes)}")
    reduction = node.attr_string("reduction", "none")
    data_dims = b.dims(data)
    rows, width = b.dim_product(data_dims[:k]), b.dim_product(data_dims[k:])
    table = b.reshape(data, [rows, width])
    offset = b.flatten(_linear_index(b, indices, data_dims[:k]))
    count = b.dim(offset, 0)
    update_rows = b.reshape(updates, [count, width])
    scattered = None
    if reduction == "none" and node.target == "tosa":
        scattered = _rows_written_by_gather(b, table, offset, update_rows)
    if scattered is None:
        row_index = _expand(b, b.unsqueeze(offset, 1), [count, width])
        scattered = _scatter_along(node, b, table.type, table, 0, row_index, update_rows, reduction)
    return b.reshape(scattered, data_dims, data_sizes)


def _rows_written_by_gather(b: TorchBuilder, table, offset, update_rows):
    """table [rows, width] with row offset[k] replaced by update_rows[k] (the last k wins), as one
    row gather from [table; update_rows]: row p reads rows + (the last k with offset[k] = p), or
    itself when no k writes it, i.e. the largest of p and rows + k over the k that hit p (a
    [count, rows] comparison). For TOSA: torch-mlir lowers `scatter.src` to `tosa.scatter`, which
    MLIR's TOSA-to-SCF turns into a loop of one-element copies; in IREE that is a dispatch per
    element, and when every operand is constant IREE hoists the loop into an initializer where
    its stream pipeline never converges ("maximum iteration count exceeded in fixed point
    pipeline", T5's causal mask). None (keep the scatter) for dynamic sizes or above
    MASKED_SCATTER_LIMIT pairs."""
    (rows, width), count = b.info(table).sizes, b.info(update_rows).sizes[0]
    if None in (rows, width, count) or rows * count > MASKED_SCATTER_LIMIT:
        return None
    if count == 0:
        return table
    hit = b.op("aten.eq.Tensor", b.tensor_type([count, rows], "i1"), b.unsqueeze(offset, 1), b.arange(rows))
    update_positions = b.literal(np.arange(rows, rows + count, dtype=np.int32).reshape(count, 1), "si32")
    own_positions = b.literal(np.arange(rows, dtype=np.int32), "si32")
    candidates = b.op("aten.where.self", b.tensor_type([count, rows], "si32"), hit, update_positions, own_positions)
    source = b.op("aten.amax", b.tensor_type([rows], "si32"), candidates, b.int_list([0]), b.constant_bool(False))
    stacked_type = b.tensor_type([rows + count, width], b.info(table).element)
    stacked = b.op("aten.cat", stacked_type, b.tensor_list([table, update_rows]), b.constant_int(0))
    return b.op("aten.index_select", table.type, stacked, b.constant_int(0), source)


# -- OneHot, ReverseSequence ----------------------------------------------
def _scalar_int(node: OnnxNode, b: TorchBuilder, index: int) -> tuple[ir.Value, int | None]:
    """A one-element tensor operand as a `!torch.int` (and its value if a literal)."""
    literal = node.constant_input(index)
    if literal is not None:
        if literal.size != 1:
            node.fail(f"input {index} must have one element, has {literal.size}")
        value = int(literal.reshape(-1)[0])
        return b.constant_int(value), value
    tensor = _to_int64(b, node.input(index))
    return b.op("aten.item", b.type("!torch.int"), tensor), None


@converts("OneHot", since=9)
def one_hot(node: OnnxNode, b: TorchBuilder):
    """out = values[1] where the position along `axis` equals the index, else values[0];
    indices out of [-depth, depth) give all values[0]; negative ones wrap (opset 11)."""
    index_sizes = node.input_sizes(0)
    rank = len(index_sizes)
    axis = node.axis(node.attr_int("axis"), rank + 1)
    declared_depth = (node.result_info().sizes or [None] * (rank + 1))[axis]
    if node.constant_input(1) is None and declared_depth is not None:
        # The declared result fixes depth; avoids reading it at run time (aten.item).
        depth, depth_static = b.constant_int(declared_depth), declared_depth
    else:
        depth, depth_static = _scalar_int(node, b, 1)
    indices = _normalize_indices(b, node.input(0), depth)  # float indices truncate (ONNX casts to int64)
    indices = b.unsqueeze(indices, axis)
    positions = b.arange(depth, depth_static)
    for _ in range(rank - axis):
        positions = b.unsqueeze(positions, -1)
    result = node.result_info()
    match_sizes = list(index_sizes)
    match_sizes.insert(axis, depth_static)
    matches = b.op("aten.eq.Tensor", b.tensor_type(match_sizes, "i1"), indices, positions)
    values = node.input(2)
    value_element = b.info(values).element
    scalar_type = b.tensor_type([], value_element)
    off = b.op("aten.select.int", scalar_type, values, b.constant_int(0), b.constant_int(0))
    on = b.op("aten.select.int", scalar_type, values, b.constant_int(0), b.constant_int(1))
    return b.op("aten.where.self", b.tensor_type(result.sizes, result.element), matches, on, off)


@converts("ReverseSequence", since=10)
def reverse_sequence(node: OnnxNode, b: TorchBuilder):
    """For each batch entry n, reverse its first sequence_lens[n] steps along `time_axis`:
    out[t] = x[lens - 1 - t] if t < lens else x[t], one aten.gather along the time axis."""
    x, lengths = node.input(0), node.input(1)
    sizes = node.input_sizes(0)
    if len(sizes) < 2:
        node.fail(f"input needs rank >= 2, has rank {len(sizes)}")
    batch_axis, time_axis = node.attr_int("batch_axis"), node.attr_int("time_axis")
    if sorted((batch_axis, time_axis)) != [0, 1]:
        node.fail(f"batch_axis {batch_axis} and time_axis {time_axis} must be 0 and 1")
    dims = b.dims(x)
    steps = b.unsqueeze(b.arange(dims[time_axis]), 1 - time_axis)  # time along time_axis
    lengths = b.unsqueeze(_to_int64(b, lengths), 1 - batch_axis)  # batch along batch_axis
    plane_sizes = [None, None]
    plane_sizes[time_axis], plane_sizes[batch_axis] = sizes[time_axis], sizes[batch_axis]
    plane = b.tensor_type(plane_sizes, "si64")
    inside = b.op("aten.lt.Tensor", b.tensor_type(plane_sizes, "i1"), steps, lengths)
    last = b.op("aten.sub.Scalar", lengths.type, lengths, b.constant_int(1), b.constant_int(1))
    mirrored = b.op("aten.sub.Tensor", plane, last, steps, b.constant_int(1))
    source = b.op("aten.where.self", plane, inside, mirrored, steps)
    source = b.to_dtype(source, "si64")
    for _ in range(len(sizes) - 2):
        source = b.unsqueeze(source, -1)
    source = _expand(b, source, dims)
    return b.op("aten.gather", node.result_type(), x, b.constant_int(time_axis), source, b.constant_bool(False))
