"""Two dynamically shaped StableHLO ops of torch-mlir's output, in forms both consumers lower.

- `stablehlo.dynamic_gather`: torch-mlir lowers `aten.index_select` (ONNX `Gather`) on an operand
  with a dynamic dim to a gather whose slice sizes are a run-time list (the operand's full size in
  every dim but the indexed one, 1 there). Neither `stablehlo-legalize-to-linalg` nor IREE lowers
  it. That gather is `stablehlo.torch_index_select` (`dim` the indexed dim, no batch dims), which
  both lower on dynamic shapes. Only that form is rewritten: the slice sizes must be a
  `tensor.from_elements` whose element at the indexed dim is the constant 1 and every other
  element the operand's size in that dim (its `tensor.dim`, or the constant static size).
- `stablehlo.dot_general` whose contracting dims all have the static size 1 (a `MatMul` of a
  `[.., m, 1]` by a `[.., 1, n]`, the outer product of Llama's rotary position embedding) on
  dynamic shapes: IREE rewrites it into a product around a `stablehlo.dynamic_reshape` that it
  then fails to lower. With one term in each sum the dot is that product: both operands lose the
  unit dims (`tensor.collapse_shape`), are broadcast to the result (each operand dim is its own
  result dim, so none expands) and multiplied.
- `stablehlo.dot_general` on dynamic shapes where one operand has no free dim but unit ones (a
  `Linear` to one feature, `[?, K] x [K, 1]`, or a matrix-vector product): IREE 3.13's StableHLO
  preprocessing turns it into a `stablehlo.dot` and a `stablehlo.reshape` to the dynamic result,
  which does not verify ("'stablehlo.reshape' op result #0 must be statically shaped"; reproducer
  in `test/python/test_stablehlo_dynamic_models.py`). Such a dot is a broadcast product summed over
  the contracting dims: both operands are broadcast to [batch, lhs free, rhs free, contracting]
  (the side without free dims is small), multiplied, and reduced with `stablehlo.add`. Delete when
  IREE's preprocessing builds a `dynamic_reshape` there (check with that test).
"""

import dataclasses

from torch_mlir import ir
from torch_mlir._mlir_libs import _stablehlo

BROADCAST = "stablehlo.dynamic_broadcast_in_dim"


def dynamic_gather_as_index_select(op: ir.Operation) -> bool:
    """Rewrite an index-select-shaped `stablehlo.dynamic_gather` (module docstring); whether it was."""
    operand, indices, slice_sizes = op.operands
    numbers = _stablehlo.GatherDimensionNumbers(op.attributes["dimension_numbers"])
    operand_type, indices_type = operand.type, indices.type
    if not (isinstance(operand_type, ir.RankedTensorType) and isinstance(indices_type, ir.RankedTensorType)):
        return False
    start_index_map = list(numbers.start_index_map)
    if len(start_index_map) != 1 or list(numbers.collapsed_slice_dims) != start_index_map:
        return False
    if list(numbers.operand_batching_dims) or numbers.index_vector_dim != indices_type.rank:
        return False
    axis, batch = start_index_map[0], indices_type.rank
    rank = operand_type.rank
    if list(numbers.offset_dims) != list(range(axis)) + list(range(axis + batch, rank - 1 + batch)):
        return False
    if not _slice_sizes_select_whole_rows(slice_sizes, operand, axis):
        return False
    i64 = ir.IntegerType.get_signless(64)
    select = ir.Operation.create(
        "stablehlo.torch_index_select", results=[op.results[0].type], operands=[operand, indices],
        attributes={"dim": ir.IntegerAttr.get(i64, axis), "batch_dims": ir.IntegerAttr.get(i64, 0)},
        loc=op.location, ip=ir.InsertionPoint(op))
    op.results[0].replace_all_uses_with(select.results[0])
    op.erase()
    return True


def _slice_sizes_select_whole_rows(slice_sizes: ir.Value, operand: ir.Value, axis: int) -> bool:
    elements = _defining(slice_sizes, "tensor.from_elements")
    if elements is None or len(elements.operands) != operand.type.rank:
        return False
    for dim, size in enumerate(elements.operands):
        if dim == axis:
            if _constant_int(size) != 1:
                return False
        elif operand.type.is_dynamic_dim(dim):
            if not _is_dim_of(size, operand, dim):
                return False
        elif _constant_int(size) != operand.type.get_dim_size(dim):
            return False
    return True


