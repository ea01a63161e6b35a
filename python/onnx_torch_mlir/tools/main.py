"""`onnx-torch-mlir`: import, compile, run and check ONNX models through MLIR.

Each subcommand lives in its own module `<name>_command.py` exposing `HELP`,
`add_arguments(parser)` and `run(args) -> int`.
"""

import importlib
import sys

from .. import __version__, config, progress
from .cli_support import OneLineErrorParser, run_guarded

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


def build_parser(modules) -> OneLineErrorParser:
    parser = OneLineErrorParser(
        prog=PROG,
        description="ONNX models into MLIR: the ONNX dialect, torch-mlir's Torch dialect, "
        "Linalg-on-tensors, TOSA and StableHLO; plus a reference CPU runner to check results.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    config.add_disable_argument(parser)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineErrorParser)
    for name, module in modules.items():
        sub = subparsers.add_parser(name, help=module.HELP, description=module.__doc__)
        module.add_arguments(sub)
        sub.set_defaults(handler=module.run)
    return parser


def main(argv=None) -> int:
    modules = _load_subcommands()
    parser = build_parser(modules)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    # The command line runs in a child process, so a crash inside MLIR is reported, not suffered;
    # the child's stderr is a pipe through this process, so whether it is a terminal is asked here.
    progress.remember_terminal()
    return run_guarded(PROG, _run_with_switches, args, isolated=argv is None)


def _run_with_switches(args) -> int:
    config.apply_disable_argument(args)
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
