"""Our passes as MLIR passes, and the `convert-onnx-to-torch-pipeline`.

Our passes are Python callables added to an MLIR `PassManager`
(`PassManager.add(callable, argument=...)`), so they mix with torch-mlir's
native passes in one pass manager: `--mlir-print-ir-after-all`, timing and
verification see them like any other pass. A pass that fails reports every
failure as an MLIR error diagnostic at the failing op's location, then signals
pass failure; `run_pipeline` turns the diagnostics into one `ConversionError`
listing all of them.
"""

from __future__ import annotations

import contextlib
import re

from dataclasses import dataclass
from collections.abc import Callable, Sequence
from functools import partial

from torch_mlir import ir
from torch_mlir.passmanager import PassManager

from ..timing import stage as timing_stage
from ..errors import ConversionError, OnnxTorchMlirWarning, PipelineError
from .entry_point import erase_onnx_entry_point
from .function_types import convert_function_types_to_torch_types
from .type_finalization import finalize_torch_type_conversion
from .onnx_to_torch import convert_onnx_to_torch
from .onnx_to_torch.node import BACKEND_LEGAL_ATTRIBUTE


@dataclass(frozen=True)
class OurPass:
    argument: str
    description: str
    run: Callable  # (module_op) -> list of failures (objects with .location/.message or strings)


def _run_convert(module_op, backend_legal_ops: Sequence[str] = ()):
    """Our conversion; patterns see `backend_legal_ops` through OnnxNode.is_backend_legal."""
    if not backend_legal_ops:
        return convert_onnx_to_torch(module_op)
    context = module_op.context
    names = [ir.StringAttr.get(name, context) for name in backend_legal_ops]
    module_op.attributes[BACKEND_LEGAL_ATTRIBUTE] = ir.ArrayAttr.get(names, context)
    try:
        return convert_onnx_to_torch(module_op)
    finally:
        del module_op.attributes[BACKEND_LEGAL_ATTRIBUTE]


def _run_function_types(module_op):
    convert_function_types_to_torch_types(module_op)
    return []


def _run_finalize(module_op):
    return finalize_torch_type_conversion(module_op)


def _run_erase_entry_point(module_op):
    erase_onnx_entry_point(module_op)
    return []


def _run_control_flow(module_op, backend: str):
    from ..transforms.torch.control_flow import lower_control_flow_for_backend

    try:  # the pass manager has loaded the backend's dialects (those of the passes after this one)
        lower_control_flow_for_backend(module_op, backend, load_dialects=False)
    except PipelineError as error:
        return [str(error)]
    return []


OUR_PASSES = {
    p.argument: p
    for p in (
        OurPass("convert-onnx-to-torch", "Convert every ONNX op (either spelling) to torch ops", _run_convert),
        OurPass(
            "convert-function-types-to-torch-types",
            "Convert function signatures from builtin tensors to !torch.vtensor",
            _run_function_types,
        ),
        OurPass(
            "finalize-torch-type-conversion",
            "Fold the bridging unrealized casts; fail on any that remain",
            _run_finalize,
        ),
        OurPass("erase-onnx-entry-point", "Erase the onnx.EntryPoint op", _run_erase_entry_point),
        *(OurPass(f"convert-torch-control-flow-to-{backend}",
                  f"torch.prim.If/Loop as {backend}'s if/while (run before --convert-torch-to-{backend})",
                  partial(_run_control_flow, backend=backend)) for backend in ("tosa", "stablehlo")),
    )
}

# Our half of convert-onnx-to-torch-pipeline, in order.
OUR_PIPELINE = (
    "convert-onnx-to-torch",
    "convert-function-types-to-torch-types",
    "finalize-torch-type-conversion",
    "erase-onnx-entry-point",
)


def backend_contract_pipeline(backend_legal_ops: Sequence[str] = ()) -> str:
    """torch-mlir's passes from converted torch ops to its backend contract (a textual pipeline)."""
    legal = f"{{backend-legal-ops={','.join(backend_legal_ops)}}}" if backend_legal_ops else ""
    return (
        "func.func(canonicalize),func.func(torch-scalarize-shapes),"
        f"torch-function-to-torch-backend-pipeline{legal},"
        "torch-verify-backend-contract-no-decompositions"
    )


