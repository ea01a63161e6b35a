"""Dynamic dims kept on TOSA: torch forms torch-mlir's TOSA lowering takes with `?` sizes.

TOSA has no run-time shape values in the forms its consumers lower: a `tosa.reshape` takes a
constant shape with at most one `-1`, and nothing turns a dim into a number (torch-mlir refuses
`aten.size.int`). Many dynamic models still need no run-time number; after the Torch backend
contract, `keep_dims_dynamic_for_tosa` rewrites the forms that read one needlessly:

- a view/reshape whose result has one dynamic dim takes its result type's static sizes and -1
  there, whatever its target list computed (`aten.size.int` and arithmetic on it): the element
  count fixes it (a Flatten, a head split or GroupNorm's grouping on a dynamic batch);
- a mean over dynamic dims, which torch-mlir's decomposition writes as a sum divided by the
  product of the dims' sizes, divides by the same sum of ones (a select on `x == x or x != x`,
  true for every value, NaN included): the count is a tensor, not a number. (torch-mlir's own TOSA
  lowering of `aten.mean.dim` on dynamic dims multiplies by infinity.)
- a slice with constant bounds along a static dim of a tensor with a dynamic dim is `tosa.slice`
  with size -1 on the dynamic dims (torch-mlir's lowering of `aten.slice.Tensor` takes only
  static shapes; TOSA's own lowering takes -1), between torch_c casts the pipeline folds;
- a broadcast keeps a dynamic dim as -1 (a dynamic dim is never broadcast, as on Linalg, where
  that is checked at run time) and an identity broadcast goes; a broadcast to a run-time size
  from a size-1 dim (a class token expanded to the batch, `ones_like` of a dynamic tensor) is a
  select on a true mask shaped by the tensor the size was read from;
- a concatenation along a static axis of tensors with a dynamic dim is the sum of the pieces
  zero-padded to the result (torch-mlir's TOSA `aten.cat` takes only static shapes);
- a matmul of a rank-4 tensor with a dynamic dim by a constant matrix (ConvNeXt's pointwise
  layers on a dynamic image) is a 1x1 convolution between two permutations, which TOSA lowers
  on dynamic sizes (the permutations cancel against the convolution's own NHWC transposes).

Whatever still reads a run-time size (a view with two dynamic dims, e.g. BERT's heads split on
a dynamic batch and sequence), and a convolution or pool whose output size on a dynamic image
size differs from its input's (torch-mlir sizes those only from static sizes), is refused with
the op that needs it and the way out, `--dim NAME=SIZE`.
"""

from torch_mlir import ir

from ...errors import DynamicDimsError
from ..torch.rewriting import (
    INT, TorchOpBuilder, constant_int, int_list, is_op, as_operation, ops_named, defining_op, product, vtensor_sizes,
    vtensor_spelling,
)
from ..tosa.direct import cast_as_tosa_cast, index_select_as_tosa_gather, slice_as_tosa_slice

_VIEWS = ("torch.aten.view", "torch.aten.reshape", "torch.aten._unsafe_view")


def keep_dims_dynamic_for_tosa(module: ir.Module, hint: str) -> None:
    """Rewrite `module` in place (module docstring); raise DynamicDimsError naming the first op
    that still needs a run-time size, with `hint` (how to fix dims) appended."""
    from ..torch.custom_ops import load_backend_dialects

    load_backend_dialects(module.context)
    with module.context, ir.Location.unknown():
        for op in ops_named(module, ("torch.aten.slice.Tensor",)):
            slice_as_tosa_slice(op)
        for op in ops_named(module, ("torch.aten.index_select",)):
            index_select_as_tosa_gather(op)
        for op in ops_named(module, ("torch.aten.to.dtype",)):
            cast_as_tosa_cast(op)
        for op in ops_named(module, ("torch.aten.matmul",)):
            _matmul_as_convolution(op)
        for op in ops_named(module, ("torch.aten.div.Scalar",)):
            _mean_by_count_tensor(op)
        for op in ops_named(module, ("torch.aten.cat",)):
            _concatenation_as_padded_sum(op)
        for op in ops_named(module, _VIEWS):
            _one_runtime_size_as_minus_one(op)
        for op in ops_named(module, _BROADCASTS):
            _broadcast_to_sizes_of_a_tensor_as_select(op) or _broadcast_with_runtime_sizes(op)
        _erase_dead_int_arithmetic(module)
        for op in ops_named(module, _WINDOWS):
            _check_window_keeps_dynamic_sizes(op, hint)
        for size in ops_named(module, ("torch.aten.size.int",)):
            raise DynamicDimsError(_needs_runtime_size(size), hint)