def _is_dim_of(value: ir.Value, tensor: ir.Value, dim: int) -> bool:
    """Whether `value` is `tensor.dim tensor, dim`, maybe through an `arith.index_cast`."""
    cast = _defining(value, "arith.index_cast")
    if cast is not None:
        value = cast.operands[0]
    size = _defining(value, "tensor.dim")
    return size is not None and size.operands[0] == tensor and _constant_int(size.operands[1]) == dim


@dataclasses.dataclass
class _DynamicDot:
    """A dynamically shaped `stablehlo.dot_general`'s operands and dims by role."""

    lhs: ir.Value
    rhs: ir.Value
    result_type: ir.RankedTensorType
    lhs_batch: list[int]
    rhs_batch: list[int]
    lhs_contracting: list[int]
    rhs_contracting: list[int]
    lhs_free: list[int]
    rhs_free: list[int]

    @staticmethod
    def of(op: ir.Operation) -> "_DynamicDot | None":
        """None when a type is unranked or every shape is static."""
        lhs, rhs = op.operands
        result_type = op.results[0].type
        types = (lhs.type, rhs.type, result_type)
        if not all(isinstance(t, ir.RankedTensorType) for t in types) or all(t.has_static_shape for t in types):
            return None
        numbers = _stablehlo.DotDimensionNumbers(op.attributes["dot_dimension_numbers"])
        lhs_batch, rhs_batch = list(numbers.lhs_batching_dimensions), list(numbers.rhs_batching_dimensions)
        lhs_contracting = list(numbers.lhs_contracting_dimensions)
        rhs_contracting = list(numbers.rhs_contracting_dimensions)
        lhs_free = [d for d in range(lhs.type.rank) if d not in lhs_batch and d not in lhs_contracting]
        rhs_free = [d for d in range(rhs.type.rank) if d not in rhs_batch and d not in rhs_contracting]
        return _DynamicDot(lhs, rhs, result_type, lhs_batch, rhs_batch, lhs_contracting, rhs_contracting,
                           lhs_free, rhs_free)


def unit_contraction_as_product(op: ir.Operation) -> bool:
    """Rewrite a dynamically shaped `stablehlo.dot_general` whose contracting dims are all 1 into a
    broadcast product (module docstring); whether it was."""
    dot = _DynamicDot.of(op)
    if dot is None or not _all_unit(dot.lhs.type, dot.lhs_contracting) or not _all_unit(dot.rhs.type, dot.rhs_contracting):
        return False
    lhs, rhs, result_type = dot.lhs, dot.rhs, dot.result_type
    lhs_batch, rhs_batch, lhs_free, rhs_free = dot.lhs_batch, dot.rhs_batch, dot.lhs_free, dot.rhs_free
    lhs_contracting, rhs_contracting = dot.lhs_contracting, dot.rhs_contracting
    if len(lhs_batch) + len(lhs_free) + len(rhs_free) != result_type.rank:
        return False
    ip = ir.InsertionPoint(op)
    # Result dims: the batch dims, then lhs's free dims, then rhs's, each the size of its source.
    sources = [(lhs, d) for d in lhs_batch] + [(lhs, d) for d in lhs_free] + [(rhs, d) for d in rhs_free]
    shape = _shape_of_result(result_type, sources, ip)
    lhs_places = {d: i for i, d in enumerate(lhs_batch)} | {d: len(lhs_batch) + i for i, d in enumerate(lhs_free)}
    rhs_places = {d: i for i, d in enumerate(rhs_batch)}
    rhs_places |= {d: len(lhs_batch) + len(lhs_free) + i for i, d in enumerate(rhs_free)}
    terms = [
        _broadcast_to_result(_converted(_without_dims(value, contracting, ip), result_type.element_type, ip),
                             [places[d] for d in range(value.type.rank) if d not in contracting],
                             shape, result_type, ip)
        for value, contracting, places in ((lhs, lhs_contracting, lhs_places), (rhs, rhs_contracting, rhs_places))
    ]
    product = ir.Operation.create("stablehlo.multiply", results=[result_type], operands=terms, loc=op.location, ip=ip)
    op.results[0].replace_all_uses_with(product.results[0])
    op.erase()
    return True


