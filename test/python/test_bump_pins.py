"""tools/bump_pins.py without the network: a fake PEP 503 index page on disk (file:// URL) and a
copy of the pin files, so --latest and --dry-run are checked against today's pin."""

import importlib.util
import platform
import shutil
import sys
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bump_pins", REPOSITORY / "tools" / "bump_pins.py")
bump_pins = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bump_pins)

PYTHON = f"cp{sys.version_info.major}{sys.version_info.minor}"
MACHINE = platform.machine().lower()
TODAY = bump_pins.pinned_version(REPOSITORY / "externals" / "mlir-wheels.toml")


def wheel(version: str, python: str = PYTHON, machine: str = MACHINE) -> str:
    return f"torch_mlir-{version}-{python}-{python}-manylinux_2_28_{machine}.whl"


def page(*links: str) -> str:
    return "<!DOCTYPE html><html><body>\n" + "\n".join(links) + "\n</body></html>\n"


def link(file_name: str, yanked: bool = False) -> str:
    yanked_attribute = ' data-yanked=""' if yanked else ""
    return f'<a href="../../files/{file_name}#sha256=00"{yanked_attribute}>{file_name}</a><br/>'


@pytest.fixture
def index(tmp_path):
    """Write a fake simple index; returns its file:// URL."""

    def make(*links: str) -> str:
        project = tmp_path / "index" / "simple" / "torch-mlir"
        project.mkdir(parents=True, exist_ok=True)
        (project / "index.html").write_text(page(*links))
        return (tmp_path / "index" / "simple").as_uri()

    return make


@pytest.fixture
def repository(tmp_path):
    """A copy of the two pin files, the way bump_pins.py finds them."""
    root = tmp_path / "repository"
    (root / "externals").mkdir(parents=True)
    shutil.copy(REPOSITORY / "pyproject.toml", root / "pyproject.toml")
    shutil.copy(REPOSITORY / "externals" / "mlir-wheels.toml", root / "externals" / "mlir-wheels.toml")
    return root


def run(repository, *arguments, monkeypatch, tmp_path):
    output = tmp_path / "github_output"
    monkeypatch.setenv("GITHUB_OUTPUT", str(output))
    status = bump_pins.main(["--repository", str(repository), *arguments])
    return status, dict(line.split("=", 1) for line in output.read_text().splitlines())


def test_newest_version_ignores_yanked_foreign_and_non_nightly_files():
    versions = bump_pins.nightly_versions(
        page(
            link(wheel("20261001")),
            link(wheel("20261101")),
            link(wheel("20261201"), yanked=True),
            link(wheel("20261215", python="cp39")),
            link(wheel("20261220", machine="aarch64" if MACHINE != "aarch64" else "x86_64")),
            link("torch_mlir-20261230.tar.gz"),
            link(wheel("0.0.1")),
            link(wheel("20261105").replace("torch_mlir", "torch_mlir_extra")),
        )
    )
    assert versions == {"20261001", "20261101"}


def test_dry_run_against_todays_pin_changes_nothing(index, repository, monkeypatch, tmp_path, capsys):
    before = {path: path.read_text() for path in repository.rglob("*") if path.is_file()}
    url = index(link(wheel("20240101")), link(wheel(TODAY)))
    status, outputs = run(repository, "--latest", "--dry-run", "--index-url", url, monkeypatch=monkeypatch, tmp_path=tmp_path)
    assert status == 0
    assert outputs == {"version": TODAY, "changed": "false"}
    assert "already pinned" in capsys.readouterr().out
    assert {path: path.read_text() for path in before} == before


def test_dry_run_with_a_newer_nightly_names_the_change_and_writes_nothing(index, repository, monkeypatch, tmp_path, capsys):
    before = {path: path.read_text() for path in repository.rglob("*") if path.is_file()}
    newer = "99991231"
    url = index(link(wheel(TODAY)), link(wheel(newer)))
    status, outputs = run(repository, "--latest", "--dry-run", "--index-url", url, monkeypatch=monkeypatch, tmp_path=tmp_path)
    assert status == 0
    assert outputs == {"version": newer, "changed": "true"}
    printed = capsys.readouterr().out
    assert f'"torch-mlir=={TODAY}"  ->  "torch-mlir=={newer}"' in printed
    assert f'version = "{TODAY}"  ->  version = "{newer}"' in printed
    assert {path: path.read_text() for path in before} == before


def test_applying_a_bump_rewrites_both_pin_files(repository):
    bump_pins.apply_changes(repository / "pyproject.toml", repository / "externals" / "mlir-wheels.toml", "99991231", "99.0.0git")
    assert '"torch-mlir==99991231"' in (repository / "pyproject.toml").read_text()
    externals = (repository / "externals" / "mlir-wheels.toml").read_text()
    assert 'version = "99991231"' in externals and 'llvm_version = "99.0.0git"' in externals


def test_an_index_without_a_fitting_wheel_is_an_error(index, repository, monkeypatch, tmp_path, capsys):
    url = index(link(wheel("20261101", python="cp39")))
    monkeypatch.delenv("GITHUB_OUTPUT", raising=False)
    assert bump_pins.main(["--repository", str(repository), "--latest", "--dry-run", "--index-url", url]) == 1
    assert "no torch-mlir nightly" in capsys.readouterr().err


@pytest.mark.parametrize("arguments", [[], ["2026-10-01"], ["20261001", "--latest"]])
def test_usage_errors(arguments):
    with pytest.raises(SystemExit) as raised:
        bump_pins.parse_arguments(arguments)
    assert raised.value.code == 2


def test_the_weekly_workflow_runs_the_bump_the_tests_and_the_diff():
    workflow = (REPOSITORY / ".github" / "workflows" / "bump.yml").read_text()
    for needed in ("schedule:", "workflow_dispatch:", "tools/bump_pins.py --latest --dry-run", "make test",
                   "make conformance", "make zoo", "tools/conformance_diff.py", "bump-loses-cases"):
        assert needed in workflow, needed
