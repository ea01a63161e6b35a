"""Channels-last 2-D convolutions as one matrix product of their image patches (im2col).

IREE 3.13's CPU code for a `linalg.conv_2d_nhwc_hwcf` is a direct convolution that runs far below
its matrix product's speed on the machines we measure (AVX2 + FMA): a 3x3 convolution of 64 to 64
channels on a 56x56 image took 94 ms as a convolution and 6.3 ms as patches and a `linalg.matmul`
(2.3 against 34 GFLOP/s, the same machine, the same flags; docs/performance.md). IREE has the same
rewrite behind a flag (`--iree-global-opt-use-im2col-for-convs`), off by default; our output should
be fast with the consumer's defaults.

So each static channels-last convolution (after `convolutions-channels-last`) becomes:

    patches[n, oh, ow, (kh, kw, c)] = image[n, oh * sh + kh * dh, ow * sw + kw * dw, c]   (strided slices,
                                                     or one linalg.generic for kernels of over 64 positions)
    result[n*oh*ow, f] = patches[n*oh*ow, kh*kw*c] x filter[kh*kw*c, f] + initial      (a linalg.matmul)

reshaped back to [n, oh, ow, f]. The HWCF filter is already the [kh*kw*c, f] matrix (a reshape of
its bytes), and the reduction runs over (kh, kw, c) in the convolution's own order. 1x1
convolutions and those of fewer than MIN_CHANNELS input or MIN_FEATURES output channels are left as they are: IREE runs
them about as fast as the matrix product or faster (a network's stem: ResNet-50's 7x7 on 3
channels took 8 ms direct and 14 ms as patches, MobileNetV3's 3x3 stem 0.3 and 1.5 ms; 1x1
convolutions 2.5 and 2.1 ms), and it fuses the elementwise ops after a convolution, which the
reshape back would split off (MobileNetV3-Small ran 25% slower with its 1x1 convolutions
rewritten). A narrow convolution whose windows do not overlap (stride at least the dilated kernel,
as in ConvNeXt's and ViT's patch stems) is rewritten all the same: its patches are the image
reordered, no larger, and IREE ran ConvNeXt's 4x4 stride-4 stem on 3 channels (the model input's
NCHW-to-NHWC transpose fused into it) in 248 us direct and 39 us as patches and a product: the
whole zoo ConvNeXt 0.85 -> 0.52 ms; its 2x2 downsampling on 16 channels about even, 29 against
33 us. Grouped, depthwise, quantized and dynamic convolutions are left as they are too.

Can go when IREE's CPU pipeline converts convolutions to matrix products by default (or its direct
convolution reaches the matrix product's speed); `compile --conv-form direct` skips it.
"""

from __future__ import annotations

from torch_mlir import ir
from torch_mlir.dialects import linalg

from ...ir_walk import ops_named
from .channels_last import empty_tensor, static_window
from .matrix_broadcasts import matrix_product

CONVOLUTION = "linalg.conv_2d_nhwc_hwcf"
# Input channels from which the patches pay for their copy (measured: 3x3 on 32 channels about even,
# on 48 or more 2-5x faster as patches, on 16 or fewer slower).
MIN_CHANNELS = 32
# Output channels from which they pay: a UNet's 3x3 convolution of 32 to 16 channels on 2x64x64 took
# IREE 0.52 ms direct against 2.0 ms as patches and a product on AVX-512 (the [8192, 288] patch
# matrix copied, then repacked by data tiling, for 16 columns), 2.6 against 3.4 ms on AVX2.
MIN_FEATURES = 32
# Patches gathered by one strided slice per kernel position up to this many positions (the StableHLO
# step's limit for its slices, MAX_WINDOW_POSITIONS); larger kernels by one gathering linalg.generic.
MAX_SLICED_POSITIONS = 64


