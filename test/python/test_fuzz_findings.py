"""What tools/fuzz.py found, each fixed where it belongs, and the fuzzer itself on a few mutations.

- a static zero dim (`[3, 0]`): torch-mlir's Linalg lowering of `aten.view` divided by it (SIGFPE);
  the ops computing empty tensors become empty literals first (transforms/linalg/empty_tensors.py);
- a dim over 2^31 - 1 aborted torch-mlir's TOSA lowering: refused by name (pipelines.py);
- static shapes that do not broadcast (a BitShift of [5] and [3]) aborted torch-mlir's StableHLO
  lowering: refused by name before any backend (transforms/torch/broadcast_check.py);
- an attribute of the wrong kind was a Python TypeError inside a pattern: the node view names it;
- a name that is not valid UTF-8 (a flipped bit) failed deep in the importer: the loader refuses it.
"""

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import onnx_torch_mlir
from onnx_torch_mlir import config, errors, runtime
from onnx_torch_mlir.pipelines import BACKENDS


def _model():
    nodes = [
        helper.make_node("Reshape", ["x", "shape"], ["r"], allowzero=1),
        helper.make_node("Relu", ["r"], ["y"]),
        helper.make_node("ReduceSum", ["x", "axes"], ["s"], keepdims=0),
    ]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 0])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [0, 3]),
         helper.make_tensor_value_info("s", TensorProto.FLOAT, [3])],
        [helper.make_tensor("shape", TensorProto.INT64, [2], [0, 3]), helper.make_tensor("axes", TensorProto.INT64, [1], [1])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


RUNNING = config.enabled_backends(BACKENDS)  # TOSA too: transforms/tosa/empty_tensors.py


@pytest.mark.parametrize("backend", RUNNING)
def test_reshape_of_an_empty_tensor(backend):
    model = _model()
    x = np.zeros((3, 0), np.float32)
    want = ReferenceEvaluator(model).run(None, {"x": x})
    got = runtime.run(onnx_torch_mlir.compile(model, backend), [x], input_dialect=backend)
    for expected, actual in zip(want, got):
        assert actual.shape == expected.shape
        np.testing.assert_array_equal(actual, expected)


def test_reshape_of_an_empty_tensor_into_a_non_empty_one_is_refused_by_name():
    """An inconsistent model (fuzz seed 1 mutation 908, an Attention's V declared with a zero dim):
    once the view's input is a literal, the canonicalizer folds it into a constant with too few
    elements, and printing that constant faulted. It is refused before."""
    from onnx_torch_mlir.mlir_context import make_context
    from onnx_torch_mlir.transforms.linalg.empty_tensors import replace_empty_results
    from torch_mlir import ir

    text = """
    func.func @g(%arg0: !torch.vtensor<[1,0,1,6,8],f32>) -> !torch.vtensor<[1,1,6,8],f32> {
      %int1 = torch.constant.int 1
      %int6 = torch.constant.int 6
      %int8 = torch.constant.int 8
      %sizes = torch.prim.ListConstruct %int1, %int1, %int6, %int8 : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
      %0 = torch.aten.view %arg0, %sizes : !torch.vtensor<[1,0,1,6,8],f32>, !torch.list<int> -> !torch.vtensor<[1,1,6,8],f32> loc("reshape0")
      return %0 : !torch.vtensor<[1,1,6,8],f32>
    }
    """
    module = ir.Module.parse(text, make_context())
    with pytest.raises(errors.PipelineError, match=r'loc\("reshape0"\): aten.view of an empty tensor'):
        replace_empty_results(module)


def _single_node_model(node, input_shape=(3, 4), output_shape=(3, 4)):
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(input_shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(output_shape))],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


@pytest.mark.skipif(not config.is_enabled("tosa"), reason="the tosa path is switched off")
def test_dim_over_int32_on_tosa_is_refused_by_name():
    model = _single_node_model(helper.make_node("Relu", ["x"], ["y"], name="relu0"), (1, 2**31), (1, 2**31))
    with pytest.raises(errors.PipelineError, match=r'loc\("relu0".*has a dim over 2\^31 - 1'):
        onnx_torch_mlir.compile(model, "tosa")


