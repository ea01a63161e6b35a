"""Torch forms that torch-mlir's StableHLO lowering refuses on run-time values, rewritten before it.

`aten.tensor` of a list of run-time scalars: our conversion keeps a `Shape`'s dims as a list of
ints, and a `Gather` of some of them that a later op reads as a tensor (GPT-2's and Llama's
attention-mask arithmetic in optimum's exports) is `aten.tensor` of that list. torch-mlir's
StableHLO lowering converts it only when every element is a constant; otherwise the op stays,
and the conversion fails at its `torch.constant.int` dtype ("failed to legalize operation
'torch.constant.int'"). Its Linalg lowering has no such limit. Here each element becomes a 0-d
tensor (`prim.NumToTensor.Scalar`), converted to the result's dtype where it differs
(`aten.to.dtype` with the op's own dtype operand, or without one the result type's: a Shape cast
to int32, tf2onnx's Tensordot), unsqueezed to [1], and the elements are concatenated
(`aten.cat`); StableHLO lowers all of these on run-time values.

`aten.item` of a 0-d integer tensor (a `Where` on a Shape's values read back as a size, in
optimum's exports with a KV cache) is refused the same way; `aten.Int.Tensor` is the same value
and is lowered (`run_time_items_as_int_tensors`; of a 0-d float tensor, `aten.Float.Tensor`).

`aten.squeeze.dim` of a dim of run-time size (ONNX requires it to be 1; TorchScript's
`x.squeeze(-1)` on a dynamic size, behind an If on that size, see
`transforms/stablehlo/run_time_checks.py`) is refused too ("failed to legalize operation
'torch.aten.squeeze.dim'": the lowering squeezes only a static 1), and so is `aten.select.int`
along a dim of run-time size (our Linalg conversion's form of that squeeze). The one row there is
is cut to a static 1 first (`aten.slice.Tensor(x, dim, 0, 1, 1)`, a `real_dynamic_slice`), and that
dim squeezed (`run_time_squeezes_as_slices`).

An interpolation (`Resize`) of dynamic spatial sizes has no StableHLO lowering at all; it is
refused with the node's location (`refuse_dynamic_interpolations`).
"""

from torch_mlir import ir

from ...errors import DynamicDimsError, PipelineError
from ..torch.rewriting import (
    DTYPE_CODES, TorchOpBuilder, constant_int, defining_op, is_op, ops_named, vtensor_sizes, vtensor_spelling,
)

_SCALAR_ELEMENTS = {"!torch.int": "si64", "!torch.float": "f64", "!torch.bool": "i1"}
_CONSTANTS = ("torch.constant.int", "torch.constant.float", "torch.constant.bool")


def run_time_scalar_tensors_as_concatenations(module: ir.Module) -> int:
    """Rewrite each `aten.tensor` of a list holding a run-time scalar (module docstring); the count."""
    rewritten = 0
    with module.context, ir.Location.unknown():
        for op in ops_named(module, {"torch.aten.tensor"}):
            rewritten += _rewrite(op)
    return rewritten


def _rewrite(op: ir.Operation) -> int:
    construct = defining_op(op.operands[0])
    sizes, element = vtensor_sizes(op.results[0].type)
    if not is_op(construct, "torch.prim.ListConstruct") or sizes != [len(construct.operands)]:
        return 0
    scalars = list(construct.operands)
    if not scalars or any(str(scalar.type) not in _SCALAR_ELEMENTS for scalar in scalars):
        return 0
    if all(any(is_op(defining_op(scalar), name) for name in _CONSTANTS) for scalar in scalars):
        return 0  # torch-mlir lowers a list of constants itself
    build = TorchOpBuilder(op)
    dtype = op.operands[1]
    if str(dtype.type) != "!torch.int":  # no dtype given: the result type's
        if element not in DTYPE_CODES:
            return 0
        dtype = build.int(DTYPE_CODES[element])
    zero = build.int(0)
    pieces = []
    for scalar in scalars:
        own = _SCALAR_ELEMENTS[str(scalar.type)]
        piece = build.op("torch.prim.NumToTensor.Scalar", f"!torch.vtensor<[],{own}>", [scalar])
        if own != element:
            piece = build.op("torch.aten.to.dtype", f"!torch.vtensor<[],{element}>",
                             [piece, dtype, build.bool(False), build.bool(False), build.none()])
        pieces.append(build.op("torch.aten.unsqueeze", f"!torch.vtensor<[1],{element}>", [piece, zero]))
    result = pieces[0]
    if len(pieces) > 1:
        listed = build.op("torch.prim.ListConstruct", "!torch.list<vtensor>", pieces)
        result = build.op("torch.aten.cat", str(op.results[0].type), [listed, zero])
    op.results[0].replace_all_uses_with(result)
    op.erase()
    return 1


# The scalar `aten.item` reads -> (the element type prefix it reads from, the op StableHLO lowers).
_SCALAR_READS = {"!torch.int": ("si", "torch.aten.Int.Tensor"), "!torch.float": ("f", "torch.aten.Float.Tensor")}


