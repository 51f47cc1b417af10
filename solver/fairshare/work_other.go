//go:build !amd64

package fairshare

// subScaled does rem[k] -= a[k] * dt for every k < len(rem) (a must be at
// least as long); on amd64 it is SSE2 assembly, here the Go loop.
func subScaled(rem, a []float64, dt float64) { subScaledGo(rem, a, dt) }

// subScaledAVX is subScaled (no AVX off amd64).
func subScaledAVX(rem, a []float64, dt float64) { subScaledGo(rem, a, dt) }

// hasAVX is false off amd64.
func hasAVX() bool { return false }