def convolutions_as_matrix_products(module: ir.Module) -> int:
    """Rewrite each static NHWC/HWCF convolution as patches and a matrix product (module
    docstring); the count rewritten."""
    rewritten = 0
    with module.context:
        for operation in ops_named(module, (CONVOLUTION,)):
            if static_window(operation) and _pays(operation):
                _rewrite(operation)
                rewritten += 1
    return rewritten


def _pays(operation: ir.Operation) -> bool:
    kernel_height, kernel_width, channels, features = ir.RankedTensorType(operation.operands[1].type).shape
    return patches_pay((kernel_height, kernel_width), channels, features, _attribute_pair(operation, "strides"),
                       _attribute_pair(operation, "dilations"))


def patches_pay(kernel_sizes, channels: int, features: int, strides, dilations) -> bool:
    """Whether a convolution's patches pay for their copy: a window of more than one position from at
    least MIN_CHANNELS to at least MIN_FEATURES channels, or windows that do not overlap (the patches are
    the image reordered). The StableHLO step (stablehlo/convolution_matrices.py) takes the same rule."""
    if kernel_sizes[0] * kernel_sizes[1] == 1:
        return False
    apart = all(stride >= (size - 1) * dilation + 1 for stride, size, dilation in zip(strides, kernel_sizes, dilations))
    return (channels >= MIN_CHANNELS and features >= MIN_FEATURES) or apart


def _attribute_pair(operation: ir.Operation, name: str) -> list[int]:
    return [int(value) for value in ir.DenseIntElementsAttr(operation.attributes[name])]


def _rewrite(operation: ir.Operation) -> None:
    image, filter_, initial = operation.operands[0], operation.operands[1], operation.operands[2]
    batch, out_height, out_width, features = ir.RankedTensorType(operation.results[0].type).shape
    kernel_height, kernel_width, channels, _ = ir.RankedTensorType(filter_.type).shape
    strides, dilations = _attribute_pair(operation, "strides"), _attribute_pair(operation, "dilations")
    rows, depth = batch * out_height * out_width, kernel_height * kernel_width * channels
    result_type = ir.RankedTensorType(operation.results[0].type)
    with operation.location, ir.InsertionPoint(operation):
        if kernel_height * kernel_width <= MAX_SLICED_POSITIONS:
            patches = _collapse(_patches(image, (out_height, out_width), (kernel_height, kernel_width), strides,
                                         dilations), [[0, 1, 2], [3]], [rows, depth])
        else:
            patches = _collapse(_gathered_patches(image, (out_height, out_width), (kernel_height, kernel_width),
                                                  strides, dilations), [[0, 1, 2], [3, 4, 5]], [rows, depth])
        matrix = _collapse(filter_, [[0, 1, 2], [3]], [depth, features])
        accumulator = _collapse(initial, [[0, 1, 2], [3]], [rows, features])
        result = _expand(matrix_product(patches, matrix, accumulator), [[0, 1, 2], [3]], result_type)
    operation.results[0].replace_all_uses_with(result)
    operation.erase()


def _patches(image: ir.Value, out_sizes, kernel_sizes, strides, dilations) -> ir.Value:
    """patches[n, oh, ow, (kh, kw, c)] = image[n, oh*sh + kh*dh, ow*sw + kw*dw, c]: one strided
    `tensor.extract_slice` of the image per kernel position, inserted at its channels' offset.

    Not one `linalg.generic` reading image[n, oh*sh + kh*dh, ...] directly: IREE 3.13 runs that
    gather element by element (ConvNeXt's 4x4 stride-4 stem patches, 6144 values, took 42 us and its
    2x2 downsampling patches 26 us in IREE's dispatch profile), while it copies each strided slice
    as one dispatch of contiguous rows (1 us each), as it does for the StableHLO step's slices."""
    image_type = ir.RankedTensorType(image.type)
    batch, channels = image_type.shape[0], image_type.shape[3]
    positions = kernel_sizes[0] * kernel_sizes[1]
    window_shape = [batch, *out_sizes, channels]
    window_type = ir.RankedTensorType.get(window_shape, image_type.element_type)
    patches = empty_tensor(ir.RankedTensorType.get([batch, *out_sizes, positions * channels], image_type.element_type))
    for position in range(positions):
        kh, kw = divmod(position, kernel_sizes[1])
        offsets = [0, kh * dilations[0], kw * dilations[1], 0]
        window = _slice_op("tensor.extract_slice", [image], window_type, offsets, window_shape,
                           [1, strides[0], strides[1], 1], [1, 0, 0, 0])
        patches = _slice_op("tensor.insert_slice", [window, patches], patches.type, [0, 0, 0, position * channels],
                            window_shape, [1, 1, 1, 1], [1, 1, 0, 0, 0])
    return patches


