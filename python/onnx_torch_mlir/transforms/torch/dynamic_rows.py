"""Rows cut to a run-time count on TOSA and StableHLO: the ops after the cut run on padded rows,
and each result leaving them is cut to the count by a backend marker.

A result whose number of rows is only known at run time (NonMaxSuppression's selected boxes,
NonZero's positions, Compress's slices) is computed by our conversion padded to the most rows there
can be, with the run-time count as a 0-d integer tensor, and cut with
`aten.slice.Tensor(padded, dim, 0, aten.item(count), 1)` (conversion/onnx_to_torch/detection.py,
selection.py). TOSA's shapes are compile-time constants (a `tosa.slice` takes its sizes as
`!tosa.shape` constants), and torch-mlir's TOSA lowering takes neither `aten.item` nor a slice to a
run-time end; most of its lowerings of the ops reading the rows (Gather, GatherND, RoiAlign's
arithmetic) take only static shapes. StableHLO lowers the cut as a dynamic slice, but XLA compiles
static shapes only, so a detector whose output is padded again to a static size (ultralytics' 300
detections) reaches XLA only if the rows stay padded in between.

`mark_rows_cut_to_run_time_counts(module, backend)` (on the Torch backend contract, before
torch-mlir's pipeline) follows the rows forward through the ops that compute row by row: elementwise
ops (`_ELEMENTWISE`, other operands broadcast along the rows), and `_RULES`: unsqueeze, squeeze,
slices and sums along other dims, gathers and concatenations of values with the same rows, an
index_select by the rows (a static source) or of them (along another dim), views and broadcasts
that keep the rows a dim of their own, the first rows (`x[:end]` with a constant end: rows of their
own, min(rows, end) padded and min(count, end) real), a view flattening the rows with the static
dims after them (`[n, 6] -> [-1]`: a cut of its own, count x 6 of rows x 6). Those ops get their
static padded types (a size list that read the rows' `aten.size.int`, or a max of two such sizes,
gets the padded count), so the backend's lowering takes them. An `index_select` of rows by a static
index reads the padded rows (a valid program's indices are below the count), and ints computed from
the sizes of rows become tensors where they are read (row_counts.py). Where a value along the rows
meets any other op (the function's return, an op not known to be row-wise), that use gets the value
cut to the count, as a marker between `torch_c` casts (which the pipeline folds away, as for
transforms/tosa/direct.py):

    tosa.custom %padded, %count {domain_name = "onnx_torch_mlir", operator_name = "rows_to_count"}
        : (tensor<18x3xi64>, tensor<i64>) -> tensor<?x3xi64>
    %cut = stablehlo.custom_call @onnx_torch_mlir.rows_to_count(%padded, %count)
        {backend_config = "0"} : (tensor<18x3xi64>, tensor<i64>) -> tensor<?x3xi64>

The first rows of a row-wise op's result depend only on the first rows of its operands, so the
rows kept are exactly the ones computed without padding; and a padding row is one the op could
see anyway (NonMaxSuppression's is the triple (0, 0, 0), which it can select), so nothing reads
out of bounds on it. After the pipeline each backend cuts at its markers: tosa/row_cuts.py (a
`tensor.extract_slice`, outside TOSA: torch-mlir's TOSA backend contract takes only TOSA ops, and
MLIR's TOSA-to-Linalg pipeline and IREE's TOSA input take the slice) and stablehlo/row_cuts.py (a
`stablehlo.real_dynamic_slice`). A program whose padded rows are padded again to a static result
has no marker left and is static throughout.

Only the function's body is followed: a cut inside an If or Loop body stays a dynamic slice on
StableHLO and is refused on TOSA.
"""

from dataclasses import dataclass

from torch_mlir import ir

from ...errors import PipelineError
from .custom_ops import builtin_tensor_type
from .row_counts import counts_read_as_tensors
from .rewriting import (
    OpsInFrontOf, TorchOpBuilder, as_operation, constant_int, defining_op, int_list, is_op, ops_named, product, vtensor_sizes,
    vtensor_spelling,
)


