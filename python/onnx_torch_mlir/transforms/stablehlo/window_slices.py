"""`aten.max_pool2d` on a dynamic batch as the maximum of strided slices, for StableHLO.

torch-mlir lowers `aten.max_pool2d` to `stablehlo.reduce_window`, which neither StableHLO
consumer (IREE, `stablehlo-legalize-to-linalg`) lowers when a dim is dynamic: a ResNet with a
dynamic batch stopped there. With static spatial sizes the pool is, per kernel offset (i, j), the
slice `x[:, :, i :: stride_h, j :: stride_w]` of the input padded with -inf, and the result the
elementwise maximum of those kh * kw slices; slices and maximum lower on dynamic shapes.

Only the forms that are exactly that are rewritten: dilation 1, no ceil_mode, static spatial
sizes, a kernel of at most 64 positions. Anything else is left to torch-mlir's lowering.
"""

from torch_mlir import ir

from ..torch.rewriting import ops_named

MAX_KERNEL_POSITIONS = 64


def max_pools_as_slices(module: ir.Module) -> int:
    """Rewrite the qualifying `aten.max_pool2d` ops of `module` in place; the count rewritten."""
    rewritten = 0
    with module.context, ir.Location.unknown():
        for op in ops_named(module, {"torch.aten.max_pool2d"}):
            rewritten += _rewrite(op)
    return rewritten


def _rewrite(op: ir.Operation) -> int:
    x = op.operands[0]
    sizes, element = _vtensor_sizes(x.type)
    out_sizes, _ = _vtensor_sizes(op.results[0].type)
    kernel, stride, padding, dilation = (_int_list(op.operands[i]) for i in range(1, 5))
    ceil_mode = _constant_bool(op.operands[5])
    if sizes is None or out_sizes is None or len(sizes) != 4 or None in (kernel, stride, padding, dilation):
        return 0
    if None not in sizes or None in sizes[2:] or None in out_sizes[2:] or ceil_mode is not False:
        return 0
    stride = stride or kernel
    padding = padding * 2 if len(padding) == 1 else padding
    if any(d != 1 for d in dilation) or len(kernel) != 2 or len(stride) != 2 or len(padding) != 2:
        return 0
    if kernel[0] * kernel[1] > MAX_KERNEL_POSITIONS:
        return 0
    builder = _Builder(op, element)
    padded = x
    padded_sizes = list(sizes)
    if any(padding):
        padded_sizes = sizes[:2] + [sizes[2] + 2 * padding[0], sizes[3] + 2 * padding[1]]
        pads = builder.int_list([padding[1], padding[1], padding[0], padding[0]])
        padded = builder.op("torch.aten.constant_pad_nd", padded_sizes, [x, pads, builder.float(float("-inf"))])
    result = None
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            rows = _strided(builder, padded, padded_sizes, 2, i, out_sizes[2], stride[0])
            window = _strided(builder, rows, padded_sizes[:2] + [out_sizes[2], padded_sizes[3]], 3, j, out_sizes[3],
                              stride[1])
            result = window if result is None else builder.op("torch.aten.maximum", out_sizes, [result, window])
    op.results[0].replace_all_uses_with(result)
    op.erase()
    return 1


def _strided(builder, x, sizes, dim, start, count, step):
    """x[start : start + (count - 1) * step + 1 : step] along `dim`."""
    result_sizes = list(sizes)
    result_sizes[dim] = count
    end = start + (count - 1) * step + 1
    operands = [x, builder.int(dim), builder.int(start), builder.int(end), builder.int(step)]
    return builder.op("torch.aten.slice.Tensor", result_sizes, operands)


class _Builder:
    """Torch ops in front of `op`, at its location."""

    def __init__(self, op: ir.Operation, element: str):
        self.ip, self.location, self.element = ir.InsertionPoint(op), op.location, element

    def op(self, name: str, sizes: list, operands: list) -> ir.Value:
        result = ir.Type.parse(_vtensor_spelling(sizes, self.element))
        return ir.Operation.create(name, results=[result], operands=operands, loc=self.location, ip=self.ip).results[0]

    def int(self, value: int) -> ir.Value:
        attribute = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)
        return ir.Operation.create("torch.constant.int", results=[ir.Type.parse("!torch.int")],
                                   attributes={"value": attribute}, loc=self.location, ip=self.ip).results[0]

    def float(self, value: float) -> ir.Value:
        attribute = ir.FloatAttr.get(ir.F64Type.get(), value)
        return ir.Operation.create("torch.constant.float", results=[ir.Type.parse("!torch.float")],
                                   attributes={"value": attribute}, loc=self.location, ip=self.ip).results[0]

    def int_list(self, values: list) -> ir.Value:
        elements = [self.int(value) for value in values]
        return ir.Operation.create("torch.prim.ListConstruct", results=[ir.Type.parse("!torch.list<int>")],
                                   operands=elements, loc=self.location, ip=self.ip).results[0]


def _vtensor_spelling(sizes: list, element: str) -> str:
    return f"!torch.vtensor<[{','.join('?' if size is None else str(size) for size in sizes)}],{element}>"


def _vtensor_sizes(torch_type: ir.Type):
    """([sizes], element) of a `!torch.vtensor<[...],elem>` spelling, else (None, None)."""
    text = str(torch_type)
    if not text.startswith("!torch.vtensor<[") or "],"not in text:
        return None, None
    dims, element = text[len("!torch.vtensor<["):-1].split("],", 1)
    sizes = [None if dim == "?" else int(dim) for dim in dims.split(",")] if dims else []
    return sizes, element


def _owner(value: ir.Value):
    owner = value.owner
    return owner.operation if hasattr(owner, "operation") else owner


def _int_list(value: ir.Value):
    owner = _owner(value)
    if not isinstance(owner, ir.Operation) or owner.name != "torch.prim.ListConstruct":
        return None
    values = []
    for element in owner.operands:
        constant = _owner(element)
        if not isinstance(constant, ir.Operation) or constant.name != "torch.constant.int":
            return None
        values.append(ir.IntegerAttr(constant.attributes["value"]).value)
    return values


def _constant_bool(value: ir.Value):
    owner = _owner(value)
    if isinstance(owner, ir.Operation) and owner.name == "torch.constant.bool":
        return ir.BoolAttr(owner.attributes["value"]).value
    return None
