// A node whose declared results ONNX left unranked (an expanded function body) gets its result
// types from ONNX's inference on that node alone, with its inputs as the conversion knows them;
// the nodes after it see those types (the second Split needs its input's rank).
// RUN: onnx-mlir-opt %s --convert-onnx-to-torch | FileCheck %s

// CHECK-LABEL: func.func @split_of_unranked
func.func @split_of_unranked(%x: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<*,f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  // CHECK: %[[HALF:.*]] = torch.aten.slice.Tensor %arg0, {{.*}} -> !torch.vtensor<[2,4],f32>
  // CHECK: torch.aten.slice.Tensor %[[HALF]], {{.*}} : !torch.vtensor<[2,4],f32>, {{.*}} -> !torch.vtensor<[2,2],f32>
  %sizes = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[4, 4]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %a:2 = torch.operator "onnx.Split"(%x, %sizes) {torch.onnx.axis = 1 : si64} : (!torch.vtensor<[2,8],f32>, !torch.vtensor<[2],si64>) -> (!torch.vtensor<*,f32>, !torch.vtensor<*,f32>)
  %b:2 = torch.operator "onnx.Split"(%a#0) {torch.onnx.axis = -1 : si64, torch.onnx.num_outputs = 2 : si64} : (!torch.vtensor<*,f32>) -> (!torch.vtensor<*,f32>, !torch.vtensor<*,f32>)
  return %b#1 : !torch.vtensor<*,f32>
}
