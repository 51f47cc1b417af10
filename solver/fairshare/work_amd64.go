package fairshare

// subScaled does rem[k] -= a[k] * dt for every k < len(rem) (a must be at
// least as long), in SSE2 (work_amd64.s): two lanes per instruction, each
// rounded exactly as the scalar loop (subScaledGo) rounds it, since SSE2's
// MULPD and SUBPD are the packed forms of the MULSD and SUBSD the Go
// compiler emits for it, with no fused multiply-add. The work pass is the
// plan's one quadratic loop (J^2/2 multiply-subtracts, some 50 million at
// J = 10,000).
//
//go:noescape
func subScaled(rem, a []float64, dt float64)

// subScaledAVX is subScaled with 256-bit AVX (work_amd64.s), for CPUs and
// systems where hasAVX holds.
//
//go:noescape
func subScaledAVX(rem, a []float64, dt float64)

// hasAVX reports whether the CPU has AVX and the OS saves its registers
// (CPUID and XGETBV): planEvents asks once per plan, not a package
// variable.
func hasAVX() bool
