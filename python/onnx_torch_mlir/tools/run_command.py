"""Compile an ONNX model, run it on the reference CPU runner and print or save its outputs.

Inputs come from .npy files (--input NAME=FILE), .npz files (--input FILE.npz, keys
the input names, as --save-inputs writes them) or are made up from a seed; each is
checked against the model's declared type and shape before compiling. With
--consumer iree, IREE compiles and runs the backend's output instead of our runner.

On a terminal, a command over two seconds shows one progress line on stderr (compile, run,
compare), erased at the end (`--quiet`: none). When the reference runner would run a model with
more than IREE_HINT_MEGABYTES of weights and IREE is installed, one line says that `--consumer iree`
is faster there.
"""

from __future__ import annotations

import contextlib
import sys
import time
from typing import TYPE_CHECKING

from ..weights_forms import WEIGHTS_FORMS
from .compile_options import (
    add_compile_arguments, add_consumer_argument, add_weights_arguments, apply_dims_from, consumer_label, prepare_model,
)

if TYPE_CHECKING:
    import numpy as np

HELP = "compile a model and run it on the reference CPU runner"

# Above this many MiB of weights IREE runs a model faster than the reference runner, compile
# included (docs/runner-performance.md, cold cache: ResNet-50, 90 MiB, ours 6.6 s and IREE 7.9 s;
# BERT-base, 417 MiB, ours 20.9 s and IREE 11.1 s). The crossing lies between the two; 200 is
# the round number between them.
IREE_HINT_MEGABYTES = 200


def add_arguments(parser):
    from .model_inputs import add_input_arguments

    parser.add_argument("model", help="the .onnx file")
    add_compile_arguments(parser, default_backend="linalg-on-tensors", backends_only=True)
    add_weights_arguments(parser, WEIGHTS_FORMS)
    add_consumer_argument(parser)
    add_input_arguments(parser)
    parser.add_argument("--save", metavar="OUT.npz", help="write the outputs, by name, to an .npz file")
    parser.add_argument("--save-inputs", metavar="IN.npz",
                        help="write the inputs it ran on, by name, to an .npz file (`--input IN.npz` takes it back)")
    add_quiet_argument(parser)


def add_quiet_argument(parser) -> None:
    parser.add_argument("--quiet", action="store_true",
                        help="no progress line or hint on stderr (shown on a terminal for commands over two seconds)")


@contextlib.contextmanager
def command_progress(args, model):
    """Progress of `run`/`verify` on a terminal; yields `stage(name)`. Says when IREE would be faster."""
    from .. import progress

    quiet = getattr(args, "quiet", False)
    if not quiet:
        _hint_iree(args, model)
    with progress.shown(enabled=not quiet):
        yield progress.command_stage_started


def _hint_iree(args, model) -> None:
    import importlib.util

    from .. import progress

    if getattr(args, "consumer", "reference") != "reference":
        return
    terminal = sys.stderr.isatty() if progress.stderr_is_terminal is None else progress.stderr_is_terminal
    if not terminal:
        return
    megabytes = model.ByteSize() / 2**20
    if megabytes <= IREE_HINT_MEGABYTES:
        return
    if importlib.util.find_spec("iree") is None or importlib.util.find_spec("iree.compiler") is None \
            or importlib.util.find_spec("iree.runtime") is None:
        return
    print(f"onnx-torch-mlir: hint: --consumer iree is faster on a model this size ({megabytes:.0f} MiB; "
          f"above {IREE_HINT_MEGABYTES} MiB IREE compiles and runs it sooner than the reference runner)",
          file=sys.stderr, flush=True)


def run(args) -> int:
    import numpy as np

    from ..conformance.cases import graph_input_names
    from ..importer import load_model
    from .model_inputs import input_files, model_inputs

    from .cli_support import check_output_path

    check_output_path(args.save, model=args.model, inputs=input_files(args), flag="--save")
    check_output_path(args.save_inputs, model=args.model, inputs=input_files(args), flag="--save-inputs")
    model = load_model(args.model)
    apply_dims_from(args, model)
    inputs = model_inputs(model, args)
    with command_progress(args, model) as stage:
        stage("compile")
        started = time.perf_counter()
        prepared = prepare_model(model, args)
        compiled = time.perf_counter()
        stage("run")
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
