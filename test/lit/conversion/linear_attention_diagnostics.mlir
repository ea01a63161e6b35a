// RUN: not onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch 2>&1 | FileCheck %s

// CHECK: error: node 'la_dynamic_t' (LinearAttention, domain 'ai.onnx', opset 27): a dynamic sequence length (query dim 1) is not supported
func.func @linear_attention_dynamic_steps(%q: !torch.vtensor<[1,?,4],f32>, %k: !torch.vtensor<[1,?,4],f32>, %v: !torch.vtensor<[1,?,4],f32>) -> (!torch.vtensor<[1,?,4],f32>, !torch.vtensor<[1,2,2,2],f32>) attributes {torch.onnx_meta.opset_version = 27 : si64} {
  %0:2 = torch.operator "onnx.LinearAttention"(%q, %k, %v) {torch.onnx.kv_num_heads = 2 : si64, torch.onnx.q_num_heads = 2 : si64, torch.onnx.update_rule = "linear"} : (!torch.vtensor<[1,?,4],f32>, !torch.vtensor<[1,?,4],f32>, !torch.vtensor<[1,?,4],f32>) -> (!torch.vtensor<[1,?,4],f32>, !torch.vtensor<[1,2,2,2],f32>) loc("la_dynamic_t")
  return %0#0, %0#1 : !torch.vtensor<[1,?,4],f32>, !torch.vtensor<[1,2,2,2],f32>
}

// -----

// CHECK: error: node 'la_missing_beta' (LinearAttention, domain 'ai.onnx', opset 27): update_rule 'delta' needs the beta input
func.func @linear_attention_missing_beta(%q: !torch.vtensor<[1,2,4],f32>, %k: !torch.vtensor<[1,2,4],f32>, %v: !torch.vtensor<[1,2,4],f32>) -> (!torch.vtensor<[1,2,4],f32>, !torch.vtensor<[1,2,2,2],f32>) attributes {torch.onnx_meta.opset_version = 27 : si64} {
  %0:2 = torch.operator "onnx.LinearAttention"(%q, %k, %v) {torch.onnx.kv_num_heads = 2 : si64, torch.onnx.q_num_heads = 2 : si64, torch.onnx.update_rule = "delta"} : (!torch.vtensor<[1,2,4],f32>, !torch.vtensor<[1,2,4],f32>, !torch.vtensor<[1,2,4],f32>) -> (!torch.vtensor<[1,2,4],f32>, !torch.vtensor<[1,2,2,2],f32>) loc("la_missing_beta")
  return %0#0, %0#1 : !torch.vtensor<[1,2,4],f32>, !torch.vtensor<[1,2,2,2],f32>
}
