"""Every command answers bad input with one line on stderr and a non-zero exit."""

import subprocess
import sys
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

BIN = Path(sys.executable).parent
COMMANDS_TAKING_A_MODEL = ["import", "compile", "run", "verify"]


def _run(*arguments, cwd=None):
    return subprocess.run([str(BIN / "onnx-torch-mlir"), *arguments], capture_output=True, text=True, cwd=cwd)


def _assert_one_line_error(result, *fragments):
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("onnx-torch-mlir"), lines[0]
    assert "error:" in lines[0]
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


@pytest.fixture(scope="module")
def good_model(tmp_path_factory) -> Path:
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu0")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
    )
    path = tmp_path_factory.mktemp("models") / "relu.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def test_help_lists_every_subcommand():
    result = _run("--help")
    assert result.returncode == 0
    for command in COMMANDS_TAKING_A_MODEL + ["conformance", "demo"]:
        assert command in result.stdout


def test_version():
    result = _run("--version")
    assert result.returncode == 0 and result.stdout.startswith("onnx-torch-mlir ")


def test_no_command_prints_help_and_fails():
    result = _run()
    assert result.returncode == 2 and "usage:" in result.stderr


def test_unknown_subcommand():
    _assert_one_line_error(_run("frobnicate"), "frobnicate")


@pytest.mark.parametrize("command", COMMANDS_TAKING_A_MODEL)
def test_unknown_flag(command, good_model):
    _assert_one_line_error(_run(command, str(good_model), "--no-such-flag"), "--no-such-flag")


@pytest.mark.parametrize("command", COMMANDS_TAKING_A_MODEL)
def test_missing_file(command, tmp_path):
    missing = tmp_path / "absent.onnx"
    _assert_one_line_error(_run(command, str(missing)), str(missing))


@pytest.mark.parametrize("command", COMMANDS_TAKING_A_MODEL)
def test_not_an_onnx_file(command, tmp_path):
    path = tmp_path / "notes.onnx"
    path.write_text("this is not a protobuf, just some text\n" * 4)
    _assert_one_line_error(_run(command, str(path)), str(path))


@pytest.mark.parametrize("command", COMMANDS_TAKING_A_MODEL)
def test_truncated_file(command, good_model, tmp_path):
    path = tmp_path / "truncated.onnx"
    path.write_bytes(good_model.read_bytes()[:-7])
    _assert_one_line_error(_run(command, str(path)), str(path))


def test_compile_failure_leaves_no_output_file(tmp_path):
    graph = helper.make_graph(
        [helper.make_node("NoSuchOp", ["x"], ["y"], name="mystery", domain="example.custom")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    model_path = tmp_path / "custom.onnx"
    onnx.save(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("example.custom", 1)]),
        model_path,
    )
    output = tmp_path / "out.mlir"
    result = _run("compile", str(model_path), "--to", "linalg-on-tensors", "-o", str(output))
    assert result.returncode != 0
    assert "mystery" in result.stderr and "Traceback" not in result.stderr
    assert not output.exists()
    assert list(tmp_path.iterdir()) == [model_path]


def test_run_prints_outputs(good_model):
    result = _run("run", str(good_model), "--seed", "3")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("y: float32[2, 3]")


def test_run_rejects_an_unknown_input_name(good_model):
    _assert_one_line_error(_run("run", str(good_model), "--input", "nope=x.npy"), "nope")


def test_verify_against_onnxruntime(good_model):
    result = _run("verify", str(good_model))
    assert result.returncode == 0, result.stderr
    assert "1 of 1 outputs match onnxruntime" in result.stdout


def test_conformance_with_a_filter_that_matches_nothing():
    _assert_one_line_error(_run("conformance", "-k", "no/such/case"), "no conformance case")


def test_verify_with_iree_as_the_consumer(good_model):
    result = _run("verify", str(good_model), "--consumer", "iree")
    assert result.returncode == 0, result.stderr
    assert "1 of 1 outputs match onnxruntime (linalg-on-tensors on IREE)" in result.stdout


def test_iree_flags_reach_iree(good_model):
    passed = _run("verify", str(good_model), "--consumer", "iree", "--iree-flag=--iree-opt-data-tiling=true")
    assert passed.returncode == 0, passed.stderr
    _assert_one_line_error(_run("verify", str(good_model), "--consumer", "iree", "--iree-flag=--no-such-iree-flag"),
                           "no-such-iree-flag")


def test_run_with_iree_as_the_consumer(good_model):
    result = _run("run", str(good_model), "--seed", "3", "--consumer", "iree")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("y: float32[2, 3]")
    assert "(linalg-on-tensors on IREE)" in result.stdout
