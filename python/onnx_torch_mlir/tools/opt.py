"""`onnx-mlir-opt`: run our passes and torch-mlir's over MLIR files, like `mlir-opt`.

    onnx-mlir-opt model.mlir --convert-onnx-to-torch-pipeline --convert-torch-to-linalg -o out.mlir

Passes run in command-line order. The input may be either ONNX spelling
(torch-ONNX or the ONNX dialect), text or bytecode. Errors are printed as
`file:line:col: error: message`, all of them, and the exit status is 1.
"""

from __future__ import annotations

import argparse
import re
import sys

from torch_mlir import ir

from .. import __version__
from ..isolation import begin_step
from ..errors import OnnxTorchMlirError
from ..mlir_passes import TORCH_TO_BACKEND
from .cli_support import (
    EXIT_ERROR, EXIT_OK, OneLineErrorParser, atomic_output, check_output_path, fail, run_guarded, warn_if_large_text,
)

PROG = "onnx-mlir-opt"
SPLIT_MARKER = "// -----"

# Backend flags -> backend; each runs torch-mlir's pipeline in mlir_passes.TORCH_TO_BACKEND.
BACKEND_BACKENDS = {
    "convert-torch-to-linalg": "linalg-on-tensors",
    "convert-torch-to-tosa": "tosa",
    "convert-torch-to-stablehlo": "stablehlo",
}
PIPELINE_FLAG = "convert-onnx-to-torch-pipeline"
_FILE_LOC = re.compile(r'loc\("((?:[^"\\]|\\.)*)":(\d+):(\d+)\)')


