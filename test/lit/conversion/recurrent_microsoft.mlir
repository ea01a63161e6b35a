// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// com.microsoft DynamicQuantizeLSTM, literal int8 weights [D, K, 4H]: w - w_zp folded to float32
// literals in that layout; X quantized to uint8 from its range (max/min extended to 0, / 255,
// the zero point rounded), (q - zp) times the weights, times x_scale * w_scale; each step
// quantizes Ht-1 the same way before its product with R.
// CHECK-LABEL: func.func @dynamic_quantize_lstm
// CHECK: %[[W:.*]] = torch.vtensor.literal(dense<{{\[\[}}1.000000e+00, -2.000000e+00, 3.000000e+00, 4.000000e+00], {{.*}}> : tensor<3x4xf32>)
// CHECK: %[[R:.*]] = torch.vtensor.literal(dense<{{\[\[}}2.000000e+00, 3.000000e+00, -4.000000e+00, 5.000000e+00]]> : tensor<1x4xf32>)
// CHECK: %[[WSCALE:.*]] = torch.vtensor.literal(dense<5.000000e-01> : tensor<f32>)
// CHECK: %[[RSCALE:.*]] = torch.vtensor.literal(dense<2.500000e-01> : tensor<f32>)
// CHECK: %[[XMAX:.*]] = torch.aten.max %arg0 : !torch.vtensor<[2,1,3],f32> -> !torch.vtensor<[],f32>
// CHECK: torch.aten.min %arg0
// CHECK: %[[SPREAD:.*]] = torch.aten.sub.Tensor
// CHECK: torch.aten.div.Tensor %[[SPREAD]]
// CHECK: %[[XSCALE:.*]] = torch.aten.where.self
// CHECK: %[[XQ:.*]] = torch.aten.div.Tensor %arg0, %[[XSCALE]]
// CHECK: torch.aten.round %[[XQ]]
// CHECK: %[[CENTERED:.*]] = torch.aten.minimum
// CHECK: %[[SUMS:.*]] = torch.aten.matmul %[[CENTERED]], %[[W]] : !torch.vtensor<[2,1,3],f32>, !torch.vtensor<[3,4],f32> -> !torch.vtensor<[2,1,4],f32>
// CHECK: %[[MULTIPLIER:.*]] = torch.aten.mul.Tensor %[[XSCALE]], %[[WSCALE]]
// CHECK: %[[PROJ:.*]] = torch.aten.mul.Tensor %[[SUMS]], %[[MULTIPLIER]]
// CHECK: %[[H0:.*]] = torch.aten.full {{.*}} -> !torch.vtensor<[1,1],f32>
// CHECK: torch.aten.select.int %[[PROJ]]
// CHECK: torch.aten.max %[[H0]]
// CHECK: %[[HCENTERED:.*]] = torch.aten.minimum
// CHECK: %[[HSUMS:.*]] = torch.aten.mm %[[HCENTERED]], %[[R]] : !torch.vtensor<[1,1],f32>, !torch.vtensor<[1,4],f32> -> !torch.vtensor<[1,4],f32>
// CHECK: torch.aten.mul.Tensor %{{.*}}, %[[RSCALE]]
// The gates' Sigmoid is onnxruntime's MLAS logistic: clamped to [-18, 18], each Horner step one
// fused multiply-add computed through float64, then p / q + 0.5 and a lower clamp at 0.
// CHECK: %[[GATE:.*]] = torch.aten.clamp %{{.*}}, %float-1.800000e01, %float1.800000e01
// CHECK: %[[SQUARE:.*]] = torch.aten.mul.Tensor %[[GATE]], %[[GATE]]
// CHECK: torch.aten.to.dtype %[[SQUARE]], %int7
// CHECK: torch.aten.add.Scalar {{.*}} -> !torch.vtensor<[1,1],f64>
// CHECK: torch.aten.clamp_min
// CHECK: torch.aten.mm %{{.*}}, %[[R]]
func.func @dynamic_quantize_lstm(%x: !torch.vtensor<[2,1,3],f32>) -> (!torch.vtensor<[2,1,1,1],f32>, !torch.vtensor<[1,1,1],f32>) attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %w = torch.vtensor.literal(dense<[[[1, -2, 3, 4], [5, 6, -7, 8], [9, 10, 11, -12]]]> : tensor<1x3x4xsi8>) : !torch.vtensor<[1,3,4],si8>
  %r = torch.vtensor.literal(dense<[[[2, 3, -4, 5]]]> : tensor<1x1x4xsi8>) : !torch.vtensor<[1,1,4],si8>
  %ws = torch.vtensor.literal(dense<[0.5]> : tensor<1xf32>) : !torch.vtensor<[1],f32>
  %wz = torch.vtensor.literal(dense<[0]> : tensor<1xsi8>) : !torch.vtensor<[1],si8>
  %rs = torch.vtensor.literal(dense<[0.25]> : tensor<1xf32>) : !torch.vtensor<[1],f32>
  %rz = torch.vtensor.literal(dense<[0]> : tensor<1xsi8>) : !torch.vtensor<[1],si8>
  %none = torch.constant.none
  %0:2 = torch.operator "com.microsoft.DynamicQuantizeLSTM"(%x, %w, %r, %none, %none, %none, %none, %none, %ws, %wz, %rs, %rz) {torch.onnx.hidden_size = 1 : si64} : (!torch.vtensor<[2,1,3],f32>, !torch.vtensor<[1,3,4],si8>, !torch.vtensor<[1,1,4],si8>, !torch.none, !torch.none, !torch.none, !torch.none, !torch.none, !torch.vtensor<[1],f32>, !torch.vtensor<[1],si8>, !torch.vtensor<[1],f32>, !torch.vtensor<[1],si8>) -> (!torch.vtensor<[2,1,1,1],f32>, !torch.vtensor<[1,1,1],f32>)
  return %0#0, %0#1 : !torch.vtensor<[2,1,1,1],f32>, !torch.vtensor<[1,1,1],f32>
}
