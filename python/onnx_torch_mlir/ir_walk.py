"""Finding ops in a module: the one walk the transforms and the runtime's rewrites share."""

from torch_mlir import ir


def ops_named(module: "ir.Module | ir.Operation", names) -> list[ir.Operation]:
    """The ops of `module` (or of one operation: itself and the ops nested in it) whose name is in
    `names` (None: every op), in walk order, collected before any is rewritten."""
    found: list[ir.Operation] = []

    def collect(operation: ir.Operation) -> ir.WalkResult:
        if names is None or operation.name in names:
            found.append(operation)
        return ir.WalkResult.ADVANCE

    module.operation.walk(collect)
    return found


def has_op(module: ir.Module, predicate) -> bool:
    """Whether some operation of `module` satisfies `predicate` (the walk stops at the first)."""
    found = []

    def find(operation: ir.Operation) -> ir.WalkResult:
        if predicate(operation):
            found.append(operation)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.operation.walk(find)
    return bool(found)


def erase_unread(module: ir.Module, names) -> None:
    """Erase the ops named in `names` whose results nothing reads (and so what only they read), to a
    fixed point; `names` must be ops without side effects."""
    changed = True
    while changed:
        changed = False
        for operation in reversed(ops_named(module, names)):
            if all(not list(result.uses) for result in operation.results):
                operation.erase()
                changed = True
