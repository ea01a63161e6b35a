"""`onnx-torch-mlir`: import, compile, run and check ONNX models through MLIR.

Each subcommand lives in its own module `<name>_command.py` exposing `HELP`,
`add_arguments(parser)` and `run(args) -> int`. Every one is imported (for `--help`), so
their tops import only the standard library and light modules (errors, cli_support); what a subcommand's
arguments or run need (MLIR, onnx, numpy, the runner, the conformance suite) is imported
inside `add_arguments` and `run`, and only the named subcommand's `add_arguments` runs.
So `--version` loads no compiler library and `compile` not the runner
(test/python/test_startup_imports.py).
"""

import argparse
import importlib
import signal
import sys

from .. import __version__, config, progress
from ..isolation import HeldInterrupts
from .cli_support import OneLineErrorParser, fail, run_guarded

PROG = "onnx-torch-mlir"
SUBCOMMANDS = ("import", "compile", "run", "verify", "conformance", "list-ops", "demo")


def _load_subcommands():
    modules = {}
    for name in SUBCOMMANDS:
        module_name = f"{__package__}.{name.replace('-', '_')}_command"
        try:
            modules[name] = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name != module_name:
                raise
    return modules


def chosen_subcommand(argv) -> str | None:
    """The subcommand named on the command line (the first word that is one), if any."""
    return next((word for word in argv if word in SUBCOMMANDS), None)


def build_parser(modules, chosen: str | None = None) -> OneLineErrorParser:
    """The parser; with `chosen`, only that subcommand's arguments are built (the others' need
    MLIR, onnx or the conformance suite loaded, which `--version` or `compile` should not pay)."""
    parser = OneLineErrorParser(
        prog=PROG,
        description="ONNX models into MLIR: the ONNX dialect, torch-mlir's Torch dialect, "
        "Linalg-on-tensors, TOSA and StableHLO; plus a reference CPU runner to check results.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    config.add_disable_argument(parser)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineErrorParser)
    for name, module in modules.items():
        # The module docstring is the description, as written (its examples and paragraphs kept).
        sub = subparsers.add_parser(name, help=module.HELP, description=module.__doc__,
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
        if chosen is None or name == chosen:
            module.add_arguments(sub)
        sub.set_defaults(handler=module.run)
    return parser


def main(argv=None) -> int:
    try:
        status = _main(argv)
    except KeyboardInterrupt:  # while loading the subcommand's modules, before run_guarded
        status = fail(PROG, "interrupted", 130)
    if argv is None:
        # The work is done and said; a Ctrl-C now must not kill the interpreter as it ends (Python's
        # finalization sets SIGINT back to the default action, which is death by the signal).
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    return status


def _main(argv) -> int:
    words = sys.argv[1:] if argv is None else argv
    # A Ctrl-C while the subcommand's modules load (MLIR's among them) is noted and raised after.
    with HeldInterrupts() as interrupts:
        modules = _load_subcommands()
        parser = build_parser(modules, chosen_subcommand(words) or "")
        args = parser.parse_args(words)
    if interrupts.first is not None:
        raise KeyboardInterrupt
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    # The command line runs in a child process, so a crash inside MLIR is reported, not suffered;
    # the child's stderr is a pipe through this process, so whether it is a terminal is asked here.
    progress.remember_terminal()
    if getattr(args, "model_from_stdin", False) and args.model == "-":
        # Read here, before the fork, so that a replay for a crash reproducer has the model too.
        status = run_guarded(PROG, _read_model_from_stdin, args)
        if status != 0:
            return status
    return run_guarded(PROG, _run_with_switches, args, isolated=argv is None)


def _read_model_from_stdin(args) -> int:
    from .cli_support import read_model_from_stdin

    args.model_bytes = read_model_from_stdin()
    return 0


def _run_with_switches(args) -> int:
    config.apply_disable_argument(args)
    _load_native_modules()
    return args.handler(args)


def _load_native_modules() -> None:
    """Load onnx and MLIR's bindings with Ctrl-C held: their native modules import Python modules
    as they initialize, and a KeyboardInterrupt there is printed as a traceback or aborts the
    process instead of unwinding it. (`_main` holds it while the subcommands load; a subcommand
    whose arguments need no MLIR, such as `import`, loads it here, in the child.)"""
    with HeldInterrupts() as interrupts:
        importlib.import_module("onnx")
        importlib.import_module("torch_mlir.ir")
    if interrupts.first is not None:
        raise KeyboardInterrupt


if __name__ == "__main__":
    sys.exit(main())
