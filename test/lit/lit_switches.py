"""lit support for the path switches (onnx_torch_mlir.config): features and UNSUPPORTED tests.

A test whose RUN lines use a switched-off path is UNSUPPORTED, with the reason, whether or not it
has a `REQUIRES: tosa` line; the enabled paths are lit features ("tosa", "stablehlo", "torch").
"""

import os

import lit.formats
import lit.Test

from onnx_torch_mlir import config as switches

PATH_USES = {
    "tosa": ("convert-torch-to-tosa", "--to tosa", "--backend tosa", "tosa-backend-pipeline"),
    "stablehlo": ("convert-torch-to-stablehlo", "--to stablehlo", "--backend stablehlo", "stablehlo-backend-pipeline"),
    "torch": ("--importer torch-mlir", "--converter torch-mlir", "torch-onnx-to-torch"),
}


def enabled_paths():
    disabled = switches.disabled_paths()
    return [path for path in switches.PATHS if path not in disabled]


def pass_environment(config) -> None:
    value = os.environ.get(switches.ENVIRONMENT_VARIABLE)
    if value:
        config.environment[switches.ENVIRONMENT_VARIABLE] = value


class SwitchAwareShTest(lit.formats.ShTest):
    def execute(self, test, lit_config):
        try:
            with open(test.getSourcePath(), encoding="utf-8", errors="replace") as stream:
                run_lines = [line for line in stream if "RUN:" in line]
        except OSError:
            run_lines = []
        for path in sorted(switches.disabled_paths()):
            if any(use in line for line in run_lines for use in PATH_USES[path]):
                return lit.Test.Result(lit.Test.UNSUPPORTED, f"the {path} path is switched off ({switches.refusal(path)})")
        return super().execute(test, lit_config)
