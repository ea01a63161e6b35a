"""Pass pipelines from Linalg-on-tensors, TOSA or StableHLO to the LLVM dialect.

Every program is parsed into a runner-owned MLIR context. Contexts are shared
by a bounded number of compilations (attributes such as dense constants live as
long as their context). Pass managers are parsed afresh for every compilation:
some passes keep state between runs (convert-math-to-funcs remembers the
helper functions it made in the previous module and crashes on the next one).
"""

import io
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from torch_mlir import ir, passmanager
from torch_mlir._mlir_libs import _stablehlo

from onnx_torch_mlir.errors import RunnerError
from onnx_torch_mlir.mlir_context import make_context
from onnx_torch_mlir.runtime import assertions, calling_convention, loop_barriers, loop_order, loop_outlining, small_floats
from onnx_torch_mlir.runtime import stablehlo_layout
from onnx_torch_mlir.runtime import stablehlo_reverse, stablehlo_scatter, stablehlo_sort, tosa_negate

INPUT_DIALECTS = ("linalg-on-tensors", "tosa", "stablehlo")

_TO_LINALG = {
    "linalg-on-tensors": [],
    "tosa": [
        "func.func(tosa-optional-decompositions)",
        "func.func(tosa-to-scf)",
        "func.func(tosa-to-linalg-named)",
        "func.func(tosa-to-linalg)",
        # include-apply-rescale: tosa-to-linalg makes each tosa.rescale a tosa.apply_scale, which
        # tosa-to-arith lowers only when asked (integer QDQ graphs: transforms/tosa/quantized_regions/).
        "func.func(tosa-to-arith{include-apply-rescale=true})",
        "func.func(tosa-to-tensor)",
    ],
    "stablehlo": [
        "func.func(chlo-legalize-to-stablehlo)",
        # Broadcast constraints become asserts, so `shape.assuming` regions fold away.
        "func.func(convert-shape-constraints)",
        "canonicalize",
        "stablehlo-legalize-to-linalg",
        "convert-shape-to-std",
    ],
}

# Dialects whose ops mean the program is not in the declared input dialect.
_FOREIGN_DIALECTS = {
    "linalg-on-tensors": {"torch", "torch_c", "tosa", "stablehlo", "chlo"},
    "tosa": {"torch", "torch_c", "stablehlo", "chlo"},
    "stablehlo": {"torch", "torch_c", "tosa"},
}

# Chains of elementwise ops (a TOSA program is one `linalg.generic` per op) become one loop nest
# each: without it every intermediate is a buffer of its own (quantization on TOSA, tens of
# elementwise ops per QuantizeLinear, took seconds and gigabytes per layer). No canonicalization
# here: on a Loop whose carried value grows, it left a `memref.cast` between incompatible sizes.
_FUSE_ELEMENTWISE = ["func.func(linalg-fuse-elementwise-ops)"]

_BUFFERIZE = [
    # TMTensor ops (torch-mlir's extra structured ops) are unknown to One-Shot Bufferize, which
    # treats them conservatively; their own pass then bufferizes them.
    "one-shot-bufferize{allow-return-allocs-from-loops allow-unknown-ops bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map}",
    "func.func(tm-tensor-bufferize)",
    "canonicalize",
    "buffer-deallocation-pipeline",
    # memref.copy becomes linalg.copy so that no copy needs the `memrefCopy` runtime function, which
    # the JIT does not link. Named ops become generic ones, whose loops loop_order.py reorders.
    "func.func(tm-tensor-to-loops)",
    "func.func(refback-munge-memref-copy)",
    "func.func(linalg-generalize-named-ops)",
]

_LINALG_TO_LOOPS = [
    "func.func(convert-linalg-to-loops)",
    # Subviews and reshapes of dynamic shapes become `affine.apply` arithmetic
    # on their metadata, so this must run before lower-affine.
    "expand-strided-metadata",
    "lower-affine",
]

# Loop barriers (loop_barriers.py) go in between: they need the loops still structured.
_LOOPS_TO_CFG = [
    "convert-scf-to-cf",
    # Scalar ops that LLVM has no direct equivalent for.
    "func.func(arith-expand{include-bf16=true})",
    "func.func(math-extend-to-supported-types)",
]

