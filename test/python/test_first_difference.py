"""`verify --each-node`: bisection over graph prefixes names the first node whose result differs,
also when every run of the whole program crashes."""

import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

from onnx_torch_mlir.tools.first_difference import every_node_result, find_first_difference, with_outputs


def _chain(length: int) -> onnx.ModelProto:
    nodes = [helper.make_node("Relu" if i % 2 else "Neg", [f"v{i}"], [f"v{i + 1}"], name=f"n{i}") for i in range(length)]
    nodes.append(helper.make_node("Identity", ["x"], ["v0"], name="start"))
    nodes.insert(0, nodes.pop())
    graph = helper.make_graph(
        nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info(f"v{length}", TensorProto.FLOAT, [3])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _results(model):
    return every_node_result(model, onnx.shape_inference.infer_shapes(model))


def test_prefix_keeps_only_the_nodes_its_outputs_need():
    model = _chain(6)
    results = _results(model)
    prefix = with_outputs(model, results[:3])
    assert [node.name for node in prefix.graph.node] == ["start", "n0", "n1"]
    assert [output.name for output in prefix.graph.output] == ["v0", "v1", "v2"]


def test_bisection_finds_the_first_failing_result_with_few_probes():
    model = _chain(40)
    results = _results(model)
    broken_from = "v17"  # every prefix that contains this result fails, like a crash would
    probes = []

    def run_probe(prefix, expected, inputs, args):
        names = [output.name for output in prefix.graph.output]
        probes.append(len(names))
        return "crashed" if broken_from in names else None

    found = find_first_difference(model, results, {r.name: None for r in results}, [], None, lambda text: None, run_probe)
    assert found == ("v17", "crashed")
    assert len(probes) <= 8  # log2(41) + 1


def test_all_matching_is_one_probe():
    model = _chain(5)
    results = _results(model)
    probes = []
    found = find_first_difference(model, results, {r.name: None for r in results}, [], None, lambda text: None,
                                  lambda prefix, *rest: probes.append(prefix) or None)
    assert found is None and len(probes) == 1


def test_verify_each_node_on_a_real_model(tmp_path):
    """The real path (child processes, our compiler, onnxruntime): every node result matches."""
    path = tmp_path / "chain.onnx"
    onnx.save(_chain(4), path)
    finished = subprocess.run(
        [sys.executable, "-m", "onnx_torch_mlir.tools.main", "verify", str(path), "--each-node"],
        capture_output=True, text=True, timeout=600,
    )
    assert finished.returncode == 0, finished.stderr
    assert "all 5 node results match onnxruntime (linalg-on-tensors)" in finished.stdout
    assert "first 5 of 5 results: ok" in finished.stderr
