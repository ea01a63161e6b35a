"""Normalizations: BatchNormalization, InstanceNormalization, LayerNormalization,
GroupNormalization, LpNormalization, LRN, MeanVarianceNormalization."""

from __future__ import annotations

import math

from torch_mlir import ir

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts


# -- BatchNormalization ---------------------------------------------------------------------------


def _batch_norm_manual(node: OnnxNode, b: TorchBuilder, training: bool, spatial: bool):
    """Y = (X - mean) / sqrt(var + eps) * scale + B, statistics per channel (spatial) or per
    activation (spatial=0, opsets < 9: the parameters have X's shape without dim 0).

    In training the statistics are the batch's (biased variance), and the running ones are
    updated as running * momentum + batch * (1 - momentum)."""
    x = node.input(0)
    rank = len(node.input_sizes(0))
    epsilon, momentum = node.attr_float("epsilon"), node.attr_float("momentum", 0.9)

    def per_channel(value):
        return b.unsqueeze_trailing(value, rank - 2) if spatial or b.info(value).rank == 1 else value

    scale, bias = per_channel(node.input(1)), per_channel(node.input(2))
    input_mean, input_var = node.input(3), node.input(4)
    if training:
        dims = [0] + list(range(2, rank)) if spatial else [0]
        mean = b.reduce_mean(x, dims)
        centered = b.binary("aten.sub.Tensor", x, mean)
        var = b.reduce_mean(b.binary("aten.mul.Tensor", centered, centered), dims)
    else:
        mean, var = per_channel(input_mean), per_channel(input_var)
        centered = b.binary("aten.sub.Tensor", x, mean)
    inverse_std = b.unary("aten.rsqrt", b.scalar_op("aten.add.Scalar", var, epsilon))
    y = b.binary("aten.mul.Tensor", centered, inverse_std)
    y = b.binary("aten.add.Tensor", b.binary("aten.mul.Tensor", y, scale), bias, node.result_type())
    results = [y]
    if not training:
        return results + [None] * (node.num_results - 1)

    def squeezed(value, like):  # a keepdim statistic back to the running statistic's shape
        return b.op("aten.view", like.type, value, b.int_list([s if s is not None else -1 for s in b.info(like).sizes]))

    batch_mean, batch_var = squeezed(mean, input_mean), squeezed(var, input_var)
    for index, (running, batch) in enumerate([(input_mean, batch_mean), (input_var, batch_var)], start=1):
        if index < node.num_results:
            kept = b.scalar_op("aten.mul.Scalar", running, momentum)
            new = b.scalar_op("aten.mul.Scalar", batch, 1.0 - momentum)
            results.append(b.cast_to(b.binary("aten.add.Tensor", kept, new), node.result_type(index)))
    for index, saved in ((3, batch_mean), (4, batch_var)):
        if index < node.num_results:
            results.append(b.cast_to(saved, node.result_type(index)) if node.result_is_used(index) else None)
    return results


def _batch_norm_inference(node: OnnxNode, b: TorchBuilder):
    false = b.constant_bool(False)
    y = b.op(
        "aten.batch_norm", node.result_type(), *[node.input(i) for i in range(5)], false,
        b.constant_float(node.attr_float("momentum", 0.9)), b.constant_float(node.attr_float("epsilon")), false,
    )
    return [y] + [None] * (node.num_results - 1)


def _uses_statistics_outputs(node: OnnxNode) -> bool:
    return any(node.result_is_used(i) for i in range(1, node.num_results))


def _single_or_list(results):
    return results[0] if len(results) == 1 else results


@converts("BatchNormalization", since=1)
def batch_norm_legacy(node: OnnxNode, b: TorchBuilder):
    """Opsets 1-8: `spatial` (default 1) and, before 7, `is_test` (default 0: training, the
    batch's statistics). From 7 the mode is training when the statistics outputs are used."""
    spatial = bool(node.attr_int("spatial", 1))
    if node.opset < 7:
        training = not node.attr_int("is_test", 0)
    else:
        training = _uses_statistics_outputs(node)
    if not training and spatial:
        return _single_or_list(_batch_norm_inference(node, b))
    return _single_or_list(_batch_norm_manual(node, b, training, spatial))


@converts("BatchNormalization", since=9)
def batch_norm_9(node: OnnxNode, b: TorchBuilder):
    """Opsets 9-13: always per channel; training when the statistics outputs are used."""
    if _uses_statistics_outputs(node):
        return _single_or_list(_batch_norm_manual(node, b, True, True))
    return _single_or_list(_batch_norm_inference(node, b))


