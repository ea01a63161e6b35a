"""Image rearrangements of the nn family: Col2Im (opset 18) and MaxUnpool (opsets 9, 11).

Col2Im sums sliding blocks back into an image. With static image and block shapes (constants,
or the few that fit the static input and result shapes, told apart at run time), which column
and block offset feeds each output pixel is known at conversion time: one `aten.index_select` of every (offset, pixel) pair from the input
flattened to [N, C, K * L], a literal mask for the pairs no block covers, and a sum over the K
offsets. Every backend lowers those.

MaxUnpool writes X into zeros at the flat positions I gives (indices over the whole output
tensor, as MaxPool's Indices are): one `aten.scatter.src` on the flattened output.
"""

from __future__ import annotations

import itertools

import numpy as np

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts

# A block_shape computed at run time: at most this many shapes fitting the static sizes are built.
MAX_BLOCK_SHAPES = 4


@converts("Col2Im", since=18)
def col2im(node: OnnxNode, b: TorchBuilder):
    """input [N, C * prod(block_shape), L] -> output [N, C, *image_shape]. A block_shape given at
    run time is one of the shapes the static sizes allow: each is built and the one equal to
    block_shape is selected at run time (no `aten.item`)."""
    image_shape, block_shapes = _col2im_shapes(node)
    results = [_col2im_for(node, b, image_shape, block_shape) for block_shape in block_shapes]
    if len(results) == 1:
        return results[0]
    block_input = node.input(2)
    selected = results[-1]
    for block_shape, result in zip(block_shapes[:-1], results[:-1]):
        equal = b.op("aten.eq.Tensor", b.tensor_type([len(block_shape)], "i1"), block_input,
                     b.literal(np.array(block_shape, dtype=np.int64), "si64"))
        matches = b.op("aten.all", b.tensor_type([], "i1"), equal)
        selected = b.op("aten.where.self", result.type, matches, result, selected)
    return selected


def _col2im_for(node: OnnxNode, b: TorchBuilder, image_shape: list, block_shape: list):
    rank = len(image_shape)
    dilations = node.spatial_ints("dilations", rank, 1)
    strides = node.spatial_ints("strides", rank, 1)
    pads = node.attr_ints("pads", None) or [0] * (2 * rank)
    if len(pads) != 2 * rank:
        node.fail(f"attribute 'pads' has {len(pads)} values for {rank} spatial dims")
    blocks = _block_counts(image_shape, block_shape, dilations, strides, pads)
    if min(blocks) <= 0:
        node.fail(f"blocks of shape {block_shape} do not fit an image of shape {image_shape}")
    sizes = node.input_sizes(0)
    kernel, length = int(np.prod(block_shape)), int(np.prod(blocks))
    if len(sizes) != 3 or sizes[2] not in (None, length) or (sizes[1] is not None and sizes[1] % kernel):
        node.fail(f"input of shape {sizes} does not hold {length} blocks of {kernel} values per channel")
    index, covered = _col2im_sources(image_shape, block_shape, blocks, dilations, strides, pads)
    x = node.input(0)
    element = node.input_info(0).element
    batch, channels = b.dim(x, 0), b.dim_floordiv(b.dim(x, 1), kernel)
    pixels = int(np.prod(image_shape))
    flat = b.reshape(x, [batch, channels, kernel * length])
    static = [b.static_dim(batch), b.static_dim(channels)]
    picked = b.op(
        "aten.index_select", b.tensor_type(static + [kernel * pixels], element), flat, b.constant_int(2),
        b.literal(index.reshape(-1), "si64"),
    )
    picked = b.reshape(picked, [batch, channels, kernel, pixels])
    mask = b.literal(covered.astype(np.float32), "f32")
    if element != "f32":
        mask = b.to_dtype(mask, element)
    picked = b.binary("aten.mul.Tensor", picked, mask)
    summed = b.op(
        "aten.sum.dim_IntList", b.tensor_type(static + [pixels], element), picked, b.int_list([2]),
        b.constant_bool(False), b.constant_none(),
    )
    return b.reshape(summed, [batch, channels, *image_shape], node.result_info().sizes)


def _block_counts(image_shape, block_shape, dilations, strides, pads) -> list[int]:
    """How many blocks slide along each spatial dim of the padded image."""
    rank = len(image_shape)
    return [
        (image_shape[d] + pads[d] + pads[d + rank] - dilations[d] * (block_shape[d] - 1) - 1) // strides[d] + 1
        for d in range(rank)
    ]


