"""Compiled programs kept on disk, so that running the same program again skips LLVM.

LLVM's optimisation and code generation are nearly all of the runner's time on a real model
(BERT-base: tens of seconds; lowering to the LLVM dialect takes one). After a program is
JIT-compiled, the ExecutionEngine's object file is linked with the C compiler (`cc -shared`) into a
shared library and stored under a key; the next compilation of the same program loads that library
instead of compiling.

The key is a SHA-256 of everything the machine code depends on: the program as lowered to the LLVM
dialect (its bytecode), the optimisation level, this cache's format, torch-mlir's version (MLIR and
LLVM come with it), and the host (architecture, CPU model and features, since LLVM compiles for the
host CPU). The runtime functions the code calls (result consumers, the assertion recorder,
compiler-runtime and custom-op callbacks) cannot be linked in: they are Python callbacks made per
program. Each becomes a trampoline in the library that jumps through a slot the loader fills.

Where: `$ONNX_TORCH_MLIR_PROGRAM_CACHE` if set (`off` or `0` disables the cache), else
`$XDG_CACHE_HOME/onnx-torch-mlir/programs` (default `~/.cache/onnx-torch-mlir/programs`). Bounded:
after each store the oldest entries (by last use) go until the directory is under
`$ONNX_TORCH_MLIR_PROGRAM_CACHE_MAX_MB` (default 1024 MiB); deleting the directory is always safe.
Only programs whose compilation took at least `min_compile_seconds` (default 1 s) are stored: a
small program compiles faster than it links. Without a C compiler (`$CC`, `cc`, `gcc`, `clang`) or
on a CPU other than x86-64 and AArch64 nothing is stored.

Entries are one file each, `<key>.program`: a header line with the library's SHA-256 and the
trampolines' names, then the library. They are written to a temporary name and renamed, so a reader
never sees a partial entry; an entry that does not verify or load is deleted and the program
compiled again. A loaded library is a private copy (a program compiled twice in one process gets
two sets of slots) and is unloaded with its program.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import platform
import re
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from onnx_torch_mlir.runtime.native_code import LoadedLibrary

FORMAT = 1
_MAGIC = b"onnx-torch-mlir program\n"
_SUFFIX = ".program"
_LINK_TIMEOUT_SECONDS = 300
_STALE_TEMPORARY_SECONDS = 3600
_LOG = logging.getLogger(__name__)


@dataclasses.dataclass
class CacheStatistics:
    """What this process's caches did: hits, misses, entries stored, entries that failed to verify."""

    hits: int = 0
    misses: int = 0
    stores: int = 0
    corrupt: int = 0
    store_failures: int = 0


statistics = CacheStatistics()
_statistics_lock = threading.Lock()


def _count(field: str) -> None:
    with _statistics_lock:
        setattr(statistics, field, getattr(statistics, field) + 1)


