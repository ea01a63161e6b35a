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

from ..errors import PipelineError

_VIEWS = ("torch.aten.view", "torch.aten.reshape", "torch.aten._unsafe_view")
_INT = "!torch.int"


def keep_dims_dynamic_for_tosa(module: ir.Module, hint: str) -> None:
    """Rewrite `module` in place (module docstring); raise PipelineError naming the first op that
    still needs a run-time size, with `hint` (how to fix dims) appended."""
    from .custom_ops import load_backend_dialects

    load_backend_dialects(module.context)
    with module.context, ir.Location.unknown():
        for op in _ops(module, ("torch.aten.slice.Tensor",)):
            _slice_as_tosa_slice(op)
        for op in _ops(module, ("torch.aten.matmul",)):
            _matmul_as_convolution(op)
        for op in _ops(module, ("torch.aten.div.Scalar",)):
            _mean_by_count_tensor(op)
        for op in _ops(module, ("torch.aten.cat",)):
            _concatenation_as_padded_sum(op)
        for op in _ops(module, _VIEWS):
            _one_runtime_size_as_minus_one(op)
        for op in _ops(module, _BROADCASTS):
            _broadcast_to_sizes_of_a_tensor_as_select(op) or _broadcast_with_runtime_sizes(op)
        _erase_dead_int_arithmetic(module)
        for op in _ops(module, _WINDOWS):
            _check_window_keeps_dynamic_sizes(op, hint)
        for size in _ops(module, ("torch.aten.size.int",)):
            raise PipelineError(_needs_runtime_size(size, hint))


# --------------------------------------------------------------------------------------------------
# views


def _one_runtime_size_as_minus_one(op: ir.Operation) -> bool:
    """A view's target with its result type's static sizes as constants and its one dynamic size
    as -1 (the element count fixes it); unchanged when the result has more dynamic dims."""
    target = _owner(op.operands[1])
    result_sizes, _ = _vtensor_sizes(op.results[0].type)
    if not _is_op(target, "torch.prim.ListConstruct") or result_sizes is None:
        return False
    elements = list(target.operands)
    if len(elements) != len(result_sizes) or all(_constant_int(element) is not None for element in elements):
        return False
    if result_sizes.count(None) != 1:
        return False
    builder = _Builder(op)
    op.operands[1] = builder.int_list([-1 if size is None else size for size in result_sizes])
    return True


def _broadcast_with_runtime_sizes(op: ir.Operation) -> bool:
    """`broadcast_to(c, sizes)` with run-time sizes: where c's dim there is dynamic, -1 (a dynamic
    dim is never broadcast, as on Linalg where it is checked at run time); where c's dim is 1 and
    the size is `size(t, d)`, the broadcast is a select on a true mask shaped like t's dim d."""
    target = _owner(op.operands[1])
    sizes, element = _vtensor_sizes(op.operands[0].type)
    result_sizes, _ = _vtensor_sizes(op.results[0].type)
    if not _is_op(target, "torch.prim.ListConstruct") or sizes is None or result_sizes is None:
        return False
    elements = list(target.operands)
    offset = len(elements) - len(sizes)
    if offset < 0 or len(result_sizes) != len(elements):
        return False
    kept, carriers = [], []
    for index, value in enumerate(elements):
        constant = _constant_int(value)
        source = sizes[index - offset] if index >= offset else 1
        if constant is not None:
            kept.append(constant)
        elif result_sizes[index] is not None:
            kept.append(result_sizes[index])
        elif source is None:
            kept.append(-1)
        elif source == 1 and _is_op(_owner(value), "torch.aten.size.int"):
            kept.append(-1 if index >= offset else 1)
            carriers.append((index, _owner(value)))
        else:
            return False
    if not carriers and offset == 0 and all(size in (-1, sizes[i]) for i, size in enumerate(kept)):
        op.results[0].replace_all_uses_with(op.operands[0])  # the identity (TOSA refuses it on dynamic dims)
        op.erase()
        return True
    builder = _Builder(op)
    if not carriers:
        op.operands[1] = builder.int_list(kept)
        return True
    kept_sizes = [size if size != -1 else (sizes[i - offset] if i >= offset else 1) for i, size in enumerate(kept)]
    kept_sizes = [None if size is None else size for size in kept_sizes]
    broadcast = builder.op(op.name, _vtensor_spelling(kept_sizes, element),
                           [op.operands[0], builder.int_list(kept)] + list(op.operands)[2:])
    mask = None
    for index, size in carriers:
        carrier = _true_along(builder, size.operands[0], _constant_int(size.operands[1]), index, len(elements))
        if carrier is None:
            return False
        mask = carrier[0] if mask is None else builder.op(
            "torch.aten.logical_and", _vtensor_spelling(_broadcast_sizes(mask_sizes, carrier[1]), "i1"), [mask, carrier[0]])
        mask_sizes = carrier[1] if mask is carrier[0] else _broadcast_sizes(mask_sizes, carrier[1])
    zero = builder.scalar_tensor(0, element)
    result = builder.op("torch.aten.where.self", str(op.results[0].type), [mask, broadcast, zero])
    op.results[0].replace_all_uses_with(result)
    op.erase()
    return True