@converts("BatchNormalization", since=14)
def batch_norm(node: OnnxNode, b: TorchBuilder):
    """From opset 14 `training_mode` selects the mode; outputs running_mean and running_var."""
    if node.attr_int("training_mode"):
        return _single_or_list(_batch_norm_manual(node, b, True, True))
    return _single_or_list(_batch_norm_inference(node, b))


# -- Instance, layer and group normalization ----------------------------------------------------


@converts("InstanceNormalization", since=1)
def instance_norm(node: OnnxNode, b: TorchBuilder):
    """Per (sample, channel) normalization over the spatial dims, then per-channel scale and B.
    Composed here: torch-mlir's `aten.instance_norm` decomposition miscounts dynamic spatial dims
    (emitted only when the user keeps it backend-legal, so it is never decomposed)."""
    x = node.input(0)
    rank = len(node.input_sizes(0))
    if rank < 3:
        node.fail(f"input rank {rank}: needs at least one spatial dim")
    if node.is_backend_legal("aten.instance_norm"):
        none, false = b.constant_none(), b.constant_bool(False)
        return b.op(
            "aten.instance_norm", node.result_type(), x, node.input(1), node.input(2), none, none,
            b.constant_bool(True), b.constant_float(0.1), b.constant_float(node.attr_float("epsilon")), false,
        )
    dims = list(range(2, rank))
    mean = b.reduce_mean(x, dims)
    centered = b.binary("aten.sub.Tensor", x, mean)
    variance = b.reduce_mean(b.binary("aten.mul.Tensor", centered, centered), dims)
    inverse_std = b.unary("aten.rsqrt", b.scalar_op("aten.add.Scalar", variance, node.attr_float("epsilon")))
    y = b.binary("aten.mul.Tensor", centered, inverse_std)
    y = b.binary("aten.mul.Tensor", y, b.unsqueeze_trailing(node.input(1), rank - 2))
    return b.binary("aten.add.Tensor", y, b.unsqueeze_trailing(node.input(2), rank - 2), node.result_type())


@converts("LayerNormalization", since=17)
def layer_norm(node: OnnxNode, b: TorchBuilder):
    """Normalize over dims [axis, rank); outputs Y, Mean and InvStdDev (keepdim shapes)."""
    x = node.input(0)
    sizes = node.input_sizes(0)
    rank = len(sizes)
    axis = node.attr_int("axis")
    axis = axis + rank if axis < 0 else axis
    if not 0 <= axis < rank:
        node.fail(f"axis {node.attr_int('axis')} is out of range for rank {rank}")
    normalized = sizes[axis:]
    scale, bias = node.input(1), node.optional_input(2)
    fits = lambda value: value is not None and b.info(value).sizes == tuple(normalized) and None not in normalized
    element = node.input_info(0).element
    if node.attr_int("stash_type") == 1 and element in ("f16", "bf16"):
        # stash_type 1: statistics (and here the whole computation) in f32.
        element = "f32"
        x, scale = b.to_dtype(x, element), b.to_dtype(scale, element)
        bias = None if bias is None else b.to_dtype(bias, element)
    statistics_type = b.tensor_type(sizes[:axis] + [1] * (rank - axis), element)
    if node.is_backend_legal("aten.layer_norm") and not _uses_statistics_outputs(node):
        # The user keeps aten.layer_norm (one result): emit it, not its native form.
        y = b.op(
            "aten.layer_norm", b.tensor_type(sizes, element), x, b.int_list(b.dims(x)[axis:]),
            scale if fits(scale) else b.constant_none(), bias if fits(bias) else b.constant_none(),
            b.constant_float(node.attr_float("epsilon")), b.constant_bool(True),
        )
        mean = inverse_std = None
    elif node.target == "tosa" and None in sizes and not node.is_backend_legal("aten.native_layer_norm"):
        y, mean, inverse_std = _layer_norm_composed(b, x, list(range(axis, rank)), node.attr_float("epsilon"))
        fits = lambda value: False  # noqa: E731 - scale and bias are applied below
    else:
        y, mean, inverse_std = b.op(
            "aten.native_layer_norm", [b.tensor_type(sizes, element), statistics_type, statistics_type], x,
            b.int_list(b.dims(x)[axis:]), scale if fits(scale) else b.constant_none(),
            bias if fits(bias) else b.constant_none(), b.constant_float(node.attr_float("epsilon")),
        )
    if not fits(scale):
        y = b.binary("aten.mul.Tensor", y, scale)
    if bias is not None and not fits(bias):
        y = b.binary("aten.add.Tensor", y, bias)
    results = [b.cast_to(b.to_dtype(y, node.result_info().element), node.result_type())]
    for index, statistic in ((1, mean), (2, inverse_std)):
        if index < node.num_results:
            if node.result_is_used(index):
                statistic = b.to_dtype(statistic, node.result_info(index).element)
                results.append(b.cast_to(statistic, node.result_type(index)))
            else:
                results.append(None)
    return _single_or_list(results)


