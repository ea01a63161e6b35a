"""What a command loads before it works: the start-up cost, guarded by structure rather than by time.

`onnx-torch-mlir --version` and `--help` load none of numpy, onnx or MLIR; `compile` does not load the
runner, the conformance machinery, onnxruntime, IREE or PyTorch. Each check runs in a fresh
interpreter so that modules other tests imported do not count (docs/performance.md, the notes,
measures what they cost).
"""

import json
import subprocess
import sys
import textwrap

import onnx
import pytest
from onnx import TensorProto, helper

# Never needed to compile: the runner and what only running or checking a model needs.
NOT_FOR_COMPILE = (
    "onnxruntime",
    "iree",
    "torch",  # PyTorch, not torch_mlir
    "onnx.reference",
    "onnx_torch_mlir.runtime",
    "onnx_torch_mlir.conformance",
    "onnx_torch_mlir.tools.model_inputs",
    "multiprocessing",
)
# Not needed to answer --version or --help, nor to parse a `compile` command line (that is
# the process that forks the compiling child and waits for it).
NOT_FOR_PARSING = NOT_FOR_COMPILE + ("onnx", "onnx_torch_mlir.compiler", "onnx_torch_mlir.importer")
NOT_FOR_VERSION = NOT_FOR_PARSING + ("numpy", "torch_mlir", "onnx_torch_mlir.pipelines")


def _loaded_after(code: str) -> list[str]:
    """The modules loaded in a fresh interpreter after running `code`."""
    program = textwrap.dedent(code) + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def _loaded(modules: list[str], packages) -> list[str]:
    return [name for name in modules if any(name == package or name.startswith(package + ".") for package in packages)]


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_load_no_compiler_library(flag):
    modules = _loaded_after(f"""
        import contextlib, io
        from onnx_torch_mlir.tools.main import main
        with contextlib.redirect_stdout(io.StringIO()) as output, contextlib.suppress(SystemExit):
            main(["{flag}"])
        assert "onnx-torch-mlir" in output.getvalue()
    """)
    assert _loaded(modules, NOT_FOR_VERSION) == []


def test_parsing_a_compile_command_loads_neither_onnx_nor_the_runner():
    modules = _loaded_after("""
        from onnx_torch_mlir.tools import main
        words = ["compile", "model.onnx", "--to", "linalg-on-tensors"]
        parser = main.build_parser(main._load_subcommands(), main.chosen_subcommand(words))
        assert parser.parse_args(words).output_type == "linalg-on-tensors"
    """)
    assert _loaded(modules, NOT_FOR_PARSING) == []


def test_compile_loads_neither_the_runner_nor_onnxruntime_nor_iree(tmp_path):
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu0")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
    )
    model, output = tmp_path / "relu.onnx", tmp_path / "relu.mlirbc"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), model)
    modules = _loaded_after(f"""
        from onnx_torch_mlir.tools.main import main
        status = main(["compile", {str(model)!r}, "--to", "linalg-on-tensors", "--emit-bytecode", "-o", {str(output)!r}])
        assert status == 0, status
    """)
    assert output.stat().st_size > 0
    assert "onnx_torch_mlir.conversion" in modules  # the compile did run, in this process
    assert _loaded(modules, NOT_FOR_COMPILE) == []
    assert "torch_mlir.dialects.tosa" not in modules  # TOSA's op classes, for a compile to Linalg


def test_every_subcommand_still_builds_its_arguments():
    """Only the named subcommand's arguments are built; each one still builds (and parses --help)."""
    from onnx_torch_mlir.tools import main

    modules = main._load_subcommands()
    for name in main.SUBCOMMANDS:
        parser = main.build_parser(modules, name)
        with pytest.raises(SystemExit) as exit_:
            parser.parse_args([name, "--help"])
        assert exit_.value.code == 0