# Element types torch has no ScalarType for. torch-mlir's dtype refinement (inside
# torch-lower-to-backend-contract) aborts the process on them ("Unhandled type in
# getScalarTypeForType"), so modules using them take the refinement-free route below,
# the same simplification torch-mlir's own ONNX pipeline applies.
_TYPES_WITHOUT_TORCH_DTYPE = re.compile(r"[<,]\s*(?:ui16|ui32|ui64|si4|ui4|si2|ui2)>")


def _value_types(operation: ir.Operation) -> list[str]:
    """The types of the values `operation` defines (results and its blocks' arguments), as text."""
    values = list(operation.results)
    for region in operation.regions:
        for block in region.blocks:
            values.extend(block.arguments)
    return [str(value.type) for value in values]


def _every_value_type(module: ir.Module, accept: Callable[[str], bool], accept_op=lambda name: True) -> bool:
    """Whether `accept` holds for every value's type and `accept_op` for every op name in `module`
    (a walk over the types, stopping at the first refusal: printing the module, even with large
    elements and resources elided, took seconds per hundred MiB of weights)."""
    accepted = True

    def visit(operation: ir.Operation) -> ir.WalkResult:
        nonlocal accepted
        accepted = accept_op(operation.name) and all(accept(text) for text in _value_types(operation))
        return ir.WalkResult.ADVANCE if accepted else ir.WalkResult.INTERRUPT

    module.operation.walk(visit)
    return accepted


def uses_types_without_torch_dtype(module: ir.Module) -> bool:
    """Whether a value or block argument of `module` has such a type."""
    return not _every_value_type(module, lambda text: not _TYPES_WITHOUT_TORCH_DTYPE.search(text))


# A torch value tensor type with every size and the dtype known.
_STATIC_TENSOR = re.compile(r"vtensor<\[[0-9,]*\],(?!unk>)(?:complex<[^<>]+>|[^<>\[\]]+)>")


def _is_static_type(text: str) -> bool:
    """No tensor in the type `text` lacks a size or its dtype, and it is no tuple (torch-mlir's
    calling-convention pass would rewrite a tuple). A list of tensors may leave its element type
    open (`!torch.list<vtensor>`, as Concat's operands): the elements are values of their own,
    checked where they are defined."""
    rest = _STATIC_TENSOR.sub("", text).replace("list<vtensor>", "list<>")
    return "tensor" not in rest and "tuple" not in rest


def is_static_single_function(module: ir.Module) -> bool:
    """Whether every tensor in `module` is a value tensor with static sizes and a dtype, and no
    function calls another (so torch-mlir's inliner and refinement have nothing to do)."""
    return _every_value_type(module, _is_static_type, accept_op=lambda name: name != "func.call")


def direct_contract_pipeline(backend_legal_ops: Sequence[str] = ()) -> str:
    """torch-mlir's canonicalization, shape scalarization, decompositions and CSE, without its
    shape and dtype refinement: for a module `is_static_single_function` accepts.

    torch-mlir's simplification (the other pipelines) reifies a shape and a dtype function for
    every op, inlines them and folds them away, iterating until nothing changes: on a model whose
    types our conversion already made static that is all work without effect (BERT-base: 0.31 s
    against 0.01 s for this pipeline, the same output on every backend). The result is checked
    (reaches_contract_directly) and the full simplification runs when it is not static or not
    the backend contract.
    """
    legal = f"{{legal-ops={','.join(backend_legal_ops)}}}" if backend_legal_ops else ""
    return (
        "func.func(canonicalize),func.func(torch-scalarize-shapes),"
        f"func.func(torch-decompose-complex-ops{legal}),func.func(canonicalize),func.func(cse)"
    )


def reaches_contract_directly(module: ir.Module, backend_legal_ops: Sequence[str] = ()) -> bool:
    """Run direct_contract_pipeline on a static module and say whether the result is the backend
    contract with every type still static. The module stays valid either way: the passes only
    canonicalize and decompose, which the full simplification does too."""
    if not is_static_single_function(module):
        return False
    run_pipeline(module, [direct_contract_pipeline(backend_legal_ops)], stage="torch backend contract",
                 error_class=PipelineError)
    if not is_static_single_function(module):
        return False
    try:
        build_pass_manager(["torch-verify-backend-contract-no-decompositions"], module.context).run(module.operation)
    except ir.MLIRError:
        return False
    return True