def _broadcast_sizes(left: list, right: list) -> list:
    return [b if a == 1 else a for a, b in zip(left, right)]


def _true_along(builder, t: ir.Value, dim, index: int, rank: int):
    """(a true mask of `rank` dims, t's dim `dim` at `index` and 1 elsewhere; its sizes)."""
    sizes, element = _vtensor_sizes(t.type)
    if sizes is None or dim is None or element.startswith("!"):
        return None
    dim %= len(sizes)
    others = [d for d in range(len(sizes)) if d != dim]
    reduced = builder.op("torch.aten.where.self", _vtensor_spelling(sizes, "f32"),
                         [_always_true(builder, t, sizes), builder.scalar_tensor(1.0, "f32"),
                          builder.scalar_tensor(0.0, "f32")])
    if others:
        keep_sizes = [sizes[d] if d == dim else 1 for d in range(len(sizes))]
        reduced = builder.op("torch.aten.sum.dim_IntList", _vtensor_spelling(keep_sizes, "f32"),
                             [reduced, builder.int_list(others), builder.bool(True), builder.none()])
    mask_sizes = [sizes[dim] if i == index else 1 for i in range(rank)]
    shaped = builder.op("torch.aten.view", _vtensor_spelling(mask_sizes, "f32"),
                        [reduced, builder.int_list([-1 if i == index else 1 for i in range(rank)])])
    return _always_true(builder, shaped, mask_sizes), mask_sizes


_BROADCASTS = ("torch.aten.broadcast_to", "torch.aten.expand")


def _broadcast_to_sizes_of_a_tensor_as_select(op: ir.Operation) -> bool:
    """`broadcast_to(c, [size(t, 0), ..., size(t, r - 1)])` (static sizes as constants) as
    `where(t == t or t != t, c, 0)`: the select takes its shape from t (what torch-mlir's
    decomposition of `ones_like(t)` and `expand_as` read sizes for)."""
    target = _owner(op.operands[1])
    if not _is_op(target, "torch.prim.ListConstruct"):
        return False
    shaped = None
    for index, element in enumerate(target.operands):
        size = _owner(element)
        if _is_op(size, "torch.aten.size.int") and _constant_int(size.operands[1]) == index:
            if shaped is not None and size.operands[0] != shaped:
                return False
            shaped = size.operands[0]
    if shaped is None:
        return False
    sizes, shaped_element = _vtensor_sizes(shaped.type)
    result_sizes, element = _vtensor_sizes(op.results[0].type)
    if sizes is None or result_sizes is None or len(sizes) != len(list(target.operands)):
        return False
    for index, element_value in enumerate(target.operands):
        constant = _constant_int(element_value)
        if constant is not None and constant != sizes[index]:
            return False
    if not element.startswith(("f", "bf", "si", "i")) or shaped_element.startswith("!torch"):
        return False
    builder = _Builder(op)
    true = _always_true(builder, shaped, sizes)
    zero = builder.scalar_tensor(0.0 if element.startswith(("f", "bf")) else 0, element)
    result = builder.op("torch.aten.where.self", str(op.results[0].type), [true, op.operands[0], zero])
    op.results[0].replace_all_uses_with(result)
    op.erase()
    return True


def _always_true(builder, x: ir.Value, sizes: list) -> ir.Value:
    """`x == x or x != x`: true everywhere (NaN included), in x's shape."""
    bool_type = _vtensor_spelling(sizes, "i1")
    equal = builder.op("torch.aten.eq.Tensor", bool_type, [x, x])
    unequal = builder.op("torch.aten.ne.Tensor", bool_type, [x, x])
    return builder.op("torch.aten.logical_or", bool_type, [equal, unequal])


