"""ONNX ops to torch ops: the registry, the node view, the builder and one module per op family.

Every module of this package that is not part of the framework is an op family
and is imported here, which registers its `@converts` patterns: adding a family
is adding a file (see docs/adding-an-op.md).
"""

import importlib
import pkgutil

from .builder import TorchBuilder  # noqa: F401
from .node import OnnxNode, UnsupportedNode  # noqa: F401
from .registry import all_registrations, converts, lookup  # noqa: F401

FRAMEWORK_MODULES = {"builder", "driver", "functions", "node", "registry", "types"}

FAMILIES = tuple(
    sorted(info.name for info in pkgutil.iter_modules(__path__) if info.name not in FRAMEWORK_MODULES)
)
for _family in FAMILIES:
    importlib.import_module(f"{__name__}.{_family}")

from .driver import convert_onnx_to_torch  # noqa: E402,F401