# Ops computed row by row: each result element depends on operand elements at the same position
# (after numpy broadcasting), so computing them on padded rows gives the same first rows.
_ELEMENTWISE = {
    f"torch.aten.{name}" for name in (
        "add.Tensor", "sub.Tensor", "mul.Tensor", "div.Tensor", "add.Scalar", "sub.Scalar", "mul.Scalar",
        "div.Scalar", "rsub.Scalar", "where.self", "where.Scalar", "where.ScalarSelf", "where.ScalarOther",
        "lt.Scalar", "le.Scalar", "gt.Scalar", "ge.Scalar", "eq.Scalar", "ne.Scalar", "lt.Tensor", "le.Tensor",
        "gt.Tensor", "ge.Tensor", "eq.Tensor", "ne.Tensor", "logical_and", "logical_or", "logical_not",
        "logical_xor", "floor", "ceil", "round", "trunc", "neg", "abs", "exp", "log", "sqrt", "rsqrt", "sigmoid",
        "tanh", "relu", "clamp", "clamp.Tensor", "minimum", "maximum", "to.dtype", "pow.Tensor_Scalar",
        "remainder.Scalar", "fmod.Scalar", "bitwise_and.Tensor", "bitwise_or.Tensor", "bitwise_not",
    )
}


@dataclass(frozen=True)
class _Cut:
    """One slice of a padded tensor to a run-time count: `padded` static, cut along `axis` to the
    0-d integer tensor `count` (at most `rows`)."""

    padded: ir.Value
    count: ir.Value
    rows: int


@dataclass(frozen=True)
class _Rows:
    """A value whose dim `axis` holds the rows of `cut` (the other dims static)."""

    cut: _Cut
    axis: int


MARKER_DOMAIN = "onnx_torch_mlir"
MARKER_NAME = "rows_to_count"
STABLEHLO_MARKER = f"{MARKER_DOMAIN}.{MARKER_NAME}"


def mark_rows_cut_to_run_time_counts(module: ir.Module, backend: str, outputs: str = "cut") -> int:
    """Before torch-mlir's TOSA or StableHLO pipeline: compute the ops after each slice to a run-time
    count on the padded rows, and cut where the rows leave them with `backend`'s marker (module
    docstring); the count of cuts. `outputs` "padded-with-counts" (route option
    data_dependent_outputs): a function result along rows is returned padded instead, with its
    count as a result after the others (`_padded_results`)."""
    from .custom_ops import load_backend_dialects

    load_backend_dialects(module.context)
    marked = 0
    with module.context, ir.Location.unknown():
        for function in ops_named(module, ("func.func",)):
            marked += _compute_on_padded_rows(function, backend, outputs == "padded-with-counts")
        if backend == "tosa":
            _refuse_cuts_left_for_tosa(module)
    return marked


def _refuse_cuts_left_for_tosa(module: ir.Module) -> None:
    for op in ops_named(module, ("torch.aten.slice.Tensor",)):
        # Only the cuts of data-dependent counts are named: other slices with run-time bounds are
        # left to the transforms after this one and to torch-mlir's own diagnostic.
        if not _cut_at_run_time(op):
            continue
        if "NonMaxSuppression" in str(op.location):
            raise PipelineError(
                f"torch-to-tosa: {op.location}: NonMaxSuppression's selected boxes are a number known only at "
                "run time, and TOSA's shapes are compile-time constants: their rows are cut outside TOSA only "
                "in a function's body, not inside an If or Loop body; declare selected_indices with a static "
                "shape [num_selected, 3], or compile to linalg-on-tensors or stablehlo")
        if "NonZero" in str(op.location) or "Compress" in str(op.location):
            raise PipelineError(
                f"torch-to-tosa: {op.location}: the number of selected elements is known only at run time, and "
                "TOSA's shapes are compile-time constants: the rows are cut outside TOSA only in a function's "
                "body, not inside an If or Loop body; declare the result with a static shape, or compile to "
                "linalg-on-tensors or stablehlo")


