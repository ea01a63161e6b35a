"""StableHLO's control flow (`stablehlo.if`, `stablehlo.while`) as `scf`, for the reference runner.

`stablehlo-legalize-to-linalg`, the runner's way from StableHLO to Linalg, converts no control-flow
op (measured on the pinned wheel: a `stablehlo.if` is left as it is, and `convert-scf-to-cf` then
breaks its regions), and the wheel has no other pass that does. IREE converts them itself. Our
StableHLO output has them from `backend_control_flow.py` (no `stablehlo.case`). So the runner
rewrites them first, keeping their regions (whose StableHLO ops the Linalg conversion then
lowers in place):

- `stablehlo.if %p` -> `scf.if` on `tensor.extract %p[]`;
- `stablehlo.while` -> `scf.while` whose before-region ends in `scf.condition` of the extracted
  predicate, forwarding its arguments.
"""

from __future__ import annotations

from torch_mlir import ir

_NAMES = ("stablehlo.if", "stablehlo.while")


def stablehlo_control_flow_to_scf(module: ir.Module) -> int:
    """Rewrite every StableHLO control-flow op of `module` as `scf`, innermost first; the count."""
    found: list[ir.Operation] = []

    def visit(operation: ir.Operation) -> ir.WalkResult:
        if operation.name in _NAMES:
            found.append(operation)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.POST_ORDER)
    with module.context:
        for op in found:
            (_if if op.name == "stablehlo.if" else _while)(op)
    return len(found)


def _create(name: str, result_types, operands, anchor, regions: int = 0, location=None) -> ir.Operation:
    return ir.Operation.create(name, results=list(result_types), operands=list(operands), regions=regions,
                               loc=location, ip=ir.InsertionPoint(anchor))


def _extract(value: ir.Value, anchor: ir.Operation) -> ir.Value:
    element = ir.RankedTensorType(value.type).element_type
    return _create("tensor.extract", [element], [value], anchor, location=anchor.location).result


def _retarget(block: ir.Block, name: str, leading=()) -> None:
    """Replace the block's `stablehlo.return` by `name` with `leading` operands in front."""
    terminator = block.operations[len(block.operations) - 1]
    _create(name, [], [*leading, *terminator.operands], terminator, location=terminator.location)
    terminator.erase()


def _replace(op: ir.Operation, new: ir.Operation) -> None:
    for old, value in zip(op.results, new.results):
        old.replace_all_uses_with(value)
    op.erase()


def _if(op: ir.Operation) -> None:
    predicate = _extract(op.operands[0], op)
    new = _create("scf.if", [result.type for result in op.results], [predicate], op, regions=2,
                  location=op.location)
    for index in range(2):
        block = op.regions[index].blocks[0]
        _retarget(block, "scf.yield")
        block.append_to(new.regions[index])
    _replace(op, new)


def _while(op: ir.Operation) -> None:
    types = [value.type for value in op.operands]
    new = _create("scf.while", types, list(op.operands), op, regions=2, location=op.location)
    before = op.regions[0].blocks[0]
    terminator = before.operations[len(before.operations) - 1]
    condition = _extract(terminator.operands[0], terminator)
    _create("scf.condition", [], [condition, *before.arguments], terminator, location=terminator.location)
    terminator.erase()
    before.append_to(new.regions[0])
    body = op.regions[1].blocks[0]
    _retarget(body, "scf.yield")
    body.append_to(new.regions[1])
    _replace(op, new)
