// On StableHLO and TOSA a box count known only at run time must come from a data-dependent count
// whose padded rows the conversion finds (NonZero, Compress, NonMaxSuppression); a dynamic graph
// input has no bound: refused, naming the node, --dim and Linalg.
// RUN: not onnx-mlir-opt %s --convert-onnx-to-torch 2>&1 | FileCheck %s

module attributes {onnx_torch_mlir.target = "stablehlo"} {
  func.func @unbounded_box_count(%boxes: !torch.vtensor<[1,?,4],f32>, %scores: !torch.vtensor<[1,2,?],f32>, %max: !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,3],si64> attributes {torch.onnx_meta.opset_version = 11 : si64} {
    // CHECK: detection_padded_diagnostics.mlir:[[# @LINE + 1]]:10: error: unnamed node (NonMaxSuppression, domain 'ai.onnx', opset 11): the box count is known only at run time and does not come from a data-dependent count (NonZero, Compress, NonMaxSuppression) this conversion can bound: stablehlo needs it bounded; fix the dims it comes from with --dim NAME=SIZE, or compile to linalg-on-tensors
    %0 = torch.operator "onnx.NonMaxSuppression"(%boxes, %scores, %max) : (!torch.vtensor<[1,?,4],f32>, !torch.vtensor<[1,2,?],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,3],si64>
    return %0 : !torch.vtensor<[?,3],si64>
  }
}
