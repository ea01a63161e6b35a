"""Compiling one part of a program that split_compilation.py divided, to an object file.

Run in a process of its own (`python part_compiler.py MODULE.mlirbc SPEC.json`, the spec naming
the functions to keep, the optimisation level and the object file) or called in the parent for
the part it compiles itself. Imports only torch_mlir, so that a worker starts quickly.

Every function definition of external linkage that the part does not keep becomes a declaration
(another part defines it; the shared library links them); private and internal definitions stay in
every part (LLVM drops those a part does not use), renamed per part (`rename_local_functions`). The ExecutionEngine compiles the part
position-independent at the given optimisation level, as it compiles a whole program, and writes
its object file. Symbols defined elsewhere are bound to a placeholder address for the engine's
own linking step, which nothing calls: only the object file is used.
"""

from __future__ import annotations

import ctypes
import json
import sys
from pathlib import Path

from torch_mlir import execution_engine, ir

_LOCAL_LINKAGES = ("private", "internal", "linkonce", "linkonce_odr", "weak", "weak_odr")
# Any address of code in the process: bound to symbols the part calls but others define.
_PLACEHOLDER = ctypes.cast(ctypes.CDLL(None).abort, ctypes.c_void_p).value


def is_local(operation: ir.Operation) -> bool:
    """Whether an llvm.func or llvm.mlir.global may be defined in every part (not linked across)."""
    if "linkage" not in operation.attributes:
        return False
    linkage = str(operation.attributes["linkage"])  # `#llvm.linkage<internal>`
    return linkage.partition("<")[2].rstrip(">") in _LOCAL_LINKAGES


def is_definition(operation: ir.Operation) -> bool:
    return operation.name == "llvm.func" and len(operation.regions[0].blocks) > 0


def keep_only(module: ir.Module, kept: set[str]) -> list[str]:
    """Turn every external definition not named in `kept` into a declaration; returns the names
    of all declared functions (defined in another part or in the process)."""
    declared = []
    with module.context, ir.Location.unknown():
        for operation in list(module.body.operations):
            operation = operation.operation
            if operation.name != "llvm.func":
                continue
            name = ir.StringAttr(operation.attributes["sym_name"]).value
            if is_definition(operation) and (name in kept or is_local(operation)):
                continue
            if is_definition(operation):
                with ir.InsertionPoint(operation):
                    ir.Operation.create("llvm.func", regions=1, attributes={
                        "sym_name": operation.attributes["sym_name"],
                        "function_type": operation.attributes["function_type"]})
                operation.erase()
            declared.append(name)
    return declared


def rename_local_functions(module: ir.Module, suffix: str) -> None:
    """Give each local function definition (one copy per part) a name of this part's: the
    ExecutionEngine wraps every defined function in an external `_mlir_<name>`, which would be
    defined by every part (T5: `_mlir___mlir_math_fpowi_f32_i64`, multiple definition at link)."""
    with module.context:
        for operation in list(module.body.operations):
            operation = operation.operation
            if not (is_definition(operation) and is_local(operation)):
                continue
            name = ir.StringAttr(operation.attributes["sym_name"]).value
            renamed = f"{name}.{suffix}"
            ir.SymbolTable.replace_all_symbol_uses(name, renamed, module.operation)
            operation.attributes["sym_name"] = ir.StringAttr.get(renamed)


def compile_part(module: ir.Module, kept: set[str], object_path: str, opt_level: int, runtime: list[str]) -> None:
    """Compile the part of `module` keeping `kept` into `object_path` (the module is changed).
    `runtime`: names the process provides (bound to the placeholder like the other parts')."""
    declared = keep_only(module, kept)
    rename_local_functions(module, Path(object_path).stem)
    engine = execution_engine.ExecutionEngine(module, opt_level=opt_level, enable_pic=True)
    for name in set(declared) | set(runtime):
        engine.raw_register_runtime(name, ctypes.c_void_p(_PLACEHOLDER))
    # The engine compiles on the first lookup (dumping before one would look up every function,
    # declarations too, and fail).
    if not engine.raw_lookup(min(kept)):
        raise RuntimeError(f"the part defining {min(kept)} did not compile")
    engine.dump_to_object_file(object_path)


def main(argv: list[str]) -> int:
    module_path, spec_path = argv
    with open(spec_path, encoding="utf-8") as file:
        spec = json.load(file)
    with ir.Context():
        with open(module_path, "rb") as file:
            module = ir.Module.parse(file.read())
        compile_part(module, set(spec["kept"]), spec["object"], spec["opt_level"], spec["runtime"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
