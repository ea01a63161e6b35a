"""`stablehlo.scatter` as a loop nest over its updates, for the reference runner.

`stablehlo-legalize-to-linalg` lowers no scatter of the form torch-mlir emits (ScatterND,
ScatterElements, Compress, MaxUnpool, index_put: one index vector per update element, every
operand dim an inserted window dim), so the op stayed and the runner stopped at a left-over
`bufferization.to_tensor`. IREE has its own lowering and is not concerned.

Before the StableHLO-to-Linalg passes, a single-operand scatter becomes `scf.for` loops over the
updates' dims that carry the result (the operand at the start). For each update element
(StableHLO's spec, without batching dims):

- its scatter dims (the updates' dims that are not window dims) pick an index vector out of
  `scatter_indices` (along `index_vector_dim`; an implicit trailing dim when it equals the rank);
- component k of the vector is the start in operand dim `scattered_dims_to_operand_dims[k]`,
  other starts are 0; the operand dims that are not inserted window dims take, in order, the
  update's window dims as offsets;
- the element there is combined with the update by the scatter's region (moved into the loop body,
  its 0-d tensor arguments made with `tensor.from_elements`) and inserted back.

An element whose operand index falls outside the operand is skipped (the spec leaves it to the
implementation; XLA skips the whole window, which is the same when windows are single elements,
as torch-mlir's are). Updates are applied in row-major order of the updates, so repeated indices
combine in that order.
"""

from torch_mlir import ir
from torch_mlir._mlir_libs import _stablehlo

from onnx_torch_mlir.ir_walk import ops_named
from onnx_torch_mlir.runtime.tensor_building import create, dim_size, index_constant

_ULT = 6  # arith.cmpi predicate: unsigned less than (a negative index is a large unsigned one)


def scatters_to_loops(module: ir.Module) -> int:
    """Rewrite the single-operand `stablehlo.scatter` ops of `module`; the count."""
    rewritten = 0
    with module.context, ir.Location.unknown():
        for op in ops_named(module, {"stablehlo.scatter"}):
            rewritten += _rewrite(op)
    return rewritten


class _Scatter:
    """The parts of one scatter op the loop body needs."""

    def __init__(self, op: ir.Operation):
        self.op = op
        self.operand, self.indices, self.updates = op.operands
        numbers = _stablehlo.ScatterDimensionNumbers(op.attributes["scatter_dimension_numbers"])
        self.update_window_dims = list(numbers.update_window_dims)
        self.inserted_window_dims = list(numbers.inserted_window_dims)
        self.operand_dims_of_index = list(numbers.scattered_dims_to_operand_dims)
        self.index_vector_dim = numbers.index_vector_dim
        self.batching = list(numbers.input_batching_dims)

    def supported(self) -> bool:
        types = (self.operand.type, self.indices.type, self.updates.type)
        if not all(isinstance(t, ir.RankedTensorType) for t in types) or self.batching:
            return False
        index_type = self.indices.type.element_type
        if not (isinstance(index_type, ir.IntegerType) and index_type.is_signless):
            return False
        if self.index_vector_dim < self.indices.type.rank and self.indices.type.is_dynamic_dim(self.index_vector_dim):
            return False
        window_operand_dims = self.operand.type.rank - len(self.inserted_window_dims)
        return window_operand_dims == len(self.update_window_dims) and len(self.op.regions[0].blocks) == 1

    def index_depth(self) -> int:
        if self.index_vector_dim == self.indices.type.rank:
            return 1
        return self.indices.type.get_dim_size(self.index_vector_dim)


def _rewrite(op: ir.Operation) -> int:
    if len(op.operands) != 3 or len(op.results) != 1:
        return 0
    scatter = _Scatter(op)
    if not scatter.supported():
        return 0
    ip = ir.InsertionPoint(op)
    result = _loop_nest(scatter, 0, [], scatter.operand, ip)
    op.results[0].replace_all_uses_with(result)
    op.erase()
    return 1