def _compute_on_padded_rows(function: ir.Operation, backend: str, padded_results: bool) -> int:
    """Within `function`'s body. Ops and their results are told apart by their results: an
    `ir.Operation` changes its hash when an op is inserted in front of it."""
    if not function.regions or not function.regions[0].blocks:
        return 0
    block = function.regions[0].blocks[0]
    rows: dict[ir.Value, _Rows] = {}
    seeds = []
    for op in block.operations:
        op = as_operation(op)
        cut = _cut_to_item(op)
        if cut is not None:
            seeds.append(op)
            rows[op.results[0]] = _Rows(cut, constant_int(op.operands[1]) % len(vtensor_sizes(op.results[0].type)[0]))
    if not seeds:
        return 0
    seed_results = {seed.results[0] for seed in seeds}
    accepted = []  # (op, its result's rows, {operand index: new static sizes})
    for op in block.operations:
        op = as_operation(op)
        if len(op.results) != 1 or op.results[0] in seed_results or op.regions or not list(op.operands):
            continue
        decision = _row_wise(op, rows)
        if decision is not None:
            accepted.append((op, *decision))
            rows[op.results[0]] = decision[0]
    accepted_results = {op.results[0] for op, _, _ in accepted}
    for op, result_rows, new_lists in accepted:
        builder = TorchOpBuilder(op)
        for index, sizes in new_lists.items():
            op.operands[index] = builder.int_list(sizes)
        op.results[0].set_type(_padded_type(op.results[0].type, result_rows))
    _erase_dead_ops(block, rows)
    counts_read_as_tensors(block, lambda value: _count_of_size(value, rows))
    _erase_dead_ops(block, rows)
    returned = {}  # result index: the _Rows of the padded value returned there
    for value, value_rows in rows.items():
        padded = value_rows.cut.padded if value in seed_results else value
        for use in list(value.uses):
            user = as_operation(use.owner)
            if _reads_rows_by_static_index(user, use.operand_number, value, value_rows, rows):
                user.operands[use.operand_number] = padded
            elif padded_results and user.name == "func.return":
                user.operands[use.operand_number] = padded
                returned[use.operand_number] = value_rows
            elif not _computes_on_padded_rows(user, accepted_results):
                user.operands[use.operand_number] = _marker(user, padded, value_rows, _original_type(value, value_rows), backend)
    for seed in seeds:
        seed.results[0].replace_all_uses_with(rows[seed.results[0]].cut.padded)
        item = defining_op(seed.operands[3])
        seed.erase()
        if not list(item.results[0].uses):
            item.erase()
    if returned:
        _return_counts(function, returned)
    return len(seeds)


PADDED_RESULTS_ATTRIBUTE = "onnx_torch_mlir.padded_results"


def _return_counts(function: ir.Operation, returned: dict) -> None:
    """`function` returns, after its results, the count of each result in `returned` (index: _Rows),
    in index order, and says so in `PADDED_RESULTS_ATTRIBUTE`: (result, axis, count result) triples."""
    block = function.regions[0].blocks[0]
    old_return = as_operation(list(block.operations)[-1])
    operands = list(old_return.operands)
    triples = []
    for index in sorted(returned):
        triples += [index, returned[index].axis, len(operands)]
        operands.append(returned[index].cut.count)
    ir.Operation.create("func.return", operands=operands, loc=old_return.location, ip=ir.InsertionPoint(old_return))
    old_return.erase()
    function_type = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)
    function.attributes["function_type"] = ir.TypeAttr.get(
        ir.FunctionType.get(function_type.inputs, [operand.type for operand in operands]))
    function.attributes[PADDED_RESULTS_ATTRIBUTE] = ir.DenseI64ArrayAttr.get(triples)


def _computes_on_padded_rows(user: ir.Operation, accepted_results: set) -> bool:
    """Whether `user` is accepted, or a list of tensors only accepted ops read (a `cat`'s)."""
    if len(user.results) != 1:
        return False
    if user.results[0] in accepted_results:
        return True
    return user.name == "torch.prim.ListConstruct" and all(
        as_operation(use.owner).results[0] in accepted_results for use in user.results[0].uses)


def _reads_rows_by_static_index(user: ir.Operation, operand: int, value: ir.Value, value_rows: _Rows,
                                rows: dict) -> bool:
    """Whether `user` picks rows of `value` by a static index (`index_select` along the rows): the
    indices of a valid program are below the count, where the padded rows are the value's."""
    if user.name != "torch.aten.index_select" or operand != 0 or user.operands[2] in rows:
        return False
    index_sizes, _ = vtensor_sizes(user.operands[2].type)
    dim = _dim_operand(user, 1, len(vtensor_sizes(value.type)[0]))
    return index_sizes is not None and None not in index_sizes and dim == value_rows.axis


