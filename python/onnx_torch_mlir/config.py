"""Package configuration: the switches that turn whole compilation paths off.

Three paths can be switched off, each on its own:

- "tosa": lowering the Torch backend contract to TOSA (`output_type="tosa"`,
  `onnx-mlir-opt --convert-torch-to-tosa`, the TOSA conformance runs);
- "stablehlo": lowering to StableHLO, the same way;
- "torch": torch-mlir's own ONNX path, i.e. its ONNX importer and its
  ONNX-to-Torch conversion (`importer="torch-mlir"`, `converter="torch-mlir"`,
  the conformance configurations other than "ours"). Our importer, our
  conversion to the Torch dialect and the Linalg path (which the reference
  runner needs) cannot be switched off.

The switches come from, in order of precedence:

1. the package setting: `onnx_torch_mlir.config.set_disabled_paths({"tosa"})`
   (None goes back to the environment);
2. the environment: `ONNX_TORCH_MLIR_DISABLE=tosa,stablehlo` (what the
   command-line flag `--disable PATH` of both tools and `make test DISABLE=...`
   set, so worker processes inherit it).

A switched-off path refuses with `BackendDisabledError`, whose message names the
path and the switch.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from .errors import BackendDisabledError

ENVIRONMENT_VARIABLE = "ONNX_TORCH_MLIR_DISABLE"
PATHS = ("tosa", "stablehlo", "torch")
PATH_DESCRIPTIONS = {
    "tosa": "the TOSA backend path",
    "stablehlo": "the StableHLO backend path",
    "torch": "torch-mlir's own ONNX importer and ONNX-to-Torch conversion",
}

_package_setting: frozenset[str] | None = None


def _parse(names: Iterable[str], source: str) -> frozenset[str]:
    paths = frozenset(name.strip().lower() for name in names if name.strip())
    unknown = sorted(paths - set(PATHS))
    if unknown:
        raise BackendDisabledError(
            f"{source}: unknown path(s) {', '.join(unknown)}; the paths that can be switched off are "
            f"{', '.join(PATHS)}"
        )
    return paths


def disabled_paths() -> frozenset[str]:
    """The paths switched off now (package setting, else the environment)."""
    if _package_setting is not None:
        return _package_setting
    return _parse(os.environ.get(ENVIRONMENT_VARIABLE, "").split(","), ENVIRONMENT_VARIABLE)


def set_disabled_paths(paths: Iterable[str] | None) -> None:
    """Switch paths off for this process (None: follow the environment again)."""
    global _package_setting
    _package_setting = None if paths is None else _parse(paths, "set_disabled_paths")


def disable_in_environment(paths: Iterable[str]) -> None:
    """What the command-line flag does: add `paths` to the environment, so child processes see them too."""
    current = set(_parse(os.environ.get(ENVIRONMENT_VARIABLE, "").split(","), ENVIRONMENT_VARIABLE))
    current |= _parse(paths, "--disable")
    os.environ[ENVIRONMENT_VARIABLE] = ",".join(sorted(current))


def is_enabled(path: str) -> bool:
    return path not in disabled_paths()


def refusal(path: str) -> str:
    """The message a switched-off path refuses with."""
    return (
        f"{PATH_DESCRIPTIONS[path]} is switched off ('{path}' in {ENVIRONMENT_VARIABLE} or the package setting "
        f"onnx_torch_mlir.config.set_disabled_paths); unset it to use this path"
    )


def require(path: str) -> None:
    """Raise BackendDisabledError if `path` is switched off."""
    if not is_enabled(path):
        raise BackendDisabledError(refusal(path))


# Short names taken for an output type wherever one is taken (`--to`, `compile(output_type=)`).
OUTPUT_TYPE_ALIASES = {"linalg": "linalg-on-tensors"}


def canonical_output_type(name: str) -> str:
    """`name` with a short name spelled out; unknown names pass through for the caller's check."""
    return OUTPUT_TYPE_ALIASES.get(name, name)


def path_of_output_type(output_type: str) -> str | None:
    """The switchable path an output type belongs to (None: always on)."""
    return output_type if output_type in ("tosa", "stablehlo") else None


def require_output_type(output_type: str) -> None:
    path = path_of_output_type(output_type)
    if path is not None:
        require(path)


def enabled_backends(backends: Iterable[str]) -> list[str]:
    """`backends` without those switched off."""
    return [backend for backend in backends if path_of_output_type(backend) is None or is_enabled(backend)]


def add_disable_argument(parser) -> None:
    """The `--disable PATH` option both command-line tools take (repeatable, or comma-separated)."""
    parser.add_argument(
        "--disable", action="append", default=[], metavar="PATH",
        help=f"switch a path off for this run: {', '.join(PATHS)} (repeatable; also {ENVIRONMENT_VARIABLE})",
    )


def apply_disable_argument(args) -> None:
    names = [name for value in getattr(args, "disable", None) or [] for name in value.split(",")]
    if names:
        disable_in_environment(names)