def _loop_nest(scatter: _Scatter, depth: int, update_index: list, accumulated: ir.Value, ip) -> ir.Value:
    """One `scf.for` per updates dim from `depth` on, carrying the result; its final value."""
    if depth == scatter.updates.type.rank:
        return _combine_one_update(scatter, update_index, accumulated, ip)
    loop = ir.Operation.create(
        "scf.for", results=[accumulated.type], regions=1, ip=ip,
        operands=[index_constant(0, ip), dim_size(scatter.updates, depth, ip), index_constant(1, ip), accumulated])
    block = loop.regions[0].blocks.append(ir.IndexType.get(), accumulated.type)
    body = ir.InsertionPoint(block)
    inner = _loop_nest(scatter, depth + 1, update_index + [block.arguments[0]], block.arguments[1], body)
    ir.Operation.create("scf.yield", operands=[inner], ip=body)
    return loop.results[0]


def _combine_one_update(scatter: _Scatter, update_index: list, accumulated: ir.Value, ip) -> ir.Value:
    operand_index = _operand_index(scatter, update_index, ip)
    inside = None
    for dim, position in enumerate(operand_index):
        below = create("arith.cmpi", [position, dim_size(scatter.operand, dim, ip)], ir.IntegerType.get_signless(1), ip,
                        predicate=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), _ULT))
        inside = below if inside is None else create("arith.andi", [inside, below], below.type, ip)
    if inside is None:  # a 0-d operand: always inside
        return _updated(scatter, update_index, operand_index, accumulated, ip)
    branch = ir.Operation.create("scf.if", results=[accumulated.type], operands=[inside], regions=2, ip=ip)
    then_block = branch.regions[0].blocks.append()
    then_ip = ir.InsertionPoint(then_block)
    updated = _updated(scatter, update_index, operand_index, accumulated, then_ip)
    ir.Operation.create("scf.yield", operands=[updated], ip=then_ip)
    else_block = branch.regions[1].blocks.append()
    ir.Operation.create("scf.yield", operands=[accumulated], ip=ir.InsertionPoint(else_block))
    return branch.results[0]


def _operand_index(scatter: _Scatter, update_index: list, ip) -> list:
    """The operand index an update element goes to (module docstring)."""
    scatter_dims = [d for d in range(scatter.updates.type.rank) if d not in scatter.update_window_dims]
    batch_index = [update_index[d] for d in scatter_dims]
    starts = [index_constant(0, ip) for _ in range(scatter.operand.type.rank)]
    for component, operand_dim in enumerate(scatter.operand_dims_of_index):
        position = list(batch_index)
        if scatter.index_vector_dim < scatter.indices.type.rank:
            position.insert(scatter.index_vector_dim, index_constant(component, ip))
        value = create("tensor.extract", [scatter.indices] + position, scatter.indices.type.element_type, ip)
        starts[operand_dim] = create("arith.index_cast", [value], ir.IndexType.get(), ip)
    window_operand_dims = [d for d in range(scatter.operand.type.rank) if d not in scatter.inserted_window_dims]
    full = list(starts)
    for window_dim, operand_dim in zip(scatter.update_window_dims, window_operand_dims):
        full[operand_dim] = create("arith.addi", [starts[operand_dim], update_index[window_dim]],
                                    ir.IndexType.get(), ip)
    return full


def _updated(scatter: _Scatter, update_index: list, operand_index: list, accumulated: ir.Value, ip) -> ir.Value:
    """`accumulated` with the element at `operand_index` combined with the update (the region, moved here)."""
    element_type = scatter.operand.type.element_type
    scalar_type = ir.RankedTensorType.get([], element_type)
    current = create("tensor.extract", [accumulated] + operand_index, element_type, ip)
    update = create("tensor.extract", [scatter.updates] + update_index, element_type, ip)
    arguments = [create("tensor.from_elements", [value], scalar_type, ip) for value in (current, update)]
    block = scatter.op.regions[0].blocks[0]
    for argument, value in zip(block.arguments, arguments):
        argument.replace_all_uses_with(value)
    anchor = arguments[-1].owner
    operations = list(block.operations)
    terminator = operations[-1]
    for operation in operations[:-1]:
        operation.move_after(anchor)
        anchor = operation
    combined = create("tensor.extract", [terminator.operands[0]], element_type, ip)
    return create("tensor.insert", [combined, accumulated] + operand_index, accumulated.type, ip)