def _cut_at_run_time(op: ir.Operation) -> bool:
    """Whether `op` slices a static tensor to a dynamic size with a bound known only at run time
    (no TOSA form: torch-mlir's lowering of the slice takes constant bounds)."""
    sizes, _ = vtensor_sizes(op.operands[0].type)
    result_sizes, _ = vtensor_sizes(op.results[0].type)
    if sizes is None or result_sizes is None or None in sizes or None not in result_sizes:
        return False
    return any(defining_op(bound) is None or not (constant_int(bound) is not None or
                                                  is_op(defining_op(bound), "torch.constant.none"))
               for bound in list(op.operands)[2:5])


def _cut_to_item(op: ir.Operation):
    """The _Cut of `aten.slice.Tensor(padded, dim, 0, aten.item(count), 1)` along a static dim of a
    static tensor, else None."""
    if op.name != "torch.aten.slice.Tensor":
        return None
    x, dim_value, start, end, step = list(op.operands)[:5]
    sizes, _ = vtensor_sizes(x.type)
    result_sizes, _ = vtensor_sizes(op.results[0].type)
    item = defining_op(end)
    if sizes is None or result_sizes is None or None in sizes or not is_op(item, "torch.aten.item"):
        return None
    count_sizes, count_element = vtensor_sizes(item.operands[0].type)
    dim = constant_int(dim_value)
    if count_sizes != [] or count_element not in ("si64", "si32") or dim is None:
        return None
    if constant_int(start) != 0 or constant_int(step) != 1:
        return None
    dim %= len(sizes)
    if result_sizes != [None if axis == dim else size for axis, size in enumerate(sizes)]:
        return None
    return _Cut(x, item.operands[0], sizes[dim])


def _original_type(value: ir.Value, value_rows: _Rows) -> ir.Type:
    sizes, element = vtensor_sizes(value.type)
    return ir.Type.parse(vtensor_spelling([None if axis == value_rows.axis else size
                                           for axis, size in enumerate(sizes)], element))


def _padded_type(torch_type: ir.Type, value_rows: _Rows) -> ir.Type:
    sizes, element = vtensor_sizes(torch_type)
    sizes[value_rows.axis] = value_rows.cut.rows
    return ir.Type.parse(vtensor_spelling(sizes, element))


def _marker(user: ir.Operation, padded: ir.Value, value_rows: _Rows, cut_type: ir.Type, backend: str) -> ir.Value:
    """`padded` cut to the count along its rows, as `backend`'s marker (module docstring)."""
    builder = OpsInFrontOf(user)
    builtin = builder.create("torch_c.to_builtin_tensor", builtin_tensor_type(padded.type), [padded])
    count = value_rows.cut.count
    count = builder.create("torch_c.to_builtin_tensor", builtin_tensor_type(count.type), [count])
    if backend == "tosa":
        marker = builder.create("tosa.custom", builtin_tensor_type(cut_type), [builtin, count], {
            "domain_name": ir.StringAttr.get(MARKER_DOMAIN), "operator_name": ir.StringAttr.get(MARKER_NAME),
            "implementation_attrs": ir.StringAttr.get(f'{{"dim": {value_rows.axis}}}'),
        })
    else:
        marker = builder.create("stablehlo.custom_call", builtin_tensor_type(cut_type), [builtin, count], {
            "call_target_name": ir.StringAttr.get(STABLEHLO_MARKER),
            "backend_config": ir.StringAttr.get(str(value_rows.axis)),
        })
    return builder.create("torch_c.from_builtin_tensor", cut_type, [marker])


def _erase_dead_ops(block: ir.Block, rows: dict) -> None:
    """The Torch ops nothing reads any more (the sizes the static lists replaced, and what only they
    read: torch-mlir's canonicalization keeps an unused `prim.max.int` of two sizes alive, and with it
    an `aten.size.int` of the rows). The rows, padded values and counts stay, for the cuts."""
    kept = set(rows) | {value_rows.cut.count for value_rows in rows.values()} | \
        {value_rows.cut.padded for value_rows in rows.values()}
    for op in reversed([as_operation(op) for op in block.operations]):
        if (op.name.startswith(("torch.aten.", "torch.prim.")) and op.results and not op.regions
                and all(not list(result.uses) and result not in kept for result in op.results)):
            op.erase()


