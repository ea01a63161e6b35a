// The seed's example (seeds/003) at the Torch level: aten.layer_norm kept backend-legal, as
// torch-mlir's torch-function-to-torch-backend-pipeline leaves it, turned into each backend's custom
// op in both encodings (docs/custom-ops.md).

// RUN: onnx-mlir-opt %s --backend-legal-ops aten.layer_norm --convert-torch-to-tosa | FileCheck %s --check-prefix=TOSA
// RUN: onnx-mlir-opt %s --backend-legal-ops aten.layer_norm --convert-torch-to-stablehlo | FileCheck %s --check-prefix=SHLO
// RUN: onnx-mlir-opt %s --backend-legal-ops aten.layer_norm --convert-torch-to-linalg | FileCheck %s --check-prefix=LINALG
// RUN: onnx-mlir-opt %s --backend-legal-ops aten.layer_norm --custom-op-encoding attributes --convert-torch-to-tosa | FileCheck %s --check-prefix=TOSA-ATTR
// RUN: onnx-mlir-opt %s --backend-legal-ops aten.layer_norm --custom-op-encoding attributes --convert-torch-to-stablehlo | FileCheck %s --check-prefix=SHLO-ATTR
// RUN: onnx-mlir-opt %s --backend-legal-ops aten.layer_norm --custom-op-encoding attributes --convert-torch-to-linalg | FileCheck %s --check-prefix=LINALG-ATTR
// REQUIRES: tosa, stablehlo

func.func @forward(%arg0: !torch.vtensor<[4,4],f32>) -> !torch.vtensor<[4,4],f32> {
  %0 = torch.vtensor.literal(dense<0.000000e+00> : tensor<4xf32>) : !torch.vtensor<[4],f32>
  %1 = torch.vtensor.literal(dense<1.000000e+00> : tensor<4xf32>) : !torch.vtensor<[4],f32>
  %int4 = torch.constant.int 4
  %float1.000000e-05 = torch.constant.float 1.000000e-05
  %true = torch.constant.bool true
  %2 = torch.prim.ListConstruct %int4 : (!torch.int) -> !torch.list<int>
  %3 = torch.aten.layer_norm %arg0, %2, %1, %0, %float1.000000e-05, %true : !torch.vtensor<[4,4],f32>, !torch.list<int>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.float, !torch.bool -> !torch.vtensor<[4,4],f32>
  return %3 : !torch.vtensor<[4,4],f32>
}

// TOSA-LABEL: func.func @forward(%arg0: tensor<4x4xf32>) -> tensor<4x4xf32>
// TOSA-DAG:     %[[SHAPE:.*]] = "tosa.const"() <{values = dense<4> : tensor<1xi64>}> : () -> tensor<1xi64>
// TOSA-DAG:     %[[EPS:.*]] = "tosa.const"() <{values = dense<9.99999974E-6> : tensor<f32>}> : () -> tensor<f32>
// TOSA-DAG:     %[[CUDNN:.*]] = "tosa.const"() <{values = dense<true> : tensor<i1>}> : () -> tensor<i1>
// TOSA-DAG:     %[[BIAS:.*]] = {{.*}}dense<0.000000e+00> : tensor<4xf32>
// TOSA-DAG:     %[[WEIGHT:.*]] = {{.*}}dense<1.000000e+00> : tensor<4xf32>
// TOSA:         %[[R:.*]] = tosa.custom %arg0, %[[SHAPE]], %[[WEIGHT]], %[[BIAS]], %[[EPS]], %[[CUDNN]] {domain_name = "torch", implementation_attrs = "", operator_name = "aten.layer_norm"} : (tensor<4x4xf32>, tensor<1xi64>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i1>) -> tensor<4x4xf32>
// TOSA:         return %[[R]] : tensor<4x4xf32>

// SHLO-LABEL: func.func @forward(%arg0: tensor<4x4xf32>) -> tensor<4x4xf32>
// SHLO-DAG:     %[[SHAPE:.*]] = stablehlo.constant dense<4> : tensor<1xi64>
// SHLO-DAG:     %[[EPS:.*]] = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
// SHLO-DAG:     %[[CUDNN:.*]] = stablehlo.constant dense<true> : tensor<i1>
// SHLO:         %[[R:.*]] = stablehlo.custom_call @torch.aten.layer_norm(%arg0, %[[SHAPE]], %{{.*}}, %{{.*}}, %[[EPS]], %[[CUDNN]]) : (tensor<4x4xf32>, tensor<1xi64>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i1>) -> tensor<4x4xf32>
// SHLO:         return %[[R]] : tensor<4x4xf32>

// LINALG:       func.func private @torch.aten.layer_norm(tensor<4x4xf32>, tensor<1xi64>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i1>) -> tensor<4x4xf32> attributes {otm.custom_op}
// LINALG-LABEL: func.func @forward(%arg0: tensor<4x4xf32>) -> tensor<4x4xf32>
// LINALG-DAG:     %[[SHAPE:.*]] = arith.constant dense<4> : tensor<1xi64>
// LINALG-DAG:     %[[EPS:.*]] = arith.constant dense<9.99999974E-6> : tensor<f32>
// LINALG-DAG:     %[[CUDNN:.*]] = arith.constant dense<true> : tensor<i1>
// LINALG-DAG:     %[[BIAS:.*]] = arith.constant dense<0.000000e+00> : tensor<4xf32>
// LINALG-DAG:     %[[WEIGHT:.*]] = arith.constant dense<1.000000e+00> : tensor<4xf32>
// LINALG:         %[[R:.*]] = call @torch.aten.layer_norm(%arg0, %[[SHAPE]], %[[WEIGHT]], %[[BIAS]], %[[EPS]], %[[CUDNN]]) : (tensor<4x4xf32>, tensor<1xi64>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i1>) -> tensor<4x4xf32>
// LINALG:         return %[[R]] : tensor<4x4xf32>

// TOSA-ATTR-LABEL: func.func @forward
// TOSA-ATTR:         tosa.custom %arg0, %{{.*}}, %{{.*}} {domain_name = "torch", implementation_attrs = "{\22normalized_shape\22:[4],\22eps\22:1e-05,\22cudnn_enable\22:true}", operator_name = "aten.layer_norm"} : (tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4x4xf32>

// SHLO-ATTR-LABEL: func.func @forward
// SHLO-ATTR:         stablehlo.custom_call @torch.aten.layer_norm(%arg0, %{{.*}}, %{{.*}}) {backend_config = "{\22normalized_shape\22:[4],\22eps\22:1e-05,\22cudnn_enable\22:true}"} : (tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4x4xf32>

// LINALG-ATTR:       func.func private @torch.aten.layer_norm(tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4x4xf32> attributes {otm.custom_op}
// LINALG-ATTR-LABEL: func.func @forward
// LINALG-ATTR:         call @torch.aten.layer_norm(%arg0, %{{.*}}, %{{.*}}) {implementation_attrs = "{\22normalized_shape\22:[4],\22eps\22:1e-05,\22cudnn_enable\22:true}"} : (tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
