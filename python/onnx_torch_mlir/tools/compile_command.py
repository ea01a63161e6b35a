"""Compile an ONNX model to torch-mlir's Torch backend contract, Linalg, TOSA or StableHLO.

    onnx-torch-mlir compile model.onnx --to linalg-on-tensors -o model.mlir

Without --to the output is the Torch dialect in torch-mlir's backend contract
(--to torch), the form a torch-mlir backend starts from; --to linalg (or
linalg-on-tensors), tosa or stablehlo lowers it to that backend. (run and verify
default to linalg-on-tensors, which the reference runner takes.)

A model with large weights is best written with --emit-bytecode: as text every
weight is printed in hex, twice its size and slow to read back.

--weights arguments writes the large weights to a safetensors file beside the module (-o's name
with .safetensors, or --weights-file) and makes them trailing arguments of the entry function;
--weights parameters writes an IREE parameter archive (.irpa) that the module reads as IREE
parameters (docs/consumers-iree.md).

For XLA (docs/consumers-xla.md): --to stablehlo --entry-name main --weights inline,
and --emit-portable-artifact VERSION for XLA's older StableHLO. For IREE from TOSA
text: --print-generic (IREE 3.13 cannot parse torch-mlir's custom TOSA syntax;
bytecode also loads).

When nodes cannot be converted, every one of them is reported (one line each,
at the node's location) and the exit status is 1.
"""

from __future__ import annotations

import os
import sys

from ..errors import ConversionError, PipelineError
from .cli_support import (
    EXIT_ERROR, EXIT_OK, STDIN_NAME, atomic_output, check_output_path, model_argument, write_module_text,
)

HELP = "compile an ONNX model to Torch, Linalg, TOSA or StableHLO"


def add_arguments(parser) -> None:
    from ..pipelines import OUTPUT_TYPES
    from ..weights_forms import WEIGHTS_FORMS
    from .compile_options import add_route_option_arguments, add_weights_arguments, output_type

    parser.add_argument("model", help="the .onnx file (external data next to it is found); '-' reads it from stdin")
    parser.set_defaults(model_from_stdin=True)
    parser.add_argument("--to", dest="output_type", default="torch", choices=OUTPUT_TYPES, type=output_type,
                        help="output: torch (default: the Torch dialect in torch-mlir's backend contract, not "
                        "lowered to a backend), linalg-on-tensors (or linalg), tosa, stablehlo")
    parser.add_argument("-o", dest="output", default="-", help="output file ('-' for stdout, the default)")
    parser.add_argument("--emit-bytecode", action="store_true",
                        help="write MLIR bytecode instead of text (for large weights: smaller and much faster)")
    parser.add_argument("--print-locations", action="store_true",
                        help="print op locations (the ONNX node names) in the text")
    parser.add_argument("--print-generic", action="store_true",
                        help="print ops in MLIR's generic form (TOSA text that IREE 3.13 parses)")
    parser.add_argument("--entry-name", metavar="NAME",
                        help="name of the entry function (default: the ONNX graph's name; XLA runs main)")
    add_weights_arguments(parser, WEIGHTS_FORMS)
    parser.add_argument("--weights-file", metavar="PATH",
                        help="with --weights arguments or parameters: where the weights go (default: -o's name "
                        "with .safetensors or .irpa)")
    parser.add_argument("--emit-portable-artifact", metavar="VERSION",
                        help="with --to stablehlo: write a StableHLO portable artifact for StableHLO VERSION "
                        "(e.g. 1.17.0, what jaxlib 0.10.2 reads); implies --weights inline")
    parser.add_argument("--backend-legal-ops", default="",
                        help="comma-separated torch ops kept undecomposed (aten.foo,...); on a backend they "
                        "become its custom ops (docs/custom-ops.md)")
    parser.add_argument("--keep-onnx-ops", default="",
                        help="comma-separated ONNX ops (NonMaxSuppression,...) kept as custom ops of domain onnx, "
                        "bypassing the conversion")
    parser.add_argument("--custom-op-encoding", default="operands", choices=("operands", "attributes"),
                        help="non-tensor arguments of custom ops as constant operands (default) or as JSON "
                        "in the attribute")
    parser.add_argument("--importer", default="ours", choices=("ours", "torch-mlir"),
                        help="whose ONNX importer to use (default: ours)")
    parser.add_argument("--converter", default="ours", choices=("ours", "torch-mlir"),
                        help="whose ONNX-to-Torch conversion to use (default: ours)")
    add_route_option_arguments(parser)
    parser.add_argument("--dim", action="append", default=[], metavar="NAME=SIZE",
                        help="fix the model's symbolic dim NAME (an input's dim_param, verbatim: also an "
                        "expression, --dim 'past_sequence_length + sequence_length=10') to SIZE at compile time "
                        "(repeatable); for forms a backend takes only with static sizes")
    parser.add_argument("--input-shape", action="append", default=[], metavar="INPUT=D0xD1",
                        help="fix the whole shape of input INPUT at compile time, e.g. attention_mask=1x128 "
                        "(repeatable; ? keeps a dim dynamic); for dims --dim cannot name")
    parser.add_argument("--input-value", action="append", default=[], metavar="INPUT=VALUE",
                        help="fix input INPUT to VALUE at compile time, e.g. sr=16000 (repeatable; comma-separated "
                        "for several elements): it becomes a constant and is no longer an argument, so an If on "
                        "it is decided (TOSA needs that)")
    from .compile_options import add_dims_from_argument, add_string_bytes_argument

    add_dims_from_argument(parser, "at compile time")
    add_string_bytes_argument(parser)
    parser.add_argument("--quiet", action="store_true",
                        help="no progress line on stderr (shown on a terminal for compiles over two seconds)")
    parser.add_argument("--timing", action="store_true",
                        help="print the wall time of each stage (import, conversion, torch-mlir simplification, "
                        "backend pipeline, writing) and the peak memory to stderr, like MLIR's -mlir-timing")