def _count_of_size(value: ir.Value, rows: dict):
    """The count tensor when `value` is a size of a value along its rows (_rows_sized), else None."""
    value_rows = _rows_sized(value, rows)
    return None if value_rows is None else value_rows.cut.count


# --------------------------------------------------------------------------------------------------
# which ops are row-wise


def _row_wise(op: ir.Operation, rows: dict):
    """(the result's _Rows, {operand index: the static sizes of a new size list}) when `op` computes
    row by row on padded rows, else None."""
    result_sizes, _ = vtensor_sizes(op.results[0].type)
    if result_sizes is None or result_sizes.count(None) != 1:
        return None
    axis = result_sizes.index(None)
    operand_rows = [rows.get(operand) for operand in op.operands]
    if op.name == "torch.aten.cat" and is_op(defining_op(op.operands[0]), "torch.prim.ListConstruct"):
        operand_rows += [rows.get(piece) for piece in defining_op(op.operands[0]).operands]
    listed = _rows_in_lists(op, rows)
    cuts = {value_rows.cut for value_rows in operand_rows + list(listed.values()) if value_rows is not None}
    if len(cuts) != 1:
        return None
    cut = cuts.pop()
    result_rows = _Rows(cut, axis)
    if op.name == "torch.aten.slice.Tensor" and not listed:
        first_rows = _first_rows(op, rows, axis)
        if first_rows is not None:
            return first_rows, {}
    if op.name in _VIEWS and not listed:
        flattened = _flattened_rows(op, rows, axis)
        if flattened is not None:
            return flattened, {1: [flattened.cut.rows if position == axis else size
                                   for position, size in enumerate(result_sizes)]}
    if op.name in _ELEMENTWISE and not listed:
        return (result_rows, {}) if _broadcasts_rows(op, rows, axis, len(result_sizes)) else None
    rule = _RULES.get(op.name)
    if rule is None or not rule(op, rows, result_rows, listed):
        return None
    new_lists = {}
    if op.name in _SIZED:  # the size list, static now
        new_lists[1] = [cut.rows if position == axis else size for position, size in enumerate(result_sizes)]
    return result_rows, new_lists


def _first_rows(op: ir.Operation, rows: dict, axis: int):
    """The _Rows of `x[:end]` along the rows of `x` with a constant end (`selected[:max_det]`): the
    first min(rows, end) padded rows, a cut of its own whose count is min(count, end)."""
    x, dim, start, end, step = list(op.operands)[:5]
    x_rows = rows.get(x)
    if x_rows is None or x_rows.axis != axis or _dim_operand(op, 1, len(vtensor_sizes(x.type)[0])) != axis:
        return None
    if constant_int(start) != 0 or constant_int(step) != 1 or constant_int(end) is None or constant_int(end) < 0:
        return None
    kept = min(x_rows.cut.rows, constant_int(end))
    builder = TorchOpBuilder(op)
    count = x_rows.cut.count
    count_type = str(count.type)
    _, element = vtensor_sizes(count.type)
    count = builder.op("torch.aten.minimum", count_type, [count, builder.scalar_tensor(kept, element)])
    return _Rows(_Cut(op.results[0], count, kept), axis)


def _flattened_rows(op: ir.Operation, rows: dict, axis: int):
    """The _Rows of a view that flattens the rows with the static dims after them (`[n, 6] -> [-1]`):
    row-major, the first count x 6 elements of the flattened padded rows are the value's, a cut of its
    own of count x 6 out of rows x 6."""
    x = op.operands[0]
    x_rows = rows.get(x)
    sizes, _ = vtensor_sizes(x.type)
    result_sizes, _ = vtensor_sizes(op.results[0].type)
    if x_rows is None or x_rows.axis != axis or axis != len(result_sizes) - 1 or sizes[:axis] != result_sizes[:axis]:
        return None
    width = product(sizes[axis + 1:])
    listed = int_list(op.operands[1])
    if not width or width == 1 or listed is None or listed[axis] != -1:
        return None
    builder = TorchOpBuilder(op)
    count = x_rows.cut.count
    count = builder.op("torch.aten.mul.Scalar", str(count.type), [count, builder.int(width)])
    return _Rows(_Cut(op.results[0], count, x_rows.cut.rows * width), axis)