@dataclasses.dataclass(frozen=True)
class ProgramCache:
    """A directory of compiled programs (see the module docstring)."""

    directory: Path
    max_bytes: int = 1024 * 2**20
    min_compile_seconds: float = 1.0

    def key_of(self, lowered_module, opt_level: int) -> str:
        """The key of `lowered_module` (an ir.Module in the LLVM dialect) compiled at `opt_level`."""
        digest = hashlib.sha256()
        digest.update(json.dumps([FORMAT, opt_level, _toolchain_version(), _host()]).encode())
        digest.update(_canonical_text(lowered_module).encode())
        return digest.hexdigest()

    def path_of(self, key: str) -> Path:
        return self.directory / (key + _SUFFIX)

    def load(self, key: str, addresses: dict[str, int]) -> LoadedLibrary | None:
        """The stored program of `key` with its runtime symbols bound, or None (compile it)."""
        path = self.path_of(key)
        try:
            data = path.read_bytes()
        except OSError:
            _count("misses")
            return None
        library = self._library_from_entry(path, data)
        if library is None or library.missing_symbols(addresses):
            _LOG.warning("program cache: discarding an entry that does not verify: %s", path)
            _count("corrupt")
            _remove(path)
            return None
        library.bind(addresses)
        _touch(path)
        _count("hits")
        return library

    def _library_from_entry(self, path: Path, data: bytes) -> LoadedLibrary | None:
        header = _parse_header(data)
        if header is None:
            return None
        payload = data[header["offset"] :]
        if hashlib.sha256(payload).hexdigest() != header["sha256"]:
            return None
        private_copy = None
        try:
            descriptor, private_copy = tempfile.mkstemp(prefix=".load-", suffix=".so", dir=self.directory)
            with os.fdopen(descriptor, "wb") as file:
                file.write(payload)
            return LoadedLibrary(private_copy, header["slots"])
        except (OSError, AttributeError, ValueError):
            return None
        finally:
            if private_copy:
                _remove(Path(private_copy))  # the loaded mapping outlives the name

    def store(self, key: str, engine, slot_names: list[str], compile_seconds: float) -> bool:
        """Link `engine`'s object file into a library and store it under `key`; False if not stored."""
        if compile_seconds < self.min_compile_seconds:
            return False
        compiler, trampolines = _c_compiler(), _trampolines(slot_names)
        if compiler is None or trampolines is None:
            return False
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory(prefix=".build-", dir=self.directory) as build:
                library = _link(compiler, [_object_file_of(engine, Path(build))], Path(build), trampolines)
                _write_atomically(self.path_of(key), _entry_bytes(library.read_bytes(), slot_names))
        except (OSError, RuntimeError, subprocess.SubprocessError) as error:
            _LOG.info("program cache: not stored (%s)", str(error).strip()[:300])
            _count("store_failures")
            return False
        self._stored()
        return True

    def store_library(self, key: str, library: Path, slot_names: list[str], compile_seconds: float) -> bool:
        """Store a library already linked with `slot_names`' trampolines (split_compilation.py)."""
        if compile_seconds < self.min_compile_seconds:
            return False
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            _write_atomically(self.path_of(key), _entry_bytes(library.read_bytes(), slot_names))
        except OSError as error:
            _LOG.info("program cache: not stored (%s)", str(error).strip()[:300])
            _count("store_failures")
            return False
        self._stored()
        return True

    def _stored(self) -> None:
        _count("stores")
        try:
            self._evict()
        except OSError:
            pass  # another process is cleaning up too

    def _evict(self) -> None:
        """Delete the least recently used entries until the directory is under `max_bytes`."""
        entries = []
        for path in self.directory.iterdir():
            try:
                status = path.stat()
            except OSError:
                continue
            if path.name.startswith(".") and time.time() - status.st_mtime > _STALE_TEMPORARY_SECONDS:
                _remove_tree(path)  # left by a process that died while writing
            elif path.suffix == _SUFFIX:
                entries.append((status.st_mtime, status.st_size, path))
        total = sum(size for _, size, _ in entries)
        for _, size, path in sorted(entries):
            if total <= self.max_bytes:
                break
            _remove(path)
            total -= size


def default_cache() -> ProgramCache | None:
    """The cache the environment asks for (see the module docstring), or None when disabled."""
    setting = os.environ.get("ONNX_TORCH_MLIR_PROGRAM_CACHE")
    if setting is not None and setting.strip().lower() in ("", "0", "off", "no", "false"):
        return None
    if setting:
        directory = Path(setting).expanduser()
    else:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        directory = Path(base) / "onnx-torch-mlir" / "programs"
    max_mib = os.environ.get("ONNX_TORCH_MLIR_PROGRAM_CACHE_MAX_MB", "")
    max_bytes = int(float(max_mib) * 2**20) if max_mib.strip() else ProgramCache.max_bytes
    return ProgramCache(directory, max_bytes=max_bytes)


def resolve(cache: "ProgramCache | bool | None") -> ProgramCache | None:
    """compile_for_cpu's `cache` argument: a ProgramCache, True/None (the default cache), or False."""
    if cache is False:
        return None
    if cache is None or cache is True:
        return default_cache()
    return cache


_RESOURCE_USE = re.compile(r"dense_resource<([^>]+)>")
_RESOURCE_DEFINITION = re.compile(r'^(\s*)("(?:[^"\\]|\\.)*"|[^\s:"]+)(: ")', re.MULTILINE)


def _canonical_text(module) -> str:
    """The module's text (no locations: they do not reach the machine code) with each resource
    handle renamed by its order of first use. A context that already holds a handle gives the next
    program's resource of that name a new one (`onnx__Conv_633_1`); the machine code is the same."""
    text = module.operation.get_asm()
    body, marker, resources = text.partition("\n{-#")
    names: dict[str, str] = {}

    def use(match: re.Match) -> str:
        return "dense_resource<" + names.setdefault(match.group(1), f"r{len(names)}") + ">"

    def definition(match: re.Match) -> str:
        return match.group(1) + names.get(match.group(2), match.group(2)) + match.group(3)

    return _RESOURCE_USE.sub(use, body) + marker + _RESOURCE_DEFINITION.sub(definition, resources)


