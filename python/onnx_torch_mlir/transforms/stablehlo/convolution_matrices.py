"""Static channels-last StableHLO convolutions as one matrix product of their image patches (im2col).

IREE 3.13 lowers a `stablehlo.convolution` to its direct Linalg convolution, whose CPU code runs at
a tenth of its matrix product's speed on the machines we measure (linalg/convolution_matrices.py
has the numbers; ResNet-50 from our StableHLO ran 1234 ms against 286 ms from our Linalg written
this way). So, after `convolutions-channels-last-stablehlo`, each static ungrouped convolution
`[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]` becomes, in StableHLO ops only (XLA takes no other
dialect):

    padded = stablehlo.pad(x, 0)                                 the convolution's padding
    window[kh, kw] = stablehlo.slice(padded, [0, kh*dh, kw*dw, 0] : [1, sh, sw, 1])   [n, oh, ow, c]
    patches = stablehlo.concatenate(windows in (kh, kw) order, dim 3)                [n, oh, ow, kh*kw*c]
    result = dot_general(reshape(patches, [n*oh*ow, kh*kw*c]), reshape(w, [kh*kw*c, o]))

reshaped back to `[n, oh, ow, o]`: the HWIO filter is the `[kh*kw*c, o]` matrix as it is. Which
convolutions pay for their patches is the Linalg step's rule (`patches_pay`): not 1x1 ones nor those
of fewer than MIN_CHANNELS input or MIN_FEATURES output channels, which IREE runs about as fast as a matrix product or
faster, unless their windows do not overlap (a patch stem: ConvNeXt's 4x4 stride-4 stem on 3 channels
took 230 us as a convolution from our StableHLO, against 30 us as patches and a product from our
Linalg). A kernel of more than MAX_WINDOW_POSITIONS positions would be as many slices; it is rewritten
only when its windows tile the image (`windows_tile`: no overlap, no dilation, such as ViT's 16x16
stride-16 patch stem), whose patches are the image regrouped, one reshape and one transpose:

    [n, oh*sh, ow*sw, c] -> [n, oh, sh, ow, sw, c] -> (slice to kh, kw) -> [n, oh, ow, kh, kw, c]

(ViT-B/16's stem took IREE 139 ms per call as a convolution, 4 ms as that and a product.) Grouped,
input-dilated (transposed), negatively padded and dynamic ones and other large kernels are left as they
are (the dynamic ones are dynamic_convolution.py's).

Can go when IREE's CPU pipeline converts convolutions to matrix products by default; `compile
--conv-form direct` skips it.
"""

from __future__ import annotations

from torch_mlir import ir
from torch_mlir._mlir_libs import _stablehlo

from ..linalg.convolution_matrices import patches_pay
from ..stablehlo.window_emitter import Emitter, edge_padding, integer, integers
from ..torch.rewriting import ops_named

NHWC_CONVOLUTION = "#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>"
# One slice per kernel position: a larger kernel is left as a convolution.
MAX_WINDOW_POSITIONS = 64


def convolutions_as_matrix_products(module: ir.Module) -> int:
    """Rewrite each qualifying convolution (module docstring); the count rewritten."""
    rewritten = 0
    with module.context, ir.Location.unknown():
        for op in ops_named(module, {"stablehlo.convolution"}):
            if _qualifies(op):
                _rewrite(op)
                rewritten += 1
    return rewritten


def _qualifies(op: ir.Operation) -> bool:
    types = [op.operands[0].type, op.operands[1].type, op.results[0].type]
    if not all(isinstance(t, ir.RankedTensorType) and t.has_static_shape for t in types):
        return False
    if str(op.attributes["dimension_numbers"]) != NHWC_CONVOLUTION:
        return False
    if integer(op, "feature_group_count") != 1 or integer(op, "batch_group_count") != 1:
        return False
    if integers(op, "lhs_dilation", 2, 1) != [1, 1] or any(low < 0 or high < 0 for low, high in edge_padding(op, 2)):
        return False
    kernel_height, kernel_width, channels, features = types[1].shape
    kernel = (kernel_height, kernel_width)
    strides, dilations = integers(op, "window_strides", 2, 1), integers(op, "rhs_dilation", 2, 1)
    return (patches_pay(kernel, channels, features, strides, dilations)
            and (kernel_height * kernel_width <= MAX_WINDOW_POSITIONS or windows_tile(kernel, strides, dilations)))


def windows_tile(kernel_sizes, strides, dilations) -> bool:
    """Whether the windows neither overlap nor have holes: each image element is in one window at most."""
    return all(dilation == 1 and stride >= size for size, stride, dilation in zip(kernel_sizes, strides, dilations))


