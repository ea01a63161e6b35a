"""The `onnx-torch-mlir` console script's entry: Ctrl-C is held from the script's first call.

Importing the command line (tools/main.py: argparse, the subcommand table, isolation) takes about
0.1 s, and a Ctrl-C in that time was Python's own KeyboardInterrupt traceback and death by the
signal, before main's handling starts (test_cli_first_hour.py's Ctrl-C test hit it on a loaded
machine). So the script's entry notes a SIGINT while it imports main, and reports it as main does:
"interrupted", status 130.
"""

import signal


def main() -> int:
    noted = []
    held = signal.getsignal(signal.SIGINT) is signal.default_int_handler
    if held:
        signal.signal(signal.SIGINT, lambda *_: noted.append(True))
    from .cli_support import fail
    from .main import PROG
    from .main import main as command_line

    if held:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if noted:
        status = fail(PROG, "interrupted", 130)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # as main does once the status is said
        return status
    return command_line()
