"""Arm's Vela (the Ethos-U compiler) as a consumer of our TOSA: where an NPU user's graph runs.

    module = onnx_torch_mlir.compile(model, output_type="tosa", quantized_io="int8")
    placement = compile_with_vela(module)            # accelerator="ethos-u85-256"
    placement.npu_operators, placement.cpu_operators, placement.every_operator_on_the_npu

Vela reads the TOSA flatbuffer (written by `tosa_reference.serialize`, after tosa-validate) and
compiles it to an Ethos-U command stream; an operator it cannot map to the NPU is left to the host
CPU, and its summary counts both ("CPU operators = 0 (0.0%)", "NPU operators = 96 (100.0%)");
when some went to the CPU, a second run with `--show-cpu-operations` names them (`cpu_operations`).
Vela 5.2 takes TOSA's integer profile only: a float tensor (or an int64 one) makes it refuse the
whole graph, and that refusal is a `VelaError`. Vela does not run the graph: the numbers of an
integer TOSA graph are checked on the TOSA reference model (`tosa_reference.py`).

Every failure is a `VelaError` whose one-line message starts with "Vela (<accelerator>)" and gives
Vela's own reason, its validation report joined on one line ("Add: Input data type not supported
for this operator; Clamp: ..."). A module that cannot be serialized raises `TosaReferenceError`
from `serialize` ("TOSA validate ..." or "TOSA serialize ...") before Vela sees it.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from torch_mlir import ir

from ..errors import OnnxTorchMlirError

VELA_PIN = "ethos-u-vela==5.2.0"
DEFAULT_ACCELERATOR = "ethos-u85-256"
_MESSAGE_LIMIT = 400


class VelaError(OnnxTorchMlirError):
    """Vela is missing, refused the graph or failed to compile it."""


@dataclasses.dataclass(frozen=True)
class VelaPlacement:
    """Where Vela put a graph's operators: counts from its summary and the operators left to the CPU."""

    accelerator: str
    npu_operators: int
    cpu_operators: int
    cpu_operations: tuple[str, ...] = ()

    @property
    def every_operator_on_the_npu(self) -> bool:
        return self.cpu_operators == 0

    def summary(self) -> str:
        """Vela's two summary lines on one line, and the first operators it left to the CPU."""
        total = max(self.npu_operators + self.cpu_operators, 1)
        text = (f"CPU operators = {self.cpu_operators} ({self.cpu_operators / total:.1%}), "
                f"NPU operators = {self.npu_operators} ({self.npu_operators / total:.1%})")
        if self.cpu_operations:
            shown = ", ".join(self.cpu_operations[:3]) + (", ..." if len(self.cpu_operations) > 3 else "")
            text += f"; on the CPU: {shown}"
        return text


def vela_path() -> Path:
    """The `vela` command: next to this interpreter (a virtual environment), else on PATH."""
    beside = Path(sys.executable).parent / "vela"
    found = beside if beside.is_file() else shutil.which("vela")
    if not found:
        raise VelaError(f"Vela: vela is not installed; pip install {VELA_PIN}")
    return Path(found)


def refusal(stderr: str) -> str:
    """Vela's reason for a failed compile on one line: the last exception's message, its validation
    report's operators and reasons joined ("Add: Input data type not supported ...; Clamp: ...")."""
    lines = [line.rstrip() for line in stderr.splitlines() if line.strip()]
    starts = [index for index, line in enumerate(lines) if re.match(r"^[A-Za-z_.]*(Error|Exception)\b.*:", line)]
    if not starts:
        return lines[-1].strip() if lines else "no diagnostic"
    message = lines[starts[-1]].split(": ", 1)[-1].strip()
    message = re.sub(r"^Compilation failed:\s*", "", message)
    groups: list[list[str]] = []  # an operator's heading ("Add:", or none) and its reasons, per report entry
    for line in lines[starts[-1] + 1:]:
        item = line.strip()
        if not item.startswith("- "):
            groups.append([item])
        elif not item[2:].startswith("Invalid argument"):  # the operand; the next reason says why
            if not groups:
                groups.append([""])
            groups[-1].append(item[2:].strip())
    entries = list(dict.fromkeys(" ".join(part for part in (group[0], ", ".join(group[1:])) if part) for group in groups))
    text = " ".join(part for part in (message, "; ".join(entries)) if part)
    return text if len(text) <= _MESSAGE_LIMIT else text[: _MESSAGE_LIMIT - 3] + "..."


