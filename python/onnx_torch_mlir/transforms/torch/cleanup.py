"""Torch ops that TOSA's and StableHLO's lowerings refuse and the program does not need.

`drop_runtime_asserts` erases `torch.runtime.assert`; `erase_unused_shape_arithmetic` erases the
value-semantic shape computations nothing reads any more. Each docstring says which lowering
refuses what.
"""

import re

from torch_mlir import ir

def drop_runtime_asserts(module: ir.Module) -> int:
    """Erase the module's `torch.runtime.assert` ops; the count erased.

    TOSA and StableHLO have no assertion op, and torch-mlir's lowerings to them refuse the
    checks its own shape simplification adds on dynamic dims ("Expected dim size > 0." where a
    `Reshape` target copies a dim, broadcast and unflatten size checks). The Linalg path keeps
    them as run-time assertions; on these two backends a model run on inputs that break one
    computes on without the check, as torch-mlir's own TOSA and StableHLO paths do for the
    checks they never emit. (On StableHLO the checks a wrong answer would hide behind are taken
    out first and kept as `cf.assert`: `transforms/stablehlo/run_time_checks.py`.)
    """
    found: list[ir.Operation] = []

    def collect(operation: ir.Operation) -> ir.WalkResult:
        if operation.name == "torch.runtime.assert":
            found.append(operation)
        return ir.WalkResult.ADVANCE

    with module.context:
        module.operation.walk(collect)
        for operation in found:
            operation.erase()
    return len(found)


# Value-semantic ops (no side effect) that torch-mlir's canonicalizer leaves when unused: an
# `aten.tensor` of a dims list (what our conversion makes of a `Shape` whose consumers read the
# dims directly), a dead `aten.item` of a slice of it. TOSA's and StableHLO's lowerings refuse
# them on dynamic dims. In-place aten ops (`aten.foo_`) are not value semantic and never match.
_SHAPE_ARITHMETIC = re.compile(
    r"torch\.(constant\.\w+|vtensor\.literal|prim\.ListConstruct|prim\.NumToTensor\.Scalar|aten\.[a-z0-9_]*[a-z0-9](\.\w+)?)"
)


def erase_unused_shape_arithmetic(module: ir.Module) -> int:
    """Erase unused value-semantic torch ops (see _SHAPE_ARITHMETIC) until none is left; the count."""
    erased = 0
    with module.context:
        while True:
            found: list[ir.Operation] = []

            def collect(operation: ir.Operation) -> ir.WalkResult:
                if _SHAPE_ARITHMETIC.fullmatch(operation.name) and all(
                    not list(result.uses) for result in operation.results
                ):
                    found.append(operation)
                return ir.WalkResult.ADVANCE

            module.operation.walk(collect)
            if not found:
                return erased
            for operation in found:
                operation.erase()
            erased += len(found)
