"""Pad: modes constant, reflect, edge and wrap; pads, constant_value and axes as attributes
(opset 2) or inputs (from 11; axes from 18; wrap from 19).

Constant padding is `aten.constant_pad_nd` (negative pads crop). Reflect, edge and wrap
are slices of the input (flipped for reflect) concatenated around it: every backend
lowers those, where torch-mlir's reflection and replication pads have no StableHLO
lowering and none takes run-time pads. Pads or axes computed at run time with a static
declared result become one gather per dim whose source positions are tensor arithmetic
(no `aten.item`, which TOSA and StableHLO cannot lower).
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from .builder import INT64_MAX, TorchBuilder
from .node import OnnxNode
from .padded_rows import padded_rows
from .registry import converts

PAD_MODES = {"constant": "constant", "reflect": "reflect", "edge": "replicate", "wrap": "circular"}


def _pad(node: OnnxNode, b: TorchBuilder, pads: list, value, axes: list | None, modes=("constant", "reflect", "edge")):
    """Pad with pads (and axes) known as numbers or `!torch.int` values."""
    x = node.input(0)
    rank = node.rank()
    mode = node.attr_string("mode")
    if mode not in modes:
        node.fail(f"mode '{mode}' is not one of {', '.join(repr(m) for m in modes)}")
    if axes is None:
        axes = list(range(rank))
    if len(pads) != 2 * len(axes):
        node.fail(f"'pads' has {len(pads)} values for {len(axes)} axes")
    begins, ends = [0] * rank, [0] * rank
    for i, axis in enumerate(axes):
        if isinstance(axis, int):
            axis = node.axis(axis, rank, "axes value")
            begins[axis], ends[axis] = pads[i], pads[i + len(axes)]
            continue
        # A run-time axis: every dim d gets pads[i] * (axis mod rank == d).
        axis = b.dim_add(axis, b.dim_mul(b.dim_lt(axis, 0), rank))
        for d in range(rank):
            selected = b.dim_eq(axis, d)
            begins[d] = b.dim_add(begins[d], b.dim_mul(selected, pads[i]))
            ends[d] = b.dim_add(ends[d], b.dim_mul(selected, pads[i + len(axes)]))
    # torch lists (begin, end) pairs from the last dim backwards; leading unpadded dims are left out.
    padded = [d for d in range(rank) if not (isinstance(begins[d], int) and isinstance(ends[d], int) and begins[d] == ends[d] == 0)]
    first = padded[0] if padded else rank
    torch_pads = []
    for d in reversed(range(first, rank)):
        torch_pads += [begins[d], ends[d]]
    if not torch_pads:
        return x
    element = node.input_info(0).element
    if mode == "constant":
        fill = value if isinstance(value, ir.Value) else b.constant_scalar(value, element)
        if any(isinstance(pad, ir.Value) for pad in begins + ends):
            x, begins, ends = _crop_negative_pads(b, x, begins, ends, first)
            torch_pads = [pad for d in reversed(range(first, rank)) for pad in (begins[d], ends[d])]
        if node.target == "tosa" and element == "ui8":
            return _uint8_constant_pad_on_tosa(node, b, x, torch_pads, fill)
        return b.op("aten.constant_pad_nd", node.result_type(), x, b.int_list(torch_pads), fill)
    if all(not isinstance(pad, int) or pad >= 0 for pad in begins + ends):
        return _pad_by_slices(node, b, x, begins, ends, mode)
    return b.op(
        "aten.pad", node.result_type(), x, b.int_list(torch_pads), b.constant_string(PAD_MODES[mode]), b.constant_none()
    )


def _uint8_constant_pad_on_tosa(node: OnnxNode, b: TorchBuilder, x, torch_pads: list, fill) -> ir.Value:
    """A uint8 constant pad computed in int32 (the bytes masked after TOSA's sign-extending cast):
    torch-mlir's TOSA lowering refuses `aten.constant_pad_nd` of a uint8 (and of an int16) tensor,
    and QOperator models pad their uint8 activations directly. It can go when that lowering pads
    uint8."""
    widened = b.unsigned_widened(x, "si32")
    sizes = node.result_info().sizes
    padded = b.op("aten.constant_pad_nd", b.tensor_type(sizes, "si32"), widened, b.int_list(torch_pads), fill)
    return b.cast_to(b.to_dtype(padded, "ui8"), node.result_type())


def _crop_negative_pads(b: TorchBuilder, x, begins: list, ends: list, first: int):
    """Run-time pads that may be negative, as a slice that crops by their negative parts and the
    non-negative parts left to pad: torch-mlir's Linalg lowering of `aten.constant_pad_nd` takes a
    run-time pad to be non-negative (a negative one gave wrong numbers, or freed memory twice)."""

    def negative_part(pad):  # max(-pad, 0)
        return b.dim_mul(b.dim_lt(pad, 0), b.dim_sub(0, pad))

    begins, ends = list(begins), list(ends)
    for dim in range(first, len(begins)):
        crop_begin, crop_end = negative_part(begins[dim]), negative_part(ends[dim])
        if crop_begin == 0 and crop_end == 0:
            continue
        size = b.dim(x, dim)
        end = b.dim_sub(size, crop_end)
        sizes = list(b.info(x).sizes)
        sizes[dim] = b.static_dim(b.dim_sub(end, crop_begin))
        x = b.op("aten.slice.Tensor", b.tensor_type(sizes, b.info(x).element), x, b.constant_int(dim),
                 b.dim_value(crop_begin), b.dim_value(end), b.constant_int(1))
        begins[dim], ends[dim] = b.dim_add(begins[dim], crop_begin), b.dim_add(ends[dim], crop_end)
    return x, begins, ends


def _pad_by_slices(node: OnnxNode, b: TorchBuilder, x, begins: list, ends: list, mode: str):
    """reflect, edge and wrap padding as slices (flipped for reflect) concatenated around the input.

    Every backend lowers slice, flip, broadcast_to and cat; torch-mlir's reflection and
    replication pads have no StableHLO lowering, and none with run-time pads. Pads
    computed at run time are taken to be non-negative (ONNX's reflect, edge and wrap pad).
    """
    element = node.input_info(0).element
    rank = node.input_info(0).rank

    def sliced(value, dim, start, end, length):
        part_sizes = list(b.info(value).sizes)
        part_sizes[dim] = b.static_dim(length)
        return b.op(
            "aten.slice.Tensor", b.tensor_type(part_sizes, element), value, b.constant_int(dim),
            b.dim_value(start), b.dim_value(end), b.constant_int(1),
        )

    def border(value, dim, count, at_start):
        if mode == "edge":
            edge = sliced(value, dim, 0, 1, 1) if at_start else sliced(value, dim, -1, INT64_MAX, 1)
            target = [-1] * rank
            target[dim] = count
            edge_sizes = list(b.info(edge).sizes)
            edge_sizes[dim] = b.static_dim(count)
            return b.op("aten.broadcast_to", b.tensor_type(edge_sizes, element), edge, b.int_list(target))
        size = b.dim(value, dim)
        if mode == "wrap":
            return sliced(value, dim, b.dim_sub(size, count), size, count) if at_start else sliced(value, dim, 0, count, count)
        if isinstance(size, int) and isinstance(count, int) and count >= size:
            node.fail(f"reflect padding of {count} needs a dim {dim} larger than {size}")
        if at_start:
            part = sliced(value, dim, 1, b.dim_add(count, 1), count)
        else:
            last = b.dim_sub(size, 1)
            part = sliced(value, dim, b.dim_sub(last, count), last, count)
        return b.op("aten.flip", part.type, part, b.int_list([dim]))

    def is_zero(pad):
        return isinstance(pad, int) and pad == 0

    padded = [dim for dim in range(rank) if not (is_zero(begins[dim]) and is_zero(ends[dim]))]
    for dim in padded:
        parts = ([] if is_zero(begins[dim]) else [border(x, dim, begins[dim], True)]) + [x]
        parts += [] if is_zero(ends[dim]) else [border(x, dim, ends[dim], False)]
        sizes = list(b.info(x).sizes)
        known = [sizes[dim], begins[dim], ends[dim]]
        sizes[dim] = sum(known) if all(isinstance(v, int) for v in known) else None
        result_type = node.result_type() if dim == padded[-1] else b.tensor_type(sizes, element)
        x = b.op("aten.cat", result_type, b.tensor_list(parts), b.constant_int(dim))
    return x


@converts("Pad", since=2)
def pad_attributes(node: OnnxNode, b: TorchBuilder):
    """Opset 2: `pads` and `value` are attributes."""
    return _pad(node, b, node.attr_ints("pads"), node.attr_float("value"), None)


def _pad_inputs(node: OnnxNode, b: TorchBuilder, modes=("constant", "reflect", "edge")):
    """Pad with `pads`, `constant_value` and (from opset 18) `axes` as inputs."""
    runtime = any(node.has_input(i) and node.constant_input(i) is None for i in (1, 3))
    if runtime and node.result_info().is_static and node.input_info(0).rank is not None:
        return _pad_by_gather(node, b, modes)
    value = node.scalar_input(2, b) if node.has_input(2) else 0
    axes = node.int_elements(3, b, "axes") if node.has_input(3) else None
    return _pad(node, b, node.int_elements(1, b, "pads"), value, axes, modes)


def _pad_by_gather(node: OnnxNode, b: TorchBuilder, modes):
    """Pads computed at run time: output element j of dim d reads input element j - begin_d,
    mapped back inside the dim as the mode says (clamped for edge, mirrored for reflect,
    modulo for wrap; outside is the fill value for constant). Tensor arithmetic only, so
    TOSA and StableHLO lower it too; the declared result type gives the output sizes.
    """
    x = node.input(0)
    rank = node.rank()
    mode = node.attr_string("mode")
    if mode not in modes:
        node.fail(f"mode '{mode}' is not one of {', '.join(repr(m) for m in modes)}")
    pads = b.to_dtype(node.input(1), "si64")
    pads_sizes = b.info(pads).sizes
    if pads_sizes is None or len(pads_sizes) != 1 or pads_sizes[0] is None:
        node.fail("'pads' must be a constant or a 1-D tensor of static length")
    count = pads_sizes[0] // 2
    if node.has_input(3):
        axes = b.to_dtype(node.input(3), "si64")
    else:
        if count != rank:
            node.fail(f"'pads' has {pads_sizes[0]} values for a rank-{rank} input")
        axes = b.literal(np.arange(rank, dtype=np.int64), "si64")
    element = node.input_info(0).element
    vector, scalar, none = b.tensor_type([count], "si64"), b.tensor_type([], "si64"), b.constant_none()
    listed = node.dim_elements(1)
    if listed is not None and all(isinstance(pad, int) for pad in listed[:count]):
        # Static begins (an end pad computed from a size): no reading of the run-time pads.
        begins = b.literal(np.array(listed[:count], dtype=np.int64), "si64")
    else:
        begins = b.op("aten.slice.Tensor", vector, pads, b.constant_int(0), b.constant_int(0), b.constant_int(count),
                      b.constant_int(1))
    negative = b.to_dtype(b.op("aten.lt.Scalar", b.tensor_type([count], "i1"), axes, b.constant_int(0)), "si64")
    axes = b.op("aten.add.Tensor", vector, axes, b.op("aten.mul.Scalar", vector, negative, b.constant_int(rank)), b.constant_int(1))
    fill = None
    if mode == "constant" and node.has_input(2):
        fill = b.to_dtype(node.input(2), element)
    rows = None
    if mode == "constant" and node.target in ("tosa", "stablehlo") and None in node.input_sizes(0):
        # Rows of a data-dependent count (ultralytics' detections padded to max_det): read from the
        # padded rows, the ones past the count outside like the pads.
        rows = padded_rows(b, x)
        x = x if rows is None else rows.padded
    dims = b.dims(x)
    result_sizes = node.result_info().sizes
    for d in range(rank):
        size, out = dims[d], result_sizes[d]
        selected = b.to_dtype(b.op("aten.eq.Scalar", b.tensor_type([count], "i1"), axes, b.constant_int(d)), "si64")
        begin = b.op("aten.sum", scalar, b.op("aten.mul.Tensor", vector, selected, begins), none)
        index_type = b.tensor_type([out], "si64")
        positions = b.arange(out)
        source = b.op("aten.sub.Tensor", index_type, positions, begin, b.constant_int(1))
        last = b.dim_value(b.dim_sub(size, 1))
        if mode == "wrap":
            # remainder of a negative index: floor mod on Linalg, C's % on StableHLO; adding
            # the size where it came out negative gives the floor mod on both.
            index = b.op("aten.remainder.Scalar", index_type, source, b.dim_value(size))
            below = b.to_dtype(b.op("aten.lt.Scalar", b.tensor_type([out], "i1"), index, b.constant_int(0)), "si64")
            index = b.op("aten.add.Tensor", index_type, index, b.op("aten.mul.Scalar", index_type, below, b.dim_value(size)), b.constant_int(1))
        elif mode == "reflect" and not (isinstance(size, int) and size == 1):
            period = b.dim_sub(b.dim_mul(size, 2), 2)
            folded = b.op("aten.remainder.Scalar", index_type, b.op("aten.abs", index_type, source), b.dim_value(period))
            mirrored = b.op("aten.rsub.Scalar", index_type, folded, b.dim_value(period), b.constant_int(1))
            beyond = b.op("aten.gt.Scalar", b.tensor_type([out], "i1"), folded, last)
            index = b.op("aten.where.self", index_type, beyond, mirrored, folded)
        else:
            index = b.op("aten.clamp", index_type, source, b.constant_int(0), last)
        sizes = list(b.info(x).sizes)
        sizes[d] = out
        gathered = b.op("aten.index_select", b.tensor_type(sizes, element), x, b.constant_int(d), index)
        if mode == "constant":
            mask_type = b.tensor_type([out], "i1")
            below_end = (b.op("aten.le.Scalar", mask_type, source, last) if rows is None or d != rows.axis
                         else b.op("aten.lt.Tensor", mask_type, source, b.to_dtype(rows.count, "si64")))
            inside = b.op("aten.logical_and", mask_type, b.op("aten.ge.Scalar", mask_type, source, b.constant_int(0)),
                          below_end)
            shape = [1] * rank
            shape[d] = out
            inside = b.reshape(inside, shape)
            if fill is None:
                gathered = b.op("aten.where.ScalarOther", gathered.type, inside, gathered, b.constant_scalar(0, element))
            else:
                gathered = b.op("aten.where.self", gathered.type, inside, gathered, fill)
        x = gathered
    return x


@converts("Pad", since=11)
def pad(node: OnnxNode, b: TorchBuilder):
    """From opset 11: `pads` and the optional `constant_value` are inputs."""
    return _pad_inputs(node, b)


@converts("Pad", since=18)
def pad_axes(node: OnnxNode, b: TorchBuilder):
    """From opset 18: the optional `axes` input says which dims `pads` covers."""
    return _pad_inputs(node, b)


@converts("Pad", since=19)
def pad_wrap(node: OnnxNode, b: TorchBuilder):
    """From opset 19: mode 'wrap' (torch's 'circular')."""
    return _pad_inputs(node, b, modes=("constant", "reflect", "edge", "wrap"))


@converts("CenterCropPad", since=18)
def center_crop_pad(node: OnnxNode, b: TorchBuilder):
    """Each axis in `axes` (all by default) becomes `shape`'s size: a centred slice when smaller
    (the extra element of an odd difference is cut at the end), zero padding around it when
    larger (the extra element at the end). The target sizes come from `shape` when it is a
    constant, else from the declared result: static slices and pads, which every backend lowers
    (ONNX's function body computes them at run time, which TOSA and StableHLO cannot take)."""
    x = node.input(0)
    sizes = node.input_sizes(0)
    rank = len(sizes)
    axes = [node.axis(axis, rank, "axes value") for axis in (node.attr_ints("axes", None) or range(rank))]
    targets = node.constant_input(1)
    if targets is not None:
        targets = [int(v) for v in targets.reshape(-1)]
    else:
        result = node.result_info().sizes
        targets = None if result is None else [result[axis] for axis in axes]
        if targets is None or None in targets:
            node.fail("'shape' must be a constant, or the result's sizes on the axes static")
    if len(targets) != len(axes):
        node.fail(f"'shape' has {len(targets)} values for {len(axes)} axes")
    begins, ends = [0] * rank, [0] * rank
    for axis, target in zip(axes, targets):
        size = sizes[axis]
        if size is None:
            node.fail(f"dim {axis} of the input must be static")
        if target < size:
            start = (size - target) // 2
            x = b.slice_range(x, axis, start, start + target)
        elif target > size:
            begins[axis] = (target - size) // 2
            ends[axis] = target - size - begins[axis]
    padded = [axis for axis in range(rank) if begins[axis] or ends[axis]]
    if padded:
        torch_pads = []
        for axis in reversed(range(padded[0], rank)):  # torch lists (begin, end) from the last dim back
            torch_pads += [begins[axis], ends[axis]]
        element = node.input_info(0).element
        sizes = [None if size is None else size + begins[axis] + ends[axis] for axis, size in enumerate(b.info(x).sizes)]
        x = b.op(
            "aten.constant_pad_nd", b.tensor_type(sizes, element), x, b.int_list(torch_pads), b.constant_scalar(0, element)
        )
    return b.cast_to(x, node.result_type())