@pytest.mark.parametrize("backend", config.enabled_backends(BACKENDS))
def test_shapes_that_do_not_broadcast_are_refused_by_name(backend):
    graph = helper.make_graph(
        [helper.make_node("BitShift", ["x", "y"], ["z"], name="shift", direction="LEFT")], "g",
        [helper.make_tensor_value_info("x", TensorProto.UINT8, [5]), helper.make_tensor_value_info("y", TensorProto.UINT8, [3])],
        [helper.make_tensor_value_info("z", TensorProto.UINT8, [3])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    # Refused at import, by ONNX's BitShift inference run per node (importer/validation.py); the
    # backend-independent check of transforms/torch/broadcast_check.py was the first to refuse it before.
    with pytest.raises(errors.OnnxTorchMlirError, match=r"node 'shift' \(BitShift\).*Incompatible dimensions.*"
                       r"'x' uint8\[5\], 'y' uint8\[3\]"):
        onnx_torch_mlir.compile(model, backend)


@pytest.mark.parametrize("attribute, expected", [
    (helper.make_attribute("axis", "last"), "attribute 'axis' is a string, but Softmax-13 defines it as an integer"),
    (helper.make_attribute("axis", [1, 2]),
     "attribute 'axis' is a list of integers, but Softmax-13 defines it as an integer"),
    (helper.make_attribute("axis", 1.5), "attribute 'axis' is a float, but Softmax-13 defines it as an integer"),
])
def test_attribute_of_the_wrong_kind_is_named(attribute, expected):
    """Refused at import against the schema (importer/node_structure.py); the node view's own check
    (OnnxNode.attr_int) covers MLIR input, test_opt.py."""
    node = helper.make_node("Softmax", ["x"], ["y"], name="sm")
    node.attribute.append(attribute)
    with pytest.raises(errors.OnnxTorchMlirError) as raised:
        onnx_torch_mlir.compile(_single_node_model(node))
    assert "node 'sm' (Softmax)" in str(raised.value) and expected in str(raised.value)
    assert "internal error" not in str(raised.value)


def test_name_that_is_not_utf8_is_refused_by_the_loader(tmp_path):
    model = _single_node_model(helper.make_node("Relu", ["x"], ["y"], name="abc"))
    path = tmp_path / "m.onnx"
    path.write_bytes(model.SerializeToString().replace(b"abc", b"a\xe1c"))
    with pytest.raises(errors.ModelLoadError, match=r"m.onnx: not an ONNX model \(a name in node b'a\\xe1c'"):
        onnx_torch_mlir.compile(str(path))


def test_fuzzer_sorts_outcomes_and_leaves_nothing(tmp_path):
    """Three mutations of Relu, one backend: every outcome is ok or a clear error naming the file."""
    results = tmp_path / "results.jsonl"
    fuzz = Path(__file__).resolve().parents[2] / "tools" / "fuzz.py"
    run = subprocess.run([sys.executable, str(fuzz), "--count", "3", "-k", "node/test_relu", "--backend",
                          "linalg-on-tensors", "--results", str(results), "--check", "--report",
                          str(tmp_path / "report.md")], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "mutations 0..2 on linalg-on-tensors" in run.stdout
    import json

    outcomes = [json.loads(line)["outcome"] for line in results.read_text().splitlines()]
    assert len(outcomes) == 3 and set(outcomes) <= {"ok", "error"}
    report = (tmp_path / "report.md").read_text()
    assert "| outcome | linalg-on-tensors |" in report
    errors_named = sum(1 for line in results.read_text().splitlines() if json.loads(line)["outcome"] == "error")
    assert re.search(r"\| error naming a node \(of error\) \| \d+ \|", report) and errors_named <= 3


def test_fuzz_report_counts_errors_that_name_a_node():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
    import fuzz

    def error(message):
        return {"outcome": "error", "backend": "tosa", "message": message, "last": ""}

    results = [
        error("onnx-torch-mlir: error: /x/model.onnx: node 'add' (Add): input 1 (B) is required"),
        error('onnx-torch-mlir: error: loc("Relu:y"("/x/model.onnx":0:0)): error: failed to legalize'),
        error("onnx-torch-mlir: error: /x/model.onnx: graph output 'y' is not produced by any node"),
    ]
    lines = fuzz._node_naming_lines(results, ["tosa"])
    assert lines[0] == "| error naming a node (of error) | 2 |"
    assert "- 1: `graph output '…' is not produced by any node`" in lines


def test_einsum_with_more_inputs_than_terms_is_refused_by_name():
    """torch-mlir's einsum decomposition ran out of memory (LLVM ERROR) on "->" with two operands."""
    graph = helper.make_graph(
        [helper.make_node("Einsum", ["x", "x"], ["y"], name="e0", equation="->")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [])], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    # Refused at import by ONNX's Einsum inference run per node (importer/validation.py); the pattern
    # refuses it too (nn.py) for MLIR input.
    with pytest.raises(errors.OnnxTorchMlirError, match=r"node 'e0' \(Einsum\).*Number of input tensors does not match"):
        onnx_torch_mlir.compile(model, "linalg-on-tensors")


def test_conv_group_zero_is_refused_by_name():
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="c0", group=0)], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 5, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 3, 3])],
        [helper.make_tensor("w", TensorProto.FLOAT, [2, 2, 3, 3], [0.5] * 36)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    with pytest.raises(errors.OnnxTorchMlirError, match=r"group must be at least 1, not 0"):
        onnx_torch_mlir.compile(model, "linalg-on-tensors")


def test_resize_of_an_empty_axis_to_sizes_is_refused_by_name():
    """seed 1 mutation 3219: `sizes` over an input dim of 0 divided by zero in the pattern."""
    sizes = helper.make_tensor("sizes", TensorProto.INT64, [4], [1, 1, 3, 3])
    graph = helper.make_graph(
        [helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], name="rs", mode="linear")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 0, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 3, 3])], initializer=[sizes],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    with pytest.raises(errors.ConversionError, match=r"node 'rs' \(Resize.*input X has size 0 on axis 2") as raised:
        onnx_torch_mlir.compile(model, "linalg-on-tensors")
    assert "internal error" not in str(raised.value)
