; A kernel with a static shared-memory array of 1024 floats and one barrier: each thread writes
; its slot, waits at bar.sync, and reads its neighbour's. For the resource-usage test.
target triple = "nvptx64-nvidia-cuda"

@tile = internal addrspace(3) global [1024 x float] undef, align 4

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()

define ptx_kernel void @basics(ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %x = uitofp i32 %tid to float
  %slot = getelementptr [1024 x float], ptr addrspace(3) @tile, i32 0, i32 %tid
  store float %x, ptr addrspace(3) %slot, align 4
  call void @llvm.nvvm.barrier0()
  %next = add i32 %tid, 1
  %wrapped = and i32 %next, 1023
  %other = getelementptr [1024 x float], ptr addrspace(3) @tile, i32 0, i32 %wrapped
  %y = load float, ptr addrspace(3) %other, align 4
  %dst = getelementptr float, ptr addrspace(1) %out, i32 %tid
  store float %y, ptr addrspace(1) %dst, align 4
  ret void
}
