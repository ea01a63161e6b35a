"""The options every compiling subcommand shares: target, importer, converter."""

from ..compiler import CONVERTERS, IMPORTERS
from ..pipelines import BACKENDS, OUTPUT_TYPES


def add_compile_arguments(parser, *, default_backend: str, backends_only: bool = False) -> None:
    choices = BACKENDS if backends_only else OUTPUT_TYPES
    parser.add_argument("--to", choices=choices, default=default_backend, help=f"target (default {default_backend})")
    parser.add_argument("--importer", choices=IMPORTERS, default=None, help="whose ONNX importer to use")
    parser.add_argument("--converter", choices=CONVERTERS, default=None, help="whose ONNX-to-Torch conversion to use")


def compile_options(args) -> dict:
    """Keyword arguments for OnnxTorchMlirBackend.prepare / compile from parsed args."""
    options = {"backend": args.to}
    if args.importer:
        options["importer"] = args.importer
    if args.converter:
        options["converter"] = args.converter
    return options
