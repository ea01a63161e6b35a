"""Dynamic shapes in torch-mlir's StableHLO output, in forms its consumers lower.

torch-mlir's StableHLO lowering of elementwise ops on dynamic shapes computes the broadcast shape
at run time (`shape.shape_of`, `shape.broadcast`, guarded by `shape.cstr_broadcastable` and a
`shape.assuming` region) and broadcasts every operand with `stablehlo.dynamic_broadcast_in_dim`
without `known_expanding_dimensions` / `known_nonexpanding_dimensions`; keepdim reductions end in
`stablehlo.dynamic_reshape`. None of that reaches code:

- without expansion hints a consumer cannot tell whether an operand dim of size `?` is stretched:
  StableHLO's `stablehlo-legalize-to-linalg` leaves the op unconverted (our runner then stopped at
  a left-over `bufferization.to_tensor`) and IREE refuses it;
- IREE folds a broadcast of a broadcast into one op and drops the hints on the way;
- IREE has no lowering for `shape.cstr_require` (what the constraints become) and crashes on the
  host-side `tensor<Nxindex>` that `shape.broadcast` builds in a loop;
- neither lowers `stablehlo.dynamic_reshape`.

`finish_dynamic_stablehlo` rewrites those forms on the assumption torch-mlir's Linalg lowering
makes for the same torch ops, which checks it at run time there: **a dynamic dim is never
broadcast**; it equals the result dim. Then:

- a dynamic operand dim is non-expanding; a static dim of 1 under a result dim that is not 1
  expands; other static dims do not (hints already present are kept);
- a broadcast whose operand has the result type is the identity and is removed;
- a broadcast shape is the list of per-dim sizes (`tensor.from_elements` of `tensor.dim`s and
  constants): a static size that is not 1 if an operand has one, else the dynamic dim of an
  operand, else 1; broadcast constraints hold and their guards go;
- `dynamic_reshape` becomes `tensor.reshape`, which both consumers lower, and the element count
  of a list of sizes (`shape.num_elements`, which a reshape's -1 dim uses) their product;
- the length of a dynamic `arange`, which torch-mlir computes as `ceil((end - start) / step)` in
  f64 and converts back to i64 (IREE has no lowering of that `arith.fptosi` in its host code),
  is the same ceiling division on the integers;
- an index-select-shaped `stablehlo.dynamic_gather`, and a dynamically shaped `dot_general` whose
  contracting dims are 1 or one of whose operands has only unit free dims, take the forms of
  `dynamic_ops.py`, and a slice that is empty at run time stays empty there.

A model whose dynamic dim is 1 at run time where another operand's is not gets wrong numbers on
StableHLO (an assertion on Linalg); fix the dim with `--dim NAME=SIZE` for such a model.
"""

from torch_mlir import ir
from torch_mlir.passmanager import PassManager

from ...errors import PipelineError
from ..stablehlo.dynamic_ops import (
    dynamic_gather_as_index_select, empty_slices_kept_empty, unit_contraction_as_product, unit_free_dims_as_reduction,
)

BROADCAST = "stablehlo.dynamic_broadcast_in_dim"
EXPANDING = "known_expanding_dimensions"
NONEXPANDING = "known_nonexpanding_dimensions"
_REWRITTEN = (
    BROADCAST, "stablehlo.dynamic_reshape", "shape.broadcast", "shape.cstr_broadcastable", "shape.shape_of",
    "shape.num_elements", "stablehlo.convolution", "stablehlo.reduce_window", "stablehlo.convert",
    "stablehlo.dynamic_gather", "stablehlo.dot_general", "stablehlo.real_dynamic_slice",
)


def finish_dynamic_stablehlo(module: ir.Module) -> None:
    """Rewrite `module`'s dynamic-shape forms in place (see the module docstring)."""
    with module.context, ir.Location.unknown():
        ops = _ops_by_name(module, _REWRITTEN)
        if not ops:
            return
        check_windows_are_static(ops.get("stablehlo.convolution", []) + ops.get("stablehlo.reduce_window", []))
        for op in ops.get("shape.cstr_broadcastable", []):
            _replace(op, ir.Operation.create("shape.const_witness", results=[op.results[0].type],
                                             attributes={"passing": ir.BoolAttr.get(True)}, ip=ir.InsertionPoint(op)))
        for op in ops.get("shape.broadcast", []):
            _rewrite_shape_broadcast(op)
        for op in ops.get("shape.shape_of", []):
            _rewrite_shape_of(op)
        for op in ops.get("shape.num_elements", []):
            _rewrite_num_elements(op)
        for op in ops.get("stablehlo.convert", []):
            _rewrite_float_ceil_division(op)
        for op in ops.get("stablehlo.dynamic_gather", []):
            dynamic_gather_as_index_select(op)
        for op in ops.get("stablehlo.dot_general", []):
            unit_contraction_as_product(op) or unit_free_dims_as_reduction(op)
        for op in ops.get("stablehlo.real_dynamic_slice", []):
            empty_slices_kept_empty(op)
        for op in ops.get("stablehlo.dynamic_reshape", []):
            _replace(op, _tensor_reshape(op))
        for op in ops.get(BROADCAST, []):
            if is_identity_broadcast(op):
                op.results[0].replace_all_uses_with(op.operands[0])
                op.erase()
            else:
                add_expansion_hints(op)
        PassManager.parse("builtin.module(canonicalize)").run(module.operation)
        for op in _ops_by_name(module, ("tensor.dim",)).get("tensor.dim", []):
            _dim_of_signless(op)