# 8-bit and 4-bit floats are emulated here (small_floats.py), when the program has any.
_AFTER_SMALL_FLOATS = [
    # The emulation may convert bf16 values, after `arith-expand` handled the others.
    "func.func(arith-expand{include-bf16=true})",
]

_TO_LLVM_DIALECT = [
    "convert-math-to-funcs",
    "func.func(convert-math-to-llvm)",
    "convert-math-to-libm",
    "convert-complex-to-standard",
    # LLVM dialect.
    "convert-bufferization-to-memref",
    "finalize-memref-to-llvm",
    "convert-arith-to-llvm",
    "convert-index-to-llvm",
    "convert-complex-to-llvm",
    "convert-func-to-llvm",
    "convert-cf-to-llvm",
    "reconcile-unrealized-casts",
]

_COMPILATIONS_PER_CONTEXT = 64
# Barriers between loop nests (loop_barriers.py); a switch for measuring LLVM's time without them.
LOOP_BARRIERS = True


class _RunnerContext:
    """An MLIR context with every dialect a program may use."""

    def __init__(self):
        self.context = make_context()
        self.context.allow_unregistered_dialects = False
        _stablehlo.register_dialect(self.context)
        self.compilations = 0
        with self.context:
            self._load_torch_mlir_dialects()

    def pass_manager(self, passes: list[str]) -> passmanager.PassManager:
        """A new pass manager running `passes` (see the module docstring for why new)."""
        with self.context:
            return passmanager.PassManager.parse(f"builtin.module({','.join(passes)})")

    @staticmethod
    def _load_torch_mlir_dialects() -> None:
        # torch-mlir's output may hold `tm_tensor`, `torch_c` and `chlo` ops, whose
        # dialects have no Python registration; running torch-mlir's backend
        # pipelines on an empty module loads them as the pipelines' dependent dialects.
        loader = passmanager.PassManager.parse(
            "builtin.module(torch-backend-to-linalg-on-tensors-backend-pipeline,"
            "func.func(convert-torch-to-stablehlo))"
        )
        loader.run(ir.Module.create(ir.Location.unknown()).operation)


_lock = threading.Lock()
_current: _RunnerContext | None = None
_stablehlo_passes_registered = False


@contextmanager
def runner_context() -> Iterator[_RunnerContext]:
    """A shared runner context, entered, and held exclusively for one compilation."""
    global _current, _stablehlo_passes_registered
    with _lock:
        if not _stablehlo_passes_registered:
            _stablehlo.register_stablehlo_passes()
            _stablehlo_passes_registered = True
        if _current is None or _current.compilations >= _COMPILATIONS_PER_CONTEXT:
            _current = _RunnerContext()
        _current.compilations += 1
        with _current.context:
            yield _current


def check_input_dialect(input_dialect: str) -> None:
    if input_dialect not in INPUT_DIALECTS:
        raise RunnerError(
            f"unknown input dialect {input_dialect!r}; expected one of {', '.join(INPUT_DIALECTS)}"
        )


def parse_module(program: "ir.Module | str") -> ir.Module:
    """`program` parsed afresh into the current context (the caller's module is untouched)."""
    source = program if isinstance(program, str) else _bytecode_of(program)
    try:
        return ir.Module.parse(source)
    except ir.MLIRError as error:
        raise RunnerError(f"cannot parse the program: {describe_mlir_error(error)}") from None


