"""Moving each top-level loop nest of a large program into a function of its own, so that LLVM can
compile the program in parts on several cores (split_compilation.py).

The runner lowers a model to one function whose body is a chain of loop nests. LLVM's optimisation
and code generation of it are single-threaded, and on BERT-base they take most of a cold run. After
bufferization each top-level loop nest (`scf.for`, `scf.while`, `scf.parallel`, `scf.forall` without
results) reads and writes memrefs defined before it, so it can become

    func.func @otm_loop_nest_<n>(%buffers..., %sizes...) attributes {llvm.no_inline} {
      %c0 = arith.constant 0 : index      // constants copied in: bounds stay constant
      scf.for ... { ... }
      return
    }

and a `func.call` where it was. The arithmetic inside is unchanged (LLVM reorders no floating-point
operation without fast-math flags, which the runner never sets), so results are bit-identical.
The functions are public so that each may be compiled in a different LLVM module.
"""

from __future__ import annotations

from torch_mlir import ir
from torch_mlir.dialects import func

OUTLINED_PREFIX = "otm_loop_nest_"
_LOOP_OPS = {"scf.for", "scf.while", "scf.parallel", "scf.forall"}
_COPIED_OPS = {"arith.constant"}


def most_loop_nests(module: ir.Module) -> int:
    """The largest number of top-level loop nests of one function of `module`."""
    counts = [sum(op.operation.name in _LOOP_OPS for op in function.regions[0].blocks[0].operations)
              for function in _functions_with_one_block(module)]
    return max(counts, default=0)


def _functions_with_one_block(module: ir.Module) -> list:
    return [op for op in module.body.operations
            if op.operation.name == "func.func" and len(op.regions[0].blocks) == 1]


def outline_loop_nests(module: ir.Module) -> int:
    """Move every top-level loop nest without results of each function into a function of its own;
    returns how many were moved."""
    functions = _functions_with_one_block(module)
    outlined = 0
    with ir.Location.unknown():
        for function in functions:
            block = function.regions[0].blocks[0]
            for loop in [op for op in block.operations if op.operation.name in _LOOP_OPS]:
                if len(loop.results) == 0:
                    _outline(module, function.operation, block, loop.operation, OUTLINED_PREFIX + str(outlined))
                    outlined += 1
    return outlined


def _outline(module: ir.Module, function: ir.Operation, block: ir.Block, loop: ir.Operation, name: str) -> None:
    captured, users = _captured_values(loop, function, block)
    copied = [value for value in captured if _is_copied(value)]
    passed = [value for value in captured if not _is_copied(value)]
    with ir.InsertionPoint(module.body):
        outlined = func.FuncOp(name, ir.FunctionType.get([v.type for v in passed], []))
    outlined.attributes["llvm.no_inline"] = ir.UnitAttr.get()  # becomes llvm.func's no_inline
    body = outlined.add_entry_block()
    with ir.InsertionPoint(body):
        replacements = {value: value.owner.clone().result for value in copied}
        returned = func.ReturnOp([])
    replacements.update(zip(passed, body.arguments))
    with ir.InsertionPoint(loop):
        func.CallOp([], ir.FlatSymbolRefAttr.get(name), passed)
    loop.move_before(returned.operation)
    for user, value in users:
        user.replace_uses_of_with(value, replacements[value])


def _captured_values(loop: ir.Operation, function: ir.Operation, block: ir.Block):
    """The values `loop` uses that are defined in `block` (the function's body), in order of first
    use; and each operation inside `loop` with a value it uses from there."""
    found: dict[ir.Value, None] = {}
    users: list[tuple[ir.Operation, ir.Value]] = []

    def visit(operation: ir.Operation) -> ir.WalkResult:
        for value in operation.operands:
            if _defined_in(value, function, block):
                found.setdefault(value)
                users.append((operation, value))
        return ir.WalkResult.ADVANCE

    loop.walk(visit)
    return list(found), users


def _defined_in(value: ir.Value, function: ir.Operation, block: ir.Block) -> bool:
    owner = value.owner
    if isinstance(owner, ir.Block):
        return owner == block
    return owner.parent is not None and owner.parent.operation == function


def _is_copied(value: ir.Value) -> bool:
    owner = value.owner
    return not isinstance(owner, ir.Block) and owner.name in _COPIED_OPS
