"""Bump the torch-mlir wheel (the project's one MLIR-bearing pin).

    .venv/bin/python tools/bump_pins.py 20261101        # a given nightly
    .venv/bin/python tools/bump_pins.py --latest        # the newest nightly on the package index
    python3 tools/bump_pins.py --latest --dry-run       # only say what would change

Installs torch-mlir==VERSION into the running interpreter's environment, reads
the LLVM version its torch-mlir-opt reports, and rewrites pyproject.toml and
externals/mlir-wheels.toml to match. Then run `make test` and `make conformance`:
a bump is a deliberate, tested step (.github/workflows/bump.yml does it weekly).

`--latest` reads the index's simple page for torch-mlir (PEP 503: the index pip
uses, i.e. --index-url, else PIP_INDEX_URL, else pip's configured or default
index) and takes the newest YYYYMMDD version with a wheel for this Python and
machine that is not yanked. `--dry-run` installs and writes nothing. Under
GitHub Actions (GITHUB_OUTPUT set) the step's outputs are `version` and
`changed` (true when the pin moves). Standard library only, so it runs before
any venv exists.
"""

from __future__ import annotations

import argparse
import html.parser
import os
import platform
import re
import subprocess
import sys
import urllib.parse
import urllib.request
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
PACKAGE = "torch-mlir"
NIGHTLY = re.compile(r"\d{8}")


