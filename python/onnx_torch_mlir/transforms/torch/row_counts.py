"""Sizes of rows cut to a run-time count, read as TOSA tensors (for dynamic_rows.py).

A graph reads the number of rows a data-dependent op selected as a shape: ONNX `Shape` of the rows,
then integer arithmetic on it (ultralytics' `300 - n` detections to pad, times 6 values each), as
`aten.size.int` and `aten.add.int`/`sub.int`/`mul.int` on `!torch.int`. torch-mlir's TOSA lowering
takes none of them (TOSA has no scalars outside tensors), so each int computed from row counts and
constants becomes the 0-d tensor that holds it at run time, where it is read:

- `aten.tensor` of a list of such ints and constants (the shape as a tensor): a concatenation of
  the count tensors and literals;
- the bound of `aten.clamp` and the scalar of a comparison (`le.Scalar`, ...): `aten.minimum` /
  `aten.maximum` and the `.Tensor` comparison with the 0-d tensor.

`count_of(value)` (from dynamic_rows.py) gives the count tensor of an `aten.size.int` along rows.
"""

from torch_mlir import ir

from ..torch.rewriting import TorchOpBuilder, as_operation, constant_int, defining_op, is_op, vtensor_sizes, \
    vtensor_spelling

_ARITHMETIC = {"torch.aten.add.int": "torch.aten.add.Tensor", "torch.aten.sub.int": "torch.aten.sub.Tensor",
               "torch.aten.mul.int": "torch.aten.mul.Tensor"}
_COMPARISONS = {f"torch.aten.{name}.Scalar": f"torch.aten.{name}.Tensor" for name in ("lt", "le", "gt", "ge", "eq", "ne")}
_DTYPE_CODES = {"si64": 4, "si32": 3}


def counts_read_as_tensors(block: ir.Block, count_of) -> None:
    """Rewrite the readers in `block` of ints computed from row counts (module docstring)."""
    for op in [as_operation(op) for op in block.operations]:
        if op.name == "torch.aten.tensor":
            _shape_tensor(op, count_of)
        elif op.name in _COMPARISONS and _from_counts(op.operands[1], count_of):
            _comparison(op, count_of)
        elif op.name == "torch.aten.clamp" and any(_from_counts(bound, count_of) for bound in op.operands[1:3]):
            _clamp(op, count_of)


def _from_counts(value: ir.Value, count_of, depth: int = 8) -> bool:
    """Whether the !torch.int `value` is computed from row counts and constants (at least one count)."""
    if count_of(value) is not None:
        return True
    op = defining_op(value)
    if depth == 0 or op is None or op.name not in _ARITHMETIC:
        return False
    known = [constant_int(operand) is not None or _from_counts(operand, count_of, depth - 1)
             for operand in op.operands]
    return all(known) and any(constant_int(operand) is None for operand in op.operands)


def _tensor_of(builder: TorchOpBuilder, value: ir.Value, count_of, element: str) -> ir.Value:
    """The 0-d `element` tensor holding the int `value` (a constant, or _from_counts)."""
    constant = constant_int(value)
    if constant is not None:
        return builder.scalar_tensor(constant, element)
    count = count_of(value)
    if count is not None:
        if vtensor_sizes(count.type)[1] == element:
            return count
        return builder.op("torch.aten.to.dtype", vtensor_spelling([], element), [
            count, builder.int(_DTYPE_CODES.get(element, 6)), builder.bool(False), builder.bool(False),
            builder.none()])
    op = defining_op(value)
    operands = [_tensor_of(builder, operand, count_of, element) for operand in op.operands]
    alpha = [] if op.name == "torch.aten.mul.int" else [builder.int(1)]
    return builder.op(_ARITHMETIC[op.name], vtensor_spelling([], element), [*operands, *alpha])


def _shape_tensor(op: ir.Operation, count_of) -> None:
    """`aten.tensor([...])` of ints from counts and constants: literals and count tensors, concatenated."""
    construct = defining_op(op.operands[0])
    sizes, element = vtensor_sizes(op.results[0].type)
    if not is_op(construct, "torch.prim.ListConstruct") or element not in _DTYPE_CODES or sizes is None:
        return
    elements = list(construct.operands)
    if not elements or not all(constant_int(value) is not None or _from_counts(value, count_of)
                               for value in elements):
        return
    if all(constant_int(value) is not None for value in elements):
        return
    builder = TorchOpBuilder(op)
    piece_type = vtensor_spelling([1], element)
    pieces = [builder.op("torch.aten.view", piece_type, [_tensor_of(builder, value, count_of, element),
                                                        builder.int_list([1])]) for value in elements]
    result = pieces[0] if len(pieces) == 1 else builder.op(
        "torch.aten.cat", vtensor_spelling([len(pieces)], element),
        [builder.op("torch.prim.ListConstruct", "!torch.list<vtensor>", pieces), builder.int(0)])
    op.results[0].replace_all_uses_with(result)
    op.erase()


def _comparison(op: ir.Operation, count_of) -> None:
    x = op.operands[0]
    builder = TorchOpBuilder(op)
    bound = _tensor_of(builder, op.operands[1], count_of, vtensor_sizes(x.type)[1])
    op.results[0].replace_all_uses_with(builder.op(_COMPARISONS[op.name], str(op.results[0].type), [x, bound]))
    op.erase()


def _clamp(op: ir.Operation, count_of) -> None:
    """`clamp(x, low, high)` with a bound from counts: maximum and minimum with its tensor (a constant
    or absent bound stays a clamp)."""
    x, low, high = list(op.operands)[:3]
    result_type = str(op.results[0].type)
    element = vtensor_sizes(x.type)[1]
    builder = TorchOpBuilder(op)
    counted = [_from_counts(bound, count_of) for bound in (low, high)]
    kept = [None if count or is_op(defining_op(bound), "torch.constant.none") else bound
            for bound, count in zip((low, high), counted)]
    value = x
    if any(bound is not None for bound in kept):
        value = builder.op("torch.aten.clamp", result_type, [
            value, *[bound if bound is not None else builder.none() for bound in kept]])
    for bound, count, name in zip((low, high), counted, ("torch.aten.maximum", "torch.aten.minimum")):
        if count:
            value = builder.op(name, result_type, [value, _tensor_of(builder, bound, count_of, element)])
    op.results[0].replace_all_uses_with(value)
    op.erase()
