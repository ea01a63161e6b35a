"""pytest support for the path switches (onnx_torch_mlir.config).

A test of a switched-off path is skipped with the refusal as the reason. A test belongs to a path
when it is marked `@pytest.mark.requires_path("tosa")`, or when its id names the path: "tosa";
"stablehlo" or "chlo"; "torch_mlir", "torch-mlir", "peer" or "ours-importer" for torch-mlir's own
ONNX path ("torch").
"""

import re

import pytest

from onnx_torch_mlir import config as switches

_ID_TOKENS = {
    "tosa": re.compile(r"tosa", re.IGNORECASE),
    "stablehlo": re.compile(r"stablehlo|chlo", re.IGNORECASE),
    "torch": re.compile(r"torch[-_]mlir|peer|ours[-_]importer|ours[-_]converter", re.IGNORECASE),
}


def pytest_configure(config):  # noqa: F811 - pytest passes its own config object
    config.addinivalue_line("markers", "requires_path(name): needs the named path (tosa, stablehlo, torch) on")
    config.addinivalue_line("markers", "ignores_switches: runs whatever the switches say (tests of the switches)")


def _paths_of(item) -> set:
    paths = {mark.args[0] for mark in item.iter_markers("requires_path")}
    for path, pattern in _ID_TOKENS.items():
        if pattern.search(item.nodeid.split("::", 1)[-1]):
            paths.add(path)
    return paths


def pytest_collection_modifyitems(config, items):  # noqa: ARG001 - pytest's signature
    disabled = onnx_torch_mlir_disabled()
    if not disabled:
        return
    for item in items:
        if item.get_closest_marker("ignores_switches"):
            continue
        for path in sorted(_paths_of(item) & disabled):
            item.add_marker(pytest.mark.skip(reason=config_refusal(path)))
            break


def onnx_torch_mlir_disabled() -> set:
    return set(switches.disabled_paths())


def config_refusal(path: str) -> str:
    return switches.refusal(path)