def _layer_norm_composed(b: TorchBuilder, x: ir.Value, dims: list[int], epsilon: float):
    """(normalized x, mean, 1 / std) over `dims` from means and broadcasting elementwise ops.
    torch-mlir's decomposition of `aten.native_layer_norm` broadcasts the statistics with
    `aten.broadcast_to` to sizes read by `aten.size.int`, which TOSA's lowering refuses on a
    dynamic dim; TOSA's elementwise ops broadcast a `?` operand themselves."""
    mean = b.reduce_mean(x, dims)
    centered = b.binary("aten.sub.Tensor", x, mean)
    variance = b.reduce_mean(b.binary("aten.mul.Tensor", centered, centered), dims)
    inverse_std = b.unary("aten.rsqrt", b.scalar_op("aten.add.Scalar", variance, epsilon))
    return b.binary("aten.mul.Tensor", centered, inverse_std), mean, inverse_std


def _group_norm(node: OnnxNode, b: TorchBuilder, x: ir.Value, scale: ir.Value, bias: ir.Value) -> ir.Value:
    """aten.group_norm of `x` with per-channel scale and bias (in `x`'s element type).

    On TOSA the statistics are composed from means instead: torch-mlir's decomposition of
    aten.group_norm computes the variance in float64, which no TOSA profile has."""
    sizes = b.info(x).sizes
    element = b.info(x).element
    groups = node.attr_int("num_groups")
    epsilon = node.attr_float("epsilon")
    if node.target == "tosa" and not node.is_backend_legal("aten.group_norm") and None not in sizes[1:]:
        grouped = b.reshape(x, [-1 if sizes[0] is None else sizes[0], groups, -1],
                            [sizes[0], groups, math.prod(sizes[1:]) // groups])
        normalized, _, _ = _layer_norm_composed(b, grouped, [2], epsilon)
        y = b.reshape(normalized, [-1 if size is None else size for size in sizes], sizes)
        per_channel = [sizes[1]] + [1] * (len(sizes) - 2)
        y = b.binary("aten.mul.Tensor", y, b.reshape(scale, per_channel))
        return b.binary("aten.add.Tensor", y, b.reshape(bias, per_channel))
    return b.op(
        "aten.group_norm", b.tensor_type(sizes, element), x, b.constant_int(groups), scale, bias,
        b.constant_float(epsilon), b.constant_bool(False),
    )


@converts("GroupNormalization", since=18)
def group_norm_18(node: OnnxNode, b: TorchBuilder):
    """Opset 18: scale and bias have one value per group; each repeats over its C/G channels."""
    sizes = node.input_sizes(0)
    groups = node.attr_int("num_groups")
    if sizes[1] is None:
        node.fail("per-group scale and bias (opset 18) need a static channel count (dim 1)")
    if groups <= 0 or sizes[1] % groups:
        node.fail(f"num_groups {groups} does not divide the {sizes[1]} channels")
    per_group = sizes[1] // groups

    def per_channel(value):
        element = b.info(value).element
        column = b.unsqueeze(value, 1)
        expanded = b.op(
            "aten.expand", b.tensor_type([groups, per_group], element), column, b.int_list([groups, per_group]),
            b.constant_bool(False),
        )
        return b.op(
            "aten.flatten.using_ints", b.tensor_type([sizes[1]], element), expanded, b.constant_int(0),
            b.constant_int(1),
        )

    y = _group_norm(node, b, node.input(0), per_channel(node.input(1)), per_channel(node.input(2)))
    return b.cast_to(y, node.result_type())


@converts("GroupNormalization", since=21)
def group_norm(node: OnnxNode, b: TorchBuilder):
    """From opset 21 scale and bias are per channel; stash_type 1 computes f16/bf16 in f32."""
    element = node.input_info(0).element
    if node.attr_int("stash_type") != 1 or element not in ("f16", "bf16"):
        return b.cast_to(_group_norm(node, b, node.input(0), node.input(1), node.input(2)), node.result_type())
    x, scale, bias = (b.to_dtype(node.input(i), "f32") for i in range(3))
    return b.cast_to(b.to_dtype(_group_norm(node, b, x, scale, bias), element), node.result_type())


# -- LpNormalization, LRN, MeanVarianceNormalization --------------------------------------------


@converts("LpNormalization", since=1)
def lp_normalization(node: OnnxNode, b: TorchBuilder):
    """X / ||X||_p along `axis` (p is 1 or 2)."""
    x = node.input(0)
    sizes = node.input_sizes(0)
    axis, p = node.attr_int("axis"), node.attr_int("p")
    if p not in (1, 2):
        node.fail(f"p {p} is not supported: ONNX allows 1 or 2")
    axis = axis + len(sizes) if axis < 0 else axis
    norm_sizes = [1 if i == axis else s for i, s in enumerate(sizes)]
    element = node.input_info(0).element
    norm = b.op(
        "aten.linalg_vector_norm", b.tensor_type(norm_sizes, element), x, b.constant_float(float(p)),
        b.int_list([axis]), b.constant_bool(True), b.constant_none(),
    )
    # Where the norm is 0, X is 0 along the axis and ONNX gives 0: divide by 1 there.
    is_zero = b.op("aten.eq.Scalar", b.tensor_type(norm_sizes, "i1"), norm, b.constant_float(0.0))
    norm = b.op("aten.masked_fill.Scalar", norm.type, norm, is_zero, b.constant_float(1.0))
    return b.binary("aten.div.Tensor", x, norm, node.result_type())


@converts("LRN", since=1)
def lrn(node: OnnxNode, b: TorchBuilder):
    """Y = X / (bias + alpha / size * sum of X^2 over `size` neighbouring channels)^beta;
    the window around channel c is [c - floor((size-1)/2), c + ceil((size-1)/2)]."""
    x = node.input(0)
    sizes = node.input_sizes(0)
    rank = len(sizes)
    if rank < 2:
        node.fail(f"input rank {rank}: needs a channel dim")
    size = node.attr_int("size")
    if size < 1:
        node.fail(f"size {size} must be positive")
    alpha, beta, bias = node.attr_float("alpha"), node.attr_float("beta"), node.attr_float("bias")
    squared = b.binary("aten.mul.Tensor", x, x)
    before, after = (size - 1) // 2, size - 1 - (size - 1) // 2
    # Pad the channel dim (dim 1, counted as the first of rank-1 "spatial" dims) with zeros.
    padded = b.pad_spatial(squared, [before] + [0] * (rank - 2), [after] + [0] * (rank - 2), 0.0)
    total = None
    for offset in range(size):
        window = b.slice_dim(padded, 1, offset, size - 1 - offset)
        window = b.cast_to(window, squared.type)
        total = window if total is None else b.binary("aten.add.Tensor", total, window)
    denominator = b.scalar_op("aten.mul.Scalar", total, alpha / size)
    denominator = b.scalar_op("aten.add.Scalar", denominator, bias)
    denominator = b.scalar_op("aten.pow.Tensor_Scalar", denominator, beta)
    return b.binary("aten.div.Tensor", x, denominator, node.result_type())


@converts("MeanVarianceNormalization", since=9)
def mean_variance_normalization(node: OnnxNode, b: TorchBuilder):
    """(X - E[X]) / (sqrt(E[X^2] - E[X]^2) + 1e-9) over `axes` (default [0, 2, 3])."""
    x = node.input(0)
    rank = len(node.input_sizes(0))
    axes = node.attr_ints("axes")
    if any(not -rank <= a < rank for a in axes):
        node.fail(f"axes {axes} are out of range for rank {rank}")
    mean = b.reduce_mean(x, axes)
    mean_of_squares = b.reduce_mean(b.binary("aten.mul.Tensor", x, x), axes)
    variance = b.binary("aten.sub.Tensor", mean_of_squares, b.binary("aten.mul.Tensor", mean, mean))
    deviation = b.scalar_op("aten.add.Scalar", b.unary("aten.sqrt", variance), 1e-9)
    return b.binary("aten.div.Tensor", b.binary("aten.sub.Tensor", x, mean), deviation, node.result_type())