# -- The library --------------------------------------------------------------------------------

_JUMPS = {
    # Jump through slot `index` of `otm_slots`, keeping every argument register as it is.
    "x86_64": "  jmp *otm_slots+{offset}(%rip)\n",
    "aarch64": "  adrp x16, otm_slots+{offset}\n  ldr x16, [x16, :lo12:otm_slots+{offset}]\n  br x16\n",
}


def _machine() -> str:
    machine = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)


def _trampolines(slot_names: list[str]) -> str | None:
    """C source defining each runtime symbol as a jump through its slot; None on another CPU."""
    jump = _JUMPS.get(_machine())
    if jump is None:
        return None
    lines = [
        f'__attribute__((visibility("hidden"))) void *otm_slots[{max(len(slot_names), 1)}];',
        "void **otm_program_slots(void) { return otm_slots; }",
    ]
    for index, name in enumerate(slot_names):
        body = (f".text\n.globl {name}\n.hidden {name}\n.type {name},@function\n.p2align 4\n{name}:\n"
                + jump.format(offset=8 * index))
        lines.append("__asm__(" + json.dumps(body) + ");")
    return "\n".join(lines) + "\n"


def _c_compiler() -> str | None:
    chosen = os.environ.get("CC", "").split()
    for name in chosen[:1] + ["cc", "gcc", "clang"]:
        found = shutil.which(name)
        if found:
            return found
    return None


def _object_file_of(engine, build: Path) -> Path:
    obj = build / "program.o"
    engine.dump_to_object_file(str(obj))
    if not obj.exists() or obj.stat().st_size == 0:
        raise RuntimeError("the ExecutionEngine wrote no object file")
    return obj


def _link(compiler: str, objects: list[Path], build: Path, trampolines: str) -> Path:
    """The shared library of `objects` and the trampolines (the runtime symbols' slots)."""
    source, library = build / "trampolines.c", build / "program.so"
    source.write_text(trampolines)
    command = [compiler, "-shared", "-fPIC", "-o", str(library), *map(str, objects), str(source), "-lm",
               "-Wl,-z,defs"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=_LINK_TIMEOUT_SECONDS)
    if result.returncode != 0:
        raise RuntimeError(f"linking failed: {result.stderr}")
    return library


def _entry_bytes(library: bytes, slot_names: list[str]) -> bytes:
    header = json.dumps({"format": FORMAT, "sha256": hashlib.sha256(library).hexdigest(), "slots": slot_names})
    return _MAGIC + header.encode() + b"\n" + library


def _parse_header(data: bytes) -> dict | None:
    if not data.startswith(_MAGIC):
        return None
    end = data.find(b"\n", len(_MAGIC))
    if end < 0:
        return None
    try:
        header = json.loads(data[len(_MAGIC) : end])
    except ValueError:
        return None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        return None
    if not isinstance(header.get("sha256"), str) or not isinstance(header.get("slots"), list):
        return None
    header["offset"] = end + 1
    return header


def _write_atomically(path: Path, data: bytes) -> None:
    descriptor, temporary = tempfile.mkstemp(prefix=".write-", dir=path.parent)
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        _remove(Path(temporary))
        raise


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def _remove_tree(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    else:
        _remove(path)


def _touch(path: Path) -> None:
    try:
        os.utime(path)
    except OSError:
        pass


# -- What the machine code depends on besides the program ---------------------------------------

_host_description: list | None = None


def _toolchain_version() -> str:
    from importlib import metadata

    try:
        return "torch-mlir " + metadata.version("torch-mlir")
    except metadata.PackageNotFoundError:
        from torch_mlir._mlir_libs import _mlirExecutionEngine

        status = os.stat(_mlirExecutionEngine.__file__)
        return f"{_mlirExecutionEngine.__file__} {status.st_size} {status.st_mtime_ns}"


def _host() -> list:
    """Architecture, CPU model and CPU features (LLVM compiles for the host CPU)."""
    global _host_description
    if _host_description is None:
        cpu = []
        try:
            with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as info:
                for line in info:
                    field = line.partition(":")[0].strip().lower()
                    if field in ("model name", "flags", "features", "cpu part", "cpu implementer"):
                        cpu.append(line.strip())
                    elif not line.strip() and cpu:
                        break  # the first processor describes the others
        except OSError:
            cpu.append(platform.processor())
        _host_description = [_machine(), platform.system(), cpu]
    return _host_description