def _needs_runtime_size(size: ir.Operation, hint: str) -> str:
    users = [_operation(use.owner) for use in size.results[0].uses]
    user = users[0] if users else size
    while _is_op(user, "torch.prim.ListConstruct") or (user.name.endswith(".int") and user.results
                                                        and str(user.results[0].type) == _INT):
        following = [_operation(use.owner) for use in user.results[0].uses]
        if not following:
            break
        user = following[0]
    name = user.name.removeprefix("torch.")
    return (f"torch-to-tosa: {user.location}: '{name}' needs the run-time size of dim "
            f"{_constant_int(size.operands[1])} of a {size.operands[0].type} (TOSA's shapes are "
            f"compile-time constants: a reshape takes at most one -1) ({hint})")


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
    sizes, _ = _vtensor_sizes(op.operands[0].type)
    if sizes is None or len(sizes) < 3 or None not in sizes[2:]:
        return
    spatial = len(sizes) - 2
    if kernel_at is None:
        kernel = (_vtensor_sizes(op.operands[1].type)[0] or [None] * (spatial + 2))[2:]
    else:
        kernel = _int_list(op.operands[kernel_at])
    stride, padding = _int_list(op.operands[stride_at]), _int_list(op.operands[padding_at])
    dilation = _int_list(op.operands[dilation_at]) if dilation_at is not None else [1] * spatial
    if None in (kernel, stride, padding, dilation):
        return
    broadcast = lambda values: values * spatial if len(values) == 1 else values  # noqa: E731
    kernel, stride, padding, dilation = (broadcast(values or [1]) for values in (kernel, stride, padding, dilation))
    for axis in range(spatial):
        if sizes[2 + axis] is not None:
            continue
        if stride[axis] != 1 or 2 * padding[axis] != dilation[axis] * (kernel[axis] - 1):
            name = op.name.removeprefix("torch.")
            raise PipelineError(
                f"torch-to-tosa: {op.location}: '{name}' with stride {stride[axis]}, kernel {kernel[axis]} and "
                f"padding {padding[axis]} on a dynamic image size ({op.operands[0].type}): torch-mlir's TOSA "
                f"lowering sizes such a window's result only from static input sizes ({hint})")


# --------------------------------------------------------------------------------------------------
# slices


def _slice_as_tosa_slice(op: ir.Operation) -> bool:
    """`slice.Tensor` with constant bounds and step 1 along a static dim of a tensor with a dynamic
    dim, as `tosa.slice` with size -1 on the dynamic dims (TOSA's lowering to tensor takes that;
    torch-mlir's lowering of the slice takes only static shapes). Bridged with torch_c casts,
    which the backend pipeline folds away."""
    from .custom_ops import builtin_tensor_type

    x = op.operands[0]
    sizes, _ = _vtensor_sizes(x.type)
    result_sizes, _ = _vtensor_sizes(op.results[0].type)
    dim, start, end, step = (_constant_int(operand) for operand in list(op.operands)[1:5])
    if sizes is None or result_sizes is None or None not in sizes or None in (dim, start, step) or step != 1:
        return False
    dim %= len(sizes)
    if sizes[dim] is None:
        return False
    length = sizes[dim]
    end = length if end is None else end
    start, end = (min(max(value + length if value < 0 else value, 0), length) for value in (start, end))
    count = max(end - start, 0)
    if result_sizes[dim] != count:
        return False
    builtin_input, builtin_result = builtin_tensor_type(x.type), builtin_tensor_type(op.results[0].type)
    if builtin_input is None or builtin_result is None:
        return False
    location, ip = op.location, ir.InsertionPoint(op)
    create = lambda name, results, operands, attributes=None: ir.Operation.create(  # noqa: E731
        name, results=results, operands=operands, attributes=attributes or {}, loc=location, ip=ip).results[0]
    tensor = create("torch_c.to_builtin_tensor", [builtin_input], [x])
    starts = [start if axis == dim else 0 for axis in range(len(sizes))]
    counts = [count if axis == dim else (-1 if size is None else size) for axis, size in enumerate(sizes)]
    sliced = create("tosa.slice", [builtin_result], [tensor, _const_shape(create, starts), _const_shape(create, counts)])
    result = create("torch_c.from_builtin_tensor", [op.results[0].type], [sliced])
    op.results[0].replace_all_uses_with(result)
    op.erase()
    return True