def _weights_file(args) -> str | None:
    """The file --weights arguments or parameters writes: --weights-file, or beside -o."""
    from pathlib import Path

    from ..weights_forms import EXTERNAL_FORMS, FILE_SUFFIXES

    if args.weights not in EXTERNAL_FORMS:
        if args.weights_file:
            raise PipelineError(f"--weights-file is for --weights arguments or parameters, not --weights {args.weights}")
        return None
    if args.emit_portable_artifact:
        raise PipelineError(f"--emit-portable-artifact needs the weights inline, not --weights {args.weights}")
    if args.weights_file:
        return args.weights_file
    if args.output == "-":
        raise PipelineError(f"--weights {args.weights} writes the weights to a file: give --weights-file "
                            "(or -o, beside which it goes)")
    return str(Path(args.output).with_suffix(FILE_SUFFIXES[args.weights]))


def run(args) -> int:
    import time

    from .. import progress, timing

    check_output_path(args.output, model=args.model)
    if args.emit_portable_artifact and args.output_type != "stablehlo":
        raise PipelineError(f"--emit-portable-artifact writes StableHLO; it needs --to stablehlo, not {args.output_type}")
    args.weights_file = _weights_file(args)
    check_output_path(args.weights_file, model=args.model, flag="--weights-file")
    if args.weights_file and args.output != "-" and os.path.abspath(args.weights_file) == os.path.abspath(args.output):
        raise PipelineError(f"--weights-file {args.weights_file} is the module's own output file")
    started = time.perf_counter()
    with timing.record() as times, progress.shown(enabled=not args.quiet):
        status = _compile_and_write(args)
    if args.timing and status == EXIT_OK:
        print(timing.format_report(times, time.perf_counter() - started), file=sys.stderr)
    return status


def _compile_and_write(args) -> int:
    from .. import timing
    from ..compiler import compile as compile_model

    from .compile_options import apply_dims_from, route_options

    legal = tuple(op for op in args.backend_legal_ops.split(",") if op)
    keep = tuple(op for op in args.keep_onnx_ops.split(",") if op)
    model = model_argument(args)
    apply_dims_from(args, model)
    try:
        module = compile_model(
            model, args.output_type, backend_legal_ops=legal, keep_onnx_ops=keep,
            custom_op_encoding=args.custom_op_encoding, importer=args.importer, converter=args.converter,
            dims=args.dim, input_shapes=args.input_shape, input_values=args.input_value, entry_name=args.entry_name,
            weights="inline" if args.emit_portable_artifact else args.weights, weights_file=args.weights_file,
            weights_min_bytes=args.weights_min_bytes, string_bytes=args.string_bytes, **route_options(args),
        )
    except ConversionError as error:
        # All failing nodes, not only the first line run_guarded would print.
        lines = str(error).strip().splitlines()
        for line in lines[1:] or lines:
            print(f"onnx-torch-mlir: error: {line}", file=sys.stderr)
        return EXIT_ERROR
    except PipelineError as error:
        # A backend's diagnostic at an unknown location would not say which model it is about.
        name = STDIN_NAME if args.model == "-" else args.model
        if name in str(error):
            raise
        raise PipelineError(f"{name}: {error}") from None
    artifact = None
    if args.emit_portable_artifact:
        from ..transforms.output_form import portable_artifact

        artifact = portable_artifact(module, args.emit_portable_artifact)
    binary = args.emit_bytecode or artifact is not None
    with timing.stage("writing"), atomic_output(args.output, binary=binary) as stream:
        if artifact is not None:
            stream.write(artifact)
        elif args.emit_bytecode:
            module.operation.write_bytecode(stream)
        else:
            write_module_text(stream, module, print_locations=args.print_locations, generic=args.print_generic)
    return EXIT_OK
