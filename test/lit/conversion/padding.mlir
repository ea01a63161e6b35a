// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// CHECK-LABEL: func.func @center_crop_pad_run_time_shape
func.func @center_crop_pad_run_time_shape(%x: !torch.vtensor<[20,8,3],f32>, %shape: !torch.vtensor<[2],si64>) -> !torch.vtensor<[10,11,3],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  // The target sizes come from the declared result: a static slice and a static pad.
  // CHECK: %[[CROPPED:.*]] = torch.aten.slice.Tensor %arg0, %{{.*}}, %int5, %int15, %{{.*}} -> !torch.vtensor<[10,8,3],f32>
  // CHECK: %[[PADS:.*]] = torch.prim.ListConstruct %int0{{.*}}, %int0{{.*}}, %int1{{.*}}, %int2{{.*}} :
  // CHECK: torch.aten.constant_pad_nd %[[CROPPED]], %[[PADS]], {{.*}} -> !torch.vtensor<[10,11,3],f32>
  // CHECK-NOT: torch.aten.item
  %0 = torch.operator "onnx.CenterCropPad"(%x, %shape) {torch.onnx.axes = [0 : si64, -2 : si64]} : (!torch.vtensor<[20,8,3],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[10,11,3],f32>
  return %0 : !torch.vtensor<[10,11,3],f32>
}