def unit_free_dims_as_reduction(op: ir.Operation) -> bool:
    """Rewrite a dynamically shaped `stablehlo.dot_general` one of whose operands has only unit free
    dims (or none) into a broadcast product reduced over the contracting dims (module docstring);
    whether it was."""
    dot = _DynamicDot.of(op)
    if dot is None or not (_all_unit(dot.lhs.type, dot.lhs_free) or _all_unit(dot.rhs.type, dot.rhs_free)):
        return False
    lhs, rhs, result_type = dot.lhs, dot.rhs, dot.result_type
    lhs_batch, rhs_batch, lhs_free, rhs_free = dot.lhs_batch, dot.rhs_batch, dot.lhs_free, dot.rhs_free
    lhs_contracting, rhs_contracting = dot.lhs_contracting, dot.rhs_contracting
    if not lhs_contracting:
        return False
    if len(lhs_batch) + len(lhs_free) + len(rhs_free) != result_type.rank:
        return False
    ip = ir.InsertionPoint(op)
    element = result_type.element_type
    # The joint space: the result's dims, then the contracting dims (their sizes from lhs).
    sources = ([(lhs, d) for d in lhs_batch] + [(lhs, d) for d in lhs_free] + [(rhs, d) for d in rhs_free]
               + [(lhs, d) for d in lhs_contracting])
    joint_type = ir.RankedTensorType.get(
        [*result_type.shape, *(lhs.type.shape[d] for d in lhs_contracting)], element)
    shape = _shape_of_result(joint_type, sources, ip)
    free_count = len(lhs_batch) + len(lhs_free) + len(rhs_free)
    lhs_places = ({d: i for i, d in enumerate(lhs_batch)} | {d: len(lhs_batch) + i for i, d in enumerate(lhs_free)}
                  | {d: free_count + i for i, d in enumerate(lhs_contracting)})
    rhs_places = ({d: i for i, d in enumerate(rhs_batch)}
                  | {d: len(lhs_batch) + len(lhs_free) + i for i, d in enumerate(rhs_free)}
                  | {d: free_count + i for i, d in enumerate(rhs_contracting)})
    terms = [_broadcast_to_result(_converted(value, element, ip), [places[d] for d in range(value.type.rank)],
                                  shape, joint_type, ip)
             for value, places in ((lhs, lhs_places), (rhs, rhs_places))]
    product = ir.Operation.create("stablehlo.multiply", results=[joint_type], operands=terms, loc=op.location, ip=ip)
    total = _sum_over(product.results[0], list(range(free_count, joint_type.rank)), result_type, op.location, ip)
    op.results[0].replace_all_uses_with(total)
    op.erase()
    return True


def _sum_over(value: ir.Value, dims: list[int], result_type, location, ip: ir.InsertionPoint) -> ir.Value:
    """`stablehlo.reduce` of `value` over `dims` with `stablehlo.add`, from zero."""
    element = result_type.element_type
    scalar = ir.RankedTensorType.get([], element)
    zero_attribute = (ir.IntegerAttr.get(element, 0) if isinstance(element, ir.IntegerType)
                      else ir.FloatAttr.get(element, 0.0))
    zero = ir.Operation.create("stablehlo.constant", results=[scalar], loc=location, ip=ip,
                               attributes={"value": ir.DenseElementsAttr.get_splat(scalar, zero_attribute)})
    reduce = ir.Operation.create("stablehlo.reduce", results=[result_type], operands=[value, zero.results[0]],
                                 attributes={"dimensions": ir.DenseI64ArrayAttr.get(dims)}, regions=1,
                                 loc=location, ip=ip)
    block = reduce.regions[0].blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        added = ir.Operation.create("stablehlo.add", results=[scalar], operands=list(block.arguments), loc=location)
        ir.Operation.create("stablehlo.return", operands=[added.results[0]], loc=location)
    return reduce.results[0]


def _all_unit(tensor_type: ir.RankedTensorType, dims: list[int]) -> bool:
    return all(not tensor_type.is_dynamic_dim(d) and tensor_type.get_dim_size(d) == 1 for d in dims)


def _without_dims(value: ir.Value, unit_dims: list[int], ip: ir.InsertionPoint) -> ir.Value:
    """`value` without its unit dims `unit_dims` (`tensor.collapse_shape` folds each into a neighbour)."""
    if not unit_dims:
        return value
    tensor_type = value.type
    kept = [d for d in range(tensor_type.rank) if d not in unit_dims]
    groups: list[list[int]] = []
    pending: list[int] = []
    for dim in range(tensor_type.rank):
        pending.append(dim)
        if dim in kept:
            groups.append(pending)
            pending = []
    if pending and groups:
        groups[-1].extend(pending)
    shape = [tensor_type.shape[d] for d in kept]
    reassociation = ir.Attribute.parse(str(groups).replace(" ", ""))
    collapsed = ir.Operation.create(
        "tensor.collapse_shape", results=[ir.RankedTensorType.get(shape, tensor_type.element_type)],
        operands=[value], attributes={"reassociation": reassociation}, ip=ip)
    return collapsed.results[0]


