"""Loading a script of tools/ as a module, for the tests of that script."""

import importlib.util
import sys
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]


def load_tool(name: str):
    """tools/NAME.py as the module NAME (registered in sys.modules: dataclasses look their module up there)."""
    spec = importlib.util.spec_from_file_location(name, REPOSITORY / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
