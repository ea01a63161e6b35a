"""The options every compiling subcommand shares: target, importer, converter, where the weights
live; and, for the subcommands that run the result, which consumer runs it."""

import warnings

from ..config import canonical_output_type
from ..errors import OnnxTorchMlirError, OnnxTorchMlirWarning


def output_type(name: str) -> str:
    """`--to`'s value with a short name spelled out (argparse checks the choices after this)."""
    return canonical_output_type(name)


def add_compile_arguments(parser, *, default_backend: str, backends_only: bool = False) -> None:
    from ..compiler import CONVERTERS, IMPORTERS
    from ..pipelines import BACKENDS, OUTPUT_TYPES

    choices = BACKENDS if backends_only else OUTPUT_TYPES
    parser.add_argument("--to", choices=choices, type=output_type, default=default_backend,
                        help=f"target: {', '.join(choices)} (linalg for short; default {default_backend})")
    parser.add_argument("--importer", choices=IMPORTERS, default=None, help="whose ONNX importer to use")
    parser.add_argument("--converter", choices=CONVERTERS, default=None, help="whose ONNX-to-Torch conversion to use")
    add_route_option_arguments(parser)


def add_route_option_arguments(parser) -> None:
    """One `--NAME` per route option (pipelines.ROUTE_OPTIONS: `--conv-layout`, `--quantized-io`, ...)."""
    from ..pipelines import ROUTE_OPTIONS

    for name, (choices, meaning) in ROUTE_OPTIONS.items():
        parser.add_argument(f"--{name.replace('_', '-')}", choices=choices, default=None,
                            help=f"{meaning} (default {choices[0]})")


def route_options(args) -> dict:
    """{route option: value} for the route options given on the command line."""
    from ..pipelines import ROUTE_OPTIONS

    return {name: getattr(args, name) for name in ROUTE_OPTIONS if getattr(args, name, None)}


def add_weights_arguments(parser, forms) -> None:
    """--weights FORM and --weights-min-bytes, as compile, run and verify take them."""
    from ..weights_forms import DEFAULT_MIN_BYTES

    parser.add_argument("--weights", choices=forms, default="resources",
                        help="where the weights live: dense_resource blobs (resources, the default), literal "
                        "dense<...> constants (inline: XLA, StableHLO portable artifacts), trailing arguments of "
                        "the entry function with a safetensors file (arguments), IREE parameters with a "
                        "parameter archive (parameters)")
    parser.add_argument("--weights-min-bytes", type=int, default=DEFAULT_MIN_BYTES, metavar="N",
                        help=f"with --weights arguments or parameters: the smallest constant taken out of the "
                        f"module, in bytes (default {DEFAULT_MIN_BYTES})")


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
    if getattr(args, "string_bytes", None):
        options["string_bytes"] = args.string_bytes
    if getattr(args, "weights", "resources") != "resources":
        options["weights"] = args.weights
        options["weights_min_bytes"] = args.weights_min_bytes
    options.update(route_options(args))
    return options


def apply_dims_from(args, model) -> None:
    """`--dims-from FILE.npz`: `args.dim` and `args.input_shape` become the sizes of the example
    arrays (every dynamic dim of the inputs it holds) merged with the `--dim` and `--input-shape`
    given (importer/example_dims.py). `model`: the ModelProto, or what `open_model` takes."""
    path = getattr(args, "dims_from", None)
    if not path:
        return
    import onnx

    from ..conformance.cases import graph_input_names
    from ..importer.example_dims import dims_from_examples, merge_with_options
    from ..importer.loading import open_model
    from .model_inputs import load_archive

    proto = model if isinstance(model, onnx.ModelProto) else open_model(model).proto
    source = f"--dims-from {path}"
    arrays = load_archive(path, graph_input_names(proto), flag="--dims-from")
    dims, shapes = dims_from_examples(proto, {name: array.shape for name, array in arrays.items()}, source)
    args.dim, args.input_shape = merge_with_options(dims, shapes, args.dim, args.input_shape, source)


