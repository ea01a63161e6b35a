"""TensorScatter (opset 24): a KV-cache write. The update's `sequence_length` rows along
`axis` are written into the cache at `write_indices[batch]` onwards (modulo the cache length
in "circular" mode); everything else keeps the past cache.

As a gather rather than a scatter: cache position s of batch b reads update row
s - write_indices[b] (mod S when circular) where that row exists, else keeps the cache:
`aten.gather` and `aten.where.self`, which every backend lowers.
"""

from __future__ import annotations

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts


@converts("TensorScatter", since=24)
def tensor_scatter(node: OnnxNode, b: TorchBuilder):
    """present = past with update's rows written from write_indices[b] along `axis` (default -2)."""
    cache, update = node.input(0), node.input(1)
    rank = node.rank()
    if node.rank(1) != rank:
        node.fail(f"update has rank {node.rank(1)}, the cache rank {rank}")
    axis = node.axis(node.attr_int("axis"), rank)
    if axis == 0:
        node.fail("axis 0 is the batch dim; the sequence axis must be another one")
    mode = node.attr_string("mode")
    if mode not in ("linear", "circular"):
        node.fail(f"mode '{mode}' is not 'linear' or 'circular'")
    info = node.input_info(0)
    cache_length, update_length = b.dim(cache, axis), b.dim(update, axis)
    # offset[b, ..., s, ...] = s - write_indices[b], shaped to broadcast against the cache.
    shape = [1] * rank
    shape[axis] = info.sizes[axis]
    position_sizes = [1 if i != axis else cache_length for i in range(rank)]
    positions = b.reshape(b.arange(cache_length, info.sizes[axis]), position_sizes, shape)
    offset = positions
    if node.has_input(2):
        start = b.to_dtype(node.input(2), "si64")
        start_sizes = [None if i == 0 else 1 for i in range(rank)]
        start_sizes[0] = info.sizes[0]
        start = b.reshape(start, [-1] + [1] * (rank - 1), start_sizes)
        if mode == "circular":
            start = b.op("aten.remainder.Scalar", start.type, start, b.dim_value(cache_length))
        offset = b.binary("aten.sub.Tensor", positions, start)
    if mode == "circular":
        offset = b.op("aten.remainder.Scalar", offset.type, b.op(
            "aten.add.Scalar", offset.type, offset, b.dim_value(cache_length), b.constant_int(1)),
            b.dim_value(cache_length))
    offset_type = b.info(offset)
    mask_type = b.tensor_type(offset_type.sizes, "i1")
    inside = b.op("aten.logical_and", mask_type,
                  b.op("aten.ge.Scalar", mask_type, offset, b.constant_int(0)),
                  b.op("aten.lt.Scalar", mask_type, offset, b.dim_value(update_length)))
    row = b.op("aten.clamp", offset.type, offset, b.constant_int(0),
               b.dim_value(b.dim_sub(update_length, 1)))
    index_sizes = [b.dim(cache, i) if i == axis else b.dim(update, i) for i in range(rank)]
    static_sizes = [b.static_dim(s) for s in index_sizes]
    index = b.op("aten.broadcast_to", b.tensor_type(static_sizes, "si64"), row, b.int_list(index_sizes))
    rows = b.op("aten.gather", b.tensor_type(static_sizes, info.element), update, b.constant_int(axis), index,
                b.constant_bool(False))
    return b.op("aten.where.self", node.result_type(), inside, rows, cache)
