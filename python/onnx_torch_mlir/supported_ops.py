"""The supported-ops document, generated from the registry and the conformance results.

One section per domain. The default ONNX domain lists every operator ONNX defines (and any
other with a pattern): how our conversion handles it at the newest opset (a direct pattern,
with its since_versions, or expansion of its ONNX function body), and how many of its
single-op node cases pass per backend in the last full conformance run of configuration
"ours". Versions that ONNX does not define but onnxruntime registers in the default domain
(its LayerNormalization-1, SimplifiedLayerNormalization-1) are named as onnxruntime's.
Every other domain with a pattern gets its own section; for com.microsoft it lists every
operator of the installed onnxruntime's schemas, so what is missing shows. Never written by
hand: `onnx-torch-mlir list-ops --write`.
"""

import collections

import onnx

from .conformance.report import read_results
from .importer.string_bytes import STRING_OPS
from .pipelines import BACKENDS

CONFIGURATION = "ours"
MICROSOFT = "com.microsoft"


def op_rows(opset: int | None = None) -> list[dict]:
    from .conversion.onnx_to_torch import all_registrations
    from .conversion.onnx_to_torch.functions import expandable_ops
    from .conversion.onnx_to_torch.registry import display_domain

    opset = opset or onnx.defs.onnx_opset_version()
    versions = collections.defaultdict(list)
    for registration in all_registrations():
        versions[registration.domain, registration.op_type].append(registration.since_version)
    expanded = set(expandable_ops(opset))
    names = {
        ("", schema.name)
        for schema in onnx.defs.get_all_schemas()
        if schema.domain in ("", "ai.onnx") and not schema.deprecated
    }
    names |= {(MICROSOFT, name) for name in onnxruntime_contrib_ops()}
    rows = []
    for domain, op_type in sorted(names | set(versions), key=lambda key: (key[0], key[1].lower())):
        if versions.get((domain, op_type)):
            how = _direct(domain, op_type, versions[domain, op_type])
        elif (domain, op_type) in STRING_OPS:
            how = "on strings held as bytes (importer/string_bytes.py)"
        elif op_type in expanded and domain == "":
            how = "function expansion"
        else:
            how = "not supported"
        rows.append({"domain": display_domain(domain), "op": op_type, "how": how})
    return rows


def _direct(domain: str, op_type: str, since_versions: list[int]) -> str:
    """'direct (since 1, 7)'; a default-domain version ONNX does not define is onnxruntime's."""
    onnx_versions = [v for v in since_versions if domain or _onnx_defines(op_type, v)]
    onnxruntime_versions = [v for v in since_versions if v not in onnx_versions]
    parts = []
    if onnx_versions:
        parts.append("since " + ", ".join(str(v) for v in onnx_versions))
    if onnxruntime_versions:
        parts.append("onnxruntime's version " + ", ".join(str(v) for v in onnxruntime_versions))
    return "direct (" + "; ".join(parts) + ")"


def _onnx_defines(op_type: str, version: int) -> bool:
    try:
        return onnx.defs.get_schema(op_type, version, "").since_version == version
    except onnx.defs.SchemaError:
        return False


def onnxruntime_contrib_ops() -> list[str]:
    """The com.microsoft operators of the installed onnxruntime's schemas (none without it)."""
    try:
        from onnxruntime.capi.onnxruntime_pybind11_state import get_all_operator_schema
    except ImportError:
        return []
    return sorted({schema.name for schema in get_all_operator_schema() if schema.domain == MICROSOFT})


def node_case_ops() -> dict[str, str]:
    """node case id -> the op it tests, for cases whose graph is that single op."""
    from .conformance.cases import node_cases

    ops = {}
    for case in node_cases():
        model = onnx.load_from_string(case.model_bytes)
        if len(model.graph.node) == 1:
            ops[case.case_id] = model.graph.node[0].op_type
    return ops


def case_counts() -> dict[str, dict[str, tuple[int, int]]]:
    """op -> backend -> (passed, total) over its single-op node cases."""
    case_ops = node_case_ops()
    counts = collections.defaultdict(dict)
    for backend in BACKENDS:
        results = read_results(CONFIGURATION, backend) or {}
        tally = collections.defaultdict(lambda: [0, 0])
        for case_id, op_type in case_ops.items():
            if case_id in results:
                tally[op_type][0] += results[case_id].passed
                tally[op_type][1] += 1
        for op_type, (passed, total) in tally.items():
            counts[op_type][backend] = (passed, total)
    return counts


def markdown() -> str:
    rows = op_rows()
    counts = case_counts()
    by_domain = collections.defaultdict(list)
    for row in rows:
        by_domain[row["domain"]].append(row)
    onnx_rows = by_domain.pop("ai.onnx", [])
    direct = sum(row["how"].startswith("direct") for row in onnx_rows)
    expanded = sum(row["how"] == "function expansion" for row in onnx_rows)
    lines = [
        "# Supported ONNX operators",
        "",
        "Generated by `onnx-torch-mlir list-ops --write docs/supported-ops.md` from the pattern registry",
        f"and the last full conformance run of configuration `{CONFIGURATION}`; do not edit.",
        "",
        "## Domain ai.onnx",
        "",
        f"{direct} operators have direct patterns, {expanded} more convert by expanding their ONNX function",
        f"body, at opset {onnx.defs.onnx_opset_version()}. Cases: the ONNX node cases whose graph is that",
        "single operator (passed / run); '-' where there is none. \"onnxruntime's version\": a version",
        "onnxruntime registers in the default domain and ONNX does not define.",
        "",
        "| operator | conversion | " + " | ".join(BACKENDS) + " |",
        "|---|---|" + "---|" * len(BACKENDS),
    ]
    for row in onnx_rows:
        cells = []
        for backend in BACKENDS:
            passed_total = counts.get(row["op"], {}).get(backend)
            cells.append(f"{passed_total[0]}/{passed_total[1]}" if passed_total else "-")
        lines.append(f"| {row['op']} | {row['how']} | " + " | ".join(cells) + " |")
    for domain in sorted(by_domain):
        domain_rows = by_domain[domain]
        supported = sum(row["how"] != "not supported" for row in domain_rows)
        lines += ["", f"## Domain {domain}", ""]
        if domain == MICROSOFT:
            lines += [
                f"onnxruntime's contrib operators: {supported} of the {len(domain_rows)} in the schemas of the",
                "installed onnxruntime are converted. ONNX's node cases do not cover this domain:",
                "`test/python/test_microsoft_ops_numerics.py` checks each converted operator against",
                "onnxruntime's CPU kernels on every backend, and `test/lit/conversion/microsoft_*.mlir` shows",
                "the forms each refuses.",
            ]
        else:
            lines.append(f"{supported} operators have direct patterns.")
        lines += ["", "| operator | conversion |", "|---|---|"]
        lines += [f"| {row['op']} | {row['how']} |" for row in domain_rows]
    return "\n".join(lines) + "\n"
