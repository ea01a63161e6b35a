"""Resize by whole-number scales on dynamic spatial sizes, as slices and blends, for StableHLO.

torch-mlir's StableHLO lowering has no interpolation of dynamic spatial sizes (U-Net's upsampling
of a dynamic image failed at the scale list's `torch.constant.float`). With a whole-number scale
s along a dim of size n, output position s*i + r (r in [0, s)) reads the source coordinate
i + d_r, the same offset d_r for every i:

- half_pixel and pytorch_half_pixel (`bilinear`, `nearest_half_pixel`): d_r = (r + 0.5) / s - 0.5;
- asymmetric (`bilinear_asymmetric`, `nearest`): d_r = r / s.

|d_r| < 1, so each output row r is a blend (linear: `x * (1 - |d|)` plus the neighbour
`prev` or `next` times |d|) or a pick (nearest: `floor`, `ceil`, `round_prefer_floor` or
`round_prefer_ceil` of d_r gives -1, 0 or 1) of x and x shifted by one along the dim, whose edge
row is repeated (`prev = [x[0], x][:n]`, `next = [x, x[-1]][1:]`): that is the clamping of the
source index to [0, n - 1] that ONNX and PyTorch do. The s rows are stacked after the dim and the
two dims merged. Slices, concatenation, products and a reshape all lower on dynamic sizes.

Other forms (sizes instead of scales, a scale that is not a whole number, align_corners, cubic,
antialias, a nearest mode not spelled out) are left to `refuse_dynamic_interpolations`.
"""

import math

from torch_mlir import ir

from ..torch.rewriting import TorchOpBuilder, defining_op, is_op, ops_named, vtensor_sizes, vtensor_spelling

INTERPOLATE = "torch.aten.__interpolate.size_list_scale_list"
_END = 2**63 - 1
_ROUNDINGS = {
    "floor": math.floor, "ceil": math.ceil,
    "round_prefer_floor": lambda d: math.ceil(d - 0.5), "round_prefer_ceil": lambda d: math.floor(d + 0.5),
}


def whole_number_upsamplings_as_blends(module: ir.Module) -> int:
    """Rewrite each qualifying interpolation of dynamic spatial sizes (module docstring); the count."""
    rewritten = 0
    with module.context, ir.Location.unknown():
        for op in ops_named(module, {INTERPOLATE}):
            rewritten += _rewrite(op)
    return rewritten


def _rewrite(op: ir.Operation) -> int:
    x, size, scales, mode, align_corners, _, antialias = op.operands
    sizes, element = vtensor_sizes(x.type)
    if sizes is None or None not in sizes[2:] or not is_op(defining_op(size), "torch.constant.none"):
        return 0
    factors = _whole_numbers(scales)
    plan = _offsets_plan(_constant_string(mode))
    if factors is None or plan is None or len(factors) != len(sizes) - 2:
        return 0
    if _constant_bool(antialias) is not False or _constant_bool(align_corners) not in (False, None):
        return 0
    build = TorchOpBuilder(op)
    for axis, factor in enumerate(factors, start=2):
        if factor != 1:
            x = _upsample_axis(build, x, axis, factor, plan, element)
    if str(x.type) != str(op.results[0].type):
        x = build.op("torch.tensor_static_info_cast", str(op.results[0].type), [x])
    op.results[0].replace_all_uses_with(x)
    op.erase()
    return 1


def _offsets_plan(mode: str | None):
    """(kind, offset of row r for scale s): kind "linear" or a rounding; None for other modes."""
    if mode is None:
        return None
    name, _, nearest_mode = mode.partition(",")
    kind, _, coordinates = name.partition("_")
    half_pixel = lambda r, s: (r + 0.5) / s - 0.5  # noqa: E731
    asymmetric = lambda r, s: r / s  # noqa: E731
    if kind == "bilinear" and not nearest_mode:
        offsets = {"": half_pixel, "pytorch_half_pixel": half_pixel, "asymmetric": asymmetric}.get(coordinates)
        return None if offsets is None else ("linear", offsets)
    if kind == "nearest" and nearest_mode in _ROUNDINGS:
        offsets = {"": asymmetric, "half_pixel": half_pixel}.get(coordinates)
        return None if offsets is None else (nearest_mode, offsets)
    return None


