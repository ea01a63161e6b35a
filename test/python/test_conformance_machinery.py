"""The conformance machinery itself: comparison rules, isolation, the regression check."""

import os
import time

import numpy as np
import pytest

from onnx_torch_mlir.conformance import CONFIGURATIONS, CasePayload, CaseResult, run_cases
from onnx_torch_mlir.conformance.cases import collect_cases
from onnx_torch_mlir.conformance.compare import mismatch


def test_equal_outputs_match():
    assert mismatch([np.array([1.0, np.nan], np.float32)], [np.array([1.0, np.nan], np.float32)], 1e-3, 1e-7) is None


def test_values_beyond_tolerance_are_reported():
    reason = mismatch([np.array([1.0, 2.0], np.float32)], [np.array([1.0, 2.1], np.float32)], 1e-3, 1e-7)
    assert reason.startswith("output 0: 1 of 2 values differ")


def test_values_within_tolerance_match():
    assert mismatch([np.array([1000.0], np.float32)], [np.array([1000.5], np.float32)], 1e-3, 1e-7) is None


def test_nan_against_a_number_is_a_mismatch():
    reason = mismatch([np.array([0.0], np.float32)], [np.array([np.nan], np.float32)], 1e-3, 1e-7)
    assert "NaN" in reason


def test_dtype_and_shape_must_match():
    assert "dtype" in mismatch([np.zeros(2, np.int64)], [np.zeros(2, np.int32)], 0, 0)
    assert "shape" in mismatch([np.zeros((2, 1), np.float32)], [np.zeros((2,), np.float32)], 0, 0)


def test_integers_compare_exactly():
    assert mismatch([np.array([3], np.int8)], [np.array([3], np.int8)], 0, 0) is None
    assert mismatch([np.array([3], np.int8)], [np.array([4], np.int8)], 1.0, 1.0) is not None


def test_output_count_must_match():
    assert "expected 2 outputs" in mismatch([np.zeros(1), np.zeros(1)], [np.zeros(1)], 0, 0)


def test_all_suites_are_collected():
    counts = {}
    for case in collect_cases():
        suite = case.case_id.split("/")[0]
        counts[suite] = counts.get(suite, 0) + 1
    assert counts["light"] == 9 and counts["simple"] == 23
    assert counts["pytorch-converted"] == 82 and counts["pytorch-operator"] == 35
    assert counts["node"] == 1884


# Module-level, so spawned workers can import them.
def misbehaving_runner(case, configuration, backend):
    if case.case_id == "crash":
        os.abort()
    if case.case_id == "hang":
        time.sleep(60)
    return CaseResult(case.case_id, "pass")


def test_a_crash_or_hang_costs_only_its_own_case():
    cases = [CasePayload(name, 0, 0) for name in ("ok-1", "crash", "ok-2", "hang", "ok-3")]
    results = run_cases(cases, CONFIGURATIONS["ours"], "linalg-on-tensors", jobs=2, timeout=3, case_runner=misbehaving_runner)
    assert {case: result.status for case, result in results.items()} == {
        "ok-1": "pass",
        "crash": "crash",
        "ok-2": "pass",
        "hang": "timeout",
        "ok-3": "pass",
    }
    assert "SIGABRT" in results["crash"].message


@pytest.mark.parametrize("case_id", ["node/test_relu", "simple/test_expand_shape_model1"])
def test_a_real_case_runs_end_to_end(case_id):
    from onnx_torch_mlir.conformance import run_case

    case = next(case for case in collect_cases() if case.case_id == case_id)
    result = run_case(case, CONFIGURATIONS["ours"], "linalg-on-tensors")
    assert result.passed, result


def test_no_passing_list_includes_a_case_marked_unstable():
    from onnx_torch_mlir.conformance import report

    unstable = report.read_unstable()
    assert unstable, "test/conformance/unstable.txt should parse"
    assert all(reason.strip() for reason in unstable.values()), "every unstable case needs its reason"
    for path in report.PASSING_DIR.glob("*/*.txt"):
        configuration, backend = path.parent.name, path.stem
        for case_id in report.read_passing(configuration, backend):
            assert not report.is_unstable(unstable, configuration, backend, case_id), (path, case_id)