def _rewrite(op: ir.Operation) -> None:
    emit = Emitter(op)
    x, w = op.operands[0], op.operands[1]
    result_type = ir.RankedTensorType(op.results[0].type)
    batch, out_height, out_width, features = result_type.shape
    kernel_height, kernel_width, channels, _ = w.type.shape
    strides, dilations = integers(op, "window_strides", 2, 1), integers(op, "rhs_dilation", 2, 1)
    padding = edge_padding(op, 2)
    if kernel_height * kernel_width <= MAX_WINDOW_POSITIONS:
        patches = _sliced_patches(emit, _pad(emit, x, padding), (out_height, out_width), (kernel_height, kernel_width),
                                  strides, dilations)
    else:
        patches = _regrouped_patches(emit, x, padding, (out_height, out_width), (kernel_height, kernel_width), strides)
    rows, depth = batch * out_height * out_width, kernel_height * kernel_width * channels
    numbers = _stablehlo.DotDimensionNumbers.get(lhs_batching_dimensions=[], rhs_batching_dimensions=[],
                                                 lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[0])
    attributes = {"dot_dimension_numbers": numbers}
    if "precision_config" in op.attributes:
        attributes["precision_config"] = op.attributes["precision_config"]
    product = emit.create("stablehlo.dot_general", ir.RankedTensorType.get([rows, features], result_type.element_type),
                          [emit.reshape(patches, [rows, depth]), emit.reshape(w, [depth, features])], **attributes)
    result = emit.reshape(product, list(result_type.shape))
    op.results[0].replace_all_uses_with(result)
    op.erase()


def _sliced_patches(emit: Emitter, padded: ir.Value, out_sizes, kernel_sizes, strides, dilations) -> ir.Value:
    """`[n, oh, ow, kh*kw*c]`: one strided slice per kernel position, concatenated in (kh, kw) order."""
    batch, channels = padded.type.shape[0], padded.type.shape[3]
    windows = []
    for kh in range(kernel_sizes[0]):
        for kw in range(kernel_sizes[1]):
            start = [0, kh * dilations[0], kw * dilations[1], 0]
            limit = [batch, start[1] + (out_sizes[0] - 1) * strides[0] + 1, start[2] + (out_sizes[1] - 1) * strides[1] + 1,
                     channels]
            windows.append(_slice(emit, padded, start, limit, [1, strides[0], strides[1], 1]))
    if len(windows) == 1:
        return windows[0]
    return emit.create("stablehlo.concatenate",
                       ir.RankedTensorType.get([batch, *out_sizes, len(windows) * channels], padded.type.element_type),
                       windows, dimension=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 3))


def _regrouped_patches(emit: Emitter, x: ir.Value, padding, out_sizes, kernel_sizes, strides) -> ir.Value:
    """`[n, oh, ow, kh*kw*c]` of windows that tile the image (`windows_tile`): the padded image cut to
    exactly `oh*sh` rows and `ow*sw` columns (more zeros where it is shorter: no window reads them),
    split into `[n, oh, sh, ow, sw, c]`, each window's first `kh x kw`, and its axes reordered."""
    batch, height, width, channels = x.type.shape
    grid = [out_sizes[0] * strides[0], out_sizes[1] * strides[1]]
    extended = [(low, max(high, cells - size - low)) for (low, high), cells, size in zip(padding, grid, (height, width))]
    padded = _pad(emit, x, extended)
    padded = _slice(emit, padded, [0, 0, 0, 0], [batch, *grid, channels], [1, 1, 1, 1])
    blocks = emit.reshape(padded, [batch, out_sizes[0], strides[0], out_sizes[1], strides[1], channels])
    blocks = _slice(emit, blocks, [0] * 6, [batch, out_sizes[0], kernel_sizes[0], out_sizes[1], kernel_sizes[1], channels],
                    [1] * 6)
    windows = emit.transpose(blocks, [0, 1, 3, 2, 4, 5])
    return emit.reshape(windows, [batch, *out_sizes, kernel_sizes[0] * kernel_sizes[1] * channels])


def _pad(emit: Emitter, x: ir.Value, padding: list[tuple[int, int]]) -> ir.Value:
    if all(low == 0 and high == 0 for low, high in padding):
        return x
    low, high = [0] + [p[0] for p in padding] + [0], [0] + [p[1] for p in padding] + [0]
    shape = [size + before + after for size, before, after in zip(x.type.shape, low, high)]
    return emit.create("stablehlo.pad", ir.RankedTensorType.get(shape, x.type.element_type),
                       [x, emit.zero(x.type.element_type)], edge_padding_low=ir.DenseI64ArrayAttr.get(low),
                       edge_padding_high=ir.DenseI64ArrayAttr.get(high), interior_padding=ir.DenseI64ArrayAttr.get([0] * 4))


def _slice(emit: Emitter, x: ir.Value, start: list[int], limit: list[int], strides: list[int]) -> ir.Value:
    if not any(start) and limit == list(x.type.shape) and set(strides) == {1}:
        return x
    shape = [(end - begin + step - 1) // step for begin, end, step in zip(start, limit, strides)]
    return emit.create("stablehlo.slice", ir.RankedTensorType.get(shape, x.type.element_type), [x],
                       start_indices=ir.DenseI64ArrayAttr.get(start), limit_indices=ir.DenseI64ArrayAttr.get(limit),
                       strides=ir.DenseI64ArrayAttr.get(strides))