def refinement_free_contract_pipeline(backend_legal_ops: Sequence[str] = ()) -> str:
    """Shape simplification and decomposition without torch-mlir's dtype refinement.

    Our conversion already gives every value its dtype and rank, so what the
    backend contract still needs is shape-calculation cleanup and decomposition.
    """
    legal = f"{{legal-ops={','.join(backend_legal_ops)}}}" if backend_legal_ops else ""
    return (
        "func.func(canonicalize),func.func(torch-scalarize-shapes),torch-reify-shape-calculations,inline,"
        "func.func(torch-simplify-shape-calculations),func.func(cse),func.func(torch-simplify-shape-calculations),"
        "func.func(torch-drop-abstract-interp-calculations),torch-refine-public-return,func.func(canonicalize),"
        f"func.func(torch-decompose-complex-ops{legal}),func.func(canonicalize),"
        "torch-verify-backend-contract-no-decompositions"
    )


def _make_python_pass(our_pass: OurPass):
    def run(op, pass_):
        failures = our_pass.run(op)
        if not failures:
            return
        for failure in failures:
            if isinstance(failure, str):
                ir.Location.unknown(op.context).emit_error(failure)
            else:
                failure.location.emit_error(failure.message)
        pass_.signal_pass_failure()

    run.__name__ = our_pass.argument.replace("-", "_")
    return run


# Our pass with options, as MLIR spells them: `convert-onnx-to-torch{backend-legal-ops=aten.gelu,...}`.
_PASS_WITH_OPTIONS = re.compile(r"^([\w-]+)\{(.*)\}$")
CONVERT_OPTION = "backend-legal-ops"


def convert_step(backend_legal_ops: Sequence[str] = ()) -> str:
    """The `convert-onnx-to-torch` step, with the backend-legal ops its patterns honour."""
    if not backend_legal_ops:
        return "convert-onnx-to-torch"
    return f"convert-onnx-to-torch{{{CONVERT_OPTION}={','.join(backend_legal_ops)}}}"


def _our_pass_with_options(argument: str) -> OurPass | None:
    """`convert-onnx-to-torch{backend-legal-ops=...}` as an OurPass; None if not ours with options."""
    match = _PASS_WITH_OPTIONS.match(argument.strip())
    if match is None or match.group(1) not in OUR_PASSES:
        return None
    name, text = match.group(1), match.group(2).strip()
    key, _, value = text.partition("=")
    if name != "convert-onnx-to-torch" or (text and key.strip() != CONVERT_OPTION):
        raise ValueError(f"unknown option '{key.strip()}' (only convert-onnx-to-torch takes one: {CONVERT_OPTION})")
    from ..transforms.torch.custom_ops import normalize_backend_legal_ops

    legal = normalize_backend_legal_ops(value.split(","))
    base = OUR_PASSES[name]
    return OurPass(base.argument, base.description, lambda module_op: _run_convert(module_op, legal))


def add_pass(manager: PassManager, argument: str) -> None:
    """Add one pass by its command-line argument: ours (Python) or any textual MLIR pipeline."""
    our_pass = OUR_PASSES.get(argument) or _our_pass_with_options(argument)
    if our_pass is None:
        manager.add(argument)
        return
    manager.add(
        _make_python_pass(our_pass),
        name=our_pass.argument,
        argument=our_pass.argument,
        description=our_pass.description,
    )


def our_pipeline(backend_legal_ops: Sequence[str] = ()) -> list[str]:
    """Our four passes; the conversion honours `backend_legal_ops` (OnnxNode.is_backend_legal)."""
    return [convert_step(backend_legal_ops)] + list(OUR_PIPELINE[1:])


def convert_onnx_to_torch_pipeline(backend_legal_ops: Sequence[str] = ()) -> list[str]:
    """The steps of `convert-onnx-to-torch-pipeline`: our four passes, then torch-mlir's."""
    return our_pipeline(backend_legal_ops) + [backend_contract_pipeline(backend_legal_ops)]


def format_all_diagnostics(error: ir.MLIRError) -> str:
    lines = []
    for diagnostic in error.error_diagnostics:
        lines.append(f"{diagnostic.location}: error: {diagnostic.message}")
        for note in diagnostic.notes:
            lines.append(f"{note.location}: note: {note.message}")
    return "\n".join(lines) or str(error)


def build_pass_manager(steps: Sequence[str], context: ir.Context) -> PassManager:
    with context:
        manager = PassManager("builtin.module")
        for step in steps:
            try:
                add_pass(manager, step)
            except ValueError as error:
                raise PipelineError(f"bad pipeline element '{step}': {error}") from None
    return manager


