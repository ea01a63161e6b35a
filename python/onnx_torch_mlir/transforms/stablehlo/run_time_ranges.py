"""A float `aten.arange.start_step` of run-time bounds, rewritten before torch-mlir's StableHLO lowering.

A Range whose inputs are computed at run time (the expanded window functions: `Range(0, size, 1)`
of a size input cast to float) becomes `aten.arange.start_step` of `aten.item`s. torch-mlir's
StableHLO lowering refuses `aten.item` of a float ("failed to legalize operation 'torch.aten.item'"),
and given `aten.Float.Tensor` instead it computes the count in f64 scalars, which IREE refuses
("failed to legalize operation 'arith.truncf'": it demotes f64). Here the count is computed as ONNX
defines it, in the result's float type on 0-d tensors,
    count = max(ceil((limit - start) / delta), 0),
read as an int (`aten.Int.Tensor`), and the values are `start + i * delta` for an integer
`arange` of that count (a `dynamic_iota`), converted to the float type. Both consumers take that.

A bound that is a run-time int made a float (`aten.Float.Scalar`: torch-mlir folds the read of a
size cast to float, `item(to.dtype(NumToTensor(size)))`, into it: YOLOv8's anchor grid,
`Range(0.0, Cast(Shape(x)[3]), 1.0)` on a dynamic image size) gets the same count, from the
int as a 0-d tensor (`prim.NumToTensor.Scalar`); torch-mlir computed it in f64 there too.
"""

from torch_mlir import ir

from ..torch.rewriting import INT, TorchOpBuilder, defining_op, is_op, ops_named, vtensor_sizes, vtensor_spelling

_FLOAT_DTYPE_CODES = {"f16": 5, "f32": 6, "f64": 7, "bf16": 15}
_SI64 = 4
_READS = ("torch.aten.item", "torch.aten.Float.Tensor", "torch.aten.Float.Scalar")


def run_time_float_ranges_as_integer_ranges(module: ir.Module) -> int:
    """Rewrite each float `aten.arange.start_step` with a run-time bound (module docstring); the count."""
    rewritten = 0
    with module.context, ir.Location.unknown():
        for op in ops_named(module, {"torch.aten.arange.start_step"}):
            rewritten += _rewrite(op)
    return rewritten


def _rewrite(op: ir.Operation) -> int:
    sizes, element = vtensor_sizes(op.results[0].type)
    if sizes is None or len(sizes) != 1 or element not in _FLOAT_DTYPE_CODES:
        return 0
    bounds = list(op.operands[:3])
    if not any(_read_tensor(bound) is not None or _run_time_int(bound) is not None for bound in bounds):
        return 0  # constant bounds: torch-mlir lowers them itself
    build = TorchOpBuilder(op)
    tensors = [_as_tensor(build, bound, element) for bound in bounds]
    if any(tensor is None for tensor in tensors):
        return 0
    start, limit, delta = tensors
    scalar = f"!torch.vtensor<[],{element}>"
    span = build.op("torch.aten.sub.Tensor", scalar, [limit, start, build.int(1)])
    steps = build.op("torch.aten.ceil", scalar, [build.op("torch.aten.div.Tensor", scalar, [span, delta])])
    steps = build.op("torch.aten.relu", scalar, [steps])
    count = build.op("torch.aten.Int.Tensor", INT, [_to_dtype(build, steps, "si64", _SI64)])
    none = build.none()
    positions = build.op("torch.aten.arange.start_step", "!torch.vtensor<[?],si64>",
                         [build.int(0), count, build.int(1), build.int(_SI64), none, none, none])
    vector = vtensor_spelling([None], element)
    values = build.op("torch.aten.mul.Tensor", vector,
                      [_to_dtype(build, positions, element, _FLOAT_DTYPE_CODES[element], [None]), delta])
    values = build.op("torch.aten.add.Tensor", vector, [values, start, build.int(1)])
    if str(values.type) != str(op.results[0].type):
        values = build.op("torch.tensor_static_info_cast", str(op.results[0].type), [values])
    op.results[0].replace_all_uses_with(values)
    op.erase()
    for bound in bounds:
        read = defining_op(bound)
        if any(is_op(read, name) for name in _READS) and not list(read.results[0].uses):
            read.erase()
    return 1


def _read_tensor(bound: ir.Value):
    """The 0-d float tensor a run-time bound is read from, else None."""
    read = defining_op(bound)
    if not any(is_op(read, name) for name in _READS):
        return None
    sizes, element = vtensor_sizes(read.operands[0].type)
    return read.operands[0] if sizes == [] and element in _FLOAT_DTYPE_CODES else None


def _run_time_int(bound: ir.Value):
    """The run-time `!torch.int` a bound is (or is made a float from by `aten.Float.Scalar`), else None."""
    read = defining_op(bound)
    if is_op(read, "torch.aten.Float.Scalar") and str(read.operands[0].type) == INT:
        bound = read.operands[0]
    if str(bound.type) != INT or is_op(defining_op(bound), "torch.constant.int"):
        return None
    return bound


def _as_tensor(build: TorchOpBuilder, bound: ir.Value, element: str):
    """`bound` (a constant, a run-time float read or a run-time int) as a 0-d tensor of `element`, else None."""
    number = _run_time_int(bound)
    if number is not None:
        integer = build.op("torch.prim.NumToTensor.Scalar", vtensor_spelling([], "si64"), [number])
        return _to_dtype(build, integer, element, _FLOAT_DTYPE_CODES[element])
    tensor = _read_tensor(bound)
    if tensor is not None:
        own = vtensor_sizes(tensor.type)[1]
        return tensor if own == element else _to_dtype(build, tensor, element, _FLOAT_DTYPE_CODES[element])
    constant = defining_op(bound)
    if is_op(constant, "torch.constant.float"):
        return build.scalar_tensor(ir.FloatAttr(constant.attributes["value"]).value, element)
    if is_op(constant, "torch.constant.int"):
        return build.scalar_tensor(float(ir.IntegerAttr(constant.attributes["value"]).value), element)
    return None


def _to_dtype(build: TorchOpBuilder, tensor: ir.Value, element: str, code: int, sizes=()) -> ir.Value:
    false = build.bool(False)
    return build.op("torch.aten.to.dtype", vtensor_spelling(list(sizes), element),
                    [tensor, build.int(code), false, false, build.none()])