def _upsample_axis(build: TorchOpBuilder, x: ir.Value, axis: int, factor: int, plan, element: str) -> ir.Value:
    sizes, _ = vtensor_sizes(x.type)
    n = sizes[axis]
    kind, offsets = plan
    shifted = {-1: _shifted(build, x, axis, sizes, element, previous=True), 0: x,
               1: _shifted(build, x, axis, sizes, element, previous=False)}
    rows = []
    for r in range(factor):
        d = offsets(r, factor)
        if kind == "linear":
            neighbour = -1 if d < 0 else 1
            rows.append(_blend(build, x, shifted[neighbour], abs(d), x.type) if d != 0 else x)
        else:
            rows.append(shifted[max(-1, min(1, _ROUNDINGS[kind](d)))])
    stacked_sizes = sizes[: axis + 1] + [factor] + sizes[axis + 1:]
    row_type = vtensor_spelling(sizes[: axis + 1] + [1] + sizes[axis + 1:], element)
    expanded = [build.op("torch.aten.unsqueeze", row_type, [row, build.int(axis + 1)]) for row in rows]
    stacked = build.op("torch.aten.cat", vtensor_spelling(stacked_sizes, element),
                       [build.op("torch.prim.ListConstruct", "!torch.list<vtensor>", expanded), build.int(axis + 1)])
    merged_sizes = list(sizes)
    merged_sizes[axis] = None if n is None else n * factor
    target = []
    for dim, known in enumerate(merged_sizes):
        if known is not None:
            target.append(build.int(known))
        elif dim == axis:
            target.append(build.op("torch.aten.mul.int", "!torch.int", [_size(build, x, dim), build.int(factor)]))
        else:
            target.append(_size(build, x, dim))
    return build.op("torch.aten.view", vtensor_spelling(merged_sizes, element), [stacked, build.list(target)])


def _shifted(build, x, axis, sizes, element, previous: bool) -> ir.Value:
    """x moved by one along `axis`, the edge row repeated: [x[0], x][:n] or [x, x[-1]][1:]. (A
    piece of size 0, x[:-1] of a dynamic size 1, came out wrong from torch-mlir's StableHLO slice.)"""
    n = sizes[axis]
    longer_sizes = sizes[:axis] + [None if n is None else n + 1] + sizes[axis + 1:]
    edge_sizes = sizes[:axis] + [1] + sizes[axis + 1:]
    edge = build.op("torch.aten.slice.Tensor", vtensor_spelling(edge_sizes, element),
                    [x, build.int(axis), build.int(0 if previous else -1), build.int(1 if previous else _END),
                     build.int(1)])
    parts = [edge, x] if previous else [x, edge]
    longer = build.op("torch.aten.cat", vtensor_spelling(longer_sizes, element),
                      [build.op("torch.prim.ListConstruct", "!torch.list<vtensor>", parts), build.int(axis)])
    end = build.int(n) if n is not None else _size(build, x, axis)
    start, end = (build.int(0), end) if previous else (build.int(1), build.int(_END))
    return build.op("torch.aten.slice.Tensor", str(x.type), [longer, build.int(axis), start, end, build.int(1)])


def _blend(build, x, neighbour, weight: float, result_type) -> ir.Value:
    """x * (1 - weight) + neighbour * weight."""
    kept = build.op("torch.aten.mul.Scalar", str(result_type), [x, build.float(1.0 - weight)])
    moved = build.op("torch.aten.mul.Scalar", str(result_type), [neighbour, build.float(weight)])
    return build.op("torch.aten.add.Tensor", str(result_type), [kept, moved, build.int(1)])


def _size(build, x, dim) -> ir.Value:
    return build.op("torch.aten.size.int", "!torch.int", [x, build.int(dim)])


def _whole_numbers(scales: ir.Value):
    construct = defining_op(scales)
    if not is_op(construct, "torch.prim.ListConstruct"):
        return None
    values = []
    for element in construct.operands:
        constant = defining_op(element)
        if not is_op(constant, "torch.constant.float"):
            return None
        value = ir.FloatAttr(constant.attributes["value"]).value
        if value < 1 or value != int(value):
            return None
        values.append(int(value))
    return values


def _constant_string(value: ir.Value):
    constant = defining_op(value)
    return ir.StringAttr(constant.attributes["value"]).value if is_op(constant, "torch.constant.str") else None


def _constant_bool(value: ir.Value):
    constant = defining_op(value)
    if is_op(constant, "torch.constant.none"):
        return None
    return ir.BoolAttr(constant.attributes["value"]).value if is_op(constant, "torch.constant.bool") else "unknown"