def _broadcasts_rows(op: ir.Operation, rows: dict, axis: int, rank: int) -> bool:
    for operand in op.operands:
        sizes, _ = vtensor_sizes(operand.type)
        if sizes is None:
            continue
        aligned = axis - (rank - len(sizes))
        operand_rows = rows.get(operand)
        if operand_rows is not None:
            if operand_rows.axis != aligned:
                return False
        elif None in sizes or (0 <= aligned < len(sizes) and sizes[aligned] != 1):
            return False
    return True


def _rows_in_lists(op: ir.Operation, rows: dict) -> dict:
    """{(operand index, element index): _Rows} for each element of a size list operand of `op` that is
    `aten.size.int` of a value along its rows."""
    found = {}
    for index, operand in enumerate(op.operands):
        construct = defining_op(operand)
        if not is_op(construct, "torch.prim.ListConstruct"):
            continue
        for position, element in enumerate(construct.operands):
            value_rows = _rows_sized(element, rows)
            if value_rows is not None:
                found[(index, position)] = value_rows
    return found


def _rows_sized(element: ir.Value, rows: dict):
    """The _Rows whose run-time count the !torch.int `element` is: `aten.size.int` of a value along
    its rows, or the max or min of two such sizes of one cut (an exporter's broadcast of two shapes
    read with Shape), else None."""
    size = defining_op(element)
    if is_op(size, "torch.prim.max.int") or is_op(size, "torch.prim.min.int"):
        both = [_rows_sized(operand, rows) for operand in size.operands]
        return both[0] if None not in both and both[0].cut == both[1].cut else None
    if not is_op(size, "torch.aten.size.int") or size.operands[0] not in rows:
        return None
    value_rows = rows[size.operands[0]]
    dim = constant_int(size.operands[1])
    rank = len(vtensor_sizes(size.operands[0].type)[0])
    return value_rows if dim is not None and dim % rank == value_rows.axis else None


def _only_input_rows(op, rows, result_rows, operand_index: int, input_axis: int) -> bool:
    """Whether operand `operand_index` is the one operand along rows, at `input_axis`, the others static."""
    for index, operand in enumerate(op.operands):
        operand_rows = rows.get(operand)
        if index == operand_index:
            if operand_rows is None or operand_rows.axis != input_axis:
                return False
        elif operand_rows is not None or _is_dynamic_tensor(operand):
            return False
    return True


def _is_dynamic_tensor(value: ir.Value) -> bool:
    sizes, _ = vtensor_sizes(value.type)
    return sizes is not None and None in sizes


def _dim_operand(op: ir.Operation, index: int, rank: int):
    dim = constant_int(op.operands[index])
    return None if dim is None else dim % rank


def _unsqueeze(op, rows, result_rows, listed) -> bool:
    dim = _dim_operand(op, 1, len(vtensor_sizes(op.results[0].type)[0]))
    if dim is None or dim == result_rows.axis or listed:
        return False
    return _only_input_rows(op, rows, result_rows, 0, result_rows.axis - (dim < result_rows.axis))


def _squeeze_dim(op, rows, result_rows, listed) -> bool:
    dim = _dim_operand(op, 1, len(vtensor_sizes(op.operands[0].type)[0]))
    if dim is None or listed:
        return False
    input_axis = result_rows.axis + (dim <= result_rows.axis)
    return dim != input_axis and _only_input_rows(op, rows, result_rows, 0, input_axis)


def _same_axis_other_dim(op, rows, result_rows, listed) -> bool:
    """A slice along another dim, with constant bounds."""
    dim = _dim_operand(op, 1, len(vtensor_sizes(op.results[0].type)[0]))
    if dim is None or dim == result_rows.axis or listed:
        return False
    if not all(constant_int(bound) is not None or is_op(defining_op(bound), "torch.constant.none")
               for bound in list(op.operands)[2:5]):
        return False
    return _only_input_rows(op, rows, result_rows, 0, result_rows.axis)


def _gather(op, rows, result_rows, listed) -> bool:
    x, dim_value, index = list(op.operands)[:3]
    dim = _dim_operand(op, 1, len(vtensor_sizes(x.type)[0]))
    if dim is None or dim == result_rows.axis or listed:
        return False
    return all(rows.get(value) is not None and rows[value].axis == result_rows.axis for value in (x, index))