def placement_from_summary(stdout: str, accelerator: str) -> VelaPlacement:
    """The operator counts of Vela's network summary (and, with --show-cpu-operations, the CPU's operators)."""
    counts = {}
    for unit in ("CPU", "NPU"):
        found = re.search(rf"^{unit} operators = (\d+) \(", stdout, re.MULTILINE)
        if found is None:
            last = [line for line in stdout.splitlines() if line.strip()]
            raise VelaError(f"Vela ({accelerator}): no '{unit} operators' line in its summary"
                            + (f"; it printed: {last[-1].strip()}" if last else ""))
        counts[unit] = int(found.group(1))
    operations = tuple(match.strip() for match in re.findall(r"^\s+CPU: (.*)$", stdout, re.MULTILINE))
    return VelaPlacement(accelerator, counts["NPU"], counts["CPU"], operations)


def _run_vela(path: Path, accelerator: str, output: Path, timeout: float | None, *options: str) -> str:
    """Vela's standard output for the flatbuffer at `path`; a VelaError when it fails."""
    command = [str(vela_path()), str(path), "--accelerator-config", accelerator, "--output-dir", str(output), *options]
    try:
        completed = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise VelaError(f"Vela ({accelerator}): no result within {timeout:.0f} s") from None
    if completed.returncode != 0:
        raise VelaError(f"Vela ({accelerator}): {refusal(completed.stderr or completed.stdout)}")
    return completed.stdout


def compile_flatbuffer_with_vela(path: str | Path, accelerator: str = DEFAULT_ACCELERATOR,
                                 output_directory: str | Path | None = None, timeout: float | None = None) -> VelaPlacement:
    """Run Vela on the TOSA flatbuffer at `path`; its placement. The command stream and summary CSV go to
    `output_directory` (a temporary directory, removed, when None).

    The counts are those of the plain command (what a user sees; `--show-cpu-operations` counts some
    graphs' operators differently: a transpose, max-pool, transpose graph is 2 operators without it and 3
    with it), so that option is used only in a second run, when some operator went to the CPU, to name them.
    """
    with tempfile.TemporaryDirectory(prefix="vela-") as scratch:
        output = Path(output_directory or scratch)
        placement = placement_from_summary(_run_vela(Path(path), accelerator, output, timeout), accelerator)
        if placement.every_operator_on_the_npu:
            return placement
        listed = placement_from_summary(_run_vela(Path(path), accelerator, Path(scratch) / "listed", timeout,
                                                  "--show-cpu-operations"), accelerator)
    return dataclasses.replace(placement, cpu_operations=listed.cpu_operations)


def compile_with_vela(module: ir.Module, accelerator: str = DEFAULT_ACCELERATOR,
                      output_directory: str | Path | None = None, timeout: float | None = None) -> VelaPlacement:
    """Serialize `module` (TOSA, static shapes; integer for Vela to take it) to the TOSA flatbuffer and
    compile it with Vela for `accelerator` (`vela --accelerator-config`); where its operators went."""
    from .tosa_reference import serialize

    with tempfile.TemporaryDirectory(prefix="vela-serialize-") as directory:
        path = Path(directory) / "model.tosa"
        serialize(module, path)
        try:
            return compile_flatbuffer_with_vela(path, accelerator, output_directory, timeout)
        except VelaError as error:
            note = _not_integer_note(module)
            if note:
                raise VelaError(f"{error}; {note}") from None
            raise


_NOT_INTEGER = ("f16", "bf16", "f32", "f64", "i64")


def _not_integer_note(module: ir.Module) -> str | None:
    """Which TOSA operators of `module` compute in float or int64, naming the first one's ONNX node (None
    when none do): Vela takes the integer profile only, and some of its refusals ("Failed to create ERF
    operation", "Unknown data type") name no operator."""
    found: list[tuple[ir.Operation, set[str]]] = []

    def visit(operation: ir.Operation) -> ir.WalkResult:
        operation = operation.operation
        if operation.name.startswith("tosa.") and operation.name not in ("tosa.const", "tosa.const_shape"):
            kinds = {_element_type(value.type) for value in [*operation.operands, *operation.results]}
            if kinds & set(_NOT_INTEGER):
                found.append((operation, kinds & set(_NOT_INTEGER)))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    if not found:
        return None
    first = found[0][0]
    kinds = sorted(set().union(*(kinds for _, kinds in found)))
    return (f"{len(found)} operators compute in {' or '.join(kinds)}, which Vela takes on no unit (the first: "
            f"{first.name} from {_node(first)}); ops a quantizer left in float stay in float")


def _element_type(value_type: ir.Type) -> str:
    return str(value_type.element_type) if isinstance(value_type, ir.ShapedType) else str(value_type)


def _node(operation: ir.Operation) -> str:
    match = re.search(r'loc\("([^"]*)"', str(operation.location))
    return f"node '{match.group(1)}'" if match else "an unnamed node"
