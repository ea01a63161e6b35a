"""The options every compiling subcommand shares: target, importer, converter; and, for the
subcommands that run the result, which consumer runs it."""


# Short names `--to` takes for an output type, wherever it is taken.
OUTPUT_TYPE_ALIASES = {"linalg": "linalg-on-tensors"}


def output_type(name: str) -> str:
    """`--to`'s value with a short name spelled out (argparse checks the choices after this)."""
    return OUTPUT_TYPE_ALIASES.get(name, name)


def add_compile_arguments(parser, *, default_backend: str, backends_only: bool = False) -> None:
    from ..compiler import CONVERTERS, IMPORTERS
    from ..pipelines import BACKENDS, OUTPUT_TYPES

    choices = BACKENDS if backends_only else OUTPUT_TYPES
    parser.add_argument("--to", choices=choices, type=output_type, default=default_backend,
                        help=f"target: {', '.join(choices)} (linalg for short; default {default_backend})")
    parser.add_argument("--importer", choices=IMPORTERS, default=None, help="whose ONNX importer to use")
    parser.add_argument("--converter", choices=CONVERTERS, default=None, help="whose ONNX-to-Torch conversion to use")
    add_conv_layout_argument(parser)


def add_conv_layout_argument(parser) -> None:
    from ..pipelines import ROUTE_OPTIONS

    choices, meaning = ROUTE_OPTIONS["conv_layout"]
    parser.add_argument("--conv-layout", choices=choices, default=None,
                        help=f"{meaning} (default {choices[0]})")


def compile_options(args) -> dict:
    """Keyword arguments for OnnxTorchMlirBackend.prepare / compile from parsed args. `--dim` and
    `--input-shape` (run, verify) fix dims at compile time as they do for `compile`."""
    options = {"backend": args.to}
    if getattr(args, "dim", None):
        options["dims"] = args.dim
    if getattr(args, "input_shape", None):
        options["input_shapes"] = args.input_shape
    if args.importer:
        options["importer"] = args.importer
    if args.converter:
        options["converter"] = args.converter
    if getattr(args, "conv_layout", None):
        options["conv_layout"] = args.conv_layout
    return options


CONSUMERS = ("reference", "iree")


def add_consumer_argument(parser) -> None:
    parser.add_argument(
        "--consumer",
        choices=CONSUMERS,
        default="reference",
        help="what runs the compiled module: our reference CPU runner (default) or IREE (llvm-cpu, in-process)",
    )


def prepare_model(model, args):
    """`model` compiled for --to and ready to run on --consumer: an object with `output_names` and
    `run(inputs)`, whose outputs have the model's declared dtypes."""
    from ..runtime.backend import OnnxTorchMlirBackend, OnnxTorchMlirBackendRep

    options = compile_options(args)
    if getattr(args, "consumer", "reference") == "reference":
        return OnnxTorchMlirBackend.prepare(model, **options)
    from ..compiler import compile as compile_model
    from ..runtime.iree import compile_with_iree

    backend = options.pop("backend")
    program = compile_with_iree(compile_model(model, backend, **options), backend)
    return OnnxTorchMlirBackendRep(model, program, [output.name for output in model.graph.output])


def consumer_label(args) -> str:
    """How a result line names what produced it: the backend, and IREE when it ran the module."""
    return f"{args.to} on IREE" if getattr(args, "consumer", "reference") == "iree" else args.to
