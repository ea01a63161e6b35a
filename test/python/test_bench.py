"""tools/bench.py on a tiny model: both paths measured in child processes, stages and the report."""

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from tool_modules import load_tool

bench = load_tool("bench")


def tiny_model(directory: Path) -> Path:
    weight = numpy_helper.from_array(np.ones((4, 3), dtype=np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Relu", ["m"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])], [weight],
    )
    path = directory / "tiny" / "model.onnx"
    path.parent.mkdir()
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def test_one_cell_measures_both_paths_by_stage_and_reports_them(tmp_path):
    path = tiny_model(tmp_path)
    model = bench.Model("tiny", path, "cnn", bench.weight_bytes(path))
    cell = bench.Cell(model, "linalg-on-tensors", "bytecode", repeat=1)
    bench.measure([cell], jobs=1, work_dir=tmp_path)
    assert cell.errors == {}
    ours, theirs = cell.runs["ours"][0], cell.runs["torch-mlir"][0]
    assert set(ours["stages"]) == {"import", "conversion", "torch-mlir simplification", "backend pipeline", "writing"}
    assert set(theirs["stages"]) == {"import", "conversion", "backend pipeline", "writing"}
    for run in (ours, theirs):
        assert run["wall"] >= run["in_process"] > 0 and run["peak_mib"] > 50 and run["output_bytes"] > 0
    assert not list(tmp_path.glob("*.mlirbc"))  # outputs are removed after each run
    text = bench.report([cell], repeat=1, jobs=1, seconds=1.0, note="")
    assert "| tiny | " in text and "| tiny | ours |" in text and "| tiny | torch-mlir |" in text


def test_a_failing_path_is_reported_not_raised(tmp_path):
    path = tmp_path / "broken.onnx"
    path.write_bytes(b"not a model")
    cell = bench.Cell(bench.Model("broken", path, "cnn", 11), "tosa", "text", repeat=2)
    bench.measure([cell], jobs=1, work_dir=tmp_path)
    assert set(cell.errors) == {"ours", "torch-mlir"}
    assert "failed:" in bench.report([cell], repeat=2, jobs=1, seconds=1.0, note="")


def test_repeats_go_to_the_cells_that_decide_the_criteria(tmp_path):
    zoo = bench.Model("bert", tmp_path / "m.onnx", "transformer", 1)
    big = bench.Model("mlp", tmp_path / "b.onnx", "generated", 1)
    assert bench.cell_repeat(zoo, "tosa", "bytecode", 3, full=False) == 3
    assert bench.cell_repeat(zoo, "tosa", "text", 3, full=False) == 1
    assert bench.cell_repeat(big, "linalg-on-tensors", "bytecode", 3, full=False) == 3
    assert bench.cell_repeat(big, "stablehlo", "bytecode", 3, full=False) == 1
    assert bench.cell_repeat(zoo, "tosa", "text", 3, full=True) == 3


def _run(wall, stages, peak=150.0, libraries=120.0, **more_stages):
    return {"wall": wall, "stages": {"import": stages, **more_stages}, "peak_mib": peak, "libraries_mib": libraries}


def test_a_target_below_what_any_path_pays_is_impossible_not_missed():
    """Wall: torch-mlir's own start and library loading (wall less stages) plus our path's stages
    that are torch-mlir's passes and MLIR's writing, above 0.3 of torch-mlir's wall; peak: the
    libraries' memory above twice the weights. Otherwise met or not met."""
    theirs = [_run(1.4, 0.6)]  # 0.8 s before compiling > 0.3 x 1.4 s
    ours = [_run(1.9, 0.1, writing=0.1)]
    assert bench._wall_verdict((1.3, 1.0, 0.9), theirs, ours).startswith(
        "1.30 impossible: start and libraries 0.80 s + torch-mlir's passes and MLIR's writing 0.10 s")
    assert bench._wall_verdict((0.5, 1.0, 0.4), [_run(10.0, 9.0)], ours) == "0.50 not met"
    bert_like = [_run(4.9, 0.5, writing=1.6, **{"torch-mlir simplification": 0.9, "backend pipeline": 0.3})]
    assert "impossible" in bench._wall_verdict((0.49, 0.3, 0.4), [_run(9.9, 9.4)], bert_like)  # 0.5 + 2.8 > 2.97
    assert bench._wall_verdict((0.27, 1.0, 0.2), theirs, ours) == "0.27 met"
    ours = [_run(1.9, 0.6, peak=137.0, libraries=120.0)]
    assert bench._peak_verdict(328.0, ours, 428 * 2**10).startswith("328.00 impossible: libraries 120 MiB")
    assert bench._peak_verdict(1.38, ours, 417 * 2**20) == "1.38 met"
    assert bench._peak_verdict(3.0, [_run(1.0, 0.5, peak=300.0, libraries=120.0)], 100 * 2**20) == "3.00 not met"
