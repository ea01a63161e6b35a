// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// gated_delta (the default rule) with GQA (4 query heads on 2 KV heads), per-head decay and a
// shared beta [B, T, 1]; no past_state: the state starts at zeros; scale 1/sqrt(d_k = 2).
// CHECK-LABEL: func.func @linear_attention_gated_delta_gqa
func.func @linear_attention_gated_delta_gqa(%q: !torch.vtensor<[1,2,8],f32>, %k: !torch.vtensor<[1,2,4],f32>, %v: !torch.vtensor<[1,2,6],f32>, %g: !torch.vtensor<[1,2,2],f32>, %beta: !torch.vtensor<[1,2,1],f32>) -> (!torch.vtensor<[1,2,12],f32>, !torch.vtensor<[1,2,2,3],f32>) attributes {torch.onnx_meta.opset_version = 27 : si64} {
  // CHECK: %[[Q:.*]] = torch.aten.reshape %arg0, {{.*}} -> !torch.vtensor<[1,2,2,2,2],f32>
  // CHECK: %[[QH:.*]] = torch.aten.permute %[[Q]], {{.*}} -> !torch.vtensor<[1,2,2,2,2],f32>
  // CHECK: torch.aten.reshape %arg3, {{.*}} -> !torch.vtensor<[1,2,2,1],f32>
  // CHECK: torch.aten.reshape %arg4, {{.*}} -> !torch.vtensor<[1,2,1,1],f32>
  // CHECK: %[[ZERO:.*]] = torch.aten.full {{.*}} -> !torch.vtensor<[1,2,2,3],f32>
  // CHECK: %[[G0:.*]] = torch.aten.exp {{.*}} -> !torch.vtensor<[1,2,1,1],f32>
  // CHECK: %[[DECAYED:.*]] = torch.aten.mul.Tensor %[[ZERO]], %[[G0]]
  // CHECK: %[[RETRIEVED:.*]] = torch.aten.matmul %{{.*}}, %[[DECAYED]] : !torch.vtensor<[1,2,1,2],f32>, !torch.vtensor<[1,2,2,3],f32> -> !torch.vtensor<[1,2,1,3],f32>
  // CHECK: %[[ERR:.*]] = torch.aten.sub.Tensor %{{.*}}, %[[RETRIEVED]]
  // CHECK: %[[CORRECTED:.*]] = torch.aten.mul.Tensor %{{.*}}, %[[ERR]] : !torch.vtensor<[1,1,1,1],f32>, !torch.vtensor<[1,2,1,3],f32>
  // CHECK: %[[OUTER:.*]] = torch.aten.mul.Tensor %{{.*}}, %[[CORRECTED]] : !torch.vtensor<[1,2,2,1],f32>, !torch.vtensor<[1,2,1,3],f32> -> !torch.vtensor<[1,2,2,3],f32>
  // CHECK: %[[S1:.*]] = torch.aten.add.Tensor %[[DECAYED]], %[[OUTER]]
  // CHECK: %[[Q0:.*]] = torch.aten.select.int %[[QH]]
  // CHECK: torch.aten.matmul %[[Q0]], %[[S1]] : !torch.vtensor<[1,2,2,2],f32>, !torch.vtensor<[1,2,2,3],f32> -> !torch.vtensor<[1,2,2,3],f32>
  // CHECK: torch.aten.exp
  // CHECK: %[[S2:.*]] = torch.aten.add.Tensor
  // CHECK: %[[READS:.*]] = torch.aten.cat {{.*}} -> !torch.vtensor<[1,2,2,2,3],f32>
  // CHECK: %[[SCALE:.*]] = torch.constant.float 0.70710678118654746
  // CHECK: %[[SCALED:.*]] = torch.aten.mul.Scalar %[[READS]], %[[SCALE]]
  // CHECK: %[[TOKENS:.*]] = torch.aten.permute %[[SCALED]]
  // CHECK: %[[OUT:.*]] = torch.aten.reshape %[[TOKENS]], {{.*}} -> !torch.vtensor<[1,2,12],f32>
  // CHECK: return %[[OUT]], %[[S2]]
  %none = torch.constant.none
  %0:2 = torch.operator "onnx.LinearAttention"(%q, %k, %v, %none, %g, %beta) {torch.onnx.kv_num_heads = 2 : si64, torch.onnx.q_num_heads = 4 : si64} : (!torch.vtensor<[1,2,8],f32>, !torch.vtensor<[1,2,4],f32>, !torch.vtensor<[1,2,6],f32>, !torch.none, !torch.vtensor<[1,2,2],f32>, !torch.vtensor<[1,2,1],f32>) -> (!torch.vtensor<[1,2,12],f32>, !torch.vtensor<[1,2,2,3],f32>)
  return %0#0, %0#1 : !torch.vtensor<[1,2,12],f32>, !torch.vtensor<[1,2,2,3],f32>
}

// -----

// linear rule, f16 activations with an f32 past_state and a dynamic batch: arithmetic in f32,
// the output cast back to f16; the explicit scale is used; no exp, no delta correction.
// CHECK-LABEL: func.func @linear_attention_onnx_dialect
module attributes {onnx.opset_version = 27 : i64} {
  func.func @linear_attention_onnx_dialect(%q: tensor<?x3x4xf16>, %k: tensor<?x3x4xf16>, %v: tensor<?x3x4xf16>, %s: tensor<?x2x2x2xf32>) -> (tensor<?x3x4xf16>, tensor<?x2x2x2xf32>) {
    // CHECK: torch.aten.to.dtype {{.*}} -> !torch.vtensor<[?,3,4],f32>
    // CHECK: torch.aten.reshape {{.*}} -> !torch.vtensor<[?,3,2,1,2],f32>
    // CHECK-NOT: torch.aten.exp
    // CHECK-NOT: torch.aten.sub.Tensor
    // CHECK: torch.aten.cat {{.*}} -> !torch.vtensor<[?,2,3,1,2],f32>
    // CHECK: torch.aten.mul.Scalar {{.*}} -> !torch.vtensor<[?,2,3,1,2],f32>
    // CHECK: torch.aten.reshape {{.*}} -> !torch.vtensor<[?,3,4],f32>
    // CHECK: torch.aten.to.dtype {{.*}} -> !torch.vtensor<[?,3,4],f16>
    %none = "onnx.NoValue"() {value} : () -> none
    %0:2 = "onnx.LinearAttention"(%q, %k, %v, %s, %none, %none) {kv_num_heads = 2 : si64, q_num_heads = 2 : si64, scale = 5.000000e-01 : f32, update_rule = "linear"} : (tensor<?x3x4xf16>, tensor<?x3x4xf16>, tensor<?x3x4xf16>, tensor<?x2x2x2xf32>, none, none) -> (tensor<?x3x4xf16>, tensor<?x2x2x2xf32>)
    return %0#0, %0#1 : tensor<?x3x4xf16>, tensor<?x2x2x2xf32>
  }
}