class _AppendStep(argparse.Action):
    """Record a pass flag in the shared, ordered `steps` list."""

    def __init__(self, option_strings, dest, step=None, **kwargs):
        self.step = step
        super().__init__(option_strings, dest="steps", **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        steps = getattr(namespace, "steps", None) or []
        steps.append((self.step, values))
        namespace.steps = steps


def build_parser() -> OneLineErrorParser:
    from ..conversion.passes import OUR_PASSES

    parser = OneLineErrorParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("input", nargs="?", default="-", help="input MLIR file (text or bytecode); '-' for stdin")
    parser.add_argument("-o", dest="output", default="-", help="output file ('-' for stdout, the default)")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument("--split-input-file", action="store_true",
                        help=f"process each '{SPLIT_MARKER}'-separated chunk of the input on its own")
    parser.add_argument("--emit-bytecode", action="store_true", help="write MLIR bytecode instead of text")
    parser.add_argument("--list-steps", action="store_true", help="print every backend's route, step by step, and exit")
    parser.add_argument("--mlir-print-ir-after-all", action="store_true", help="print the IR after each pass (stderr)")
    parser.add_argument("--mlir-print-ir-before-all", action="store_true", help="print the IR before each pass (stderr)")
    parser.add_argument("--mlir-print-debuginfo", action="store_true", help="print locations in the output")
    parser.add_argument("--mlir-print-generic", action="store_true", help="print ops in generic form")
    parser.add_argument("--backend-legal-ops", default="",
                        help="comma-separated torch ops kept undecomposed by the pipeline (aten.foo,...); the "
                        "--convert-torch-to-* flags turn them into the backend's custom ops")
    parser.add_argument("--custom-op-encoding", default="operands", choices=("operands", "attributes"),
                        help="custom ops' non-tensor arguments as constant operands (default) or JSON attributes")
    from .. import config

    config.add_disable_argument(parser)
    parser.set_defaults(steps=[])
    passes = parser.add_argument_group("passes (run in command-line order)")
    passes.add_argument(f"--{PIPELINE_FLAG}", action=_AppendStep, nargs=0, step=PIPELINE_FLAG,
                        help="ONNX (either spelling) to torch-mlir's Torch backend contract")
    for argument, our_pass in OUR_PASSES.items():
        passes.add_argument(f"--{argument}", action=_AppendStep, nargs=0, step=argument, help=our_pass.description)
    for flag, backend in BACKEND_BACKENDS.items():
        passes.add_argument(f"--{flag}", action=_AppendStep, nargs=0, step=flag,
                            help=f"Torch backend contract to the backend (torch-mlir's {TORCH_TO_BACKEND[backend]})")
    passes.add_argument("--step", action=_AppendStep, step="route-step", metavar="NAME",
                        help="one named step of a backend's route (pipelines.ROUTES; --list-steps names them)")
    passes.add_argument("--pass-pipeline", action=_AppendStep, step="textual", metavar="PIPELINE",
                        help="any textual MLIR pass pipeline element(s) understood by torch-mlir, e.g. "
                        "'func.func(canonicalize)'")
    return parser


def expand_steps(steps, backend_legal_ops, custom_op_encoding: str = "operands") -> list:
    """Command-line steps -> pass arguments / textual pipeline elements / Python passes, in order.

    A backend flag is the custom-op conversion of the backend-legal ops and kept
    ONNX ops followed by torch-mlir's pipeline (transforms/torch/custom_ops.py).
    """
    from .. import config
    from ..conversion.passes import convert_onnx_to_torch_pipeline
    from ..transforms.torch.custom_ops import custom_op_passes

    expanded = []
    for step, value in steps:
        if step == PIPELINE_FLAG:
            expanded += convert_onnx_to_torch_pipeline(backend_legal_ops)
        elif step in BACKEND_BACKENDS:
            backend = BACKEND_BACKENDS[step]
            config.require_output_type(backend)
            expanded += custom_op_passes(backend, backend_legal_ops, custom_op_encoding)
        elif step == "route-step":
            from ..pipelines import STEPS

            if value not in STEPS:
                raise OnnxTorchMlirError(f"unknown step '{value}': onnx-mlir-opt --list-steps names them")
            expanded.append(RouteStepCall(value))
        elif step == "textual":
            text = value.strip()
            if text.startswith("builtin.module(") and text.endswith(")"):
                text = text[len("builtin.module(") : -1]
            expanded.append(text)
        else:
            expanded.append(step)
    return expanded


class RouteStepCall(str):
    """A named step of a backend's route (pipelines.STEPS), run on the module between pass runs."""


def list_steps() -> str:
    from ..pipelines import ROUTES

    lines = []
    for backend, route in ROUTES.items():
        lines.append(f"{backend}:")
        lines += [f"  {step.name:44} {step.why}" for step in route.before]
        lines.append(f"  {'(torch-mlir: ' + TORCH_TO_BACKEND[backend] + ')':44}")
        lines += [f"  {step.name:44} {step.why}" for step in route.after]
    return "\n".join(lines) + "\n"


def segments(steps) -> list:
    """`steps` as runs of passes (lists) and the route steps between them."""
    grouped: list = []
    for step in steps:
        if isinstance(step, RouteStepCall):
            grouped.append(step)
        elif grouped and isinstance(grouped[-1], list):
            grouped[-1].append(step)
        else:
            grouped.append([step])
    return grouped


def format_location(location, source_name: str) -> str:
    """`loc("-":3:8)` -> `model.mlir:3:8`; other locations as MLIR prints them."""
    text = str(location)
    match = _FILE_LOC.search(text)
    if match:
        name = source_name if match.group(1) in ("-", "") else match.group(1)
        return f"{name}:{match.group(2)}:{match.group(3)}"
    return text


def print_diagnostics(error: ir.MLIRError, source_name: str) -> None:
    for diagnostic in error.error_diagnostics:
        print(f"{format_location(diagnostic.location, source_name)}: error: {diagnostic.message}", file=sys.stderr)
        for note in diagnostic.notes:
            print(f"{format_location(note.location, source_name)}: note: {note.message}", file=sys.stderr)


def read_input(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as stream:
        return stream.read()


def split_chunks(data: bytes, split: bool) -> list:
    """The input as text chunks, each padded with newlines so line numbers stay those of the file."""
    if data.startswith(b"ML\xefR"):  # MLIR bytecode
        return [data]
    text = data.decode()
    if not split:
        return [text]
    chunks, line = [], 0
    for chunk in re.split(r"^// -----.*$", text, flags=re.MULTILINE):
        chunks.append("\n" * line + chunk)
        line += chunk.count("\n")
    return chunks


def process_chunk(chunk, args, steps, source_name):
    """Parse, run the passes; returns the module, or None after printing the errors."""
    from ..mlir_context import make_context

    context = make_context()
    with context:
        begin_step("parse")
        try:
            module = ir.Module.parse(chunk, context)
        except ir.MLIRError as error:
            print_diagnostics(error, source_name)
            return None
        begin_step("passes", module, reproduce=_step_flags(args.steps or []))
        for segment in segments(steps):
            if isinstance(segment, RouteStepCall):
                _run_route_step(module, segment)
                continue
            manager = _build_manager(segment, context)
            if args.mlir_print_ir_after_all or args.mlir_print_ir_before_all:
                manager.enable_ir_printing(
                    print_before_all=args.mlir_print_ir_before_all, print_after_all=args.mlir_print_ir_after_all
                )
            try:
                manager.run(module.operation)
            except ir.MLIRError as error:
                print_diagnostics(error, source_name)
                return None
    return module


def _run_route_step(module, name: str) -> None:
    from ..mlir_passes import has_dynamic_signature
    from ..pipelines import STEPS

    STEPS[name].run(module, has_dynamic_signature(module))


def _step_flags(steps) -> str:
    """The pass flags of the command line, in order (how a reproducer runs the same passes)."""
    return " ".join(f"--pass-pipeline '{value}'" if step == "textual" else f"--step {value}" if step == "route-step"
                    else f"--{step}" for step, value in steps)


def _build_manager(steps, context):
    """A pass manager of `steps`; the Python passes of the custom-op conversion are added as such."""
    from ..conversion.passes import add_pass, build_pass_manager
    from ..transforms.torch.custom_ops import add_steps

    if all(isinstance(step, str) for step in steps):
        return build_pass_manager(steps, context)
    from torch_mlir.passmanager import PassManager

    with context:
        manager = PassManager("builtin.module")
        for step in steps:
            if isinstance(step, str):
                add_pass(manager, step)
            else:
                add_steps(manager, [step])
    return manager


def run(args) -> int:
    from .. import config
    from ..transforms.torch.custom_ops import normalize_backend_legal_ops

    if args.list_steps:
        sys.stdout.write(list_steps())
        return EXIT_OK
    config.apply_disable_argument(args)
    backend_legal_ops = normalize_backend_legal_ops(args.backend_legal_ops.split(","))
    steps = expand_steps(args.steps or [], backend_legal_ops, args.custom_op_encoding)
    check_output_path(args.output, inputs=[args.input])
    source_name = "<stdin>" if args.input == "-" else args.input
    try:
        chunks = split_chunks(read_input(args.input), args.split_input_file)
    except UnicodeDecodeError as error:
        raise OnnxTorchMlirError(
            f"{source_name}: not MLIR: neither bytecode nor UTF-8 text (byte {error.start} is "
            f"{error.object[error.start]:#04x})"
        ) from None
    if args.emit_bytecode and len(chunks) > 1:
        raise OnnxTorchMlirError("--emit-bytecode cannot write several modules (--split-input-file)")
    modules = [process_chunk(chunk, args, steps, source_name) for chunk in chunks]
    failed = any(module is None for module in modules)
    if failed and len(modules) == 1:
        return EXIT_ERROR
    with atomic_output(args.output, binary=args.emit_bytecode) as stream:
        if args.emit_bytecode:
            modules[0].operation.write_bytecode(stream)
            return EXIT_OK
        texts = [
            module.operation.get_asm(
                enable_debug_info=args.mlir_print_debuginfo, print_generic_op_form=args.mlir_print_generic
            )
            for module in modules
            if module is not None
        ]
        stream.write(f"\n{SPLIT_MARKER}\n".join(texts))
        warn_if_large_text(sum(map(len, texts)))
    return EXIT_ERROR if failed else EXIT_OK


def main(argv=None) -> int:
    try:
        return _main(argv)
    except KeyboardInterrupt:  # while loading the passes, before run_guarded
        return fail(PROG, "interrupted", 130)


def _main(argv) -> int:
    parser = build_parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    # The command line runs in a child process, so a crash inside MLIR is reported, not suffered.
    return run_guarded(PROG, run, args, isolated=argv is None, replayable=args.input != "-")


if __name__ == "__main__":
    sys.exit(main())
