"""Runtime assertions (`cf.assert`) that report to Python instead of aborting the process.

MLIR lowers a failed `cf.assert` to `puts` and `abort()`, which would kill the
caller's process. Before lowering, each

    cf.assert %ok, "message"

becomes

    %failed = arith.xori %ok, %true : i1
    scf.if %failed {
      func.call @otm_assertion_failed(%k) : (i64) -> ()   // k: the assertion's number
    }

and `@otm_assertion_failed` is a Python callback that records `k`. The
compiled code then carries on: after the call the runner discards whatever it
produced and raises a RunnerError naming the first failed assertion. Code
after a failed assertion runs on values the assertion rejected, so a program
whose later code depends on the checked property (an out-of-bounds size, say)
can still misbehave before the error is raised; shape checks in practice only
guard the loops' extents.
"""

import ctypes
from dataclasses import dataclass

from torch_mlir import ir
from torch_mlir.dialects import arith, func, scf

ASSERTION_CALLBACK = "otm_assertion_failed"
AssertionCallback = ctypes.CFUNCTYPE(None, ctypes.c_int64)


@dataclass(frozen=True)
class Assertion:
    message: str
    location: str

    def describe(self) -> str:
        return f"{self.message!r} at {self.location}"


def route_assertions_to_python(module: ir.Module) -> list[Assertion]:
    """Rewrite every `cf.assert` in `module` as above; the list gives each number's assertion."""
    found: list[ir.Operation] = []

    def collect(operation: ir.Operation) -> ir.WalkResult:
        if operation.name == "cf.assert":
            found.append(operation)
        return ir.WalkResult.ADVANCE

    module.operation.walk(collect)
    if not found:
        return []
    assertions = []
    i1, i64 = ir.IntegerType.get_signless(1), ir.IntegerType.get_signless(64)
    for number, operation in enumerate(found):
        assertions.append(Assertion(ir.StringAttr(operation.attributes["msg"]).value, str(operation.location)))
        with ir.InsertionPoint(operation), operation.location:
            true = arith.ConstantOp(i1, ir.IntegerAttr.get(i1, 1))
            failed = arith.XOrIOp(operation.operands[0], true.result)
            branch = scf.IfOp(failed.result)
            with ir.InsertionPoint(branch.then_block):
                index = arith.ConstantOp(i64, ir.IntegerAttr.get(i64, number))
                func.CallOp([], ir.FlatSymbolRefAttr.get(ASSERTION_CALLBACK), [index.result])
                scf.YieldOp([])
        operation.erase()
    with ir.InsertionPoint(module.body), ir.Location.unknown():
        func.FuncOp(ASSERTION_CALLBACK, ir.FunctionType.get([i64], []), visibility="private")
    return assertions


def recorder(failures: list[int]):
    """The callback for `@otm_assertion_failed`: appends the assertion's number to `failures`."""

    def failed(number: int) -> None:
        failures.append(number)

    return AssertionCallback(failed)
