"""The model zoo harness (test/models/): outcome classification, the passing-list check, the report,
and one real cell (a tiny onnx.helper model) through the child-process path."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))

import build_zoo  # noqa: E402
import run_zoo  # noqa: E402
import zoo_document  # noqa: E402
import zoo_models  # noqa: E402
import zoo_report  # noqa: E402
import zoo_worker  # noqa: E402
from zoo_report import Cell  # noqa: E402

np = pytest.importorskip("numpy")


# --------------------------------------------------------------------------------------------------
# Outcome classification


def _child(exit_code=0, timed_out=False, tail=()):
    return run_zoo.ChildResult(None, exit_code, timed_out, 1.0, 100.0, list(tail))


def test_a_signal_is_a_crash_with_the_diagnostic_line():
    outcome, error = run_zoo.death_message(
        _child(-11, tail=["some progress", "LLVM ERROR: out of memory", "Stack dump:", "0. frame"]), 600
    )
    assert outcome == "crash"
    assert error.startswith("killed by SIGSEGV: ") and "LLVM ERROR: out of memory" in error


def test_a_timeout_is_not_a_crash():
    assert run_zoo.death_message(_child(-9, timed_out=True), 600) == ("timeout", "no result within 600 s")


def test_an_exit_without_a_record_is_a_crash():
    outcome, error = run_zoo.death_message(_child(1, tail=["Fatal Python error: Aborted"]), 600)
    assert outcome == "crash" and error == "exited with status 1 without a result: Fatal Python error: Aborted"


def test_run_child_reports_abort_and_timeout(tmp_path):
    aborted = run_zoo.run_child([sys.executable, "-c", "import os; os.abort()"], tmp_path / "a.json", 60)
    assert aborted.record is None and run_zoo.death_message(aborted, 60)[0] == "crash"
    assert "SIGABRT" in run_zoo.death_message(aborted, 60)[1]
    slept = run_zoo.run_child([sys.executable, "-c", "import time; time.sleep(30)"], tmp_path / "b.json", 1)
    assert slept.timed_out and slept.seconds < 20
    written = run_zoo.run_child(
        [sys.executable, "-c", f"open({str(tmp_path / 'c.json')!r}, 'w').write('{{\"outcome\": \"pass\"}}')"],
        tmp_path / "c.json", 60,
    )
    assert written.record == {"outcome": "pass"} and written.exit_code == 0 and written.peak_mb > 0


def test_first_error_line_names_the_cause_of_an_exporter_banner():
    class TorchExportError(Exception):
        pass

    try:
        try:
            raise ValueError("Detected mismatch between inputs\nmore detail")
        except ValueError as cause:
            raise TorchExportError("\x1b[96mFailed to export the model\x1b[0m with torch.export.\nNext steps") from cause
    except TorchExportError as error:
        assert build_zoo.first_error_line(error) == "TorchExportError: ValueError: Detected mismatch between inputs"
    assert build_zoo.first_error_line(RuntimeError("Unable to parse module assembly:\n error: x\n")) == \
        "RuntimeError: Unable to parse module assembly: error: x"


def test_error_sizes():
    expected = [np.array([1.0, 2.0, 0.0], np.float32), np.array([1, 2], np.int64)]
    actual = [np.array([1.0, 2.5, 1e-6], np.float32), np.array([1, 2], np.int64)]
    absolute, relative = zoo_worker.error_sizes(expected, actual, atol=1e-4)
    assert absolute == pytest.approx(0.5) and relative == pytest.approx(0.25)  # the 0 element has no relative error


# --------------------------------------------------------------------------------------------------
# The passing-list check


def _cell(model, outcome, consumer="reference", backend="linalg-on-tensors", configuration="ours", error=""):
    return Cell(model, configuration, backend, consumer, outcome, "run", error)


MODEL_A, MODEL_B, MODEL_C = (model.name for model in zoo_models.MODELS[:3])


def test_check_semantics():
    passing = {("ours", "reference", "linalg-on-tensors"): {MODEL_A, MODEL_B},
               ("ours", "iree", "linalg-on-tensors"): {MODEL_A}}
    cells = [
        _cell(MODEL_A, "pass"), _cell(MODEL_B, "wrong numbers"), _cell(MODEL_C, "compile error"),  # C not listed
        _cell(MODEL_A, "unavailable", consumer="iree"), _cell(MODEL_B, "pass", consumer="iree"),
    ]
    verdict = zoo_report.check(cells, passing)
    assert [(c.model, c.consumer) for c in verdict.regressions] == [(MODEL_B, "reference")]
    assert [(c.model, c.consumer) for c in verdict.newly_passing] == [(MODEL_B, "iree")]
    assert [(c.model, c.consumer) for c in verdict.not_checked] == [(MODEL_A, "iree")]
    assert "REGRESSION" in verdict.describe() and "FAILED" in verdict.describe()


def test_a_listed_model_whose_build_fails_does_not_fail_the_check():
    passing = {("ours", "reference", "linalg-on-tensors"): {MODEL_A}}
    verdict = zoo_report.check([_cell(MODEL_A, "build error", error="export: RuntimeError: x")], passing)
    assert not verdict.regressions and len(verdict.not_checked) == 1
    assert "ok, no listed model regressed" in verdict.describe()


def test_passing_lists_round_trip(tmp_path):
    cells = [_cell(MODEL_A, "pass"), _cell(MODEL_B, "crash"), _cell(MODEL_A, "pass", backend="tosa")]
    zoo_report.write_passing(tmp_path, zoo_report.passing_from_cells(cells))
    assert zoo_report.read_passing(tmp_path) == {
        ("ours", "reference", "linalg-on-tensors"): {MODEL_A}, ("ours", "reference", "tosa"): {MODEL_A}}


# --------------------------------------------------------------------------------------------------
# Results files and the report


def test_results_round_trip_and_merge(tmp_path):
    old = [_cell(MODEL_A, "pass"), _cell(MODEL_B, "run-time error", error="RunnerError: a\tb"),
           _cell("no-longer-in-the-zoo", "pass")]
    old[0].compile_seconds, old[0].max_abs_error = 1.25, 3e-7
    path = tmp_path / "ours.tsv"
    zoo_report.write_cells(path, old[:2])
    read = zoo_report.read_cells(path)
    assert read[0].compile_seconds == 1.25 and read[0].max_abs_error == pytest.approx(3e-7)
    assert read[1].error == "RunnerError: a b"
    merged = zoo_report.merge(old, [_cell(MODEL_B, "pass")], {MODEL_A, MODEL_B})
    assert [(c.model, c.outcome) for c in merged] == [(MODEL_A, "pass"), (MODEL_B, "pass")]


def test_normalized_errors_group_across_models():
    first = "PipelineError: torch-to-tosa: loc(\"node_Shape_0\"(\"a.onnx\":0:0)): failed to legalize operation 'torch.aten.size.int': %67 = \"torch.aten.size.int\"(%arg1)"
    second = "PipelineError: torch-to-tosa: loc(\"/Shape_3\"(\"b.onnx\":0:0)): failed to legalize operation 'torch.aten.size.int': %12 = \"torch.aten.size.int\"(%arg0)"
    assert zoo_report.normalize_error(first) == zoo_report.normalize_error(second)
    ranked = zoo_report.common_errors([_cell(MODEL_A, "compile error", error=first), _cell(MODEL_B, "compile error", error=second),
                                       _cell(MODEL_C, "wrong numbers", error="output 0: 3 of 9 values differ")])
    assert ranked[0][0] == 2 and ranked[0][2] == [MODEL_A, MODEL_B]


def test_report_generation_on_fake_results():
    results = {
        "ours": [_cell(MODEL_A, "pass"), _cell(MODEL_A, "compile error", consumer="iree", error="IreeError: x | y"),
                 _cell(MODEL_B, "wrong numbers", error="output 0: 3 of 9 values differ")],
        "torch-mlir": [_cell(MODEL_A, "pass", configuration="torch-mlir")],
    }
    results["ours"][2].max_abs_error = 0.25
    builds = {MODEL_C: {"ok": "failed", "stage": "export", "error": "RuntimeError: unordered_map::at"}}
    text = zoo_document.render(zoo_models.MODELS, builds, results)
    assert text.startswith("# Model zoo results\n\nGenerated by `make zoo`")
    assert "| ours | linalg-on-tensors | reference | 1 | 1 | 0 | 0 | 0 | 0 | 0 | 0 | 2 |" in text
    assert "| torch-mlir | linalg-on-tensors | reference | 1 |" in text
    assert "wrong numbers (max abs 0.25)" in text
    assert "IreeError: x \\| y" in text  # a table cell's pipe is escaped
    assert "**failed** at export: `RuntimeError: unordered_map::at`" in text


def test_a_reference_from_the_unsaturated_copy_is_said_in_the_builds_and_the_report(tmp_path):
    record = {"ok": True, "model": "model.onnx", "reference": {
        "uint8 x int8 saturation": 651887, "int8 weights as uint8": {"DequantizeLinear": 31}, "left": []}}
    (tmp_path / "build.json").write_text(__import__("json").dumps(record))
    (row,) = zoo_report.build_rows({MODEL_A: build_zoo.BuildResult(MODEL_A, True, tmp_path)})
    assert row["reference"].startswith("onnxruntime's uint8 x int8 kernels saturate on the CPU that computed the reference")
    assert "the int8 weights of 31 DequantizeLinear as uint8 with zero point + 128" in row["reference"]
    text = zoo_document.render(zoo_models.MODELS, {MODEL_A: {"ok": "ok", "reference": row["reference"]}}, {})
    assert f"Reference: {row['reference']}" in text
    assert zoo_report.reference_text(None) == ""


def test_update_files_writes_everything(tmp_path):
    cells = [_cell(MODEL_A, "pass"), _cell(MODEL_A, "unavailable", consumer="iree", error="no iree")]
    written = zoo_report.update_files(tmp_path, cells, {}, ["ours"], [MODEL_A])
    names = {str(path.relative_to(tmp_path)) for path in written}
    assert {"test/models/results/ours.tsv", "docs/models.md", "test/models/results/builds.tsv",
            "test/models/passing/ours/reference-linalg-on-tensors.txt", "test/models/passing/ours/iree-linalg-on-tensors.txt"} <= names
    assert zoo_report.read_passing(tmp_path / zoo_report.PASSING_DIRECTORY)[("ours", "iree", "linalg-on-tensors")] == set()
    # A second, partial update keeps the first one's cells.
    zoo_report.update_files(tmp_path, [_cell(MODEL_B, "pass")], {}, ["ours"], [MODEL_B])
    assert {c.model for c in zoo_report.read_cells(tmp_path / "test/models/results/ours.tsv")} == {MODEL_A, MODEL_B}


def test_registry_is_consistent():
    assert len(zoo_models.BY_NAME) == len(zoo_models.MODELS)
    for model in zoo_models.MODELS:
        assert model.exporter in zoo_models.EXPORTERS and model.rtol > 0 and model.atol > 0
    assert any(model.slice for model in zoo_models.MODELS)
    assert sum(model.name.startswith("bert-base") for model in zoo_models.MODELS) == 1


# --------------------------------------------------------------------------------------------------
# One real cell through the child processes


def test_one_real_cell_end_to_end(tmp_path, monkeypatch):
    monkeypatch.setenv(build_zoo.CACHE_VARIABLE, str(tmp_path / "cache"))
    model = zoo_models.BY_NAME["helper-mlp"]
    build = build_zoo.ensure_built(model)
    assert build.ok, build.error
    assert build_zoo.ensure_built(model).cached  # the second time it comes from the cache
    cells = run_zoo.run_job(model, build, "ours", "linalg-on-tensors", ["reference"], 300, tmp_path)
    [cell] = cells
    assert (cell.outcome, cell.error) == ("pass", "")
    assert cell.compile_seconds > 0 and cell.run_seconds is not None and cell.run_peak_mb > 0
    assert cell.max_abs_error is not None and cell.max_abs_error <= model.atol


def test_a_missing_iree_consumer_is_unavailable_not_a_crash(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx_torch_mlir.runtime.iree", None)  # import now raises ImportError
    program, reason = zoo_worker._load_consumer("iree", "tosa")
    assert program is None and reason.startswith("onnx_torch_mlir.runtime.iree cannot be used: ")
    monkeypatch.setattr(run_zoo.importlib.util, "find_spec", lambda name: None)
    assert run_zoo.iree_available() == "onnx_torch_mlir.runtime.iree does not exist yet"


def test_every_failing_cell_gets_its_blocker_or_is_marked_unexplained():
    known = "PipelineError: torch-to-tosa: failed to legalize operation 'torch.aten.size.int' that was explicitly marked illegal"
    results = {"ours": [
        _cell(MODEL_A, "compile error", backend="tosa", error=known),
        _cell(MODEL_A, "compile error", backend="linalg-on-tensors", error=known),  # the TOSA blocker does not apply
        _cell(MODEL_B, "wrong numbers", error="output 0: 3 of 9 values differ"),
        _cell(MODEL_C, "pass"),
    ]}
    text = zoo_document.render(zoo_models.MODELS, {}, results)
    section = text.split("## Failing cells of ours and their blockers", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith(f"| {MODEL_A} ") or line.startswith(f"| {MODEL_B} ")]
    assert len(rows) == 3 and not any(MODEL_C in line for line in section.splitlines())
    tosa_row = next(line for line in rows if "| tosa |" in line)
    assert "dynamic dims on TOSA" in tosa_row and "issue 11" in tosa_row
    assert sum("**unexplained**" in line for line in rows) == 2


# --------------------------------------------------------------------------------------------------
# Configuration ours-dims: dims fixed at the test sizes


def _dynamic_model(tmp_path, dims):
    import onnx
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, dims)],
    )
    path = tmp_path / "model.onnx"
    onnx.save(helper.make_model(graph), path)
    return path


def test_ours_dims_fixes_each_named_dim_at_its_test_size(tmp_path):
    model = _dynamic_model(tmp_path, ["batch", 3, "sequence"])
    np.savez(tmp_path / "reference.npz", **{"input.0": np.zeros((2, 3, 5), np.float32)})
    assert zoo_worker.test_size_dims(str(model), str(tmp_path / "reference.npz")) == ({"batch": 2, "sequence": 5}, {})


def test_ours_dims_fixes_unnamed_and_ambiguous_dims_by_the_input_shape(tmp_path):
    model = _dynamic_model(tmp_path, [None, "n", "n"])  # "n" is run at two sizes
    np.savez(tmp_path / "reference.npz", **{"input.0": np.zeros((2, 3, 4), np.float32)})
    assert zoo_worker.test_size_dims(str(model), str(tmp_path / "reference.npz")) == ({}, {"x": [2, 3, 4]})


def test_ours_dims_cells_exist_only_for_dynamic_models_on_tosa_and_stablehlo():
    dynamic = next(model for model in zoo_models.MODELS if model.dynamic)
    static = next(model for model in zoo_models.MODELS if not model.dynamic)
    assert zoo_report.applies("ours-dims", dynamic, "tosa") and zoo_report.applies("ours-dims", dynamic, "stablehlo")
    assert not zoo_report.applies("ours-dims", dynamic, "linalg-on-tensors")
    assert not zoo_report.applies("ours-dims", static, "tosa")
    assert zoo_report.applies("ours", static, "linalg-on-tensors")
