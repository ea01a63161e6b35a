// RUN: onnx-mlir-opt %s --convert-onnx-to-torch | FileCheck %s

// Resize-18 linear with antialias and run-time scales: the filter's width (1 / scale) is known
// only at run time, so the taps cover the widest filter the declared output allows (scale >=
// (2 - 0.5) / 4 here: 6 taps, not the 4 of scale 0.6) and the weights are computed from the
// run-time scale, zero past the filter, then normalised.
// CHECK-LABEL: func.func @antialias_run_time_scales
func.func @antialias_run_time_scales(%x: !torch.vtensor<[1,1,4,4],f32>, %scales: !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,1,2,2],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  // CHECK: %[[SCALE:.*]] = torch.aten.clamp
  // CHECK-COUNT-6: torch.aten.index_select %{{.*}}, %int2
  // CHECK-COUNT-6: torch.aten.index_select %{{.*}}, %int3
  // CHECK-NOT: torch.operator
  %none = torch.constant.none
  %0 = torch.operator "onnx.Resize"(%x, %none, %scales) {torch.onnx.mode = "linear", torch.onnx.antialias = 1 : si64} : (!torch.vtensor<[1,1,4,4],f32>, !torch.none, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,1,2,2],f32>
  return %0 : !torch.vtensor<[1,1,2,2],f32>
}
