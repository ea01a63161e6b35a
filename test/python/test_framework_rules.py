"""The conversion's layout rules (DESIGN §5): a family module uses only the framework, never
another family nor the framework's internals, and no module of `conversion/` grows past 600
lines. Read from the sources with `ast`, so a violation names the file and the import."""

import ast
from pathlib import Path

import pytest

from onnx_torch_mlir.conversion import onnx_to_torch

CONVERSION = Path(onnx_to_torch.__file__).parent.parent
PACKAGE = Path(onnx_to_torch.__file__).parent
PACKAGE_NAME = onnx_to_torch.__name__
MAX_LINES = 600


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([PACKAGE_NAME, *parts])


def _imported_modules(path: Path) -> set[str]:
    """The absolute names of the modules `path` imports (`from . import x` counts as `.x`)."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                source = f"{base}.{node.module}" if node.module else base
            else:
                source = node.module
            names.add(source)
            if not node.module:  # `from . import builder`
                names.update(f"{source}.{alias.name}" for alias in node.names)
    return names


def _package_module(name: str) -> str | None:
    """The module of the onnx_to_torch package that `name` is or lies in, else None."""
    if not name.startswith(PACKAGE_NAME + "."):
        return None
    return name[len(PACKAGE_NAME) + 1 :].split(".")[0]


def _files(module: str) -> list[Path]:
    """The source files of a module of the package: `x.py`, or every file of the subpackage `x/`."""
    if (PACKAGE / module).is_dir():
        return sorted((PACKAGE / module).rglob("*.py"))
    return [PACKAGE / f"{module}.py"]


def test_the_package_lists_families_and_framework():
    on_disk = {path.stem for path in PACKAGE.glob("*.py") if path.name != "__init__.py"}
    on_disk |= {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").exists()}
    assert onnx_to_torch.FAMILY_API <= onnx_to_torch.FRAMEWORK_MODULES
    assert onnx_to_torch.FRAMEWORK_MODULES <= on_disk, "FRAMEWORK_MODULES names a module that does not exist"
    assert set(onnx_to_torch.FAMILIES) == on_disk - onnx_to_torch.FRAMEWORK_MODULES


@pytest.mark.parametrize("family", onnx_to_torch.FAMILIES)
def test_a_family_imports_only_the_framework_api(family):
    allowed = onnx_to_torch.FAMILY_API | {family}
    wrong = []
    for path in _files(family):
        for name in sorted(_imported_modules(path)):
            imported = _package_module(name)
            if imported is not None and imported not in allowed:
                kind = "the framework's internal module" if imported in onnx_to_torch.FRAMEWORK_MODULES else "family"
                wrong.append(f"{path.relative_to(CONVERSION)} imports {kind} '{imported}'")
    assert not wrong, (
        "a family imports only " + ", ".join(sorted(onnx_to_torch.FAMILY_API)) + "; a helper two families "
        "need belongs in the builder or the node view:\n" + "\n".join(wrong)
    )


@pytest.mark.parametrize("module", sorted(onnx_to_torch.FRAMEWORK_MODULES))
def test_the_framework_imports_no_family(module):
    wrong = [
        f"{path.relative_to(CONVERSION)} imports family '{imported}'"
        for path in _files(module)
        for imported in map(_package_module, sorted(_imported_modules(path)))
        if imported is not None and imported not in onnx_to_torch.FRAMEWORK_MODULES
    ]
    assert not wrong, "\n".join(wrong)


def test_no_conversion_module_is_over_600_lines():
    long = {
        str(path.relative_to(CONVERSION)): count
        for path in sorted(CONVERSION.rglob("*.py"))
        if (count := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert not long, f"modules over {MAX_LINES} lines split by theme (DESIGN §5): {long}"


def test_the_rules_see_a_violation(tmp_path, monkeypatch):
    """The checks themselves: a family that imports another family and a private module is caught."""
    family = tmp_path / "family.py"
    family.write_text("from .constants import literal_value\nfrom . import slicing\nfrom .builder import TorchBuilder\n")
    monkeypatch.setattr(f"{__name__}.PACKAGE", tmp_path)
    imported = {_package_module(name) for name in _imported_modules(family)} - {None}
    assert imported == {"constants", "slicing", "builder"}
