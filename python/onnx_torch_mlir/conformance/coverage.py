"""The custom-op coverage run (`onnx-torch-mlir conformance --coverage`).

Seed 003 asks to run the test suite once "in a dummy mode that turns all ops into
custom ops" and explain every kind of op that does not convert. For each case:

1. import the model and run our ONNX-to-Torch conversion (our passes only): the
   Torch ops it emits are the case's ops;
2. take a fresh import to torch-mlir's backend contract with *every one* of those
   ops backend-legal;
3. for each backend, on a copy: turn the kept ops into custom ops
   (transforms/torch/custom_ops.py), run the backend pipeline, verify the module, and
   record for each op one outcome:
   - "custom": it became a well-formed custom op of the backend;
   - "rejected:<kind>": the contract cannot encode one of its arguments/results;
   - "folded": torch-mlir's simplification removed or rewrote it before the
     backend (constant folding, canonicalization), so no custom op was needed;
   - "contract": torch-mlir's backend-contract pipeline failed with it kept;
   - "pipeline": the backend pipeline failed on the rest of the module.

The per-case outcomes travel back from the worker processes as JSON in the
CaseResult message; `write_report` aggregates them per op into
docs/custom-op-coverage.md.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict

from .worker import CaseResult, first_line

COVERAGE_BACKENDS = ("linalg-on-tensors", "tosa", "stablehlo")
_COMPUTE_OP = re.compile(r"^torch\.(aten|prims|torchvision|quantized)\.")

# Kinds of rejection, recognised from the messages of transforms/torch/custom_ops.py.
REJECTION_KINDS = (
    ("tensor-list", "is a tensor list",
     "takes a list of tensors (aten.cat, aten.stack, aten.index.Tensor, ...): the v1 contract has no encoding "
     "for a variable number of tensors in one argument"),
    ("runtime-scalar", "computed at run time",
     "a scalar or list argument is computed at run time (dynamic shapes: aten.size.int feeding a view; "
     "function arguments): only compile-time constants are encoded"),
    ("runtime-argument", "known only at run time",
     "a scalar argument is a function argument, known only at run time"),
    ("non-tensor-result", "custom ops return tensors",
     "returns a scalar or list (aten.size.int, aten.item, aten.Int.Tensor ...): custom ops return tensors only"),
    ("string-or-device", "has no tensor form: use the attributes encoding",
     "has a string, device or list-with-None argument, which the operands encoding cannot hold (the "
     "attributes encoding can)"),
    ("generator", "random-number generator", "takes a random-number generator, which has no encoding"),
    ("unknown-dtype", "without a known dtype and rank", "has a tensor of unknown dtype or rank"),
)
OUTCOME_EXPLANATIONS = {
    "folded": "kept backend-legal, but torch-mlir's simplification folded or rewrote it before the backend "
    "(e.g. a constant computation, or an op the canonicalizer replaces), so there was nothing to convert",
    "contract": "torch-mlir's backend-contract pipeline fails when the op is kept (it relies on decomposing it, "
    "e.g. for shape or dtype refinement)",
    "blocked": "the op became a custom op, but another op of the same case was rejected, stayed a Torch op, and "
    "the backend pipeline failed on it, so the module could not be checked",
    "tosa-type": "TOSA only: tosa.custom accepts only TOSA-conformant tensors, and a result or operand is not one "
    "(a zero-sized dimension, or an element type TOSA lacks)",
    "dead": "the custom op's results were unused (e.g. an unused output of the ONNX node) and the backend's "
    "canonicalizer erased it, as the custom ops are side-effect free",
    "pipeline": "the op became a custom op, but the backend pipeline failed on the rest of the module",
    "case": "the case itself does not reach the Torch dialect (import or conversion failure), so its ops are unknown",
}


def one_case_per_op(cases) -> list:
    """The first node case of each ONNX op type (by the graph's first node): a fast, broad slice."""
    import onnx

    chosen, seen = [], set()
    for case in cases:
        if not case.case_id.startswith("node/") or case.model_bytes is None:
            continue
        graph = onnx.load_from_string(case.model_bytes).graph
        op_type = graph.node[0].op_type if graph.node else ""
        if op_type and op_type not in seen:
            seen.add(op_type)
            chosen.append(case)
    return chosen


def rejection_kind(message: str) -> str:
    for kind, needle, _ in REJECTION_KINDS:
        if needle in message:
            return f"rejected:{kind}"
    return "rejected:other"


def _torch_ops(module) -> Counter:
    names = Counter()

    def visit(holder):
        for region in holder.regions:
            for block in region.blocks:
                for op in block.operations:
                    name = op.operation.name
                    if _COMPUTE_OP.match(name):
                        names[name[len("torch.") :]] += 1
                    visit(op.operation)

    visit(module.operation)
    return names


def _custom_ops(module, backend: str) -> Counter:
    from torch_mlir import ir

    names = Counter()

    def visit(holder):
        for region in holder.regions:
            for block in region.blocks:
                for op in block.operations:
                    op = op.operation
                    if backend == "tosa" and op.name == "tosa.custom":
                        if ir.StringAttr(op.attributes["domain_name"]).value == "torch":
                            names[ir.StringAttr(op.attributes["operator_name"]).value] += 1
                    elif backend == "stablehlo" and op.name == "stablehlo.custom_call":
                        names[ir.StringAttr(op.attributes["call_target_name"]).value.removeprefix("torch.")] += 1
                    elif backend == "linalg-on-tensors" and op.name == "func.call":
                        callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
                        if callee.startswith("torch."):
                            names[re.sub(r"\.\d+$", "", callee).removeprefix("torch.")] += 1
                    visit(op)

    visit(module.operation)
    return names


def coverage_case(case, configuration, backend_unused) -> CaseResult:
    """Runs in a worker: the outcome of every Torch op of `case` on every enabled backend."""
    from .. import compiler, config
    from ..conversion.passes import OUR_PIPELINE, backend_contract_pipeline, run_pipeline
    from ..errors import PipelineError
    from ..mlir_context import make_context
    from ..mlir_passes import format_diagnostics
    from ..transforms.torch import custom_ops

    report = {"ops": [], "outcomes": {}, "error": ""}
    try:
        model, _ = case.load()
        module = compiler.import_model(model, "ours", make_context())
        run_pipeline(module, OUR_PIPELINE, stage="convert-onnx-to-torch")
    except Exception as error:  # noqa: BLE001 - the case's own failure is data
        report["error"] = first_line(error)
        return CaseResult(case.case_id, "fail", "convert", json.dumps(report))
    ops = sorted(_torch_ops(module))
    report["ops"] = ops
    if not ops:
        return CaseResult(case.case_id, "pass", "", json.dumps(report))
    legal = custom_ops.normalize_backend_legal_ops(ops)
    module = compiler.import_model(model, "ours", make_context())
    try:
        run_pipeline(module, OUR_PIPELINE, stage="convert-onnx-to-torch")
        run_pipeline(module, [backend_contract_pipeline(legal)], stage="contract", error_class=PipelineError)
    except Exception as error:  # noqa: BLE001
        message = first_line(error)
        report["outcomes"] = {b: {op: ["contract", message] for op in ops} for b in config.enabled_backends(COVERAGE_BACKENDS)}
        return CaseResult(case.case_id, "pass", "", json.dumps(report))
    kept = _torch_ops(module)
    custom_ops.load_backend_dialects(module.context)
    for backend in config.enabled_backends(COVERAGE_BACKENDS):
        outcomes = {}
        copy = module.operation.clone()
        with module.context:
            failures = custom_ops.convert_to_custom_ops(copy, backend, legal)
        rejected = {}
        for failure in failures:
            match = re.match(r"cannot make torch\.(\S+) a custom op", failure.message)
            if match:
                rejected[match.group(1)] = failure.message
        steps = custom_ops.custom_op_passes(backend, (), "operands")[1:]
        pipeline_error = ""
        try:
            with module.context:
                from torch_mlir.passmanager import PassManager

                manager = PassManager("builtin.module")
                custom_ops.add_steps(manager, steps)
                manager.run(copy)
                copy.verify()
        except Exception as error:  # noqa: BLE001
            diagnostics = getattr(error, "error_diagnostics", None)
            pipeline_error = format_diagnostics(error).splitlines()[0] if diagnostics else first_line(error)
        produced = Counter() if pipeline_error else _custom_ops(copy, backend)
        for op in ops:
            if op in rejected:
                outcomes[op] = [rejection_kind(rejected[op]), rejected[op]]
            elif op not in kept:
                outcomes[op] = ["folded", ""]
            elif pipeline_error and rejected:
                outcomes[op] = ["blocked", f"{', '.join(sorted(rejected))} rejected: {pipeline_error[:200]}"]
            elif pipeline_error and "tosa-conformant tensor" in pipeline_error:
                outcomes[op] = ["tosa-type", pipeline_error[:300]]
            elif pipeline_error:
                outcomes[op] = ["pipeline", pipeline_error[:300]]
            elif produced[op]:
                outcomes[op] = ["custom", ""]
            else:
                outcomes[op] = ["dead", "no custom op in the output"]
        copy.erase()
        report["outcomes"][backend] = outcomes
    return CaseResult(case.case_id, "pass", "", json.dumps(report))


def aggregate(results) -> dict:
    """op -> backend -> Counter of outcome kinds, plus examples: {op: {"cases": n, backend: {...}}}."""
    table: dict = defaultdict(lambda: {"cases": 0, "backends": defaultdict(Counter), "examples": {}})
    failed_cases = []
    for result in results.values():
        try:
            report = json.loads(result.message)
        except (TypeError, ValueError):
            failed_cases.append((result.case_id, result.status, result.message))
            continue
        if report.get("error"):
            failed_cases.append((result.case_id, "convert", report["error"]))
        for op in report.get("ops", []):
            table[op]["cases"] += 1
        for backend, outcomes in report.get("outcomes", {}).items():
            for op, (kind, message) in outcomes.items():
                table[op]["backends"][backend][kind] += 1
                if kind != "custom" and message:
                    table[op]["examples"].setdefault(kind, f"{result.case_id}: {message}")
    return {"ops": table, "failed_cases": failed_cases}


def _cell(counter: Counter) -> str:
    if not counter:
        return "-"
    if set(counter) == {"custom"}:
        return "custom"
    parts = [f"{kind} {count}" for kind, count in counter.most_common()]
    return ", ".join(parts)


def markdown(summary: dict, backends, command: str, case_count: int) -> str:
    ops = summary["ops"]
    lines = [
        "# Custom-op coverage",
        "",
        "Generated by `" + command + "` (conformance/coverage.py); do not edit by hand.",
        "",
        "Every Torch op our conversion emits for a case is marked backend-legal; each then should become a",
        "well-formed custom op on each backend (docs/custom-ops.md, operands encoding). A cell says `custom`",
        "when it did in every case where the op occurs, else the count of cases per outcome.",
        "",
        f"Cases run: {case_count}. Torch ops seen: {len(ops)}.",
        "",
    ]
    totals = {backend: Counter() for backend in backends}
    for op, entry in ops.items():
        for backend in backends:
            counter = entry["backends"].get(backend, Counter())
            totals[backend]["custom everywhere" if counter and set(counter) == {"custom"} else "other"] += 1
    lines.append("| backend | ops that became custom ops in every case | other ops |")
    lines.append("|---|---|---|")
    for backend in backends:
        lines.append(f"| {backend} | {totals[backend]['custom everywhere']} | {totals[backend]['other']} |")
    lines += ["", "| op | cases | " + " | ".join(backends) + " |", "|---|---|" + "---|" * len(backends)]
    for op in sorted(ops):
        entry = ops[op]
        cells = [_cell(entry["backends"].get(backend, Counter())) for backend in backends]
        lines.append(f"| `{op}` | {entry['cases']} | " + " | ".join(cells) + " |")
    lines += ["", "## Why an op does not become a custom op", ""]
    used_kinds = {kind for entry in ops.values() for counter in entry["backends"].values() for kind in counter}
    for kind, _, explanation in REJECTION_KINDS:
        name = f"rejected:{kind}"
        if name in used_kinds:
            members = sorted(op for op, entry in ops.items() if any(name in c for c in entry["backends"].values()))
            lines.append(f"- **{name}**: the op {explanation}. Ops: {', '.join(f'`{op}`' for op in members)}.")
    for kind, explanation in OUTCOME_EXPLANATIONS.items():
        if kind in used_kinds:
            members = sorted(op for op, entry in ops.items() if any(kind in c for c in entry["backends"].values()))
            lines.append(f"- **{kind}**: {explanation}. Ops: {', '.join(f'`{op}`' for op in members)}.")
    examples = [(op, kind, text) for op, entry in sorted(ops.items()) for kind, text in entry["examples"].items()]
    if examples:
        lines += ["", "### One example of each op's outcome", ""]
        for op, kind, text in examples:
            lines.append(f"- `{op}` ({kind}): {text[:240]}")
    if summary["failed_cases"]:
        lines += ["", "## Cases that did not reach the Torch dialect", ""]
        for case_id, status, message in summary["failed_cases"]:
            lines.append(f"- {case_id} ({status}): {message[:200]}")
    return "\n".join(lines) + "\n"