def check_windows_are_static(ops: list[ir.Operation]) -> None:
    """Refuse a window op that no consumer lowers: a convolution with a dynamic dim other than the
    batch (dim 0, as torch-mlir lays them out), a reduce_window with any dynamic dim. IREE and
    `stablehlo-legalize-to-linalg` both leave those unconverted."""
    for op in ops:
        operand_type = op.operands[0].type
        if not isinstance(operand_type, ir.RankedTensorType):
            continue
        first = 1 if op.name == "stablehlo.convolution" else 0
        dynamic = [i for i in range(first, operand_type.rank) if operand_type.is_dynamic_dim(i)]
        if dynamic:
            which = "sizes other than the batch" if first else "sizes"
            raise PipelineError(
                f"{op.location}: {op.name} on {operand_type}: StableHLO's consumers (IREE, "
                f"stablehlo-legalize-to-linalg) lower it only with static {which}"
            )


def expansion_of(operand_sizes, result_sizes, broadcast_dims) -> tuple[list[int], list[int]]:
    """(expanding, nonexpanding) operand dims; a size is an int, or None when dynamic."""
    expanding, nonexpanding = [], []
    for operand_dim, result_dim in enumerate(broadcast_dims):
        if operand_sizes[operand_dim] == 1 and result_sizes[result_dim] != 1:
            expanding.append(operand_dim)
        else:
            nonexpanding.append(operand_dim)
    return expanding, nonexpanding


def broadcast_dim(sizes: list) -> tuple[str, object]:
    """One dim of a broadcast shape from the operands' sizes at it (int, None when dynamic, or
    absent): ("static", n) or ("dynamic", operand index)."""
    for size in sizes:
        if size is not None and size != 1:
            return "static", size
    for index, size in enumerate(sizes):
        if size is None:
            return "dynamic", index
    return "static", 1


