// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// FlexAttention (ai.onnx.preview, a function op): its body of default-domain ops runs at the
// model's default opset, and its score_mod region (named by the import) is copied into the
// body between the scores and the softmax, its result cast back to the body's type.
// CHECK-LABEL: func.func @flex_score_mod
func.func @flex_score_mod(%q: !torch.vtensor<[1,2,3,4],f32>, %k: !torch.vtensor<[1,2,5,4],f32>, %v: !torch.vtensor<[1,2,5,4],f32>) -> !torch.vtensor<[1,2,3,4],f32> attributes {torch.onnx_meta.opset_version = 26 : si64, torch.onnx_meta.opset_versions = {ai.onnx.preview = 1 : si64}} {
  // CHECK: %[[SCORES:.*]] = torch.aten.matmul {{.*}} -> !torch.vtensor<[1,2,3,5],f32>
  // CHECK: %[[MOD:.*]] = torch.aten.tanh %[[SCORES]]
  // CHECK: %[[TYPED:.*]] = torch.tensor_static_info_cast %[[MOD]] : !torch.vtensor<[?,?,?,?],f32> to !torch.vtensor<[1,2,3,5],f32>
  // CHECK: torch.aten.softmax.int %[[TYPED]]
  // CHECK: torch.aten.matmul {{.*}} -> !torch.vtensor<[1,2,3,4],f32>
  // CHECK-NOT: torch.operator
  %0 = torch.operator "ai.onnx.preview.FlexAttention"(%q, %k, %v) {torch.onnx_meta.region_names = ["score_mod"]} : (!torch.vtensor<[1,2,3,4],f32>, !torch.vtensor<[1,2,5,4],f32>, !torch.vtensor<[1,2,5,4],f32>) -> !torch.vtensor<[1,2,3,4],f32> {
  ^bb0(%s: !torch.vtensor<[?,?,?,?],f32>):
    %1 = torch.operator "onnx.Tanh"(%s) : (!torch.vtensor<[?,?,?,?],f32>) -> !torch.vtensor<[?,?,?,?],f32>
    torch.operator_terminator %1 : !torch.vtensor<[?,?,?,?],f32>
  }
  return %0 : !torch.vtensor<[1,2,3,4],f32>
}

// -----

// Both regions without recorded names: they are in attribute-name order (prob_mod, score_mod);
// prob_mod applies after the softmax.
// CHECK-LABEL: func.func @flex_both_mods
func.func @flex_both_mods(%q: !torch.vtensor<[1,1,2,4],f32>, %k: !torch.vtensor<[1,1,2,4],f32>, %v: !torch.vtensor<[1,1,2,4],f32>) -> !torch.vtensor<[1,1,2,4],f32> attributes {torch.onnx_meta.opset_version = 26 : si64, torch.onnx_meta.opset_versions = {ai.onnx.preview = 1 : si64}} {
  // CHECK: torch.aten.matmul
  // CHECK: torch.aten.tanh
  // CHECK: torch.aten.softmax.int
  // CHECK: torch.aten.neg
  // CHECK: torch.aten.matmul {{.*}} -> !torch.vtensor<[1,1,2,4],f32>
  %0 = torch.operator "ai.onnx.preview.FlexAttention"(%q, %k, %v) : (!torch.vtensor<[1,1,2,4],f32>, !torch.vtensor<[1,1,2,4],f32>, !torch.vtensor<[1,1,2,4],f32>) -> !torch.vtensor<[1,1,2,4],f32> {
  ^bb0(%p: !torch.vtensor<[?,?,?,?],f32>):
    %1 = torch.operator "onnx.Neg"(%p) : (!torch.vtensor<[?,?,?,?],f32>) -> !torch.vtensor<[?,?,?,?],f32>
    torch.operator_terminator %1 : !torch.vtensor<[?,?,?,?],f32>
  }, {
  ^bb0(%s: !torch.vtensor<[?,?,?,?],f32>):
    %1 = torch.operator "onnx.Tanh"(%s) : (!torch.vtensor<[?,?,?,?],f32>) -> !torch.vtensor<[?,?,?,?],f32>
    torch.operator_terminator %1 : !torch.vtensor<[?,?,?,?],f32>
  }
  return %0 : !torch.vtensor<[1,1,2,4],f32>
}
