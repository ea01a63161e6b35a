"""Import an ONNX model to MLIR, in the ONNX dialect or the torch-ONNX form.

The model's weights become dense resources that reference the file (or its
external data) in place; use --emit-bytecode for large models. Errors are one
line naming the file and the node; on error no output file is left behind.
"""

from .cli_support import atomic_output, check_output_path, model_argument, write_module_text

HELP = "import an ONNX model to MLIR (ONNX dialect or torch-ONNX form)"


def add_arguments(parser) -> None:
    parser.add_argument("model", help="the .onnx file (external data is read next to it); '-' reads it from stdin")
    parser.set_defaults(model_from_stdin=True)
    parser.add_argument("--form", choices=("onnx", "torch-onnx"), default="torch-onnx", help="the spelling (default: torch-onnx)")
    parser.add_argument("-o", "--output", default="-", help="output file (default: stdout)")
    parser.add_argument("--emit-bytecode", action="store_true", help="write MLIR bytecode instead of text")
    parser.add_argument("--print-locations", action="store_true", help="print op locations (node names) in the text")
    parser.add_argument(
        "--expand-ops",
        default=None,
        metavar="OP[,OP...]|all|none",
        help="ONNX function ops to replace by their function body (default: MeanVarianceNormalization,Attention,Swish)",
    )
    parser.add_argument(
        "--functions",
        choices=("inline", "call"),
        default="inline",
        help="model-local functions: inline them (default) or keep them as private functions and calls",
    )
    parser.add_argument("--no-verify", action="store_true", help="skip the ONNX schema verifier (--form onnx)")


def run(args) -> int:
    from ..importer import import_onnx
    from ..importer.functions import DEFAULT_EXPAND_OPS

    check_output_path(args.output, model=args.model)
    module = import_onnx(
        model_argument(args),
        form=args.form,
        expand_ops=_expand_ops(args.expand_ops, DEFAULT_EXPAND_OPS),
        functions=args.functions,
        verify=not args.no_verify,
    )
    with atomic_output(args.output, binary=args.emit_bytecode) as stream:
        if args.emit_bytecode:
            module.operation.write_bytecode(stream)
        else:
            write_module_text(stream, module, print_locations=args.print_locations, streamed=True)
    return 0


def _expand_ops(value, default):
    if value is None:
        return default
    if value == "all":
        return "all"
    if value == "none":
        return frozenset()
    return frozenset(op for op in value.split(",") if op)
