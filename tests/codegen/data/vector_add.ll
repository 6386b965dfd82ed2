; Test fixture: z[i] = x[i] + y[i] for i < n, one element per thread, i = ctaid.x * ntid.x + tid.x.
; Hand-written.
; The triple and datalayout are left out on purpose: tritonc.codegen.target sets them.

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

define ptx_kernel void @vector_add(ptr addrspace(1) noalias readonly %x,
                                   ptr addrspace(1) noalias readonly %y,
                                   ptr addrspace(1) noalias writeonly %z,
                                   i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %bdim = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %bid, %bdim
  %i = add i32 %base, %tid
  %inb = icmp slt i32 %i, %n
  br i1 %inb, label %body, label %exit

body:
  %i64 = sext i32 %i to i64
  %px = getelementptr float, ptr addrspace(1) %x, i64 %i64
  %py = getelementptr float, ptr addrspace(1) %y, i64 %i64
  %pz = getelementptr float, ptr addrspace(1) %z, i64 %i64
  %a = load float, ptr addrspace(1) %px, align 4
  %b = load float, ptr addrspace(1) %py, align 4
  %s = fadd float %a, %b
  store float %s, ptr addrspace(1) %pz, align 4
  br label %exit

exit:
  ret void
}