def _col2im_shapes(node: OnnxNode) -> tuple[list[int], list[list[int]]]:
    """image_shape and the possible block shapes: constants, or what the static shapes allow. The
    image shape is the declared result's spatial shape; a block shape given at run time is one of
    those whose product is the input's values per channel and whose block count is its length."""
    image_shape = node.constant_input(1)
    result = node.static_result_sizes()
    if image_shape is not None:
        image_shape = [int(v) for v in image_shape.reshape(-1)]
    elif result is not None:
        image_shape = result[2:]
    else:
        node.fail("'image_shape' must be a constant, or the result's shape static")
    block_shape = node.constant_input(2)
    if block_shape is not None:
        block_shape = [int(v) for v in block_shape.reshape(-1)]
        if len(block_shape) != len(image_shape):
            node.fail(f"image_shape has {len(image_shape)} dims but block_shape has {len(block_shape)}")
        return image_shape, [block_shape]
    sizes, rank = node.input_sizes(0), len(image_shape)
    if result is None or len(sizes) != 3 or None in sizes or not result[1] or sizes[1] % result[1]:
        node.fail("'block_shape' must be a constant, or the input's and result's shapes static")
    kernel = sizes[1] // result[1]
    dilations = node.spatial_ints("dilations", rank, 1)
    strides = node.spatial_ints("strides", rank, 1)
    pads = node.attr_ints("pads", None) or [0] * (2 * rank)
    fitting = []
    for shape in itertools.product(*(range(1, kernel + 1) for _ in range(rank))):
        if int(np.prod(shape)) == kernel:
            blocks = _block_counts(image_shape, shape, dilations, strides, pads)
            if min(blocks) > 0 and int(np.prod(blocks)) == sizes[2]:
                fitting.append(list(shape))
    if not fitting or len(fitting) > MAX_BLOCK_SHAPES:
        node.fail(f"'block_shape' is computed at run time and {len(fitting)} block shapes fit the static shapes "
                  f"(1 to {MAX_BLOCK_SHAPES} can be told apart at run time): make it a constant")
    return image_shape, fitting


def _col2im_sources(image_shape, block_shape, blocks, dilations, strides, pads):
    """(index [K, P], covered [K, P]): for block offset k and pixel p, the position k * L + l of
    the input column l whose block covers p at offset k (0 where none does)."""
    rank = len(image_shape)
    length = int(np.prod(blocks))
    offsets = list(itertools.product(*(range(size) for size in block_shape)))
    pixels = list(itertools.product(*(range(size) for size in image_shape)))
    index = np.zeros((len(offsets), len(pixels)), dtype=np.int64)
    covered = np.zeros((len(offsets), len(pixels)), dtype=bool)
    for k, offset in enumerate(offsets):
        for p, pixel in enumerate(pixels):
            column, inside = 0, True
            for d in range(rank):
                start = pixel[d] + pads[d] - offset[d] * dilations[d]
                if start < 0 or start % strides[d] or start // strides[d] >= blocks[d]:
                    inside = False
                    break
                column = column * blocks[d] + start // strides[d]
            if inside:
                index[k, p] = k * length + column
                covered[k, p] = True
    return index, covered


@converts("MaxUnpool", since=9)
def max_unpool(node: OnnxNode, b: TorchBuilder):
    """Y = zeros(shape); Y.flat[I.flat] = X.flat with shape (in - 1) * stride + kernel - pads per
    spatial dim; with `output_shape` (a constant, or the declared result's shape), Y is then padded
    with zeros at the end of each spatial dim to it."""
    sizes = node.input_sizes(0)
    spatial = len(sizes) - 2
    kernel = node.attr_ints("kernel_shape")
    if len(kernel) != spatial:
        node.fail(f"kernel_shape has {len(kernel)} values for {spatial} spatial dims")
    strides = node.spatial_ints("strides", spatial, 1)
    pads = node.attr_ints("pads", None) or [0] * (2 * spatial)
    x, indices = node.input(0), node.input(1)
    inferred = list(b.dims(x)[:2])
    for d in range(spatial):
        if sizes[d + 2] is None:
            node.fail(f"spatial dim {d} of X must be static to compute the output shape")
        inferred.append((sizes[d + 2] - 1) * strides[d] + kernel[d] - pads[d] - pads[d + spatial])
    element = node.input_info(0).element
    total = b.dim_product(inferred)
    zeros = b.full([total], 0, element)
    flat_indices = b.flatten(b.to_dtype(indices, "si64"))
    scattered = b.op("aten.scatter.src", b.type_like(zeros), zeros, b.constant_int(0), flat_indices, b.flatten(x))
    unpooled = b.reshape(scattered, inferred, [b.static_dim(size) for size in inferred])
    if not node.has_input(2):
        return b.cast_to(unpooled, node.result_type())
    output_shape = node.constant_input(2)
    output_shape = node.static_result_sizes() if output_shape is None else [int(v) for v in output_shape]
    if output_shape is None or len(output_shape) != len(sizes):
        node.fail("'output_shape' must be a constant, or the result's shape static")
    # ONNX places the unpooled tensor at the start of a zero tensor of output_shape.
    extra = [output_shape[d + 2] - inferred[d + 2] for d in range(spatial)]
    if any(size < 0 for size in extra):
        node.fail(f"output_shape {output_shape} is smaller than the unpooled shape {inferred}")
    padded = b.pad_spatial(unpooled, [0] * spatial, extra, 0.0)
    return b.cast_to(padded, node.result_type())