def main(argv=None) -> int:
    args = parse_arguments(argv)
    pyproject = args.repository / "pyproject.toml"
    externals = args.repository / "externals" / "mlir-wheels.toml"
    current = pinned_version(externals)
    if args.latest:
        index_url = args.index_url or default_index_url()
        version = latest_nightly(index_url)
        if version is None:
            print(f"bump_pins: no {PACKAGE} nightly for this Python and machine on {index_url}", file=sys.stderr)
            return 1
        print(f"newest {PACKAGE} nightly on {index_url}: {version} (pinned: {current})")
    else:
        version = args.version
    changed = version != current
    write_github_output(version=version, changed="true" if changed else "false")
    if not changed:
        print(f"{PACKAGE} {version} is already pinned; nothing to do")
        return 0
    if args.dry_run:
        for path, old, new in planned_changes(pyproject, externals, version):
            print(f"would change {path.relative_to(args.repository)}: {old}  ->  {new}")
        print(f"would install {PACKAGE}=={version} and pin the LLVM version its torch-mlir-opt reports")
        return 0
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", f"{PACKAGE}=={version}"], check=True)
    llvm_version = installed_llvm_version()
    apply_changes(pyproject, externals, version, llvm_version)
    print(f"{PACKAGE} {version} (LLVM {llvm_version}) pinned; now run `make test` and `make conformance`")
    return 0


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description="Bump the torch-mlir pin (pyproject.toml, externals/mlir-wheels.toml).")
    parser.add_argument("version", nargs="?", help="a torch-mlir nightly version, YYYYMMDD")
    parser.add_argument("--latest", action="store_true", help="the newest nightly on the package index")
    parser.add_argument("--index-url", help="the simple index to read (default: the one pip uses)")
    parser.add_argument("--dry-run", action="store_true", help="say what would change; install and write nothing")
    parser.add_argument("--repository", type=Path, default=REPOSITORY, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.latest == (args.version is not None):
        parser.error("give either a version (YYYYMMDD) or --latest")
    if args.version is not None and not NIGHTLY.fullmatch(args.version):
        parser.error(f"'{args.version}' is not a torch-mlir nightly version (YYYYMMDD)")
    return args


def pinned_version(externals: Path) -> str:
    return re.search(r'(?m)^version = "([^"]+)"', externals.read_text()).group(1)


def default_index_url() -> str:
    """The index pip resolves the pins from: PIP_INDEX_URL, pip's configuration, pip's default."""
    if os.environ.get("PIP_INDEX_URL"):
        return os.environ["PIP_INDEX_URL"]
    configured = subprocess.run(
        [sys.executable, "-m", "pip", "config", "get", "global.index-url"], capture_output=True, text=True
    )
    if configured.returncode == 0 and configured.stdout.strip():
        return configured.stdout.strip()
    from pip._internal.models.index import PyPI  # pip's default index, without naming its host here

    return PyPI.simple_url


class _Links(html.parser.HTMLParser):
    """The file links of a PEP 503 simple page: (file name, yanked)."""

    def __init__(self):
        super().__init__()
        self.files: list[tuple[str, bool]] = []

    def handle_starttag(self, tag, attrs):
        if tag != "a":
            return
        attributes = dict(attrs)
        href = attributes.get("href") or ""
        name = urllib.parse.unquote(urllib.parse.urlsplit(href).path.rsplit("/", 1)[-1])
        self.files.append((name, "data-yanked" in attributes))


def read_simple_page(index_url: str, project: str = PACKAGE) -> str:
    url = index_url.rstrip("/") + f"/{project}/"
    if url.startswith("file:"):
        path = Path(urllib.request.url2pathname(urllib.parse.urlsplit(url).path))
        return (path / "index.html" if path.is_dir() else path).read_text()
    request = urllib.request.Request(url, headers={"Accept": "text/html"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.read().decode("utf-8")


def wheel_fits_here(file_name: str) -> bool:
    """A wheel for this interpreter (cpXY) and machine, or a pure one."""
    parts = file_name[: -len(".whl")].split("-")
    if len(parts) < 5:
        return False
    python_tag, platform_tag = parts[-3], parts[-1]
    ours = f"cp{sys.version_info.major}{sys.version_info.minor}"
    if ours not in python_tag.split(".") and not python_tag.startswith("py3"):
        return False
    if platform_tag == "any":
        return True
    return platform.machine().lower() in platform_tag and sys.platform in platform_tag


def nightly_versions(page: str) -> set[str]:
    """The YYYYMMDD versions of the page's non-yanked wheels that fit this Python and machine."""
    links = _Links()
    links.feed(page)
    prefix = PACKAGE.replace("-", "_") + "-"
    versions = set()
    for name, yanked in links.files:
        if yanked or not name.endswith(".whl") or not name.lower().startswith(prefix):
            continue
        version = name[len(prefix) :].split("-", 1)[0]
        if NIGHTLY.fullmatch(version) and wheel_fits_here(name):
            versions.add(version)
    return versions


def latest_nightly(index_url: str) -> str | None:
    versions = nightly_versions(read_simple_page(index_url))
    return max(versions) if versions else None


def _edits(version: str, llvm_version: str | None):
    """(file, pattern, replacement) of a bump; llvm_version None leaves that line out."""
    yield "pyproject.toml", r'"torch-mlir==[^"]+"', f'"torch-mlir=={version}"'
    yield "externals", r'(?m)^version = "[^"]+"', f'version = "{version}"'
    if llvm_version is not None:
        yield "externals", r'(?m)^llvm_version = "[^"]+"', f'llvm_version = "{llvm_version}"'


def planned_changes(pyproject: Path, externals: Path, version: str) -> list[tuple[Path, str, str]]:
    files = {"pyproject.toml": pyproject, "externals": externals}
    changes = []
    for key, pattern, replacement in _edits(version, None):
        matches = re.findall(pattern, files[key].read_text())
        if len(matches) != 1:
            raise SystemExit(f"{files[key]}: expected one match of {pattern}, found {len(matches)}")
        changes.append((files[key], matches[0], replacement))
    return changes


def apply_changes(pyproject: Path, externals: Path, version: str, llvm_version: str) -> None:
    files = {"pyproject.toml": pyproject, "externals": externals}
    for key, pattern, replacement in _edits(version, llvm_version):
        _replace(files[key], pattern, replacement)


def installed_llvm_version() -> str:
    opt = Path(sys.executable).parent / "torch-mlir-opt"
    printed = subprocess.run([str(opt), "--version"], capture_output=True, text=True, check=True).stdout
    return re.search(r"LLVM version (\S+)", printed).group(1)


def write_github_output(**values: str) -> None:
    target = os.environ.get("GITHUB_OUTPUT")
    if target:
        with open(target, "a") as stream:
            for key, value in values.items():
                stream.write(f"{key}={value}\n")


def _replace(path: Path, pattern: str, replacement: str) -> None:
    text, count = re.subn(pattern, replacement, path.read_text())
    if count != 1:
        raise SystemExit(f"{path}: expected one match of {pattern}, found {count}")
    path.write_text(text)


if __name__ == "__main__":
    sys.exit(main())
