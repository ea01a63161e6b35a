"""tools/bench_consumer.py on a tiny model: paths compiled by IREE, checked, timed in turn, reported."""

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from tool_modules import load_tool

pytest.importorskip("iree.compiler")
pytest.importorskip("iree.runtime")
pytest.importorskip("onnxruntime")

bench_consumer = load_tool("bench_consumer")


def tiny_model(directory: Path) -> Path:
    weight = numpy_helper.from_array(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Relu", ["m"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])], [weight],
    )
    path = directory / "tiny" / "model.onnx"
    path.parent.mkdir()
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), path)
    return path


def broken_path(model, expected, workdir):
    raise RuntimeError("this path cannot compile\nsecond line")


def no_data_tiling_path(model, expected, workdir):
    """Our Linalg, where IREE fails with data tiling (as IREE 3.13 does on some convolutions for AVX2)."""
    from onnx_torch_mlir.runtime.iree import IreeError

    compile_with_flags = bench_consumer.PATHS["ours-linalg"](model, expected, workdir)

    def compile_without_data_tiling(flags):
        if "--iree-opt-data-tiling=true" in flags:
            raise IreeError("IREE compile of @g failed: large vector sizes")
        return compile_with_flags(flags)

    return compile_without_data_tiling


def test_tiny_model_table_and_a_failing_path(tmp_path, monkeypatch):
    monkeypatch.setitem(bench_consumer.PATHS, "broken", broken_path)
    monkeypatch.setitem(bench_consumer.PATHS, "no-data-tiling", no_data_tiling_path)
    document, tsv = tmp_path / "performance.md", tmp_path / "consumer.tsv"
    document.write_text("# Performance\n\nhand-written text\n")
    # An earlier run's model, measured the same way, keeps its row; one measured otherwise does not.
    earlier = "\t".join(bench_consumer.TSV_COLUMNS) + "\n" + "".join(
        f"{name}\tonnxruntime\tok\t\t\t1.000\t1.0,1.0\t2026-01-01 00:00\t1.0\t{setup}\n"
        for name, setup in (("earlier", bench_consumer.setup(1)), ("other-flags", "ort-threads=1 iree-flags=-"))
    )
    tsv.write_text(earlier)
    paths = ["ours-linalg", "iree-import-onnx", "broken", "no-data-tiling"]
    arguments = ["--model-file", str(tiny_model(tmp_path)), "--calls", "2", "--paths", ",".join(paths),
                 "--update", "--document", str(document), "--tsv", str(tsv)]
    assert bench_consumer.main(arguments) == 0

    text = document.read_text()
    assert text.startswith("# Performance\n\nhand-written text\n")
    assert text.count(bench_consumer.BEGIN) == 1 and text.count(bench_consumer.END) == 1
    rows = [line for line in text.splitlines() if line.startswith("| tiny |")]
    timing_row = rows[0]
    cells = [cell.strip() for cell in timing_row.strip("|").split("|")]
    assert len(cells) == 3 + 1 + len(paths)  # model, measured, rounds, onnxruntime, the paths
    assert cells[2] == "2"
    assert cells[3].endswith(" ms") and cells[4].endswith(" ms", 0, cells[4].index(",")) and " / " in cells[4]
    assert cells[6] == "compile error: RuntimeError: this path cannot compile"
    assert cells[7].endswith("(IREE's defaults: with the recommended flags: IREE compile of @g failed: large vector sizes)")

    assert "| earlier | 2026-01-01 00:00, 1.0 | 2 | 1.00 ms |" in text and "other-flags" not in text
    lines = tsv.read_text().splitlines()
    assert lines[0].split("\t")[:3] == ["model", "path", "status"]
    by_path = {line.split("\t")[1]: line.split("\t") for line in lines[1:] if line.startswith("tiny\t")}
    assert set(by_path) == {"onnxruntime", *paths}
    for name in ("onnxruntime", "ours-linalg", "iree-import-onnx"):
        assert by_path[name][2] == "ok" and len(by_path[name][6].split(",")) == 2
    assert by_path["broken"][2] == "compile error" and by_path["broken"][6] == ""
    assert by_path["no-data-tiling"][2] == "IREE's defaults" and len(by_path["no-data-tiling"][6].split(",")) == 2

    # A second run replaces the section instead of adding one.
    bench_consumer.write_section(document, f"{bench_consumer.BEGIN}\nnew\n{bench_consumer.END}\n")
    again = document.read_text()
    assert again.count(bench_consumer.BEGIN) == 1 and "\nnew\n" in again and "hand-written text" in again


def test_each_program_follows_every_other():
    """A program runs slower right after another has filled the caches: over the rounds, each program
    must be measured after each of the others, not always after the same one."""
    calls = []
    names = ["onnxruntime", "first", "second", "third"]
    programs = {name: (lambda name: lambda *inputs: calls.append(name))(name) for name in names}
    result = bench_consumer.ModelResult("tiny", {name: bench_consumer.PathResult(name) for name in names})
    bench_consumer._alternate([], programs, result, calls=40, seconds=60.0, log=lambda message: None)
    timed = calls[len(names):]  # after the warm-up round
    assert result.rounds == 40 and len(timed) == 40 * len(names)
    assert all(sorted(timed[start:start + len(names)]) == sorted(names) for start in range(0, len(timed), len(names)))
    predecessors = {name: set() for name in names}
    for before, after in zip(timed, timed[1:]):
        predecessors[after].add(before)
    assert all(predecessors[name] >= set(names) - {name} for name in names)
