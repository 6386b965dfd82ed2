; Test fixture: every scalar parameter type tritonc passes (spec §7: scalars at their C width,
; half/bfloat16 as 16 bits, bool as 8 bits), written back as doubles so a launcher's argument
; ABI can be checked on a GPU. Thread 0 of block 0 writes
;   out[0..12] = (double) {i8 a, i16 b, i32 c, i64 d, u8 e, u16 f, u32 g, u64 h,
;                          half hf, bfloat bf, float fl, double db, bool bo}
; and out[13] = (double) (ntid.x), so the launcher's block size is visible too.

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

define ptx_kernel void @scalar_args(ptr addrspace(1) noalias writeonly %out,
    i8 %a, i16 %b, i32 %c, i64 %d, i8 %e, i16 %f, i32 %g, i64 %h,
    half %hf, bfloat %bf, float %fl, double %db, i1 %bo) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %t0 = or i32 %tid, %bid
  %first = icmp eq i32 %t0, 0
  br i1 %first, label %write, label %exit

write:
  %va = sitofp i8 %a to double
  %vb = sitofp i16 %b to double
  %vc = sitofp i32 %c to double
  %vd = sitofp i64 %d to double
  %ve = uitofp i8 %e to double
  %vf = uitofp i16 %f to double
  %vg = uitofp i32 %g to double
  %vh = uitofp i64 %h to double
  %vhf = fpext half %hf to double
  %vbf = fpext bfloat %bf to double
  %vfl = fpext float %fl to double
  %vbo = uitofp i1 %bo to double
  %bdim = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %vnt = uitofp i32 %bdim to double
  store double %va, ptr addrspace(1) %out, align 8
  %p1 = getelementptr double, ptr addrspace(1) %out, i64 1
  store double %vb, ptr addrspace(1) %p1, align 8
  %p2 = getelementptr double, ptr addrspace(1) %out, i64 2
  store double %vc, ptr addrspace(1) %p2, align 8
  %p3 = getelementptr double, ptr addrspace(1) %out, i64 3
  store double %vd, ptr addrspace(1) %p3, align 8
  %p4 = getelementptr double, ptr addrspace(1) %out, i64 4
  store double %ve, ptr addrspace(1) %p4, align 8
  %p5 = getelementptr double, ptr addrspace(1) %out, i64 5
  store double %vf, ptr addrspace(1) %p5, align 8
  %p6 = getelementptr double, ptr addrspace(1) %out, i64 6
  store double %vg, ptr addrspace(1) %p6, align 8
  %p7 = getelementptr double, ptr addrspace(1) %out, i64 7
  store double %vh, ptr addrspace(1) %p7, align 8
  %p8 = getelementptr double, ptr addrspace(1) %out, i64 8
  store double %vhf, ptr addrspace(1) %p8, align 8
  %p9 = getelementptr double, ptr addrspace(1) %out, i64 9
  store double %vbf, ptr addrspace(1) %p9, align 8
  %p10 = getelementptr double, ptr addrspace(1) %out, i64 10
  store double %vfl, ptr addrspace(1) %p10, align 8
  %p11 = getelementptr double, ptr addrspace(1) %out, i64 11
  store double %db, ptr addrspace(1) %p11, align 8
  %p12 = getelementptr double, ptr addrspace(1) %out, i64 12
  store double %vbo, ptr addrspace(1) %p12, align 8
  %p13 = getelementptr double, ptr addrspace(1) %out, i64 13
  store double %vnt, ptr addrspace(1) %p13, align 8
  br label %exit

exit:
  ret void
}