def is_identity_broadcast(op: ir.Operation) -> bool:
    """Same type in and out, dims in order, no hint saying a dim expands."""
    operand_type, result_type = op.operands[0].type, op.results[0].type
    if operand_type != result_type or not isinstance(operand_type, ir.RankedTensorType):
        return False
    if list(ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"])) != list(range(operand_type.rank)):
        return False
    if EXPANDING in op.attributes:
        return len(ir.DenseI64ArrayAttr(op.attributes[EXPANDING])) == 0
    return True  # equal types: by expansion_of, no dim expands


def add_expansion_hints(op: ir.Operation) -> None:
    if EXPANDING in op.attributes or NONEXPANDING in op.attributes:
        return
    operand_type, result_type = op.operands[0].type, op.results[0].type
    if not (isinstance(operand_type, ir.RankedTensorType) and isinstance(result_type, ir.RankedTensorType)):
        return
    dims = list(ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"]))
    expanding, nonexpanding = expansion_of(_sizes(operand_type), _sizes(result_type), dims)
    op.attributes[EXPANDING] = ir.DenseI64ArrayAttr.get(expanding)
    op.attributes[NONEXPANDING] = ir.DenseI64ArrayAttr.get(nonexpanding)


def _rewrite_shape_broadcast(op: ir.Operation) -> None:
    """`shape.broadcast` of shapes whose ranks are known -> `tensor.from_elements` of sizes."""
    result_type = op.results[0].type
    shapes = [_shape_source(value) for value in op.operands]
    if not isinstance(result_type, ir.RankedTensorType) or None in shapes:
        return
    rank = max(len(sizes) for sizes, _ in shapes)
    ip = ir.InsertionPoint(op)
    elements = []
    for dim in range(rank):
        at_dim = [sizes[dim - rank + len(sizes)] if dim - rank + len(sizes) >= 0 else 1 for sizes, _ in shapes]
        kind, value = broadcast_dim(at_dim)
        if kind == "static":
            elements.append(_index_constant(value, ip))
        else:
            sizes, tensor = shapes[value]
            elements.append(_tensor_dim(tensor, dim - rank + len(sizes), ip))
    _replace(op, _from_elements(elements, result_type, ip))


def _rewrite_shape_of(op: ir.Operation) -> None:
    """`shape.shape_of` of a ranked tensor -> `tensor.from_elements` of its sizes."""
    source = _shape_source(op.results[0])
    if source is None or not isinstance(op.results[0].type, ir.RankedTensorType):
        return
    sizes, tensor = source
    ip = ir.InsertionPoint(op)
    elements = [_index_constant(size, ip) if size is not None else _tensor_dim(tensor, i, ip)
                for i, size in enumerate(sizes)]
    _replace(op, _from_elements(elements, op.results[0].type, ip))


def _rewrite_num_elements(op: ir.Operation) -> None:
    """`shape.num_elements` of a `tensor.from_elements` of sizes -> their product (`arith.muli`)."""
    owner = op.operands[0].owner
    if not isinstance(owner, (ir.Operation, ir.OpView)) or owner.name != "tensor.from_elements":
        return
    if op.results[0].type != ir.IndexType.get():
        return
    ip = ir.InsertionPoint(op)
    product = _index_constant(1, ip)
    for size in owner.operands:
        product = ir.Operation.create("arith.muli", results=[product.type], operands=[product, size], ip=ip).results[0]
    op.results[0].replace_all_uses_with(product)
    op.erase()


def _rewrite_float_ceil_division(op: ir.Operation) -> None:
    """convert<int>(ceil(convert<f64>(x) / convert<f64>(y))) with integer x, y -> ceil(x / y) on
    the integers: q = x / y (truncated), plus 1 where the remainder is not 0 and has y's sign."""
    result_type = op.results[0].type
    ceil = _defining(op.operands[0], "stablehlo.ceil")
    divide = _defining(ceil.operands[0], "stablehlo.divide") if ceil is not None else None
    if divide is None or not _is_integer_tensor(result_type):
        return
    x, y = (_defining(value, "stablehlo.convert") for value in divide.operands)
    if x is None or y is None or x.operands[0].type != result_type or y.operands[0].type != result_type:
        return
    x, y = x.operands[0], y.operands[0]
    ip = ir.InsertionPoint(op)
    element = ir.RankedTensorType(result_type).element_type
    zero = ir.Operation.create("stablehlo.constant", results=[result_type], ip=ip, attributes={
        "value": ir.DenseElementsAttr.get_splat(result_type, ir.IntegerAttr.get(element, 0))}).results[0]
    binary = lambda name, a, b, t=result_type: ir.Operation.create(  # noqa: E731
        name, results=[t], operands=[a, b], ip=ip).results[0]
    flags_type = ir.RankedTensorType.get(ir.RankedTensorType(result_type).shape, ir.IntegerType.get_signless(1))

    def compare(a, b, direction):
        return ir.Operation.create("stablehlo.compare", results=[flags_type], operands=[a, b], ip=ip, attributes={
            "comparison_direction": ir.Attribute.parse(f"#stablehlo<comparison_direction {direction}>")}).results[0]

    quotient = binary("stablehlo.divide", x, y)
    remainder = binary("stablehlo.remainder", x, y)
    same_sign = compare(compare(remainder, zero, "GT"), compare(y, zero, "GT"), "EQ")
    rounds_up = binary("stablehlo.and", compare(remainder, zero, "NE"), same_sign, flags_type)
    one_or_zero = ir.Operation.create("stablehlo.convert", results=[result_type], operands=[rounds_up], ip=ip)
    _replace(op, ir.Operation.create("stablehlo.add", results=[result_type], ip=ip,
                                     operands=[quotient, one_or_zero.results[0]]))


def _tensor_reshape(op: ir.Operation) -> ir.Operation:
    """`stablehlo.dynamic_reshape` as `tensor.reshape`; an unsigned tensor is reshaped as the
    signless one of its width between two `stablehlo.bitcast_convert`s (the consumers make
    StableHLO's unsigned types signless in StableHLO ops only, and a `tensor.reshape` from `ui8` to
    `i8` does not verify: a uint8 embedding table's rows reshaped to a run-time batch)."""
    ip = ir.InsertionPoint(op)
    source, result_type = _signless(op.operands[0], ip), op.results[0].type
    if source == op.operands[0]:
        return ir.Operation.create("tensor.reshape", results=[result_type], ip=ip,
                                   operands=[source, _sizes_as_i64(op.operands[1], ip)])
    reshaped_type = ir.RankedTensorType.get(result_type.shape, source.type.element_type)
    reshape = ir.Operation.create("tensor.reshape", results=[reshaped_type], ip=ip,
                                  operands=[source, _sizes_as_i64(op.operands[1], ip)])
    return ir.Operation.create("stablehlo.bitcast_convert", results=[result_type], operands=[reshape.results[0]], ip=ip)


def _signless(value: ir.Value, ip: ir.InsertionPoint) -> ir.Value:
    """`value` if its element type is not unsigned, else a `stablehlo.bitcast_convert` of it to the
    signless type of the same width."""
    value_type = value.type
    element = value_type.element_type
    if not (isinstance(element, ir.IntegerType) and element.is_unsigned):
        return value
    signless = ir.RankedTensorType.get(value_type.shape, ir.IntegerType.get_signless(element.width))
    return ir.Operation.create("stablehlo.bitcast_convert", results=[signless], operands=[value], ip=ip).results[0]


def _dim_of_signless(op: ir.Operation) -> None:
    """A `tensor.dim` of an unsigned tensor reads the dim of its signless bitcast: IREE's StableHLO
    input makes unsigned types signless and refuses a `tensor.dim` left on `ui8`."""
    source = op.operands[0]
    if isinstance(source.type, ir.RankedTensorType):
        op.operands[0] = _signless(source, ir.InsertionPoint(op))


def _sizes_as_i64(shape: ir.Value, ip: ir.InsertionPoint) -> ir.Value:
    """A `tensor.from_elements` of index sizes as one of i64 sizes: IREE refuses a tensor of index
    values where it crosses into a dispatch (a reshape it cannot fold)."""
    elements = _defining(shape, "tensor.from_elements")
    if elements is None or shape.type.element_type != ir.IndexType.get():
        return shape
    i64 = ir.IntegerType.get_signless(64)
    sizes = [ir.Operation.create("arith.index_cast", results=[i64], operands=[size], ip=ip).results[0]
             for size in elements.operands]
    return ir.Operation.create("tensor.from_elements", results=[ir.RankedTensorType.get([len(sizes)], i64)],
                               operands=sizes, ip=ip).results[0]


def _defining(value: ir.Value, name: str):
    owner = value.owner
    owner = owner.operation if hasattr(owner, "operation") else owner
    return owner if isinstance(owner, ir.Operation) and owner.name == name else None


def _is_integer_tensor(value_type: ir.Type) -> bool:
    return isinstance(value_type, ir.RankedTensorType) and isinstance(value_type.element_type, ir.IntegerType)


def _shape_source(value: ir.Value):
    """(sizes, tensor or None) of a `shape.shape_of` of a ranked tensor or a `shape.const_shape`."""
    owner = value.owner
    if not isinstance(owner, ir.OpView) and not isinstance(owner, ir.Operation):
        return None
    name = owner.name
    if name == "shape.shape_of" and isinstance(owner.operands[0].type, ir.RankedTensorType):
        return _sizes(owner.operands[0].type), owner.operands[0]
    if name == "shape.const_shape":
        return list(ir.DenseIntElementsAttr(owner.attributes["shape"])), None
    return None


def _index_constant(value: int, ip: ir.InsertionPoint) -> ir.Value:
    index = ir.IndexType.get()
    return ir.Operation.create("arith.constant", results=[index],
                               attributes={"value": ir.IntegerAttr.get(index, value)}, ip=ip).results[0]


def _tensor_dim(tensor: ir.Value, dim: int, ip: ir.InsertionPoint) -> ir.Value:
    index = ir.IndexType.get()
    return ir.Operation.create("tensor.dim", results=[index], operands=[tensor, _index_constant(dim, ip)],
                               ip=ip).results[0]


def _from_elements(elements: list, result_type: ir.Type, ip: ir.InsertionPoint) -> ir.Operation:
    shape_type = ir.RankedTensorType.get([len(elements)], ir.IndexType.get())
    made = ir.Operation.create("tensor.from_elements", results=[shape_type], operands=elements, ip=ip)
    if shape_type == result_type:
        return made
    return ir.Operation.create("tensor.cast", results=[result_type], operands=[made.results[0]], ip=ip)


def _replace(op: ir.Operation, new: ir.Operation) -> None:
    op.results[0].replace_all_uses_with(new.results[0])
    op.erase()


def _ops_by_name(module: ir.Module, names) -> dict[str, list[ir.Operation]]:
    found: dict[str, list[ir.Operation]] = {}

    def collect(operation: ir.Operation) -> ir.WalkResult:
        if operation.name in names:
            found.setdefault(operation.name, []).append(operation)
        return ir.WalkResult.ADVANCE

    module.operation.walk(collect)
    return found


def _sizes(tensor_type: ir.RankedTensorType) -> list:
    return [None if tensor_type.is_dynamic_dim(i) else tensor_type.get_dim_size(i) for i in range(tensor_type.rank)]