# --------------------------------------------------------------------------------------------------
# views


def _one_runtime_size_as_minus_one(op: ir.Operation) -> bool:
    """A view's target with its result type's static sizes as constants and its one dynamic size
    as -1 (the element count fixes it); unchanged when the result has more dynamic dims."""
    target = defining_op(op.operands[1])
    result_sizes, _ = vtensor_sizes(op.results[0].type)
    if not is_op(target, "torch.prim.ListConstruct") or result_sizes is None:
        return False
    elements = list(target.operands)
    if len(elements) != len(result_sizes) or all(constant_int(element) is not None for element in elements):
        return False
    if result_sizes.count(None) != 1:
        return False
    builder = TorchOpBuilder(op)
    op.operands[1] = builder.int_list([-1 if size is None else size for size in result_sizes])
    return True


def _broadcast_with_runtime_sizes(op: ir.Operation) -> bool:
    """`broadcast_to(c, sizes)` with run-time sizes: where c's dim there is dynamic, -1 (a dynamic
    dim is never broadcast, as on Linalg where it is checked at run time). The rest (torch-mlir's
    TOSA lowering broadcasts only static shapes) is a select on a true mask: constant along a
    static expansion, shaped like t's dim d where c's dim is 1 and the size is `size(t, d)`."""
    target = defining_op(op.operands[1])
    sizes, element = vtensor_sizes(op.operands[0].type)
    result_sizes, _ = vtensor_sizes(op.results[0].type)
    if not is_op(target, "torch.prim.ListConstruct") or sizes is None or result_sizes is None:
        return False
    elements = list(target.operands)
    offset = len(elements) - len(sizes)
    if offset < 0 or len(result_sizes) != len(elements):
        return False
    kept, carriers = [], []
    for index, value in enumerate(elements):
        constant = constant_int(value)
        source = sizes[index - offset] if index >= offset else 1
        if constant is not None:
            kept.append(constant)
        elif result_sizes[index] is not None:
            kept.append(result_sizes[index])
        elif source is None:
            kept.append(-1)
        elif source == 1 and is_op(defining_op(value), "torch.aten.size.int"):
            kept.append(-1 if index >= offset else 1)
            carriers.append((index, defining_op(value)))
        else:
            return False
    if not carriers and offset == 0 and all(size in (-1, sizes[i]) for i, size in enumerate(kept)):
        op.results[0].replace_all_uses_with(op.operands[0])  # the identity (TOSA refuses it on dynamic dims)
        op.erase()
        return True
    if None not in sizes and not carriers:
        return False  # torch-mlir lowers a broadcast of a static tensor to static sizes
    # The static expansions (from a size-1 or missing dim) as a constant true mask, the run-time
    # ones as masks shaped by their tensors: the select broadcasts c to their conjunction.
    mask_sizes = [size if size not in (-1, None) and (i < offset or sizes[i - offset] == 1) else 1
                  for i, size in enumerate(kept)]
    builder = TorchOpBuilder(op)
    mask = builder.true_literal(mask_sizes)
    for index, size in carriers:
        carrier = _true_along(builder, size.operands[0], constant_int(size.operands[1]), index, len(elements))
        if carrier is None:
            return False
        mask_sizes = _broadcast_sizes(mask_sizes, carrier[1])
        mask = builder.op("torch.aten.logical_and", vtensor_spelling(mask_sizes, "i1"), [mask, carrier[0]])
    broadcast = op.operands[0]
    zero = builder.scalar_tensor(0, element)
    result = builder.op("torch.aten.where.self", str(op.results[0].type), [mask, broadcast, zero])
    op.results[0].replace_all_uses_with(result)
    op.erase()
    return True


def _broadcast_sizes(left: list, right: list) -> list:
    return [b if a == 1 else a for a, b in zip(left, right)]