def _const_shape(create, values: list) -> ir.Value:
    attribute = ir.Attribute.parse(f"dense<[{', '.join(map(str, values))}]> : tensor<{len(values)}xindex>")
    return create("tosa.const_shape", [ir.Type.parse(f"!tosa.shape<{len(values)}>")], [], {"values": attribute})


# --------------------------------------------------------------------------------------------------
# concatenation


def _concatenation_as_padded_sum(op: ir.Operation) -> bool:
    """`cat` along a static axis of tensors with a dynamic dim (torch-mlir's TOSA lowering of
    `aten.cat` takes only static shapes) as the sum of the pieces zero-padded to the result along
    the axis (`or` for booleans); `tosa.pad` keeps the other dims dynamic."""
    pieces = _owner(op.operands[0])
    result_sizes, element = _vtensor_sizes(op.results[0].type)
    axis = _constant_int(op.operands[1])
    if not _is_op(pieces, "torch.prim.ListConstruct") or result_sizes is None or axis is None:
        return False
    if None not in result_sizes or not result_sizes:
        return False
    axis %= len(result_sizes)
    piece_sizes = [_vtensor_sizes(piece.type)[0] for piece in pieces.operands]
    if result_sizes[axis] is None or any(sizes is None or sizes[axis] is None for sizes in piece_sizes):
        return False
    builder = _Builder(op)
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
    summed = _owner(total)
    if not _is_op(summed, "torch.aten.sum.dim_IntList") or _constant_int(count) is not None:
        return False
    x = summed.operands[0]
    sizes, element = _vtensor_sizes(x.type)
    dims = _int_list(summed.operands[1])
    if sizes is None or dims is None or not element.startswith(("f", "bf")):
        return False
    dims = sorted({d % len(sizes) for d in dims})
    factors = _size_product(count, x)
    if factors is None:
        return False
    read_dims, constant = factors
    static = [sizes[d] for d in dims if sizes[d] is not None]
    if sorted(read_dims) != [d for d in dims if sizes[d] is None] or _product(static) != constant:
        return False
    builder = _Builder(op)
    true = _always_true(builder, x, sizes)
    ones = builder.op("torch.aten.where.self", _vtensor_spelling(sizes, element),
                      [true, builder.scalar_tensor(1.0, element), builder.scalar_tensor(0.0, element)])
    counted = builder.op("torch.aten.sum.dim_IntList", str(total.type), [ones, *list(summed.operands)[1:3],
                                                                          builder.none()])
    mean = builder.op("torch.aten.div.Tensor", str(op.results[0].type), [total, counted])
    op.results[0].replace_all_uses_with(mean)
    op.erase()
    return True


