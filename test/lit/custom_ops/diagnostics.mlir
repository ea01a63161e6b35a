// What cannot become a custom op is rejected naming the op, the argument and the reason.
// RUN: not onnx-mlir-opt %s --split-input-file --backend-legal-ops aten.cat,aten.add.Tensor --convert-torch-to-linalg 2>&1 | FileCheck %s
// RUN: not onnx-mlir-opt %s --backend-legal-ops aten.layer_nrm --convert-torch-to-linalg 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// CHECK: error: cannot make torch.aten.cat a custom op: argument 'tensors' is a tensor list (!torch.list<vtensor<[2],f32>>)
func.func @tensor_list(%a: !torch.vtensor<[2],f32>, %b: !torch.vtensor<[2],f32>) -> !torch.vtensor<[4],f32> {
  %int0 = torch.constant.int 0
  %list = torch.prim.ListConstruct %a, %b : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) -> !torch.list<vtensor<[2],f32>>
  %0 = torch.aten.cat %list, %int0 : !torch.list<vtensor<[2],f32>>, !torch.int -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}

// -----

// CHECK: error: cannot make torch.aten.add.Tensor a custom op: argument 'alpha' is a !torch.int function argument, known only at run time
func.func @runtime_scalar(%a: !torch.vtensor<[2],f32>, %alpha: !torch.int) -> !torch.vtensor<[2],f32> {
  %0 = torch.aten.add.Tensor %a, %a, %alpha : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.int -> !torch.vtensor<[2],f32>
  return %0 : !torch.vtensor<[2],f32>
}

// UNKNOWN: error: unknown backend-legal op 'aten.layer_nrm' (close matches: aten.layer_norm