def _true_along(builder, t: ir.Value, dim, index: int, rank: int):
    """(a true mask of `rank` dims, t's dim `dim` at `index` and 1 elsewhere; its sizes)."""
    sizes, element = vtensor_sizes(t.type)
    if sizes is None or dim is None or element.startswith("!"):
        return None
    dim %= len(sizes)
    others = [d for d in range(len(sizes)) if d != dim]
    reduced = builder.op("torch.aten.where.self", vtensor_spelling(sizes, "f32"),
                         [_always_true(builder, t, sizes), builder.scalar_tensor(1.0, "f32"),
                          builder.scalar_tensor(0.0, "f32")])
    if others:
        keep_sizes = [sizes[d] if d == dim else 1 for d in range(len(sizes))]
        reduced = builder.op("torch.aten.sum.dim_IntList", vtensor_spelling(keep_sizes, "f32"),
                             [reduced, builder.int_list(others), builder.bool(True), builder.none()])
    mask_sizes = [sizes[dim] if i == index else 1 for i in range(rank)]
    shaped = builder.op("torch.aten.view", vtensor_spelling(mask_sizes, "f32"),
                        [reduced, builder.int_list([-1 if i == index else 1 for i in range(rank)])])
    return _always_true(builder, shaped, mask_sizes), mask_sizes


_BROADCASTS = ("torch.aten.broadcast_to", "torch.aten.expand")


def _broadcast_to_sizes_of_a_tensor_as_select(op: ir.Operation) -> bool:
    """`broadcast_to(c, [size(t, 0), ..., size(t, r - 1)])` (static sizes as constants) as
    `where(t == t or t != t, c, 0)`: the select takes its shape from t (what torch-mlir's
    decomposition of `ones_like(t)` and `expand_as` read sizes for)."""
    target = defining_op(op.operands[1])
    if not is_op(target, "torch.prim.ListConstruct"):
        return False
    shaped = None
    for index, element in enumerate(target.operands):
        size = defining_op(element)
        if is_op(size, "torch.aten.size.int") and constant_int(size.operands[1]) == index:
            if shaped is not None and size.operands[0] != shaped:
                return False
            shaped = size.operands[0]
    if shaped is None:
        return False
    sizes, shaped_element = vtensor_sizes(shaped.type)
    result_sizes, element = vtensor_sizes(op.results[0].type)
    if sizes is None or result_sizes is None or len(sizes) != len(list(target.operands)):
        return False
    for index, element_value in enumerate(target.operands):
        constant = constant_int(element_value)
        if constant is not None and constant != sizes[index]:
            return False
    if not element.startswith(("f", "bf", "si", "i")) or shaped_element.startswith("!torch"):
        return False
    builder = TorchOpBuilder(op)
    true = _always_true(builder, shaped, sizes)
    zero = builder.scalar_tensor(0.0 if element.startswith(("f", "bf")) else 0, element)
    result = builder.op("torch.aten.where.self", str(op.results[0].type), [true, op.operands[0], zero])
    op.results[0].replace_all_uses_with(result)
    op.erase()
    return True


def _always_true(builder, x: ir.Value, sizes: list) -> ir.Value:
    """`x == x or x != x`: true everywhere (NaN included), in x's shape."""
    bool_type = vtensor_spelling(sizes, "i1")
    equal = builder.op("torch.aten.eq.Tensor", bool_type, [x, x])
    unequal = builder.op("torch.aten.ne.Tensor", bool_type, [x, x])
    return builder.op("torch.aten.logical_or", bool_type, [equal, unequal])


def _needs_runtime_size(size: ir.Operation) -> str:
    """Which op reads the run-time size `size` (through the list or int arithmetic it feeds) and
    why TOSA cannot: a reshape's shape is constant with at most one -1; any other op (a Range's
    bound, a tensor of sizes, a slice's end) has no run-time number to read at all."""
    users = [as_operation(use.owner) for use in size.results[0].uses]
    user = users[0] if users else size
    while is_op(user, "torch.prim.ListConstruct") or (user.name.endswith(".int") and user.results
                                                        and str(user.results[0].type) == INT):
        following = [as_operation(use.owner) for use in user.results[0].uses]
        if not following:
            break
        user = following[0]
    name = user.name.removeprefix("torch.")
    why = ("TOSA's shapes are compile-time constants: a reshape takes at most one -1" if user.name in _VIEWS
           else "TOSA's shapes and sizes are compile-time constants")
    return (f"torch-to-tosa: {user.location}: '{name}' needs the run-time size of dim "
            f"{constant_int(size.operands[1])} of a {size.operands[0].type} ({why})")


# --------------------------------------------------------------------------------------------------
# windows