def _size_product(value: ir.Value, x: ir.Value):
    """(dims read with size.int of x, constant factor) when `value` is a product of those, else None."""
    constant = _constant_int(value)
    if constant is not None:
        return [], constant
    owner = _owner(value)
    if _is_op(owner, "torch.aten.size.int") and owner.operands[0] == x:
        dim = _constant_int(owner.operands[1])
        sizes, _ = _vtensor_sizes(x.type)
        return ([dim % len(sizes)], 1) if dim is not None else None
    if _is_op(owner, "torch.aten.mul.int"):
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
    sizes, element = _vtensor_sizes(x.type)
    weight_sizes, _ = _vtensor_sizes(weight.type)
    if sizes is None or len(sizes) != 4 or None not in sizes[:3] or sizes[3] is None:
        return False
    if weight_sizes is None or len(weight_sizes) != 2 or None in weight_sizes or not element.startswith(("f", "bf")):
        return False
    if not _is_op(_owner(weight), "torch.vtensor.literal"):
        return False
    k, m = weight_sizes
    builder = _Builder(op)
    channels_first = builder.op("torch.aten.permute", _vtensor_spelling([sizes[0], k, sizes[1], sizes[2]], element),
                                [x, builder.int_list([0, 3, 1, 2])])
    transposed = builder.op("torch.aten.permute", _vtensor_spelling([m, k], element), [weight, builder.int_list([1, 0])])
    kernel = builder.op("torch.aten.view", _vtensor_spelling([m, k, 1, 1], element),
                        [transposed, builder.int_list([m, k, 1, 1])])
    ones, zeros = builder.int_list([1, 1]), builder.int_list([0, 0])
    convolved = builder.op(
        "torch.aten.convolution", _vtensor_spelling([sizes[0], m, sizes[1], sizes[2]], element),
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
        dead = [op for op in _ops(module, None)
                if op.name.startswith(("torch.aten.", "torch.prim.", "torch.constant.")) and op.results
                and all(str(result.type) in _SCALAR_TYPES and not list(result.uses) for result in op.results)]
        if not dead:
            return
        for op in dead:
            op.erase()


def _ops(module: ir.Module, names) -> list[ir.Operation]:
    found: list[ir.Operation] = []

    def collect(operation: ir.Operation) -> ir.WalkResult:
        if names is None or operation.name in names:
            found.append(operation)
        return ir.WalkResult.ADVANCE

    module.operation.walk(collect)
    return found


class _Builder:
    """Torch ops in front of `op`, at its location."""

    def __init__(self, op: ir.Operation):
        self.ip, self.location = ir.InsertionPoint(op), op.location

    def op(self, name: str, result: str, operands: list) -> ir.Value:
        return ir.Operation.create(name, results=[ir.Type.parse(result)], operands=operands,
                                   loc=self.location, ip=self.ip).results[0]

    def _constant(self, name: str, result: str, attribute=None) -> ir.Value:
        attributes = {"value": attribute} if attribute is not None else {}
        return ir.Operation.create(name, results=[ir.Type.parse(result)], attributes=attributes,
                                   loc=self.location, ip=self.ip).results[0]

    def int(self, value: int) -> ir.Value:
        return self._constant("torch.constant.int", _INT, ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value))

    def float(self, value: float) -> ir.Value:
        return self._constant("torch.constant.float", "!torch.float", ir.FloatAttr.get(ir.F64Type.get(), value))

    def bool(self, value: bool) -> ir.Value:
        return self._constant("torch.constant.bool", "!torch.bool", ir.BoolAttr.get(value))

    def none(self) -> ir.Value:
        return self._constant("torch.constant.none", "!torch.none")

    def scalar_tensor(self, value: float, element: str) -> ir.Value:
        """A rank-0 `torch.vtensor.literal` of `element` type."""
        if element.startswith(("si", "ui")):
            element_type = ir.IntegerType.get_signless(int(element[2:]))
            value_attribute = ir.IntegerAttr.get(element_type, int(value))
        elif element.startswith("i"):
            element_type = ir.IntegerType.get_signless(int(element[1:]))
            value_attribute = ir.IntegerAttr.get(element_type, int(value))
        else:
            element_type = ir.Type.parse(element)
            value_attribute = ir.FloatAttr.get(element_type, value)
        attribute = ir.DenseElementsAttr.get_splat(ir.RankedTensorType.get([], element_type), value_attribute)
        return self._constant("torch.vtensor.literal", f"!torch.vtensor<[],{element}>", attribute)

    def list(self, elements: list) -> ir.Value:
        return self.op("torch.prim.ListConstruct", "!torch.list<int>", elements)

    def int_list(self, values: list) -> ir.Value:
        return self.list([self.int(value) for value in values])


def _vtensor_spelling(sizes: list, element: str) -> str:
    return f"!torch.vtensor<[{','.join('?' if size is None else str(size) for size in sizes)}],{element}>"


def _vtensor_sizes(torch_type: ir.Type):
    """([sizes], element) of a `!torch.vtensor<[...],elem>`, else (None, None)."""
    text = str(torch_type)
    if not text.startswith("!torch.vtensor<[") or "]," not in text:
        return None, None
    dims, element = text[len("!torch.vtensor<["):-1].split("],", 1)
    return ([None if dim == "?" else int(dim) for dim in dims.split(",")] if dims else []), element


def _operation(owner):
    return owner.operation if hasattr(owner, "operation") else owner


def _owner(value: ir.Value):
    return _operation(value.owner)


def _is_op(owner, name: str) -> bool:
    return isinstance(owner, ir.Operation) and owner.name == name


def _constant_int(value: ir.Value):
    owner = _owner(value)
    return ir.IntegerAttr(owner.attributes["value"]).value if _is_op(owner, "torch.constant.int") else None


def _int_list(value: ir.Value):
    owner = _owner(value)
    if not _is_op(owner, "torch.prim.ListConstruct"):
        return None
    values = [_constant_int(element) for element in owner.operands]
    return None if None in values else values


def _product(values) -> int:
    result = 1
    for value in values:
        result *= value
    return result