def run_time_items_as_int_tensors(module: ir.Module) -> int:
    """`aten.item` of a 0-d integer tensor as `aten.Int.Tensor` (of a 0-d float tensor as
    `aten.Float.Tensor`: a Range of run-time float bounds, as in the expanded window functions); the
    count.

    A `Where` on a Shape's values that a Reshape or Expand reads as a size is `aten.item` of a 0-d
    tensor, which torch-mlir's StableHLO lowering refuses ("failed to legalize operation
    'torch.aten.item'"); for an int it is `aten.Int.Tensor`, which it lowers (a `tensor.extract`).
    """
    rewritten = 0
    with module.context, ir.Location.unknown():
        for op in ops_named(module, {"torch.aten.item"}):
            sizes, element = vtensor_sizes(op.operands[0].type)
            scalar = str(op.results[0].type)
            if sizes != [] or _SCALAR_READS.get(scalar) is None or not element.startswith(_SCALAR_READS[scalar][0]):
                continue
            item = TorchOpBuilder(op).op(_SCALAR_READS[scalar][1], scalar, [op.operands[0]])
            op.results[0].replace_all_uses_with(item)
            op.erase()
            rewritten += 1
    return rewritten


def run_time_squeezes_as_slices(module: ir.Module) -> int:
    """`aten.squeeze.dim` of a run-time size as the squeeze of its first row (module docstring); the count."""
    rewritten = 0
    with module.context, ir.Location.unknown():
        for op in ops_named(module, {"torch.aten.squeeze.dim"}):
            sizes, element = vtensor_sizes(op.operands[0].type)
            dim = constant_int(op.operands[1])
            if sizes is None or dim is None or not -len(sizes) <= dim < len(sizes) or sizes[dim] is not None:
                continue
            sizes[dim] = 1
            build = TorchOpBuilder(op)
            row = build.op("torch.aten.slice.Tensor", vtensor_spelling(sizes, element),
                           [op.operands[0], op.operands[1], build.int(0), build.int(1), build.int(1)])
            op.operands[0] = row
            rewritten += 1
    return rewritten


_INTERPOLATIONS = {"torch.aten.__interpolate.size_list_scale_list", "torch.aten.upsample_nearest2d",
                   "torch.aten.upsample_bilinear2d", "torch.aten.upsample_nearest1d"}


def refuse_dynamic_interpolations(module: ir.Module) -> None:
    """Fail, at the Resize's location, on an interpolation of dynamic spatial sizes (of its input,
    or of its result: sizes or scales read at run time, also in a static signature): torch-mlir's
    StableHLO lowering has none (it failed at the scale list's `torch.constant.float`, or at a
    `torch.constant.bool` at an unknown location)."""
    from ...mlir_passes import STATIC_DIMS_HINT

    with module.context:
        for op in ops_named(module, _INTERPOLATIONS):
            sizes, _ = vtensor_sizes(op.operands[0].type)
            if sizes is not None and None in sizes[2:]:
                raise DynamicDimsError(
                    f"torch-to-stablehlo: {op.location}: {op.name[len('torch.'):]} of the dynamic spatial sizes of "
                    f"{op.operands[0].type}: torch-mlir's StableHLO lowering interpolates only static sizes",
                    STATIC_DIMS_HINT.format(backend='stablehlo'))
            sizes, _ = vtensor_sizes(op.results[0].type)
            if sizes is not None and None in sizes[2:]:
                raise PipelineError(
                    f"torch-to-stablehlo: {op.location}: {op.name[len('torch.'):]} to spatial sizes known only at run "
                    f"time ({op.results[0].type}): torch-mlir's StableHLO lowering interpolates only to static sizes "
                    "(give the Resize constant sizes or scales, or compile for linalg-on-tensors)")


def run_time_static_info_casts_as_tensor_casts(module: ir.Module) -> int:
    """Each `torch.tensor_static_info_cast` that makes a run-time dim static (a GRU's new state,
    [?, H] from X's run-time batch, read as the [1, H] of its initial state input) as a
    `tensor.cast` between builtin tensors (`torch_c.to_builtin_tensor`, `torch_c.from_builtin_tensor`
    around it, which the lowering folds away); the count. torch-mlir's StableHLO lowering has no
    pattern for the Torch cast ("failed to legalize operation 'torch.tensor_static_info_cast'"),
    its Linalg lowering makes it the same `tensor.cast`, which checks the size at run time."""
    from ..torch.custom_ops import builtin_tensor_type, load_backend_dialects

    rewritten = 0
    load_backend_dialects(module.context)
    with module.context, ir.Location.unknown():
        for op in ops_named(module, {"torch.tensor_static_info_cast"}):
            source, target = vtensor_sizes(op.operands[0].type)[0], vtensor_sizes(op.results[0].type)[0]
            if source is None or target is None or not any(s is None and t is not None
                                                           for s, t in zip(source, target)):
                continue
            builtin_source = builtin_tensor_type(op.operands[0].type)
            builtin_target = builtin_tensor_type(op.results[0].type)
            if builtin_source is None or builtin_target is None:
                continue
            point = ir.InsertionPoint(op)
            value = ir.Operation.create("torch_c.to_builtin_tensor", results=[builtin_source],
                                        operands=[op.operands[0]], loc=op.location, ip=point).result
            value = ir.Operation.create("tensor.cast", results=[builtin_target], operands=[value],
                                        loc=op.location, ip=point).result
            value = ir.Operation.create("torch_c.from_builtin_tensor", results=[op.results[0].type],
                                        operands=[value], loc=op.location, ip=point).result
            op.results[0].replace_all_uses_with(value)
            op.erase()
            rewritten += 1
    return rewritten
