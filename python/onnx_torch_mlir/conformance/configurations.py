"""Who imports and who converts: the configurations the conformance suite measures.

- "ours": our importer and our ONNX-to-Torch conversion (the product);
- "ours-importer": our importer, torch-mlir's conversion (proves the torch-ONNX
  spelling: it must do at least as well as torch-mlir's own importer);
- "ours-converter": torch-mlir's importer, our conversion (isolates the conversion);
- "torch-mlir": torch-mlir's importer and conversion (the peer);
- "torch-mlir-upgraded": the peer after ONNX's version converter raises the
  model to opset 21, as torch-mlir's own test flow does (its best numbers).
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Configuration:
    name: str
    importer: str
    converter: str
    upgrade_opset: int | None = None
    description: str = ""


CONFIGURATIONS = {
    configuration.name: configuration
    for configuration in (
        Configuration("ours", "ours", "ours", description="our importer and our conversion"),
        Configuration("ours-importer", "ours", "torch-mlir", description="our importer, torch-mlir's conversion"),
        Configuration("ours-converter", "torch-mlir", "ours", description="torch-mlir's importer, our conversion"),
        Configuration("torch-mlir", "torch-mlir", "torch-mlir", description="torch-mlir's importer and conversion"),
        Configuration(
            "torch-mlir-upgraded",
            "torch-mlir",
            "torch-mlir",
            upgrade_opset=21,
            description="torch-mlir after upgrading the model to opset 21",
        ),
    )
}