def _slice_op(name: str, operands, result_type, offsets, sizes, strides, segments) -> ir.Value:
    """A `tensor.extract_slice` or `tensor.insert_slice` with static offsets, sizes and strides."""
    return ir.Operation.create(name, results=[result_type], operands=operands, attributes={
        "static_offsets": ir.DenseI64ArrayAttr.get(offsets), "static_sizes": ir.DenseI64ArrayAttr.get(sizes),
        "static_strides": ir.DenseI64ArrayAttr.get(strides), "operandSegmentSizes": ir.DenseI32ArrayAttr.get(segments),
    }).result


def _gathered_patches(image: ir.Value, out_sizes, kernel_sizes, strides, dilations) -> ir.Value:
    """patches[n, oh, ow, kh, kw, c] = image[n, oh*sh + kh*dh, ow*sw + kw*dw, c], one `linalg.generic`: for
    kernels of more than MAX_SLICED_POSITIONS positions (ViT's 16x16 patch stem would be 256 slices, each
    a dispatch of its own in IREE, and took IREE 20 s longer to compile)."""
    image_type = ir.RankedTensorType(image.type)
    batch, channels = image_type.shape[0], image_type.shape[3]
    shape = [batch, *out_sizes, *kernel_sizes, channels]
    result_type = ir.RankedTensorType.get(shape, image_type.element_type)
    n, oh, ow, kh, kw, c = (ir.AffineDimExpr.get(position) for position in range(6))
    reads = ir.AffineMap.get(6, 0, [n, oh * strides[0] + kh * dilations[0], ow * strides[1] + kw * dilations[1], c])
    writes = ir.AffineMap.get_identity(6)
    parallel = ir.Attribute.parse("#linalg.iterator_type<parallel>")
    generic = linalg.GenericOp(
        [result_type], [image], [empty_tensor(result_type)], ir.ArrayAttr.get([ir.AffineMapAttr.get(reads),
                                                                       ir.AffineMapAttr.get(writes)]),
        ir.ArrayAttr.get([parallel] * 6))
    element = image_type.element_type
    block = generic.regions[0].blocks.append(element, element)
    with ir.InsertionPoint(block):
        linalg.YieldOp([block.arguments[0]])
    return generic.results[0]


def _reassociation(groups) -> ir.ArrayAttr:
    return ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(ir.IntegerType.get_signless(64), axis)
                                               for axis in group]) for group in groups])


def _collapse(value: ir.Value, groups, shape) -> ir.Value:
    result_type = ir.RankedTensorType.get(shape, ir.RankedTensorType(value.type).element_type)
    return ir.Operation.create("tensor.collapse_shape", results=[result_type], operands=[value],
                               attributes={"reassociation": _reassociation(groups)}).result


def _expand(value: ir.Value, groups, result_type: ir.RankedTensorType) -> ir.Value:
    return ir.Operation.create("tensor.expand_shape", results=[result_type], operands=[value],
                               attributes={"reassociation": _reassociation(groups),
                                           "static_output_shape": ir.DenseI64ArrayAttr.get(result_type.shape)}).result