CONSUMERS = ("reference", "iree")


def add_consumer_argument(parser) -> None:
    parser.add_argument(
        "--consumer",
        choices=CONSUMERS,
        default="reference",
        help="what runs the compiled module: our reference CPU runner (default) or IREE (llvm-cpu, in-process)",
    )
    parser.add_argument(
        "--iree-flag", action="append", default=[], metavar="FLAG",
        help="with --consumer iree: an iree-compile flag, after ours (llvm-cpu for the host CPU, data tiling), so "
        "it can override one of them; repeatable, written --iree-flag=--iree-opt-data-tiling=false (docs/consumers-iree.md)",
    )


def prepare_model(model, args):
    """`model` compiled for --to and ready to run on --consumer: an object with `output_names` and
    `run(inputs)`, whose outputs have the model's declared dtypes."""
    from ..runtime.backend import OnnxTorchMlirBackend, OnnxTorchMlirBackendRep

    options = compile_options(args)
    if getattr(args, "consumer", "reference") == "reference":
        if options.get("weights") == "parameters":
            raise OnnxTorchMlirError("--weights parameters reads the weights as IREE parameters, which only IREE "
                                     "runs: add --consumer iree, or use --weights arguments")
        return OnnxTorchMlirBackend.prepare(model, **options)
    from ..compiler import compile as compile_model
    from ..runtime.iree import RECOMMENDED_FLAGS, compile_with_iree, compile_with_recommended_flags
    from ..weights_forms import EXTERNAL_FORMS, temporary_weights_file

    backend = options.pop("backend")
    user_flags = tuple(getattr(args, "iree_flag", ()))

    def compiled(module, weights_file=None):
        program, failure = compile_with_recommended_flags(
            lambda flags: compile_with_iree(module, backend, weights_file=weights_file, extra_flags=flags), user_flags)
        if failure:
            warnings.warn(OnnxTorchMlirWarning(
                f"IREE failed with our recommended flags ({' '.join(RECOMMENDED_FLAGS)}), so the module was compiled "
                f"with IREE's defaults, which may run slower: {failure}"), stacklevel=2)
        return program

    if options.get("weights") not in EXTERNAL_FORMS:
        program = compiled(compile_model(model, backend, **options))
    else:
        # Written and read back as a user's files would be; IREE maps the file, which may go once loaded.
        with temporary_weights_file(options["weights"]) as weights_file:
            program = compiled(compile_model(model, backend, weights_file=weights_file, **options), weights_file)
    return OnnxTorchMlirBackendRep(model, program, [output.name for output in model.graph.output],
                                   options.get("string_bytes"))


def consumer_label(args) -> str:
    """How a result line names what produced it: the backend, and IREE when it ran the module."""
    return f"{args.to} on IREE" if getattr(args, "consumer", "reference") == "iree" else args.to


def add_string_bytes_argument(parser) -> None:
    from ..string_forms import DEFAULT_STRING_BYTES as DEFAULT_WIDTH

    parser.add_argument("--string-bytes", type=int, default=None, metavar="W",
                        help=f"hold each string of a string input as its UTF-8 bytes zero-padded to W bytes (default "
                        f"{DEFAULT_WIDTH}): the input [N, 1] is the program's uint8 argument [N, 1, W]; a longer string "
                        "is refused when the program runs")


def add_dims_from_argument(parser, where: str) -> None:
    parser.add_argument(
        "--dims-from",
        metavar="INPUTS.npz",
        help=f"fix every dynamic dim of the inputs the .npz holds (keys the input names, or arr_0, arr_1, ... "
        f"in input order, as `run --save-inputs` writes it) to the size of its example array, {where}; "
        "a dim name shared by inputs must have one size there; --dim and --input-shape must agree with it",
    )
