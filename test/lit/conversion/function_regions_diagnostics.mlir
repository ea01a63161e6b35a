// A function op with fewer subgraph regions than graph attributes and no recorded names: which
// attribute the region is cannot be told, so the node is refused (never a silently dropped mod).
// RUN: not onnx-mlir-opt %s --convert-onnx-to-torch 2>&1 | FileCheck %s

func.func @unnamed_region(%q: !torch.vtensor<[1,1,2,4],f32>) -> !torch.vtensor<[1,1,2,4],f32> attributes {torch.onnx_meta.opset_version = 26 : si64, torch.onnx_meta.opset_versions = {ai.onnx.preview = 1 : si64}} {
  // CHECK: function_regions_diagnostics.mlir:[[# @LINE + 1]]:8: error: unnamed node (FlexAttention, domain 'ai.onnx.preview', opset 1): it has 1 subgraph region(s) but the import did not record which of its graph attributes (prob_mod, score_mod) each one is
  %0 = torch.operator "ai.onnx.preview.FlexAttention"(%q, %q, %q) : (!torch.vtensor<[1,1,2,4],f32>, !torch.vtensor<[1,1,2,4],f32>, !torch.vtensor<[1,1,2,4],f32>) -> !torch.vtensor<[1,1,2,4],f32> {
  ^bb0(%s: !torch.vtensor<[?,?,?,?],f32>):
    %1 = torch.operator "onnx.Tanh"(%s) : (!torch.vtensor<[?,?,?,?],f32>) -> !torch.vtensor<[?,?,?,?],f32>
    torch.operator_terminator %1 : !torch.vtensor<[?,?,?,?],f32>
  }
  return %0 : !torch.vtensor<[1,1,2,4],f32>
}
// CHECK-NOT: error
