// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// CHECK-LABEL: func.func @simple
func.func @simple(%x: !torch.vtensor<[2,?],f32>) -> !torch.vtensor<[2,?],f32> attributes {torch.onnx_meta.opset_version = 22 : si64} {
  // CHECK: %[[RELU:.*]] = torch.aten.relu %arg0 : !torch.vtensor<[2,?],f32> -> !torch.vtensor<[2,?],f32>
  // CHECK: %[[SIG:.*]] = torch.aten.sigmoid %[[RELU]]
  // CHECK: %[[TANH:.*]] = torch.aten.tanh %[[SIG]]
  // CHECK: %[[HS:.*]] = torch.aten.hardswish %[[TANH]]
  // CHECK: %[[MISH:.*]] = torch.aten.mish %[[HS]]
  // CHECK: return %[[MISH]]
  %0 = torch.operator "onnx.Relu"(%x) : (!torch.vtensor<[2,?],f32>) -> !torch.vtensor<[2,?],f32>
  %1 = torch.operator "onnx.Sigmoid"(%0) : (!torch.vtensor<[2,?],f32>) -> !torch.vtensor<[2,?],f32>
  %2 = torch.operator "onnx.Tanh"(%1) : (!torch.vtensor<[2,?],f32>) -> !torch.vtensor<[2,?],f32>
  %3 = torch.operator "onnx.HardSwish"(%2) : (!torch.vtensor<[2,?],f32>) -> !torch.vtensor<[2,?],f32>
  %4 = torch.operator "onnx.Mish"(%3) : (!torch.vtensor<[2,?],f32>) -> !torch.vtensor<[2,?],f32>
  return %4 : !torch.vtensor<[2,?],f32>
}

// -----

// Attributes and their schema defaults.
// CHECK-LABEL: func.func @with_attributes
func.func @with_attributes(%x: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 20 : si64} {
  // CHECK: %[[A:.*]] = torch.constant.float 0.10000000149011612
  // CHECK: torch.aten.leaky_relu %arg0, %[[A]]
  // CHECK: %[[D:.*]] = torch.constant.float 0.0099999997764825821
  // CHECK: torch.aten.leaky_relu %{{.*}}, %[[D]]
  // CHECK: %[[ONE:.*]] = torch.constant.float 1.000000e+00
  // CHECK: torch.aten.elu %{{.*}}, %[[ONE]], %{{.*}}, %{{.*}}
  // CHECK: %[[SA:.*]] = torch.constant.float 1.6732631921768188
  // CHECK: %[[SG:.*]] = torch.constant.float 1.0507010221481323
  // CHECK: torch.aten.elu %{{.*}}, %[[SA]], %[[SG]], %{{.*}}
  // CHECK: %[[CA:.*]] = torch.constant.float 2.000000e+00
  // CHECK: %[[C1:.*]] = torch.constant.float 1.000000e+00
  // CHECK: %[[CI:.*]] = torch.constant.float 5.000000e-01
  // CHECK: torch.aten.elu %{{.*}}, %[[CA]], %[[C1]], %[[CI]]
  // CHECK: %[[TANH:.*]] = torch.constant.str "tanh"
  // CHECK: torch.aten.gelu %{{.*}}, %[[TANH]]
  // CHECK: torch.aten.mul.Scalar
  // CHECK: torch.aten.add.Scalar
  // CHECK: torch.aten.clamp
  // CHECK: torch.aten.softplus
  // CHECK: torch.aten.abs
  // CHECK: torch.aten.add.Scalar
  // CHECK: torch.aten.div.Tensor
  // CHECK: torch.aten.threshold
  %0 = torch.operator "onnx.LeakyRelu"(%x) {torch.onnx.alpha = 1.000000e-01 : f32} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %1 = torch.operator "onnx.LeakyRelu"(%0) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %2 = torch.operator "onnx.Elu"(%1) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %3 = torch.operator "onnx.Selu"(%2) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %4 = torch.operator "onnx.Celu"(%3) {torch.onnx.alpha = 2.000000e+00 : f32} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %5 = torch.operator "onnx.Gelu"(%4) {torch.onnx.approximate = "tanh"} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %6 = torch.operator "onnx.HardSigmoid"(%5) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %7 = torch.operator "onnx.Softplus"(%6) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %8 = torch.operator "onnx.Softsign"(%7) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %9 = torch.operator "onnx.ThresholdedRelu"(%8) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  return %9 : !torch.vtensor<[3],f32>
}

// -----

// PRelu from opset 7: numpy broadcasting of the slope.
// CHECK-LABEL: func.func @prelu
func.func @prelu(%x: !torch.vtensor<[2,3,4],f32>, %s: !torch.vtensor<[4],f32>) -> !torch.vtensor<[2,3,4],f32> attributes {torch.onnx_meta.opset_version = 16 : si64} {
  // CHECK: %[[NEG:.*]] = torch.aten.lt.Scalar %arg0, %{{.*}} -> !torch.vtensor<[2,3,4],i1>
  // CHECK: %[[MUL:.*]] = torch.aten.mul.Tensor %arg0, %arg1 : !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[4],f32> -> !torch.vtensor<[2,3,4],f32>
  // CHECK: torch.aten.where.self %[[NEG]], %[[MUL]], %arg0
  %0 = torch.operator "onnx.PRelu"(%x, %s) : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[2,3,4],f32>
  return %0 : !torch.vtensor<[2,3,4],f32>
}

// -----

