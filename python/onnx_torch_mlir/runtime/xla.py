"""XLA as a consumer of our StableHLO: what a StableHLO user runs.

    module = onnx_torch_mlir.compile(model, output_type="stablehlo", entry_name="main", weights="inline")
    program = compile_with_xla(module)
    outputs = program(x)                      # a list of numpy arrays

XLA is reached through jax/jaxlib's CPU client (`jax.extend.backend.get_backend("cpu")`,
`compile_and_load`). It takes the module as a StableHLO *portable artifact* (versioned VHLO
bytecode) written for the StableHLO version jaxlib was built with: torch-mlir's StableHLO is newer
than jaxlib's (1.19 against 1.17 at today's pins), and the artifact is the form StableHLO promises
to read across versions, where text is not. XLA looks for a public function named `main` and takes
only literal constants: the module must be compiled with `entry_name="main"` and
`weights="inline"` (command line: `--entry-name main --weights inline`); a module that is not is
refused here with that hint, not handed on to fail inside XLA.

Arguments go to the device with `jax.device_put` inside `jax.enable_x64(True)`, which keeps int64
and float64 as they are (outside it, jax narrows them to 32 bits); the caller's own jax setting is
left as it was.

Every failure is an `XlaError` whose one-line message says the stage ("XLA compile" or "XLA run")
and the first line of XLA's diagnostic.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ..errors import OnnxTorchMlirError
from ..ir_walk import has_op


class XlaError(OnnxTorchMlirError):
    """XLA refused or failed to run a module."""


def _client():
    try:
        from jax.extend import backend
    except ImportError as error:
        raise XlaError(f"XLA is not installed ({error}); pip install 'onnx-torch-mlir[xla]'") from None
    return backend.get_backend("cpu")


def xla_stablehlo_version() -> str:
    """The StableHLO version jaxlib's XLA reads."""
    from jaxlib.mlir.dialects import stablehlo

    return stablehlo.get_current_version()


def _first_line(error: Exception) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__


def _check_form(module: ir.Module) -> None:
    from ..transforms.output_form import entry_function, resource_attribute_names

    from ..mlir_passes import dynamic_signature_reason

    reason = dynamic_signature_reason(module, "XLA compiles static shapes", "StableHLO")
    if reason:
        raise XlaError(f"XLA compile: {reason}")
    entry = entry_function(module)
    name = ir.StringAttr(entry.attributes["sym_name"]).value
    if name != "main":
        raise XlaError(f"XLA compile: the entry function is @{name}; XLA runs @main "
                       "(compile with entry_name='main', command line --entry-name main)")
    if has_op(module, resource_attribute_names):
        raise XlaError("XLA compile: the module keeps its weights as resources; XLA takes literal constants "
                       "(compile with weights='inline', command line --weights inline)")


class XlaProgram:
    """A module compiled by XLA for the CPU; call it with numpy arrays, one per argument."""

    def __init__(self, executable, client):
        self._executable = executable
        self._client = client

    def __call__(self, *inputs) -> list[np.ndarray]:
        import jax

        device = self._client.devices()[0]
        try:
            with jax.enable_x64(True):
                buffers = [jax.device_put(np.ascontiguousarray(value), device) for value in inputs]
            results = self._executable.execute_sharded(buffers)
            return [np.asarray(arrays[0]) for arrays in results.disassemble_into_single_device_arrays()]
        except Exception as error:  # XLA's runtime errors are XlaRuntimeError or ValueError
            raise XlaError(f"XLA run: {_first_line(error)}") from None


def compile_with_xla(module: ir.Module) -> XlaProgram:
    """Compile `module` (StableHLO, entry @main, literal constants) with XLA's CPU client."""
    from ..transforms.output_form import portable_artifact

    _check_form(module)
    client = _client()
    from jax._src.lib import xla_client

    artifact = portable_artifact(module, xla_stablehlo_version())
    try:
        executable = client.compile_and_load(artifact, client.devices()[:1], xla_client.CompileOptions())
    except Exception as error:
        raise XlaError(f"XLA compile: {_first_line(error)}") from None
    return XlaProgram(executable, client)
