"""`stablehlo.sort` as loops that place each element at its rank, for the reference runner.

`stablehlo-legalize-to-linalg` lowers no sort, so a TopK that torch-mlir lowers by sorting (k above
what our conversion selects element by element) left the op and the runner stopped at a left-over
`bufferization.to_tensor`. IREE has its own lowering and is not concerned.

Before the StableHLO-to-Linalg passes, a sort becomes `scf.for` loops over every position of its
operands. Along the sort dimension, the element at position i goes to position

    rank(i) = #{j : less(j, i)} + #{j < i : not less(i, j)}

where `less(a, b)` is the comparator applied to the elements at a and b (StableHLO passes, for each
operand in turn, the element at a then the one at b). With a comparator that is a strict weak
order this is the stable sort: equal elements keep their order, which StableHLO allows for an
unstable sort too. The comparator's ops are copied twice into the innermost loop, its 0-d tensor
arguments made with `tensor.from_elements`. O(n^2) comparisons per sorted row: meant for checking
numbers, not for speed. A comparator with nested regions or values from outside is left alone.
"""

from torch_mlir import ir

from onnx_torch_mlir.ir_walk import ops_named
from onnx_torch_mlir.runtime.tensor_building import create, dim_size, index_constant

_SLT = 2  # arith.cmpi predicate: signed less than


def sorts_to_loops(module: ir.Module) -> int:
    """Rewrite the `stablehlo.sort` ops of `module` whose comparator can be copied; the count."""
    rewritten = 0
    with module.context, ir.Location.unknown():
        for op in ops_named(module, {"stablehlo.sort"}):
            rewritten += _rewrite(op)
    return rewritten


def _rewrite(op: ir.Operation) -> int:
    if not _supported(op):
        return 0
    ip = ir.InsertionPoint(op)
    dimension = ir.IntegerAttr(op.attributes["dimension"]).value % op.operands[0].type.rank
    results = _loop_nest(op, dimension, 0, [], list(op.operands), ip)
    for old, new in zip(op.results, results):
        old.replace_all_uses_with(new)
    op.erase()
    return 1


def _supported(op: ir.Operation) -> bool:
    types = [operand.type for operand in op.operands]
    if not types or not all(isinstance(t, ir.RankedTensorType) and t.rank > 0 for t in types):
        return False
    if len(op.regions[0].blocks) != 1:
        return False
    block = op.regions[0].blocks[0]
    inside = set()
    for argument in block.arguments:
        inside.add(argument)
    for operation in block.operations:
        if len(operation.regions) or any(operand not in inside for operand in operation.operands):
            return False
        for result in operation.results:
            inside.add(result)
    return True


def _loop_nest(op, dimension: int, depth: int, position: list, carried: list, ip) -> list:
    """One `scf.for` per operand dim (position i along the sort dimension), carrying the results."""
    operand = op.operands[0]
    if depth == operand.type.rank:
        return _place_one_element(op, dimension, position, carried, ip)
    loop = ir.Operation.create(
        "scf.for", results=[value.type for value in carried], regions=1, ip=ip,
        operands=[index_constant(0, ip), dim_size(operand, depth, ip), index_constant(1, ip)] + carried)
    block = loop.regions[0].blocks.append(ir.IndexType.get(), *[value.type for value in carried])
    body = ir.InsertionPoint(block)
    inner = _loop_nest(op, dimension, depth + 1, position + [block.arguments[0]], list(block.arguments[1:]), body)
    ir.Operation.create("scf.yield", operands=inner, ip=body)
    return list(loop.results)


def _place_one_element(op, dimension: int, position: list, carried: list, ip) -> list:
    """The results with the operands' elements at `position` inserted at their rank."""
    index_type = ir.IndexType.get()
    elements = [create("tensor.extract", [operand] + position, operand.type.element_type, ip)
                for operand in op.operands]
    loop = ir.Operation.create(
        "scf.for", results=[index_type], regions=1, ip=ip,
        operands=[index_constant(0, ip), dim_size(op.operands[0], dimension, ip), index_constant(1, ip),
                  index_constant(0, ip)])
    block = loop.regions[0].blocks.append(index_type, index_type)
    body = ir.InsertionPoint(block)
    j, count = block.arguments
    other_position = list(position)
    other_position[dimension] = j
    others = [create("tensor.extract", [operand] + other_position, operand.type.element_type, body)
              for operand in op.operands]
    j_less = _compare(op, others, elements, body)
    i_less = _compare(op, elements, others, body)
    i1 = ir.IntegerType.get_signless(1)
    j_first = create("arith.cmpi", [j, position[dimension]], i1, body,
                      predicate=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), _SLT))
    true = create("arith.constant", [], i1, body, value=ir.IntegerAttr.get(i1, 1))
    tie_before = create("arith.andi", [j_first, create("arith.xori", [i_less, true], i1, body)], i1, body)
    before = create("arith.ori", [j_less, tie_before], i1, body)
    counted = create("arith.select", [before, create("arith.addi", [count, index_constant(1, body)], index_type, body),
                                       count], index_type, body)
    ir.Operation.create("scf.yield", operands=[counted], ip=body)
    target = list(position)
    target[dimension] = loop.results[0]
    return [create("tensor.insert", [element, result] + target, result.type, ip)
            for element, result in zip(elements, carried)]


def _compare(op, lhs: list, rhs: list, ip) -> ir.Value:
    """The comparator of `op` on elements `lhs` and `rhs` (one per operand), as an i1: its ops copied here."""
    block = op.regions[0].blocks[0]
    values = {}
    arguments = []
    for left, right in zip(lhs, rhs):
        arguments += [left, right]
    for argument, scalar in zip(block.arguments, arguments):
        values[argument] = create("tensor.from_elements", [scalar], argument.type, ip)
    operations = list(block.operations)
    for operation in operations[:-1]:
        copy = ir.Operation.create(
            operation.name, results=[result.type for result in operation.results],
            operands=[values[operand] for operand in operation.operands],
            attributes={name: operation.attributes[name] for name in operation.attributes}, ip=ip)
        for result, copied in zip(operation.results, copy.results):
            values[result] = copied
    verdict = values[operations[-1].operands[0]]
    return create("tensor.extract", [verdict], ir.IntegerType.get_signless(1), ip)