// PRelu before opset 7: a per-channel slope applies to dim 1.
// CHECK-LABEL: func.func @prelu_legacy
func.func @prelu_legacy(%x: !torch.vtensor<[2,3,4],f32>, %s: !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3,4],f32> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  // CHECK: %[[S:.*]] = torch.aten.unsqueeze %arg1, %{{.*}} -> !torch.vtensor<[3,1],f32>
  // CHECK: torch.aten.mul.Tensor %arg0, %[[S]] : !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[3,1],f32> -> !torch.vtensor<[2,3,4],f32>
  %0 = torch.operator "onnx.PRelu"(%x, %s) : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3,4],f32>
  return %0 : !torch.vtensor<[2,3,4],f32>
}

// -----

// Softmax and LogSoftmax from opset 13: along `axis` (default -1).
// CHECK-LABEL: func.func @softmax
func.func @softmax(%x: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[2,3,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  // CHECK: %[[LAST:.*]] = torch.constant.int 2
  // CHECK: %[[S:.*]] = torch.aten.softmax.int %arg0, %[[LAST]], %{{.*}} : !torch.vtensor<[2,3,4],f32>, !torch.int, !torch.none -> !torch.vtensor<[2,3,4],f32>
  // CHECK: %[[ONE:.*]] = torch.constant.int 1
  // CHECK: torch.aten.log_softmax.int %[[S]], %[[ONE]], %{{.*}}
  %0 = torch.operator "onnx.Softmax"(%x) : (!torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[2,3,4],f32>
  %1 = torch.operator "onnx.LogSoftmax"(%0) {torch.onnx.axis = 1 : si64} : (!torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[2,3,4],f32>
  return %1 : !torch.vtensor<[2,3,4],f32>
}

// -----

// Softmax before opset 13: the input is coerced to 2-D at `axis` (default 1).
// CHECK-LABEL: func.func @softmax_coerced
func.func @softmax_coerced(%x: !torch.vtensor<[?,3,4],f32>) -> !torch.vtensor<[?,3,4],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // CHECK: %[[FLAT:.*]] = torch.aten.flatten.using_ints %arg0, %{{.*}}, %{{.*}} : !torch.vtensor<[?,3,4],f32>, !torch.int, !torch.int -> !torch.vtensor<[?,12],f32>
  // CHECK: %[[S:.*]] = torch.aten.softmax.int %[[FLAT]], %{{.*}}, %{{.*}} -> !torch.vtensor<[?,12],f32>
  // CHECK: %[[D0:.*]] = torch.aten.size.int %arg0, %{{.*}}
  // CHECK: %[[SHAPE:.*]] = torch.prim.ListConstruct %[[D0]], %{{.*}}, %{{.*}} : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  // CHECK: torch.aten.reshape %[[S]], %[[SHAPE]] : !torch.vtensor<[?,12],f32>, !torch.list<int> -> !torch.vtensor<[?,3,4],f32>
  %0 = torch.operator "onnx.Softmax"(%x) : (!torch.vtensor<[?,3,4],f32>) -> !torch.vtensor<[?,3,4],f32>
  return %0 : !torch.vtensor<[?,3,4],f32>
}

// -----

// CHECK-LABEL: func.func @log_softmax_coerced_last_axis
func.func @log_softmax_coerced_last_axis(%x: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  // CHECK-NOT: flatten
  // CHECK: torch.aten.log_softmax.int %arg0
  %0 = torch.operator "onnx.LogSoftmax"(%x) : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}

// -----

// Hardmax: one-hot of the first maximum, by argmax compared with an iota.
// CHECK-LABEL: func.func @hardmax
func.func @hardmax(%x: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  // CHECK: %[[IDX:.*]] = torch.aten.argmax %arg0, %{{.*}}, %{{.*}} : !torch.vtensor<[2,3],f32>, !torch.int, !torch.bool -> !torch.vtensor<[2,1],si64>
  // CHECK: %[[IOTA:.*]] = torch.aten.arange %{{.*}} -> !torch.vtensor<[3],si64>
  // CHECK: %[[EQ:.*]] = torch.aten.eq.Tensor %[[IDX]], %[[IOTA]] : !torch.vtensor<[2,1],si64>, !torch.vtensor<[3],si64> -> !torch.vtensor<[2,3],i1>
  // CHECK: torch.aten.to.dtype %[[EQ]]
  %0 = torch.operator "onnx.Hardmax"(%x) : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}

// -----

// CHECK-LABEL: func.func @hardmax_coerced
func.func @hardmax_coerced(%x: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[2,3,4],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // CHECK: torch.aten.flatten.using_ints %arg0, {{.*}} -> !torch.vtensor<[2,12],f32>
  // CHECK: torch.aten.argmax {{.*}} -> !torch.vtensor<[2,1],si64>
  // CHECK: torch.aten.reshape {{.*}} -> !torch.vtensor<[2,3,4],f32>
  %0 = torch.operator "onnx.Hardmax"(%x) : (!torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[2,3,4],f32>
  return %0 : !torch.vtensor<[2,3,4],f32>
}

// -----

// The ONNX dialect spelling.
// CHECK-LABEL: func.func @onnx_dialect
// CHECK: torch.aten.leaky_relu
// CHECK: torch.aten.softmax.int
module attributes {onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @onnx_dialect(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
    %0 = "onnx.LeakyRelu"(%x) {alpha = 2.000000e-01 : f32} : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %1 = "onnx.Softmax"(%0) {axis = 0 : si64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
    return %1 : tensor<3x4xf32>
  }
}