# Stages of run_pipeline timed on their own by onnx_torch_mlir.timing (inside the caller's stage).
_TIMING_STAGES = {"torch backend contract": "torch-mlir simplification"}


def run_pipeline(module: ir.Module, steps: Sequence[str], *, stage: str, error_class=ConversionError) -> None:
    """Run `steps` (pass arguments or textual pipelines) on `module`; all errors in one exception.

    The message's first line summarizes (`stage: N errors`), then one line per diagnostic.
    """
    manager = build_pass_manager(steps, module.context)
    from ..isolation import begin_step

    begin_step(stage, module, reproduce=" ".join(f"--pass-pipeline 'builtin.module({step})'" for step in steps))
    timed = _TIMING_STAGES.get(stage)  # `compile --timing`: torch-mlir's part of our conversion
    with module.context, (timing_stage(timed) if timed else contextlib.nullcontext()):
        try:
            manager.run(module.operation)
        except ir.MLIRError as error:
            count = len(error.error_diagnostics)
            detail = format_all_diagnostics(error)
            first = detail.splitlines()[0] if detail else str(error)
            summary = first if count <= 1 else f"{first} (and {count - 1} more errors)"
            raise error_class(f"{stage}: {summary}\n{detail}") from None


def convert_onnx_to_torch_backend_contract(module: ir.Module, backend_legal_ops: Sequence[str] = ()) -> None:
    """An imported ONNX module (either spelling) to torch-mlir's backend contract, in place.

    A backend-legal op that is not in the result is a BackendLegalOpWarning naming the Torch
    ops our conversion did emit (warn_about_absent_legal_ops)."""
    run_pipeline(module, our_pipeline(backend_legal_ops), stage="convert-onnx-to-torch")
    emitted = torch_op_names(module.operation) if backend_legal_ops else set()
    if not reaches_contract_directly(module, backend_legal_ops):
        if uses_types_without_torch_dtype(module):
            contract = refinement_free_contract_pipeline(backend_legal_ops)
        else:
            contract = backend_contract_pipeline(backend_legal_ops)
        run_pipeline(module, [contract], stage="torch backend contract", error_class=PipelineError)
    if backend_legal_ops:
        warn_about_absent_legal_ops(backend_legal_ops, emitted, torch_op_names(module.operation))


class BackendLegalOpWarning(OnnxTorchMlirWarning):
    """A backend-legal op the user named never appears in the module, so nothing is kept for it."""


# Torch ops too plain to be worth keeping as a custom op; left out of the warning's list.
_NOT_WORTH_KEEPING = re.compile(r"^(constant\.|prim\.|vtensor\.|runtime\.|aten\.size|aten\.item$|aten\.Int|aten\.Float)")
_LISTED_AT_MOST = 40


def torch_op_names(module_op: ir.Operation) -> set[str]:
    """The Torch ops in `module_op` as backend-legal names ('aten.layer_norm')."""
    names: set[str] = set()

    def visit(op):
        if op.name.startswith("torch.") and not op.name.startswith("torch_c."):
            names.add(op.name[len("torch.") :])
        return ir.WalkResult.ADVANCE

    module_op.walk(visit)
    return names


def warn_about_absent_legal_ops(backend_legal_ops: Sequence[str], emitted: set[str], kept: set[str]) -> None:
    """One BackendLegalOpWarning per op of `backend_legal_ops` not in `kept` (the backend contract),
    listing the ops of `emitted` (our conversion's output) that could be kept instead, the
    closest names first. No conversion pattern emits the op for this model, or torch-mlir
    folded it away."""
    import difflib
    import warnings

    candidates = sorted(name for name in emitted if not _NOT_WORTH_KEEPING.match(name))
    for name in backend_legal_ops:
        if name in kept:
            continue
        close = difflib.get_close_matches(name, candidates, n=4, cutoff=0.5)
        listed = close + [other for other in candidates if other not in close]
        more = len(listed) - _LISTED_AT_MOST
        text = ", ".join(listed[:_LISTED_AT_MOST]) + (f" and {more} more" if more > 0 else "")
        warnings.warn(
            f"backend-legal op '{name}' does not appear in the module, so no custom op is made for it; "
            f"the Torch ops the conversion emitted, which could be kept instead: {text or 'none'}",
            BackendLegalOpWarning,
            stacklevel=2,
        )
