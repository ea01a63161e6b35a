"""Integer products with run-time or per-channel zero points on TOSA: an int8 product and zero-point
terms (MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv, and the com.microsoft products).

TOSA's MATMUL and CONV2D take int8 operands (profile pro_int) and their zero points as operands,
accumulating in int32; an int32 product is in no profile (`tosa-validate` and IREE refuse it). Its
zero points must moreover be compile-time constants for MLIR's TOSA-to-Linalg lowering (the
reference runner's and IREE's), and they are one value per tensor. So a product whose zero points
are run-time values (MatMulInteger's, DynamicQuantizeLinear's) or per row, column or channel is
expanded, exactly in int32, as

    sum_k (a - za)(b - zb) = sum_k a b - zb sum_k a - za sum_k b + K za zb

with the int8 product `sum_k a b` (zero points 0) made by torch-mlir's quantized form, and the other
terms int32 reductions, products and sums, which pro_int takes. uint8 operands are first shifted to
int8 with their zero points (a - 128, za - 128: the differences are the same). For a convolution,
`sum_k` runs over the taps inside the input (ONNX pads with the zero point, which adds 0):
`sum_k a` is a convolution of a with a kernel of ones, `sum_k b` one of b with the input's
in-bounds mask (a literal for a literal weight, a plain sum of b without padding), and K the
count of in-bounds taps at each output position (a literal). A 1-D convolution is a 2-D one of
height 1.

Each term is bounded by K * 2^14 in magnitude, so no sum wraps where the exact result fits int32.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import OnnxNode
from .arith import constant, make_quantized, widen

_BYTES = ("si8", "ui8")
_SI32 = np.int32


def applies(node: OnnxNode, b: TorchBuilder, *operands: ir.Value) -> bool:
    """Whether the product of these operands takes this form: TOSA, int8/uint8 operands."""
    return node.target == "tosa" and all(b.info(x).element in _BYTES for x in operands)


def _signed(node: OnnxNode, b: TorchBuilder, x: ir.Value, zero_point) -> tuple[ir.Value, ir.Value | None]:
    """(x as si8, its zero point as si32 or None for 0), shifted by -128 for ui8. `zero_point` is
    an input index of the node, an si32/byte value, or None (absent)."""
    zero = _zero_point_value(node, b, zero_point)
    if b.info(x).element == "si8":
        return x, zero
    wide = widen(node, b, x)
    shifted = b.op("aten.sub.Scalar", wide.type, wide, b.constant_int(128), b.constant_int(1))
    if zero is None:
        return b.to_dtype(shifted, "si8"), _literal_int(b, np.array(-128, dtype=_SI32))
    literal = _literal_of(zero)
    if literal is not None:
        return b.to_dtype(shifted, "si8"), _literal_int(b, literal - 128)
    return b.to_dtype(shifted, "si8"), b.op("aten.sub.Scalar", zero.type, zero, b.constant_int(128),
                                            b.constant_int(1))


def _zero_point_value(node: OnnxNode, b: TorchBuilder, zero_point) -> ir.Value | None:
    """The zero point as si32 (a literal one as an si32 literal), None when absent."""
    if isinstance(zero_point, ir.Value):
        return widen(node, b, zero_point)
    if zero_point is None or not node.has_input(zero_point):
        return None
    literal = constant(node, zero_point)
    if literal is None:
        return widen(node, b, node.input(zero_point))
    return _literal_int(b, literal.astype(_SI32))


def _literal_int(b: TorchBuilder, array: np.ndarray) -> ir.Value:
    return b.literal(np.asarray(array, dtype=_SI32), "si32")


def _literal_of(value: ir.Value) -> np.ndarray | None:
    """The integers of a dense `torch.vtensor.literal` (as int64), else None."""
    owner = value.owner
    if isinstance(owner, ir.OpView):
        owner = owner.operation
    if not isinstance(owner, ir.Operation) or owner.name != "torch.vtensor.literal":  # a block argument too
        return None
    attribute = owner.attributes["value"].maybe_downcast()
    if not isinstance(attribute, ir.DenseIntElementsAttr):  # a resource: read as a run-time value
        return None
    shape = ir.ShapedType(attribute.type).shape
    if attribute.is_splat:
        return np.full(shape, int(attribute.get_splat_value().value), dtype=np.int64)
    return np.array(attribute).astype(np.int64).reshape(shape)


def _nonzero(zero: ir.Value | None) -> ir.Value | None:
    """`zero`, or None when it is a literal of zeros (its terms vanish)."""
    if zero is None:
        return None
    literal = _literal_of(zero)
    return None if literal is not None and not literal.any() else zero


def _sum(b: TorchBuilder, x: ir.Value, dims: list[int]) -> ir.Value:
    """sum of the si8 `x` over `dims` (kept as size 1) in si32."""
    wide = b.to_dtype(x, "si32")
    return b.op("aten.sum.dim_IntList", b.reduced_type(wide, dims, True), wide, b.int_list(dims),
                b.constant_bool(True), b.dtype("si32"))


def _minus(b: TorchBuilder, total: ir.Value, *factors: ir.Value) -> ir.Value:
    return b.binary("aten.sub.Tensor", total, _product(b, *factors))


def _plus(b: TorchBuilder, total: ir.Value, *factors: ir.Value) -> ir.Value:
    return b.binary("aten.add.Tensor", total, _product(b, *factors))


def _product(b: TorchBuilder, first: ir.Value, *rest: ir.Value) -> ir.Value:
    for factor in rest:
        first = b.binary("aten.mul.Tensor", first, factor)
    return first


def matmul(node: OnnxNode, b: TorchBuilder, a: ir.Value, a_zero, other: ir.Value, b_zero, sizes) -> ir.Value | None:
    """sum_k (a - a_zero)(other - b_zero) as si32 of `sizes` (module docstring), or None when the
    operands are not at least 2-D with a static K. a_zero is scalar or per row ([M]), b_zero scalar
    or per column ([N])."""
    a_info, b_info = b.info(a), b.info(other)
    if a_info.rank < 2 or b_info.rank < 2 or a_info.sizes[-1] is None:
        return None
    a8, za = _signed(node, b, a, a_zero)
    b8, zb = _signed(node, b, other, b_zero)
    za, zb = _nonzero(za), _nonzero(zb)
    if za is not None and b.info(za).rank == 1:
        za = b.unsqueeze(za, -1)  # [M] -> [M, 1]
    product = b.op("aten.matmul", b.tensor_type(sizes, "!torch.qint32"), make_quantized(b, a8, 1.0, 0),
                   make_quantized(b, b8, 1.0, 0))
    result = b.op("aten.int_repr", b.tensor_type(sizes, "si32"), product)
    if zb is not None:
        result = _minus(b, result, zb, _sum(b, a8, [-1]))
    if za is not None:
        result = _minus(b, result, za, _sum(b, b8, [-2]))
    if za is not None and zb is not None:
        result = _plus(b, result, za, zb, _literal_int(b, np.array(a_info.sizes[-1])))
    return b.cast_to(result, b.tensor_type(sizes, "si32"))


def convolution(node: OnnxNode, b: TorchBuilder, x: ir.Value, x_zero, weight: ir.Value, w_zero, sizes,
                geometry) -> ir.Value | None:
    """The 1-D or 2-D convolution of (x - x_zero) and (weight - w_zero) as si32 of `sizes` (module
    docstring), or None when x's channels and spatial sizes are not static. `geometry` is
    (begins, ends, strides, dilations, group); w_zero is scalar or per output channel. A 1-D
    convolution is a 2-D one over a height of 1."""
    begins, ends, strides, dilations, group = geometry
    x_sizes, w_sizes = list(b.info(x).sizes), list(b.info(weight).sizes)
    if len(x_sizes) not in (3, 4) or None in x_sizes[1:] or None in w_sizes or None in list(sizes)[1:]:
        return None
    if len(x_sizes) == 3:
        planar = ([0, *begins], [0, *ends], [1, *strides], [1, *dilations], group)
        result = convolution(node, b, b.unsqueeze(x, 2), x_zero, b.unsqueeze(weight, 2), w_zero,
                             [sizes[0], sizes[1], 1, sizes[2]], planar)
        return b.reshape(result, [-1 if size is None else size for size in sizes], list(sizes))
    x8, xz = _signed(node, b, x, x_zero)
    w8, wz = _signed(node, b, weight, w_zero)
    xz, wz = _nonzero(xz), _nonzero(wz)

    def convolve(lhs: ir.Value, rhs: ir.Value, groups: int) -> ir.Value:
        lhs = b.pad_spatial(lhs, begins, ends, 0)
        out = list(sizes)
        out[0], out[1] = b.info(lhs).sizes[0], b.info(rhs).sizes[0]
        product = b.op(
            "aten.convolution", b.tensor_type(out, "!torch.qint32"), make_quantized(b, lhs, 1.0, 0),
            make_quantized(b, rhs, 1.0, 0), b.constant_none(), b.int_list(strides), b.int_list([0, 0]),
            b.int_list(dilations), b.constant_bool(False), b.int_list([0, 0]), b.constant_int(groups))
        return b.op("aten.int_repr", b.tensor_type(out, "si32"), product)

    result = convolve(x8, w8, group)
    if wz is not None:
        if b.info(wz).rank:
            count = b.info(wz).sizes[0]
            wz = b.reshape(wz, [-1, 1, 1], [count, 1, 1]) if count != 1 else b.reshape(wz, [], [])
        ones = np.ones([1 if group == 1 else w_sizes[0], *w_sizes[1:]], dtype=np.int8)
        result = _minus(b, result, wz, convolve(x8, b.literal(ones, "si8"), 1 if group == 1 else group))
    if xz is not None:
        if b.info(xz).rank:
            xz = b.reshape(xz, [], [])
        result = _minus(b, result, xz, _weight_sums(b, weight, w8, convolve, geometry, x_sizes, sizes))
    if xz is not None and wz is not None:
        rows, columns = _in_bounds(x_sizes[2:], w_sizes[2:], geometry, sizes[2:])
        taps = np.outer(rows.sum(axis=1), columns.sum(axis=1)) * (x_sizes[1] // group)
        result = _plus(b, result, xz, wz, _literal_int(b, taps))
    return b.cast_to(result, b.tensor_type(sizes, "si32"))


def _weight_sums(b: TorchBuilder, weight: ir.Value, w8: ir.Value, convolve, geometry, x_sizes, sizes) -> ir.Value:
    """sum of w8[c] over the taps inside the input at each output position: [Cout, OH, OW] (a
    literal for a literal weight), [Cout, 1, 1] without padding, else the convolution of the input's
    mask (ones, padded with zeros) with w8."""
    begins, ends, _, _, group = geometry
    literal = _literal_of(weight)
    if literal is not None:
        if b.info(weight).element == "ui8":
            literal = literal - 128
        rows, columns = _in_bounds(x_sizes[2:], literal.shape[2:], geometry, sizes[2:])
        sums = np.einsum("cij,hi,wj->chw", literal.sum(axis=1), rows.astype(np.int64), columns.astype(np.int64))
        return _literal_int(b, sums)
    if not any(begins) and not any(ends):
        count = b.info(w8).sizes[0]
        return b.reshape(_sum(b, w8, [1, 2, 3]), [count, 1, 1])
    mask = b.literal(np.ones([1, *x_sizes[1:]], dtype=np.int8), "si8")
    return convolve(mask, w8, group)


def _in_bounds(spatial, kernel, geometry, out_sizes) -> tuple[np.ndarray, np.ndarray]:
    """Per spatial dim, [out, taps]: whether kernel tap t of output position o reads inside the input."""
    begins, _, strides, dilations, _ = geometry
    masks = []
    for size, taps, begin, stride, dilation, out in zip(spatial, kernel, begins, strides, dilations, out_sizes):
        positions = np.arange(out)[:, None] * stride + np.arange(taps)[None, :] * dilation - begin
        masks.append((positions >= 0) & (positions < size))
    return masks[0], masks[1]
