"""Transposed convolutions whose windows tile the output as one matrix product and a reordering.

torch-mlir lowers a transposed `aten.convolution` to a convolution over the input with zeros inserted
between its elements (a stride-2 one reads 3 zeros for every value), and IREE 3.13 runs that form
slowly: a UNet's 2x2 stride-2 ConvTranspose of 64 to 32 channels on 16x16 took 6.5 ms in IREE from our
Linalg as a convolution, against 0.06 ms for the matrix product IREE's TOSA input conversion makes of
`tosa.transpose_conv2d` (docs/performance.md, session 23). When no two kernel positions write the same
output element (stride at least the kernel size, no dilation), each input element writes its own
`k1 x k2 ...` block of the output, so, for x `[n, c, s1, s2, ...]` and w `[c, o, k1, k2, ...]`:

    blocks = permute(x, [n, s.., c]) as rows [n*s1*s2..., c]  @  w as [c, o*k1*k2...]
    grid   = blocks as [n, s1, s2, .., o, k1, k2, ..], zero-padded from k to the stride, permuted to
             [n, o, s1, k1, s2, k2, ..] and read as [n, o, s1*stride1, s2*stride2, ..]

and the result is the grid's window `[padding, padding + output size)` in each spatial dim (zeros past
its end where `output_padding` reaches beyond it), plus the bias. All of it is aten ops the Linalg and
StableHLO lowerings take. Grouped, dilated and dynamic ones, and those whose windows overlap, are left
as they are. TOSA keeps `tosa.transpose_conv2d`, which NPU compilers take as such. Can go when IREE
lowers strided transposed convolutions without the inserted zeros; `compile --conv-form direct` skips it.
"""

from __future__ import annotations

from torch_mlir import ir

from .rewriting import (TorchOpBuilder, constant_int, defining_op, int_list, is_op, ops_named, product, vtensor_sizes,
                        vtensor_spelling)

_FLOATS = {"f16", "bf16", "f32", "f64"}


def transposed_convolutions_as_matrix_products(module: ir.Module) -> int:
    """Rewrite each qualifying transposed convolution (module docstring); the count rewritten."""
    rewritten = 0
    with module.context:
        for op in ops_named(module, {"torch.aten.convolution"}):
            geometry = _tiling_geometry(op)
            if geometry is not None:
                with op.location:
                    _rewrite(op, *geometry)
                rewritten += 1
    return rewritten


def _tiling_geometry(op: ir.Operation):
    """(strides, padding, output sizes) of a static, ungrouped, undilated transposed convolution
    whose windows tile its output, else None."""
    x_sizes, element = vtensor_sizes(op.operands[0].type)
    w_sizes, _ = vtensor_sizes(op.operands[1].type)
    out_sizes, _ = vtensor_sizes(op.results[0].type)
    transposed = defining_op(op.operands[6])
    strides, padding, dilations = (int_list(op.operands[i]) for i in (3, 4, 5))
    if not is_op(transposed, "torch.constant.bool") or not ir.BoolAttr(transposed.attributes["value"]).value:
        return None
    if element not in _FLOATS or constant_int(op.operands[8]) != 1:
        return None
    if any(sizes is None or None in sizes for sizes in (x_sizes, w_sizes, out_sizes)):
        return None
    if None in (strides, padding, dilations) or set(dilations) != {1}:
        return None
    kernel = w_sizes[2:]
    if not all(stride >= size for stride, size in zip(strides, kernel)) or any(p < 0 for p in padding):
        return None
    return strides, padding, out_sizes[2:]


def _rewrite(op: ir.Operation, strides: list[int], padding: list[int], out_spatial: list[int]) -> None:
    build = TorchOpBuilder(op)
    x, w, bias = op.operands[0], op.operands[1], op.operands[2]
    (batch, channels, *spatial), element = vtensor_sizes(x.type)
    _, features, *kernel = vtensor_sizes(w.type)[0]
    count = len(spatial)

    def typed(sizes):
        return vtensor_spelling(sizes, element)

    def view(value, sizes):
        return build.op("torch.aten.view", typed(sizes), [value, build.int_list(sizes)])

    def permute(value, sizes, order):
        return build.op("torch.aten.permute", typed([sizes[d] for d in order]), [value, build.int_list(order)])

    channels_last = permute(x, [batch, channels, *spatial], [0, *range(2, count + 2), 1])
    rows = view(channels_last, [batch * product(spatial), channels])
    matrix = view(w, [channels, features * product(kernel)])
    blocks = build.op("torch.aten.mm", typed([batch * product(spatial), features * product(kernel)]), [rows, matrix])
    blocks = view(blocks, [batch, *spatial, features, *kernel])
    if strides != kernel:  # zeros between the blocks: constant_pad_nd pads the last dim first
        gaps = [amount for stride, size in reversed(list(zip(strides, kernel))) for amount in (0, stride - size)]
        blocks = build.op("torch.aten.constant_pad_nd", typed([batch, *spatial, features, *strides]),
                          [blocks, build.int_list(gaps), build.float(0.0)])
    interleaved = [0, count + 1] + [d for i in range(count) for d in (1 + i, count + 2 + i)]
    blocks = permute(blocks, [batch, *spatial, features, *strides], interleaved)
    grid_sizes = [size * stride for size, stride in zip(spatial, strides)]
    grid = view(blocks, [batch, features, *grid_sizes])
    result = _window(build, grid, [batch, features, *grid_sizes], padding, out_spatial, typed)
    if not is_op(defining_op(bias), "torch.constant.none"):
        shaped_bias = view(bias, [features] + [1] * count)
        result = build.op("torch.aten.add.Tensor", str(op.results[0].type), [result, shaped_bias, build.int(1)])
    op.results[0].replace_all_uses_with(result)
    op.erase()


def _window(build: TorchOpBuilder, grid: ir.Value, sizes: list[int], padding, out_spatial, typed) -> ir.Value:
    """`grid[..., padding : padding + out]` in each spatial dim, zero-extended where it runs past the end."""
    count = len(out_spatial)
    beyond = [max(0, p + out - size) for p, out, size in zip(padding, out_spatial, sizes[2:])]
    if any(beyond):
        sizes = sizes[:2] + [size + extra for size, extra in zip(sizes[2:], beyond)]
        ends = [amount for extra in reversed(beyond) for amount in (0, extra)]
        grid = build.op("torch.aten.constant_pad_nd", typed(sizes), [grid, build.int_list(ends), build.float(0.0)])
    for i in range(count):
        if padding[i] == 0 and out_spatial[i] == sizes[2 + i]:
            continue
        sizes = sizes[:2 + i] + [out_spatial[i]] + sizes[3 + i:]
        grid = build.op("torch.aten.slice.Tensor", typed(sizes),
                        [grid, build.int(2 + i), build.int(padding[i]), build.int(padding[i] + out_spatial[i]),
                         build.int(1)])
    return grid