# Window ops: (index of the kernel list, of the stride list, of the padding list, of the dilation
# list); a convolution's kernel comes from its weight's type.
_WINDOWS = {
    "torch.aten.convolution": (None, 3, 4, 5),
    "torch.aten.max_pool2d": (1, 2, 3, 4),
    "torch.aten.avg_pool2d": (1, 2, 3, None),
}


def _check_window_keeps_dynamic_sizes(op: ir.Operation, hint: str) -> None:
    """torch-mlir's TOSA lowering of a window op sizes a dynamic spatial dim of its result right
    only when it equals the input's (stride 1, padding that undoes the kernel): the others come
    out as 0 and fail. Refuse those with the way out."""
    kernel_at, stride_at, padding_at, dilation_at = _WINDOWS[op.name]
    sizes, _ = vtensor_sizes(op.operands[0].type)
    if sizes is None or len(sizes) < 3 or None not in sizes[2:]:
        return
    spatial = len(sizes) - 2
    if kernel_at is None:
        kernel = (vtensor_sizes(op.operands[1].type)[0] or [None] * (spatial + 2))[2:]
    else:
        kernel = int_list(op.operands[kernel_at])
    stride, padding = int_list(op.operands[stride_at]), int_list(op.operands[padding_at])
    dilation = int_list(op.operands[dilation_at]) if dilation_at is not None else [1] * spatial
    if None in (kernel, stride, padding, dilation):
        return
    broadcast = lambda values: values * spatial if len(values) == 1 else values  # noqa: E731
    kernel, stride, padding, dilation = (broadcast(values or [1]) for values in (kernel, stride, padding, dilation))
    for axis in range(spatial):
        if sizes[2 + axis] is not None:
            continue
        if stride[axis] != 1 or 2 * padding[axis] != dilation[axis] * (kernel[axis] - 1):
            name = op.name.removeprefix("torch.")
            raise DynamicDimsError(
                f"torch-to-tosa: {op.location}: '{name}' with stride {stride[axis]}, kernel {kernel[axis]} and "
                f"padding {padding[axis]} on a dynamic image size ({op.operands[0].type}): torch-mlir's TOSA "
                f"lowering sizes such a window's result only from static input sizes", hint)


# --------------------------------------------------------------------------------------------------
# concatenation


def _concatenation_as_padded_sum(op: ir.Operation) -> bool:
    """`cat` along a static axis of tensors with a dynamic dim (torch-mlir's TOSA lowering of
    `aten.cat` takes only static shapes) as the sum of the pieces zero-padded to the result along
    the axis (`or` for booleans); `tosa.pad` keeps the other dims dynamic."""
    pieces = defining_op(op.operands[0])
    result_sizes, element = vtensor_sizes(op.results[0].type)
    axis = constant_int(op.operands[1])
    if not is_op(pieces, "torch.prim.ListConstruct") or result_sizes is None or axis is None:
        return False
    if None not in result_sizes or not result_sizes:
        return False
    axis %= len(result_sizes)
    piece_sizes = [vtensor_sizes(piece.type)[0] for piece in pieces.operands]
    if result_sizes[axis] is None or any(sizes is None or sizes[axis] is None for sizes in piece_sizes):
        return False
    builder = TorchOpBuilder(op)
    total, before = None, 0
    for piece, sizes in zip(pieces.operands, piece_sizes):
        after = result_sizes[axis] - before - sizes[axis]
        padding = []
        for dim in reversed(range(len(result_sizes))):
            padding += [before, after] if dim == axis else [0, 0]
        padded = builder.op("torch.aten.constant_pad_nd", str(op.results[0].type),
                            [piece, builder.int_list(padding), builder.float(0.0)])
        if total is None:
            total = padded
        elif element == "i1":
            total = builder.op("torch.aten.logical_or", str(op.results[0].type), [total, padded])
        else:
            total = builder.op("torch.aten.add.Tensor", str(op.results[0].type), [total, padded, builder.int(1)])
        before += sizes[axis]
    op.results[0].replace_all_uses_with(total)
    op.erase()
    return True


# --------------------------------------------------------------------------------------------------
# mean


