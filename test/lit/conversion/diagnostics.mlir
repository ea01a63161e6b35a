// Every node that cannot be converted is reported, each at its own location, naming the node,
// op type, domain, opset and the reason; no generic "failed to legalize".
// RUN: not onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch 2>&1 | FileCheck %s
// RUN: not onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch-pipeline -o %t 2>&1 | FileCheck %s

// CHECK-NOT: failed to legalize
module attributes {onnx.opset_version = 17 : i64} {
  func.func @main_graph(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
    %none = "onnx.NoValue"() {value} : () -> none
    // CHECK: diagnostics.mlir:[[# @LINE + 1]]:10: error: node 'frob0' (Frobnicate, domain 'ai.onnx', opset 17): 'Frobnicate' is not an operator of domain 'ai.onnx' at opset 17
    %0 = "onnx.Frobnicate"(%a) {onnx_node_name = "frob0"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    // CHECK: diagnostics.mlir:[[# @LINE + 1]]:10: error: unnamed node (Add, domain 'ai.onnx', opset 17): input 1 is required but absent
    %1 = "onnx.Add"(%0, %none) : (tensor<2x3xf32>, none) -> tensor<2x3xf32>
    return %1 : tensor<2x3xf32>
  }
}

// -----

// The torch-ONNX spelling: the node name comes from the location.
func.func @torch_onnx(%a: !torch.vtensor<[2,3,4],f32>, %b: !torch.vtensor<[5],f32>) -> !torch.vtensor<[2,3,4],f32> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  // CHECK: loc("bad_axis"): error: node 'bad_axis' (Add, domain 'ai.onnx', opset 6): axis 3 does not place a rank-1 B inside a rank-3 A
  %0 = torch.operator "onnx.Add"(%a, %b) {torch.onnx.broadcast = 1 : si64, torch.onnx.axis = 3 : si64} : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[5],f32>) -> !torch.vtensor<[2,3,4],f32> loc("bad_axis")
  return %0 : !torch.vtensor<[2,3,4],f32>
}
// CHECK-NOT: error
