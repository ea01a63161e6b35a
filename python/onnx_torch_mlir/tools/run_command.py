"""Compile an ONNX model, run it on the reference CPU runner and print or save its outputs.

Inputs come from .npy files (--input NAME=FILE), .npz files (--input FILE.npz, keys
the input names, as --save-inputs writes them) or are made up from a seed; each is
checked against the model's declared type and shape before compiling. With
--consumer iree, IREE compiles and runs the backend's output instead of our runner.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from .compile_options import add_compile_arguments, add_consumer_argument, consumer_label, prepare_model

if TYPE_CHECKING:
    import numpy as np

HELP = "compile a model and run it on the reference CPU runner"


def add_arguments(parser):
    from .model_inputs import add_input_arguments

    parser.add_argument("model", help="the .onnx file")
    add_compile_arguments(parser, default_backend="linalg-on-tensors", backends_only=True)
    add_consumer_argument(parser)
    add_input_arguments(parser)
    parser.add_argument("--save", metavar="OUT.npz", help="write the outputs, by name, to an .npz file")
    parser.add_argument("--save-inputs", metavar="IN.npz",
                        help="write the inputs it ran on, by name, to an .npz file (`--input IN.npz` takes it back)")


def run(args) -> int:
    import numpy as np

    from ..conformance.cases import graph_input_names
    from ..importer import load_model
    from .model_inputs import input_files, model_inputs

    from .cli_support import check_output_path

    check_output_path(args.save, model=args.model, inputs=input_files(args), flag="--save")
    check_output_path(args.save_inputs, model=args.model, inputs=input_files(args), flag="--save-inputs")
    model = load_model(args.model)
    inputs = model_inputs(model, args)
    started = time.perf_counter()
    prepared = prepare_model(model, args)
    compiled = time.perf_counter()
    outputs = prepared.run(inputs)
    finished = time.perf_counter()
    for name, value in zip(prepared.output_names, outputs):
        print(f"{name}: {value.dtype}{list(value.shape)} {_preview(value)}")
    print(f"compiled in {compiled - started:.2f} s, ran in {(finished - compiled) * 1000:.1f} ms ({consumer_label(args)})")
    from .cli_support import atomic_output

    if args.save:
        with atomic_output(args.save, binary=True) as stream:
            np.savez(stream, **dict(zip(prepared.output_names, outputs)))
    if args.save_inputs:
        with atomic_output(args.save_inputs, binary=True) as stream:
            np.savez(stream, **dict(zip(graph_input_names(model), inputs)))
    return 0


def _preview(value: np.ndarray, count: int = 6) -> str:
    import numpy as np

    flat = value.reshape(-1)
    shown = np.array2string(flat[:count], precision=4, separator=", ")
    return shown[:-1] + ", ...]" if flat.size > count else shown
