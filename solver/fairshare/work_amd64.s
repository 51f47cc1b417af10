#include "textflag.h"

// func subScaled(rem, a []float64, dt float64)
//
// rem[k] -= a[k] * dt for k < len(rem), two lanes at a time with SSE2
// (MULPD, SUBPD: each lane rounded as MULSD and SUBSD round the scalar
// loop, never fused), four elements per iteration.
TEXT ·subScaled(SB), NOSPLIT, $0-56
	MOVQ  rem_base+0(FP), DI
	MOVQ  rem_len+8(FP), CX
	MOVQ  a_base+24(FP), SI
	MOVSD dt+48(FP), X0
	SHUFPD $0, X0, X0
	MOVQ  CX, BX
	ANDQ  $-4, BX
	XORQ  AX, AX

loop4:
	CMPQ   AX, BX
	JGE    tail
	MOVUPD (SI)(AX*8), X1
	MOVUPD 16(SI)(AX*8), X2
	MULPD  X0, X1
	MULPD  X0, X2
	MOVUPD (DI)(AX*8), X3
	MOVUPD 16(DI)(AX*8), X4
	SUBPD  X1, X3
	SUBPD  X2, X4
	MOVUPD X3, (DI)(AX*8)
	MOVUPD X4, 16(DI)(AX*8)
	ADDQ   $4, AX
	JMP    loop4

tail:
	CMPQ  AX, CX
	JGE   done
	MOVSD (SI)(AX*8), X1
	MULSD X0, X1
	MOVSD (DI)(AX*8), X3
	SUBSD X1, X3
	MOVSD X3, (DI)(AX*8)
	INCQ  AX
	JMP   tail

done:
	RET

// func subScaledAVX(rem, a []float64, dt float64)
//
// subScaled with 256-bit AVX: four lanes per VMULPD and VSUBPD (AVX, not
// FMA: each lane still rounded twice, as MULSD and SUBSD), eight elements
// per iteration. Only called when hasAVX reports the CPU and OS support it.
TEXT ·subScaledAVX(SB), NOSPLIT, $0-56
	MOVQ         rem_base+0(FP), DI
	MOVQ         rem_len+8(FP), CX
	MOVQ         a_base+24(FP), SI
	VBROADCASTSD dt+48(FP), Y0
	MOVQ         CX, BX
	ANDQ         $-8, BX
	XORQ         AX, AX

avxloop8:
	CMPQ    AX, BX
	JGE     avxtail
	VMOVUPD (SI)(AX*8), Y1
	VMOVUPD 32(SI)(AX*8), Y2
	VMULPD  Y0, Y1, Y1
	VMULPD  Y0, Y2, Y2
	VMOVUPD (DI)(AX*8), Y3
	VMOVUPD 32(DI)(AX*8), Y4
	VSUBPD  Y1, Y3, Y3
	VSUBPD  Y2, Y4, Y4
	VMOVUPD Y3, (DI)(AX*8)
	VMOVUPD Y4, 32(DI)(AX*8)
	ADDQ    $8, AX
	JMP     avxloop8

avxtail:
	VZEROUPPER
	MOVSD dt+48(FP), X0

avxtail1:
	CMPQ  AX, CX
	JGE   avxdone
	MOVSD (SI)(AX*8), X1
	MULSD X0, X1
	MOVSD (DI)(AX*8), X3
	SUBSD X1, X3
	MOVSD X3, (DI)(AX*8)
	INCQ  AX
	JMP   avxtail1

avxdone:
	RET

// func hasAVX() bool
//
// CPUID leaf 1: OSXSAVE (ECX bit 27) and AVX (bit 28); then XGETBV: the
// OS saves the XMM and YMM state (XCR0 bits 1 and 2).
TEXT ·hasAVX(SB), NOSPLIT, $0-1
	MOVL  $1, AX
	XORL  CX, CX
	CPUID
	ANDL  $0x18000000, CX
	CMPL  CX, $0x18000000
	JNE   noavx
	XORL  CX, CX
	XGETBV
	ANDL  $6, AX
	CMPL  AX, $6
	JNE   noavx
	MOVB  $1, ret+0(FP)
	RET

noavx:
	MOVB $0, ret+0(FP)
	RET
