"""The first hour of a user (issue 26): what a newcomer runs into first, each answered by the CLI.

Nothing the user gave is ever modified; the model can come from stdin; inputs are checked
against the model before it is compiled; Ctrl-C ends a run like it ends a compile; errors stay
one line and say what the user can do.
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

BIN = Path(sys.executable).parent


def _run(*arguments, cwd=None, stdin=None, binary="onnx-torch-mlir"):
    return subprocess.run(
        [str(BIN / binary), *map(str, arguments)], capture_output=True, cwd=cwd, stdin=stdin, text=stdin is None
    )


def _stderr(result) -> str:
    return result.stderr if isinstance(result.stderr, str) else result.stderr.decode()


def _assert_one_line_error(result, *fragments, status=1):
    stderr = _stderr(result)
    assert result.returncode == status, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("onnx-torch-mlir: error: "), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def _relu_model(path: Path, shape=(2, 3)) -> Path:
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu0")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(shape))],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def _external_data_model(directory: Path) -> Path:
    weight = numpy_helper.from_array(np.arange(64 * 4, dtype=np.float32).reshape(64, 4), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])],
        [weight],
    )
    path = directory / "ext.onnx"
    onnx.save(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path,
        save_as_external_data=True, location="ext.data", size_threshold=0,
    )
    return path


@pytest.fixture
def relu(tmp_path) -> Path:
    return _relu_model(tmp_path / "relu.onnx")


# 1. Nothing the user gave is ever modified; '-' reads the model from stdin.


@pytest.mark.parametrize("command", ["import", "compile"])
@pytest.mark.parametrize("alias", ["same", "symlink", "hardlink"])
def test_output_that_is_the_model_is_refused(command, alias, relu, tmp_path):
    original = relu.read_bytes()
    given = {"same": relu, "symlink": tmp_path / "link.onnx", "hardlink": tmp_path / "hard.onnx"}[alias]
    if alias == "symlink":
        given.symlink_to(relu)
    if alias == "hardlink":
        os.link(relu, given)
    _assert_one_line_error(_run(command, given, "-o", relu), "refusing to overwrite", str(given))
    assert relu.read_bytes() == original
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted({"relu.onnx", given.name})


def test_output_that_is_the_external_data_is_refused(tmp_path):
    model = _external_data_model(tmp_path)
    data = (tmp_path / "ext.data").read_bytes()
    _assert_one_line_error(_run("compile", model, "-o", tmp_path / "ext.data"), "initializer 'w'", "ext.data")
    assert (tmp_path / "ext.data").read_bytes() == data


def test_run_save_that_is_an_input_is_refused(relu, tmp_path):
    given = tmp_path / "x.npy"
    np.save(given, np.ones((2, 3), np.float32))
    _assert_one_line_error(_run("run", relu, "--input", f"x={given}", "--save", given), "--save", "refusing")
    _assert_one_line_error(_run("run", relu, "--save", relu), "--save", "refusing")
    assert np.load(given).shape == (2, 3)


def test_opt_output_that_is_the_input_is_refused(tmp_path):
    source = tmp_path / "in.mlir"
    source.write_text("module {}\n")
    result = _run(source, "-o", source, binary="onnx-mlir-opt")
    assert result.returncode == 1 and "refusing to overwrite" in result.stderr, result.stderr
    assert source.read_text() == "module {}\n"


@pytest.mark.parametrize("command", ["import", "compile"])
def test_missing_output_directory_is_named(command, relu, tmp_path):
    output = tmp_path / "nodir" / "sub" / "out.mlir"
    _assert_one_line_error(_run(command, relu, "-o", output), "does not exist", str(output.parent))
    assert "/." not in _stderr(_run(command, relu, "-o", output))  # no temporary file's name


@pytest.mark.parametrize("command", ["import", "compile"])
def test_model_from_stdin(command, relu, tmp_path):
    with open(relu, "rb") as stream:
        from_stdin = _run(command, "-", "-o", tmp_path / "stdin.mlir", stdin=stream)
    assert from_stdin.returncode == 0, from_stdin.stderr
    from_file = _run(command, relu, "-o", tmp_path / "file.mlir")
    assert (tmp_path / "stdin.mlir").read_text() == (tmp_path / "file.mlir").read_text()


def test_model_with_external_data_on_stdin_is_refused(tmp_path):
    model = _external_data_model(tmp_path)
    with open(model, "rb") as stream:
        result = _run("compile", "-", stdin=stream)
    _assert_one_line_error(result, "<stdin>", "initializer 'w'", "ext.data", "instead of '-'")


def test_empty_stdin(tmp_path):
    with open(os.devnull, "rb") as stream:
        _assert_one_line_error(_run("import", "-", stdin=stream), "<stdin>", "empty")


# 2. Inputs from .npy and .npz files, checked against the model before it is compiled.


def _two_input_model(path: Path, domain_op=None) -> Path:
    """z = x + y with x, y float32 [batch, 3]; with `domain_op`, an op nobody converts after it."""
    nodes = [helper.make_node("Add", ["x", "y"], ["s"], name="add0")]
    nodes.append(
        helper.make_node("Mystery", ["s"], ["z"], name="mystery", domain="example.custom")
        if domain_op else helper.make_node("Identity", ["s"], ["z"], name="id0")
    )
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, ["batch", 3]) for name in ("x", "y")],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, ["batch", 3])],
    )
    opsets = [helper.make_opsetid("", 17)] + ([helper.make_opsetid("example.custom", 1)] if domain_op else [])
    onnx.save(helper.make_model(graph, opset_imports=opsets), path)
    return path


def test_inputs_from_an_npz_by_name_and_by_position(tmp_path):
    model = _two_input_model(tmp_path / "add.onnx")
    x, y = np.full((4, 3), 1.5, np.float32), np.full((4, 3), 2.0, np.float32)
    np.savez(tmp_path / "named.npz", y=y, x=x)
    np.savez(tmp_path / "positional.npz", x, y)
    for archive in ("named.npz", "positional.npz"):
        result = _run("run", model, "--input", tmp_path / archive, "--save", tmp_path / "out.npz")
        assert result.returncode == 0, result.stderr
        np.testing.assert_array_equal(np.load(tmp_path / "out.npz")["z"], x + y)


def test_save_inputs_round_trips_to_verify(tmp_path):
    model = _two_input_model(tmp_path / "add.onnx")
    np.save(tmp_path / "x.npy", np.ones((5, 3), np.float32))
    saved = tmp_path / "inputs.npz"
    result = _run("run", model, "--input", f"x={tmp_path / 'x.npy'}", "--seed", "7", "--save-inputs", saved)
    assert result.returncode == 0, result.stderr
    with np.load(saved) as inputs:
        assert sorted(inputs.files) == ["x", "y"]
        assert inputs["y"].shape == (5, 3)  # made up with the batch size x gave
    result = _run("verify", model, "--input", saved)
    assert result.returncode == 0, result.stderr
    assert "1 of 1 outputs match" in result.stdout


@pytest.mark.parametrize("command", ["run", "verify"])
def test_a_wrong_input_is_named_before_compiling(command, tmp_path):
    # The model cannot be compiled at all: the input's error must come first, from the declaration.
    model = _two_input_model(tmp_path / "custom.onnx", domain_op=True)
    np.save(tmp_path / "words.npy", np.array(["hello", "world"]))
    _assert_one_line_error(
        _run(command, model, "--input", f"x={tmp_path / 'words.npy'}"),
        "input 'x': got shape (2,) dtype <U5, the model declares float32 [batch, 3]",
    )


@pytest.mark.parametrize(
    "arrays, options, fragment",
    [
        ({"x": np.ones((4, 3))}, [], "dtype float64, the model declares float32 [batch, 3]"),
        ({"x": np.ones((4, 2), np.float32)}, [], "got shape (4, 2)"),
        ({"x": np.ones((4, 3), np.float32), "y": np.ones((2, 3), np.float32)}, [], "batch is 4 in input 'x'"),
        ({"x": np.ones((4, 3), np.float32)}, ["--dim", "batch=2"], "--dim fixes batch to 2"),
        ({"x": np.ones((4, 3), np.float32)}, ["--input-shape", "x=2x3"], "--input-shape fixes dim 0 to 2"),
    ],
)
def test_input_checks(arrays, options, fragment, tmp_path):
    model = _two_input_model(tmp_path / "add.onnx")
    np.savez(tmp_path / "inputs.npz", **arrays)
    _assert_one_line_error(_run("run", model, "--input", tmp_path / "inputs.npz", *options), fragment)


def test_an_npz_array_that_is_no_input(tmp_path):
    model = _two_input_model(tmp_path / "add.onnx")
    np.savez(tmp_path / "inputs.npz", nope=np.ones(3, np.float32))
    _assert_one_line_error(_run("run", model, "--input", tmp_path / "inputs.npz"), "array 'nope'", "inputs: x, y")


# 3. Ctrl-C while a compiled program runs ends like Ctrl-C during a compile.


def _endless_model(directory: Path) -> Path:
    """A Loop whose trip count is an input: a program that runs as long as it is told to."""
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("MatMul", ["v_in", "w"], ["product"]),
            helper.make_node("Tanh", ["product"], ["v_out"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
            helper.make_tensor_value_info("v_in", TensorProto.FLOAT, [64, 64]),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("v_out", TensorProto.FLOAT, [64, 64]),
        ],
    )
    graph = helper.make_graph(
        [helper.make_node("Loop", ["trips", "", "v"], ["y"], body=body, name="loop")],
        "g",
        [
            helper.make_tensor_value_info("trips", TensorProto.INT64, []),
            helper.make_tensor_value_info("v", TensorProto.FLOAT, [64, 64]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [64, 64])],
        [numpy_helper.from_array(np.eye(64, dtype=np.float32), "w")],
    )
    path = directory / "endless.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    np.save(directory / "few.npy", np.array(3, np.int64))
    np.save(directory / "endless.npy", np.array(10**15, np.int64))
    return path


@pytest.mark.parametrize("command, to", [("run", "group"), ("run", "parent"), ("verify", "group")])
def test_ctrl_c_while_the_program_runs(command, to, tmp_path):
    import signal
    import time

    model = _endless_model(tmp_path)
    started = time.monotonic()
    warm_up = _run("run", model, "--input", f"trips={tmp_path / 'few.npy'}")
    assert warm_up.returncode == 0, warm_up.stderr
    until_running = 2 * (time.monotonic() - started) + 2  # the same program, compiled as long again
    save = ["--save", tmp_path / "out.npz"] if command == "run" else []
    process = subprocess.Popen(
        [str(BIN / "onnx-torch-mlir"), command, str(model), "--input", f"trips={tmp_path / 'endless.npy'}",
         *map(str, save)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    time.sleep(until_running)
    if to == "group":  # as Ctrl-C at a terminal does
        os.killpg(process.pid, signal.SIGINT)
    else:
        os.kill(process.pid, signal.SIGINT)
    try:
        stdout, stderr = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail("the program ran on after Ctrl-C")
    assert process.returncode == 130, stderr
    assert stderr == "onnx-torch-mlir: error: interrupted\n"
    assert stdout == ""
    assert sorted(path.name for path in tmp_path.iterdir()) == ["endless.npy", "endless.onnx", "few.npy"]


@pytest.mark.parametrize("command", ["import", "compile"])
def test_ctrl_c_at_any_moment_is_one_line(command, tmp_path):
    """While the tool starts, forks, imports or compiles: the interrupted line and 130 (or, too
    late, the normal end), never a traceback, a lost line or a crash report.

    The delays count from the moment the tool's own code runs: before that the Python interpreter
    is starting (site, codecs, the console script's imports) and a Ctrl-C there is the
    interpreter's, with its own traceback, whatever the program. That start-up is measured here
    with `--version`, so a loaded machine moves the delays instead of failing the test."""
    import signal
    import time

    model = _endless_model(tmp_path)
    output = tmp_path / "out.mlir"
    started = time.monotonic()
    subprocess.run([str(BIN / "onnx-torch-mlir"), "--version"], capture_output=True, check=True)
    start_up = time.monotonic() - started
    for delay in (start_up + extra for extra in (0.0, 0.4, 0.7, 1.0, 1.3, 1.8)):
        process = subprocess.Popen(
            [str(BIN / "onnx-torch-mlir"), command, str(model), "-o", str(output)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        )
        time.sleep(delay)
        os.killpg(process.pid, signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
        if process.returncode == 0:
            output.unlink()
            continue
        assert (process.returncode, stderr) == (130, "onnx-torch-mlir: error: interrupted\n"), delay
        assert not output.exists()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["endless.npy", "endless.onnx", "few.npy"]


def test_ctrl_c_in_the_python_api_is_a_keyboard_interrupt_after_the_call(tmp_path):
    """Not isolated, the call cannot be stopped, but the interrupt is not lost in a callback."""
    model = _endless_model(tmp_path)
    script = f"""
import os, signal, threading, numpy as np, onnx
from onnx_torch_mlir.runtime.backend import OnnxTorchMlirBackend
prepared = OnnxTorchMlirBackend.prepare(onnx.load({str(model)!r}), backend="linalg-on-tensors")
prepared.run([np.array(3, np.int64), np.ones((64, 64), np.float32)])
threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
try:
    prepared.run([np.array(6000, np.int64), np.ones((64, 64), np.float32)])
except KeyboardInterrupt:
    print("KeyboardInterrupt")
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert result.stdout == "KeyboardInterrupt\n", result.stderr
    assert "Exception ignored" not in result.stderr and "did not deliver" not in result.stderr


# 4. Errors that keep the one-line promise and say what to do.

COMMANDS_TAKING_A_MODEL = ["import", "compile", "run", "verify"]
LFS_POINTER = (
    "version https://git-lfs.github.com/spec/v1\n"
    "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 98765\n"
)


@pytest.mark.parametrize("command", COMMANDS_TAKING_A_MODEL)
def test_missing_external_data_file(command, tmp_path):
    model = _external_data_model(tmp_path)
    (tmp_path / "ext.data").unlink()
    result = _run(command, model)
    _assert_one_line_error(result, f"{model}: initializer 'w': external data file 'ext.data' not found")
    assert _stderr(result).count("initializer 'w'") == 1


@pytest.mark.parametrize("command", COMMANDS_TAKING_A_MODEL)
def test_git_lfs_pointer_instead_of_the_model(command, tmp_path):
    model = tmp_path / "model.onnx"
    model.write_text(LFS_POINTER)
    _assert_one_line_error(_run(command, model), str(model), "Git LFS pointer", "git lfs pull")


@pytest.mark.parametrize("command", ["compile", "run"])
def test_git_lfs_pointer_instead_of_the_external_data(command, tmp_path):
    model = _external_data_model(tmp_path)
    (tmp_path / "ext.data").write_text(LFS_POINTER)
    _assert_one_line_error(_run(command, model), "initializer 'w'", "'ext.data' is a Git LFS pointer")


def test_torch_mlir_importer_warnings_are_one_line(tmp_path):
    graph = helper.make_graph(
        [
            helper.make_node("Mystery", ["x"], ["t"], name="mystery", domain="example.custom"),
            helper.make_node("Relu", ["t"], ["y"], name="relu0"),
        ],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    model = tmp_path / "custom.onnx"
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("example.custom", 1)]
    onnx.save(helper.make_model(graph, opset_imports=opsets), model)
    result = _run("compile", model, "--importer", "torch-mlir", "--converter", "torch-mlir")
    assert result.returncode == 1
    assert "UserWarning" not in result.stderr and "warnings.warn" not in result.stderr, result.stderr
    assert all(line.startswith("onnx-torch-mlir: ") for line in result.stderr.splitlines()), result.stderr
    assert "onnx-torch-mlir: warning: torch-mlir importer: Found a node without a valid type proto" in result.stderr


# 5. Small inconsistencies: --to linalg, compile --print-locations, the README's examples run.

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.mark.parametrize("command", ["compile", "run", "verify"])
def test_to_linalg_is_short_for_linalg_on_tensors(command, relu, tmp_path):
    output = ["-o", tmp_path / "out.mlir"] if command == "compile" else []
    result = _run(command, relu, "--to", "linalg", *output)
    assert result.returncode == 0, result.stderr
    if command == "compile":
        assert "linalg.generic" in (tmp_path / "out.mlir").read_text()
    else:
        assert "(linalg-on-tensors)" in result.stdout


def test_python_api_takes_linalg_as_short_for_linalg_on_tensors(relu):
    from onnx_torch_mlir import compile as compile_model

    assert "linalg.generic" in str(compile_model(str(relu), output_type="linalg"))


def test_compile_help_says_what_the_default_output_is_and_names_bytecode():
    result = _run("compile", "--help")
    assert result.returncode == 0
    assert "Without --to the output is the Torch dialect" in result.stdout
    assert "--emit-bytecode" in result.stdout.split("positional arguments")[0]  # in the description, too
    assert "--print-locations" in result.stdout


def test_compile_prints_locations(relu, tmp_path):
    plain = _run("compile", relu, "--to", "linalg")
    located = _run("compile", relu, "--to", "linalg", "--print-locations")
    assert located.returncode == 0, located.stderr
    assert "loc(" not in plain.stdout
    assert 'loc("relu0"' in located.stdout


def _readme_blocks(language: str) -> list[str]:
    blocks, inside, lines = [], None, []
    for line in README.read_text().splitlines():
        if inside is None and line.startswith("```"):
            inside, lines = line[3:].strip(), []
        elif inside is not None and line.startswith("```"):
            if inside == language:
                blocks.append("\n".join(lines))
            inside = None
        elif inside is not None:
            lines.append(line)
    return blocks


def test_readme_python_block_runs(tmp_path):
    (block,) = _readme_blocks("python")
    _relu_model(tmp_path / "model.onnx", shape=(1, 3, 224, 224))
    check = (
        "\nexpected = np.maximum(x, 0)"
        "\nassert all(np.array_equal(output, expected) for output in outputs), outputs"
        "\nassert np.array_equal(compile_for_cpu(module)(x)[0], expected)"
        "\nprint('README OK')"
    )
    result = subprocess.run([sys.executable, "-c", block + check], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith("README OK\n")


def _readme_command_lines() -> list[str]:
    """The command lines of the README's sh blocks that are commands, not synopses (no [x] or a|b),
    and cheap (not the conformance run or the demo's download of a zoo model)."""
    lines = []
    for block in _readme_blocks("sh"):
        for line in block.splitlines():
            command = line.split("  #")[0].strip()
            if not command.startswith(".venv/bin/") or "[" in command or "|" in command:
                continue
            if " conformance" in command or " demo" in command:
                continue
            lines.append(command)
    return lines


def test_readme_command_lines_run(tmp_path):
    import shlex

    # A model with a symbolic dim `batch` and an input `attention_mask`, and example inputs
    # `inputs.npz`, as the README's lines name.
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "attention_mask"], ["y"], name="add0")],
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 12]),
            helper.make_tensor_value_info("attention_mask", TensorProto.FLOAT, ["batch", 12]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 12])],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), tmp_path / "model.onnx")
    np.savez(tmp_path / "inputs.npz", x=np.ones((2, 12), np.float32), attention_mask=np.ones((2, 12), np.float32))
    imported = _run("import", "model.onnx", "--form", "onnx", "-o", "model.mlir", cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr
    from onnx_torch_mlir import config

    lines = _readme_command_lines()
    assert len(lines) >= 6, lines
    disabled = set(config.disabled_paths())
    for line in lines:
        if any(f"--to {path}" in line for path in disabled):
            continue  # a switched-off backend path refuses, as documented
        words = shlex.split(line)
        result = _run(*words[1:], cwd=tmp_path, binary=Path(words[0]).name)
        assert result.returncode == 0, f"{line}: {result.stderr}"


# 6. Large outputs: a module written as text with large weights suggests --emit-bytecode.


def _weighty_model(path: Path) -> Path:
    weight = numpy_helper.from_array(np.random.default_rng(0).standard_normal((256, 256)).astype(np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 256])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 256])],
        [weight],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


@pytest.mark.parametrize("command", ["import", "compile"])
def test_large_text_output_suggests_bytecode(command, tmp_path, monkeypatch, capsys):
    """In-process (main(argv) runs unisolated), with the threshold lowered to this model's 256 KiB of weights."""
    from onnx_torch_mlir.tools import cli_support
    from onnx_torch_mlir.tools.main import main

    model = _weighty_model(tmp_path / "weighty.onnx")
    monkeypatch.setattr(cli_support, "LARGE_TEXT_BYTES", 256 * 1024)
    assert main([command, str(model), "-o", str(tmp_path / "out.mlir")]) == 0
    warning = capsys.readouterr().err.strip().splitlines()
    assert len(warning) == 1 and warning[0].startswith("onnx-torch-mlir: warning: wrote "), warning
    assert "--emit-bytecode" in warning[0]
    assert main([command, str(model), "-o", str(tmp_path / "out.mlirbc"), "--emit-bytecode"]) == 0
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(cli_support, "LARGE_TEXT_BYTES", 2 * 256 * 1024 * 4)  # above this model's text
    assert main([command, str(model), "-o", str(tmp_path / "out.mlir")]) == 0
    assert capsys.readouterr().err == ""
