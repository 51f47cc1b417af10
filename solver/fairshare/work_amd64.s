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
