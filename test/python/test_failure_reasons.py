"""The failure-reason table of docs/conformance.md: every failing case in exactly one group."""

from onnx_torch_mlir.conformance import failure_reasons, report
from onnx_torch_mlir.conformance.worker import CaseResult

LINALG = "linalg-on-tensors"


def _failing(configuration: str, backend: str) -> dict[str, CaseResult]:
    results = report.read_results(configuration, backend)
    assert results is not None, f"no committed results for {configuration} on {backend}"
    return {case_id: result for case_id, result in results.items() if not result.passed}


def test_every_committed_linalg_failure_has_a_reason():
    failing = _failing("ours", LINALG)
    unclassified = {
        case_id: result.message[:160]
        for case_id, result in failing.items()
        if failure_reasons.classify(case_id, result.message, LINALG)[0] == failure_reasons.UNCLASSIFIED
    }
    assert not unclassified, f"add a rule to failure_reasons.py for: {unclassified}"


def test_groups_hold_every_failing_case_exactly_once():
    for backend in (LINALG, "tosa", "stablehlo"):
        results = report.read_results("ours", backend)
        if results is None:
            continue
        grouped = [case for cases in failure_reasons.group_failures(results, backend).values() for case in cases]
        assert sorted(grouped) == sorted(_failing("ours", backend)), backend


def test_the_first_matching_rule_wins_and_backends_filter():
    float8 = "float8 type f8E4M3FN (argument 0) cannot be lowered to native code by MLIR's LLVM lowering"
    assert failure_reasons.classify("node/x", float8, LINALG)[0] == failure_reasons.HARNESS_LIMIT
    item = "torch-to-tosa: loc(\"x\"): failed to legalize operation 'torch.aten.item' that was explicitly marked illegal"
    assert failure_reasons.classify("node/x", item, "tosa")[0] == failure_reasons.BACKEND_CANNOT_EXPRESS
    # The same text on Linalg is not a backend limit: no rule claims it.
    assert failure_reasons.classify("node/x", item, LINALG)[0] == failure_reasons.UNCLASSIFIED


def test_a_case_glob_narrows_a_message_rule():
    differ = "output 0: 7 of 10 values differ beyond rtol=0.001 atol=1e-07 (max abs error 1)"
    assert failure_reasons.classify("node/test_bernoulli_seed", differ, LINALG)[0] == failure_reasons.HARNESS_LIMIT
    assert failure_reasons.classify("node/test_add", differ, LINALG)[0] == failure_reasons.UNCLASSIFIED


def test_the_report_lists_each_failing_case_once_per_backend():
    results = {
        "node/a": CaseResult("node/a", "pass", "", "", 0.1),
        "node/b": CaseResult("node/b", "fail", "import", "<model>: graph input 'x': element type STRING has no MLIR equivalent", 0.1),
        "node/c": CaseResult("node/c", "fail", "compare", "output 0: something new", 0.1),
    }
    lines = report._failure_reasons({("ours", LINALG): results}, [LINALG])
    text = "\n".join(lines)
    assert "## Why the remaining cases fail" in text
    assert text.count("`node/b`") == 1 and text.count("`node/c`") == 1 and "`node/a`" not in text
    assert "not representable in torch: 1" in text and "unclassified: 1" in text