def _index_select(op, rows, result_rows, listed) -> bool:
    source, _, indices = op.operands
    dim = _dim_operand(op, 1, len(vtensor_sizes(source.type)[0]))
    if dim is None or listed:
        return False
    if rows.get(indices) is not None:  # rows of indices pick rows of a static source
        return dim == result_rows.axis and _only_input_rows(op, rows, result_rows, 2, 0)
    return dim != result_rows.axis and _only_input_rows(op, rows, result_rows, 0, result_rows.axis)


def _view(op, rows, result_rows, listed) -> bool:
    """A view that keeps the dims before the rows and regroups only the dims after them."""
    x = op.operands[0]
    x_rows = rows.get(x)
    sizes, _ = vtensor_sizes(x.type)
    result_sizes, _ = vtensor_sizes(op.results[0].type)
    axis = result_rows.axis
    if x_rows is None or x_rows.axis != axis or sizes[:axis] != result_sizes[:axis]:
        return False
    if product(sizes[axis + 1:]) != product(result_sizes[axis + 1:]):
        return False
    return _sizes_known_but_rows(op, listed, axis) and _only_input_rows(op, rows, result_rows, 0, axis)


def _sizes_known_but_rows(op, listed, axis: int) -> bool:
    """Whether operand 1 lists constant sizes but at `axis`, where it may read the rows' count."""
    construct = defining_op(op.operands[1])
    if not is_op(construct, "torch.prim.ListConstruct") or set(listed) - {(1, axis)}:
        return False
    return all(constant_int(element) is not None or position == axis
               for position, element in enumerate(construct.operands))


def _broadcast_to(op, rows, result_rows, listed) -> bool:
    x = op.operands[0]
    axis = result_rows.axis
    sizes, _ = vtensor_sizes(x.type)
    aligned = axis - (len(vtensor_sizes(op.results[0].type)[0]) - len(sizes))
    x_rows = rows.get(x)
    if x_rows is not None:
        if x_rows.axis != aligned:
            return False
    elif None in sizes or (0 <= aligned < len(sizes) and sizes[aligned] != 1) or not listed:
        return False
    return _sizes_known_but_rows(op, listed, axis)


def _cat(op, rows, result_rows, listed) -> bool:
    construct = defining_op(op.operands[0])
    dim = _dim_operand(op, 1, len(vtensor_sizes(op.results[0].type)[0]))
    if not is_op(construct, "torch.prim.ListConstruct") or dim is None or dim == result_rows.axis or listed:
        return False
    if len(list(construct.results[0].uses)) != 1:  # another reader of the list would see the padded pieces
        return False
    return all(rows.get(piece) is not None and rows[piece].axis == result_rows.axis for piece in construct.operands)


def _sum_dims(op, rows, result_rows, listed) -> bool:
    x = op.operands[0]
    x_rows = rows.get(x)
    rank = len(vtensor_sizes(x.type)[0])
    dims = int_list(op.operands[1])
    keep = defining_op(op.operands[2])
    if x_rows is None or dims is None or listed or not is_op(keep, "torch.constant.bool"):
        return False
    dims = [dim % rank for dim in dims]
    keepdim = ir.BoolAttr(keep.attributes["value"]).value
    expected = x_rows.axis if keepdim else x_rows.axis - sum(dim < x_rows.axis for dim in dims)
    return x_rows.axis not in dims and expected == result_rows.axis and _only_input_rows(
        op, rows, result_rows, 0, x_rows.axis)


_VIEWS = ("torch.aten.view", "torch.aten.reshape", "torch.aten._unsafe_view")
_SIZED = ("torch.aten.view", "torch.aten.reshape", "torch.aten._unsafe_view", "torch.aten.broadcast_to",
          "torch.aten.expand")
_RULES = {
    "torch.aten.unsqueeze": _unsqueeze,
    "torch.aten.squeeze.dim": _squeeze_dim,
    "torch.aten.slice.Tensor": _same_axis_other_dim,
    "torch.aten.gather": _gather,
    "torch.aten.index_select": _index_select,
    "torch.aten.view": _view,
    "torch.aten.reshape": _view,
    "torch.aten._unsafe_view": _view,
    "torch.aten.broadcast_to": _broadcast_to,
    "torch.aten.expand": _broadcast_to,
    "torch.aten.cat": _cat,
    "torch.aten.sum.dim_IntList": _sum_dims,
}
