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
of fewer than MIN_CHANNELS input channels, which IREE runs about as fast as a matrix product or
faster, unless their windows do not overlap (a patch stem: ConvNeXt's 4x4 stride-4 stem on 3 channels
took 230 us as a convolution from our StableHLO, against 30 us as patches and a product from our
Linalg). Grouped, input-dilated (transposed), negatively padded and dynamic ones and kernels of more
than MAX_WINDOW_POSITIONS positions are left as they are (the dynamic ones are dynamic_convolution.py's).

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
    kernel_height, kernel_width, channels, _ = types[1].shape
    return (kernel_height * kernel_width <= MAX_WINDOW_POSITIONS
            and patches_pay((kernel_height, kernel_width), channels, integers(op, "window_strides", 2, 1),
                            integers(op, "rhs_dilation", 2, 1)))


def _rewrite(op: ir.Operation) -> None:
    emit = Emitter(op)
    x, w = op.operands[0], op.operands[1]
    result_type = ir.RankedTensorType(op.results[0].type)
    batch, out_height, out_width, features = result_type.shape
    kernel_height, kernel_width, channels, _ = w.type.shape
    strides, dilations = integers(op, "window_strides", 2, 1), integers(op, "rhs_dilation", 2, 1)
    padding = edge_padding(op, 2)
    element = x.type.element_type
    padded = _pad(emit, x, padding)
    windows = []
    for kh in range(kernel_height):
        for kw in range(kernel_width):
            start = [0, kh * dilations[0], kw * dilations[1], 0]
            limit = [batch, start[1] + (out_height - 1) * strides[0] + 1, start[2] + (out_width - 1) * strides[1] + 1,
                     channels]
            windows.append(_slice(emit, padded, start, limit, [1, strides[0], strides[1], 1]))
    patches = windows[0] if len(windows) == 1 else emit.create(
        "stablehlo.concatenate", ir.RankedTensorType.get([batch, out_height, out_width, len(windows) * channels], element),
        windows, dimension=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 3))
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


def _pad(emit: Emitter, x: ir.Value, padding: list[tuple[int, int]]) -> ir.Value:
    if all(low == 0 and high == 0 for low, high in padding):
        return x
    low, high = [0] + [p[0] for p in padding] + [0], [0] + [p[1] for p in padding] + [0]
    shape = [size + before + after for size, before, after in zip(x.type.shape, low, high)]
    return emit.create("stablehlo.pad", ir.RankedTensorType.get(shape, x.type.element_type),
                       [x, emit.zero(x.type.element_type)], edge_padding_low=ir.DenseI64ArrayAttr.get(low),
                       edge_padding_high=ir.DenseI64ArrayAttr.get(high), interior_padding=ir.DenseI64ArrayAttr.get([0] * 4))


def _slice(emit: Emitter, x: ir.Value, start: list[int], limit: list[int], strides: list[int]) -> ir.Value:
    if start == [0] * 4 and limit == list(x.type.shape) and strides == [1] * 4:
        return x
    shape = [(end - begin + step - 1) // step for begin, end, step in zip(start, limit, strides)]
    return emit.create("stablehlo.slice", ir.RankedTensorType.get(shape, x.type.element_type), [x],
                       start_indices=ir.DenseI64ArrayAttr.get(start), limit_indices=ir.DenseI64ArrayAttr.get(limit),
                       strides=ir.DenseI64ArrayAttr.get(strides))