def lower_to_llvm(
    runner: _RunnerContext, module: ir.Module, input_dialect: str, entry: str, outline_min_loop_nests: int | None = None
) -> list[assertions.Assertion]:
    """Lower `module` in place from `input_dialect` to the LLVM dialect.

    Runtime assertions are routed to Python on the way (see `assertions.py`);
    the result lists them by number. A function with at least `outline_min_loop_nests` top-level
    loop nests has each moved into a function of its own (loop_outlining.py), to be compiled in
    parts (split_compilation.py).
    """
    _check_no_foreign_ops(module, input_dialect)
    if input_dialect == "stablehlo":
        stablehlo_layout.dynamic_convolutions_to_channels_last(module)
        stablehlo_scatter.scatters_to_loops(module)  # stablehlo-legalize-to-linalg lowers none
        stablehlo_sort.sorts_to_loops(module)  # nor any sort (TopK beyond a small k)
        stablehlo_reverse.dynamic_reverses_to_generates(module)  # nor a reverse with a dynamic dim
        from onnx_torch_mlir import conversion  # noqa: F401 - conversion imports transforms first (a cycle otherwise)
        from onnx_torch_mlir.transforms.stablehlo.to_scf import stablehlo_control_flow_to_scf

        stablehlo_control_flow_to_scf(module)  # stablehlo-legalize-to-linalg converts no if/while
    if input_dialect == "tosa":
        tosa_negate.wide_negations_to_subtractions(module)  # tosa-to-linalg breaks on an i64 negate
    try:
        if _TO_LINALG[input_dialect]:
            runner.pass_manager(_TO_LINALG[input_dialect]).run(module.operation)
        with ir.Location.unknown():
            calling_convention.make_boundary_integers_signless(module, entry)
        routed = assertions.route_assertions_to_python(module)
        runner.pass_manager(_FUSE_ELEMENTWISE).run(module.operation)
        runner.pass_manager(_BUFFERIZE).run(module.operation)
        loop_order.move_reductions_outside(module)
        runner.pass_manager(_LINALG_TO_LOOPS).run(module.operation)
        if LOOP_BARRIERS:
            loop_barriers.insert_loop_barriers(module)
        if outline_min_loop_nests is not None and loop_outlining.most_loop_nests(module) >= outline_min_loop_nests:
            loop_outlining.outline_loop_nests(module)
        runner.pass_manager(_LOOPS_TO_CFG).run(module.operation)
        if small_floats.uses_small_floats(module):
            runner.pass_manager(small_floats.emulation_passes()).run(module.operation)
            with ir.Location.unknown():
                small_floats.replace_conversions(module)
            runner.pass_manager(_AFTER_SMALL_FLOATS).run(module.operation)
        runner.pass_manager(_TO_LLVM_DIALECT).run(module.operation)
    except ir.MLIRError as error:
        raise RunnerError(
            f"lowering the {input_dialect} program to LLVM failed: {describe_mlir_error(error)}"
        ) from None
    _check_fully_lowered(module, input_dialect)
    return routed


def _check_fully_lowered(module: ir.Module, input_dialect: str) -> None:
    """Name the first op the pipeline left outside the LLVM dialect.

    Otherwise the JIT only reports the `builtin.unrealized_conversion_cast`
    that a conversion left around it.
    """
    left: list[ir.Operation] = []

    def find(operation: ir.Operation) -> ir.WalkResult:
        name = operation.name
        if not name.startswith("llvm.") and name not in ("builtin.module", "builtin.unrealized_conversion_cast"):
            left.append(operation)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.operation.walk(find)
    if left:
        operation = left[0]
        raise RunnerError(
            f"lowering the {input_dialect} program to LLVM left op {operation.name} "
            f"at {operation.location} unconverted"
        )


def _check_no_foreign_ops(module: ir.Module, input_dialect: str) -> None:
    foreign = _FOREIGN_DIALECTS[input_dialect]
    found: list[ir.Operation] = []

    def find(operation: ir.Operation) -> ir.WalkResult:
        if operation.name.split(".", 1)[0] in foreign:
            found.append(operation)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.operation.walk(find)
    if found:
        operation = found[0]
        raise RunnerError(f"{operation.location}: op {operation.name} is not part of a {input_dialect} program")


def describe_mlir_error(error: ir.MLIRError, limit: int = 2) -> str:
    """The first `limit` diagnostics of `error` on one line."""
    lines = [_describe_diagnostic(d) for d in error.error_diagnostics[:limit]]
    return "; ".join(lines) if lines else str(error).splitlines()[0]


@contextmanager
def collected_diagnostics(context: ir.Context) -> Iterator[list[str]]:
    """Error diagnostics emitted in `context` while the block runs, as one line each."""
    messages: list[str] = []

    def collect(diagnostic) -> bool:
        if diagnostic.severity == ir.DiagnosticSeverity.ERROR:
            messages.append(_describe_diagnostic(diagnostic))
        return True

    handler = context.attach_diagnostic_handler(collect)
    try:
        yield messages
    finally:
        handler.detach()


def _describe_diagnostic(diagnostic) -> str:
    return f"{diagnostic.location}: {diagnostic.message}"


def _bytecode_of(module: ir.Module) -> bytes:
    buffer = io.BytesIO()
    module.operation.write_bytecode(buffer)
    return buffer.getvalue()
