// Checks StableHLO must keep (transforms/stablehlo/run_time_checks.py): a `torch.runtime.assert` of
// `aten.Bool.int(aten.item(ok))` (an If of two ranks compiled for one branch) is carried through
// torch-mlir's lowering as a marker custom call and becomes `cf.assert`; torch-mlir's own asserts
// on sizes are dropped. A squeeze of a run-time size is cut to its first row first (torch_forms.py).
// RUN: onnx-mlir-opt %s --step run-time-checks-as-markers --step drop-runtime-asserts | FileCheck %s --check-prefix=MARKED
// RUN: onnx-mlir-opt %s --step run-time-checks-as-markers --step drop-runtime-asserts --step run-time-squeezes-as-slices --convert-torch-to-stablehlo --step markers-as-asserts | FileCheck %s --check-prefix=ASSERT

// MARKED-LABEL: func.func @checked
// MARKED: %[[OK:.*]] = torch_c.to_builtin_tensor %{{.*}} : !torch.vtensor<[],i1> -> tensor<i1>
// MARKED: stablehlo.custom_call @onnx_torch_mlir.assert(%[[OK]]) {backend_config = "If 'if': the condition selects else_branch", has_side_effect = true}
// MARKED-NOT: torch.runtime.assert
// MARKED-NOT: torch.aten.item
// MARKED: torch.aten.squeeze.dim

// ASSERT-LABEL: func.func @checked
// ASSERT: %[[OK:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
// ASSERT: cf.assert %[[OK]], "If 'if': the condition selects else_branch"
// ASSERT-NOT: custom_call
// ASSERT: stablehlo.real_dynamic_slice {{.*}} -> tensor<2x4x1xf32>
// ASSERT-NOT: cf.assert
// ASSERT: return {{.*}} : tensor<2x4xf32>
func.func @checked(%x: !torch.vtensor<[2,4,?],f32>, %cond: !torch.vtensor<[],i1>) -> !torch.vtensor<[2,4],f32> {
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %item = torch.aten.item %cond : !torch.vtensor<[],i1> -> !torch.int
  %bool = torch.aten.Bool.int %item : !torch.int -> !torch.bool
  torch.runtime.assert %bool, "If 'if': the condition selects else_branch"
  %size = torch.aten.size.int %x, %int2 : !torch.vtensor<[2,4,?],f32>, !torch.int -> !torch.int
  %one = torch.aten.eq.int %size, %int1 : !torch.int, !torch.int -> !torch.bool
  torch.runtime.assert %one, "Expected dim size 1"
  %squeezed = torch.aten.squeeze.dim %x, %int2 : !torch.vtensor<[2,4,?],f32>, !torch.int -> !torch.vtensor<[2,4],f32>
  return %squeezed : !torch.vtensor<[2,4],f32>
}