def _converted(value: ir.Value, element_type: ir.Type, ip: ir.InsertionPoint) -> ir.Value:
    if value.type.element_type == element_type:
        return value
    converted_type = ir.RankedTensorType.get(value.type.shape, element_type)
    return ir.Operation.create("stablehlo.convert", results=[converted_type], operands=[value], ip=ip).results[0]


def _shape_of_result(result_type: ir.RankedTensorType, sources, ip: ir.InsertionPoint) -> ir.Value:
    index = ir.IndexType.get()
    elements = []
    for dim, (value, source_dim) in enumerate(sources):
        if result_type.is_dynamic_dim(dim):
            elements.append(ir.Operation.create("tensor.dim", results=[index], ip=ip,
                                                operands=[value, _index_constant(source_dim, ip)]).results[0])
        else:
            elements.append(_index_constant(result_type.get_dim_size(dim), ip))
    shape_type = ir.RankedTensorType.get([len(elements)], index)
    return ir.Operation.create("tensor.from_elements", results=[shape_type], operands=elements, ip=ip).results[0]


def _broadcast_to_result(value, dims: list[int], shape, result_type, ip) -> ir.Value:
    broadcast = ir.Operation.create(BROADCAST, results=[result_type], operands=[value, shape], ip=ip, attributes={
        "broadcast_dimensions": ir.DenseI64ArrayAttr.get(dims),
        "known_expanding_dimensions": ir.DenseI64ArrayAttr.get([]),
        "known_nonexpanding_dimensions": ir.DenseI64ArrayAttr.get(list(range(len(dims)))),
    })
    return broadcast.results[0]


def _index_constant(value: int, ip: ir.InsertionPoint) -> ir.Value:
    index = ir.IndexType.get()
    return ir.Operation.create("arith.constant", results=[index],
                               attributes={"value": ir.IntegerAttr.get(index, value)}, ip=ip).results[0]


def _constant_int(value: ir.Value):
    """The integer of an `arith.constant`, else None."""
    constant = _defining(value, "arith.constant")
    if constant is None:
        return None
    attribute = constant.attributes["value"]
    return ir.IntegerAttr(attribute).value if isinstance(attribute, ir.IntegerAttr) else None


def _defining(value: ir.Value, name: str):
    owner = value.owner
    owner = owner.operation if hasattr(owner, "operation") else owner
    return owner if isinstance(owner, ir.Operation) and owner.name == name else None


def _is_static_size_of(value: ir.Value, tensor: ir.Value, dim: int) -> bool:
    """Whether `value` is the constant static size of `tensor`'s dim `dim` (a slice of a static dim
    to a run-time end, such as NonMaxSuppression's rows cut to the number selected)."""
    tensor_type = tensor.type
    if not isinstance(tensor_type, ir.RankedTensorType) or tensor_type.is_dynamic_dim(dim):
        return False
    return _constant_int(value) == tensor_type.get_dim_size(dim)


def empty_slices_kept_empty(op: ir.Operation) -> int:
    """In the limits of a `stablehlo.real_dynamic_slice`, `select(end == 0, dim, end)` -> `end`; the
    count. torch-mlir's StableHLO slice lowering clamps `end` to [0, dim] and then takes an end of 0
    for the whole dim, so a slice that is empty at run time (`x[:, :-1]` of a dim of size 1, or a
    static dim cut to a run-time count of 0) returned all of it (wrong sizes and numbers on both
    consumers). An end of 0 is always empty; `dim` is a `tensor.dim` or, for a static dim, its size."""
    limits = _defining(op.operands[2], "tensor.from_elements")
    if limits is None:
        return 0
    fixed = 0
    for position, limit in enumerate(limits.operands):
        select = _defining(limit, "arith.select")
        if select is None:
            continue
        condition, whole, end = select.operands
        compare = _defining(condition, "arith.cmpi")
        if compare is None or ir.IntegerAttr(compare.attributes["predicate"]).value != 0:  # eq
            continue
        if compare.operands[0] != end or _constant_int(compare.operands[1]) != 0:
            continue
        if not (_is_dim_of(whole, op.operands[0], position) or _is_static_size_of(whole, op.operands[0], position)):
            continue
        limits.operands[position] = end
        fixed += 1
    return fixed
