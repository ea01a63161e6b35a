"""`aten.constant_pad_nd` of run-time pad amounts, rewritten before torch-mlir's StableHLO lowering.

A Pad whose `pads` input is computed at run time (CenterCropPad's expanded function pads by
`max(shape, target) - shape`, its `shape` a graph input) becomes `aten.constant_pad_nd` of a list
of `aten.item`s. torch-mlir's StableHLO lowering takes only constant pad amounts ("failed to
legalize operation 'torch.aten.constant_pad_nd' that was explicitly marked illegal"); its Linalg
lowering takes run-time ones.

Here, for each padded dim d with amounts (before, after), both possibly negative:
- the input is cut to `[max(-before, 0), size - max(-after, 0))` (`aten.slice.Tensor`, a
  `real_dynamic_slice`), the end kept at least the start so that an over-cut is empty;
- then the fill value, broadcast to `max(before, 0)` and `max(after, 0)` along d
  (`aten.broadcast_to`, a `dynamic_broadcast_in_dim`), is concatenated on either side (`aten.cat`).
StableHLO lowers all of these on run-time sizes. Dims whose amounts are both the constant 0 are
left alone; a pad of constant amounts only is left to torch-mlir.
"""

from torch_mlir import ir

from ..torch.rewriting import DTYPE_CODES, INT, TorchOpBuilder, constant_int, defining_op, is_op, ops_named, vtensor_sizes, \
    vtensor_spelling

_SCALAR_TENSORS = {"!torch.float": "f64", "!torch.int": "si64", "!torch.bool": "i1"}


def run_time_pads_as_slices_and_concatenations(module: ir.Module) -> int:
    """Rewrite each `aten.constant_pad_nd` with a run-time pad amount (module docstring); the count."""
    rewritten = 0
    with module.context, ir.Location.unknown():
        for op in ops_named(module, {"torch.aten.constant_pad_nd"}):
            rewritten += _rewrite(op)
    return rewritten


def _rewrite(op: ir.Operation) -> int:
    source, pads, value = op.operands
    sizes, element = vtensor_sizes(source.type)
    result_sizes, _ = vtensor_sizes(op.results[0].type)
    construct = defining_op(pads)
    if sizes is None or result_sizes is None or not is_op(construct, "torch.prim.ListConstruct"):
        return 0
    amounts = list(construct.operands)
    if all(constant_int(amount) is not None for amount in amounts) or len(amounts) > 2 * len(sizes):
        return 0
    if element not in DTYPE_CODES or str(value.type) not in _SCALAR_TENSORS:
        return 0
    build = TorchOpBuilder(op)
    fill = _fill_scalar(build, value, element)
    current, current_sizes = source, list(sizes)
    for pair in range(len(amounts) // 2):
        dim = len(sizes) - 1 - pair
        before, after = amounts[2 * pair], amounts[2 * pair + 1]
        if constant_int(before) == 0 and constant_int(after) == 0:
            continue
        current = _cut(build, current, current_sizes, element, dim, before, after)
        cat_sizes = vtensor_sizes(current.type)[0]
        cat_sizes[dim] = result_sizes[dim]
        current = _surround(build, current, cat_sizes, element, fill, dim, before, after)
        current_sizes = vtensor_sizes(current.type)[0]
    if str(current.type) != str(op.results[0].type):
        current = build.op("torch.tensor_static_info_cast", str(op.results[0].type), [current])
    op.results[0].replace_all_uses_with(current)
    op.erase()
    return 1


def _fill_scalar(build: TorchOpBuilder, value: ir.Value, element: str) -> ir.Value:
    """The pad value as a 0-d tensor of `element`."""
    own = _SCALAR_TENSORS[str(value.type)]
    scalar = build.op("torch.prim.NumToTensor.Scalar", f"!torch.vtensor<[],{own}>", [value])
    if own == element:
        return scalar
    false = build.bool(False)
    return build.op("torch.aten.to.dtype", f"!torch.vtensor<[],{element}>",
                    [scalar, build.int(DTYPE_CODES[element]), false, false, build.none()])


def _non_negative(build: TorchOpBuilder, amount: ir.Value) -> ir.Value:
    constant = constant_int(amount)
    if constant is not None:
        return build.int(max(constant, 0))
    return build.op("torch.prim.max.int", INT, [amount, build.int(0)])


def _negated(build: TorchOpBuilder, amount: ir.Value) -> ir.Value:
    constant = constant_int(amount)
    return build.int(-constant) if constant is not None else build.op("torch.aten.neg.int", INT, [amount])


def _size(build: TorchOpBuilder, tensor: ir.Value, sizes: list, dim: int) -> ir.Value:
    if sizes[dim] is not None:
        return build.int(sizes[dim])
    return build.op("torch.aten.size.int", INT, [tensor, build.int(dim)])


def _cut(build, tensor, sizes, element, dim, before, after) -> ir.Value:
    """`tensor` without the elements a negative `before` / `after` removes along `dim`."""
    if all(constant_int(amount) is not None and constant_int(amount) >= 0 for amount in (before, after)):
        return tensor
    start = _non_negative(build, _negated(build, before))
    end = build.op("torch.aten.sub.int", INT, [_size(build, tensor, sizes, dim),
                                               _non_negative(build, _negated(build, after))])
    end = build.op("torch.prim.max.int", INT, [end, start])
    cut_sizes = list(sizes)
    cut_sizes[dim] = None
    return build.op("torch.aten.slice.Tensor", vtensor_spelling(cut_sizes, element),
                    [tensor, build.int(dim), start, end, build.int(1)])


def _surround(build, tensor, result_sizes, element, fill, dim, before, after) -> ir.Value:
    """`fill` repeated max(before, 0) times before `tensor` along `dim` and max(after, 0) after it."""
    sizes, _ = vtensor_sizes(tensor.type)
    pieces = []
    for amount, side in ((before, "before"), (after, "after")):
        if constant_int(amount) is not None and constant_int(amount) <= 0:
            continue
        width = _non_negative(build, amount)
        piece_sizes = list(sizes)
        piece_sizes[dim] = constant_int(width)
        shape = [width if d == dim else _size(build, tensor, sizes, d) for d in range(len(sizes))]
        piece = build.op("torch.aten.broadcast_to", vtensor_spelling(piece_sizes, element), [fill, build.list(shape)])
        pieces.append((side, piece))
    if not pieces:
        return tensor
    ordered = [piece for side, piece in pieces if side == "before"] + [tensor] + \
        [piece for side, piece in pieces if side == "after"]
    listed = build.op("torch.prim.ListConstruct", "!torch.list<vtensor>", ordered)
    return build.op("torch.aten.cat", vtensor_spelling(result_sizes, element), [listed, build.int(dim)])