def _mean_by_count_tensor(op: ir.Operation) -> bool:
    """`div.Scalar(sum.dim_IntList(x, dims), n)` with n the product of x's sizes on dims."""
    total, count = op.operands
    summed = defining_op(total)
    if not is_op(summed, "torch.aten.sum.dim_IntList") or constant_int(count) is not None:
        return False
    x = summed.operands[0]
    sizes, element = vtensor_sizes(x.type)
    dims = int_list(summed.operands[1])
    if sizes is None or dims is None or not element.startswith(("f", "bf")):
        return False
    dims = sorted({d % len(sizes) for d in dims})
    factors = _size_product(count, x)
    if factors is None:
        return False
    read_dims, constant = factors
    static = [sizes[d] for d in dims if sizes[d] is not None]
    if sorted(read_dims) != [d for d in dims if sizes[d] is None] or product(static) != constant:
        return False
    builder = TorchOpBuilder(op)
    true = _always_true(builder, x, sizes)
    ones = builder.op("torch.aten.where.self", vtensor_spelling(sizes, element),
                      [true, builder.scalar_tensor(1.0, element), builder.scalar_tensor(0.0, element)])
    counted = builder.op("torch.aten.sum.dim_IntList", str(total.type), [ones, *list(summed.operands)[1:3],
                                                                          builder.none()])
    mean = builder.op("torch.aten.div.Tensor", str(op.results[0].type), [total, counted])
    op.results[0].replace_all_uses_with(mean)
    op.erase()
    return True


def _size_product(value: ir.Value, x: ir.Value):
    """(dims read with size.int of x, constant factor) when `value` is a product of those, else None."""
    constant = constant_int(value)
    if constant is not None:
        return [], constant
    owner = defining_op(value)
    if is_op(owner, "torch.aten.size.int") and owner.operands[0] == x:
        dim = constant_int(owner.operands[1])
        sizes, _ = vtensor_sizes(x.type)
        return ([dim % len(sizes)], 1) if dim is not None else None
    if is_op(owner, "torch.aten.mul.int"):
        left, right = (_size_product(operand, x) for operand in owner.operands)
        if left is None or right is None:
            return None
        return left[0] + right[0], left[1] * right[1]
    return None


# --------------------------------------------------------------------------------------------------
# matmul


def _matmul_as_convolution(op: ir.Operation) -> bool:
    """x [n, h, w, k] @ w [k, m] (a dynamic dim among n, h, w; w a literal) as a 1x1 convolution."""
    x, weight = op.operands
    sizes, element = vtensor_sizes(x.type)
    weight_sizes, _ = vtensor_sizes(weight.type)
    if sizes is None or len(sizes) != 4 or None not in sizes[:3] or sizes[3] is None:
        return False
    if weight_sizes is None or len(weight_sizes) != 2 or None in weight_sizes or not element.startswith(("f", "bf")):
        return False
    if not is_op(defining_op(weight), "torch.vtensor.literal"):
        return False
    k, m = weight_sizes
    builder = TorchOpBuilder(op)
    channels_first = builder.op("torch.aten.permute", vtensor_spelling([sizes[0], k, sizes[1], sizes[2]], element),
                                [x, builder.int_list([0, 3, 1, 2])])
    transposed = builder.op("torch.aten.permute", vtensor_spelling([m, k], element), [weight, builder.int_list([1, 0])])
    kernel = builder.op("torch.aten.view", vtensor_spelling([m, k, 1, 1], element),
                        [transposed, builder.int_list([m, k, 1, 1])])
    ones, zeros = builder.int_list([1, 1]), builder.int_list([0, 0])
    convolved = builder.op(
        "torch.aten.convolution", vtensor_spelling([sizes[0], m, sizes[1], sizes[2]], element),
        [channels_first, kernel, builder.none(), ones, zeros, ones, builder.bool(False), zeros, builder.int(1)])
    result = builder.op("torch.aten.permute", str(op.results[0].type), [convolved, builder.int_list([0, 2, 3, 1])])
    op.results[0].replace_all_uses_with(result)
    op.erase()
    return True


# --------------------------------------------------------------------------------------------------
# helpers


_SCALAR_TYPES = ("!torch.int", "!torch.bool", "!torch.float", "!torch.none", "!torch.list<int>")


def _erase_dead_int_arithmetic(module: ir.Module) -> None:
    """Erase unused torch ops that compute only scalars (sizes and their arithmetic)."""
    while True:
        dead = [op for op in ops_named(module, None)
                if op.name.startswith(("torch.aten.", "torch.prim.", "torch.constant.")) and op.results
                and all(str(result.type) in _SCALAR_TYPES and not list(result.uses) for result in op.results)]
        if not dead:
            return
        for op in dead:
            op.erase()
