package rap

import "math"

// Problem is one separable RAP (FLEX section 3.2): choose s_j in
// [Min[j], Max[j]] with sum_j s_j <= Slots.
//
// Callers guarantee len(Min) == len(Max), sum_j Min[j] <= Slots and
// Min[j] >= 0; a Max[j] below Min[j] is read as Max[j] = Min[j] (the job is
// fixed at its minimum). When sum_j Min[j] > Slots the solvers return the
// minima unchanged: there is nothing to allocate, and normalising minima is
// the caller's job (docs/algorithms.md section 1).
type Problem struct {
	// Slots is S, the number of interchangeable slots.
	Slots int
	// Min and Max bound each job's slot count; Min may be 0.
	Min, Max []int
	// F is job j's penalty when it holds s slots, evaluated only for s in
	// [Min[j], Max[j]]. It must be non-increasing in s and never NaN; +Inf
	// is allowed (F_j(0) of a job that never completes without slots).
	F func(j, s int) float64
	// Inverse, optional and used only by Threshold, returns the largest s in
	// [Min[j], Max[j]] whose marginal gain F(j, s-1) - F(j, s) is at least
	// lambda, or Min[j] when there is none. Threshold calls it only with a
	// finite lambda between the smallest and the largest positive finite
	// gain of the instance, so an implementation need not guard against
	// lambda near 0 or +Inf. Results outside [Min[j], Max[j]] are clamped.
	// For F = a + b/s the gain is b / (s (s-1)) and the inverse has a
	// closed form.
	Inverse func(j int, lambda float64) int
}

// jobs checks the shape of p and returns the number of jobs. Mismatched
// slices are programmer misuse and panic.
func (p *Problem) jobs() int {
	if len(p.Min) != len(p.Max) {
		panic("rap: len(Min) != len(Max)")
	}
	if p.F == nil {
		panic("rap: nil F")
	}
	return len(p.Min)
}

// bounds returns job j's slot range with Max raised to Min if needed.
func (p *Problem) bounds(j int) (lo, hi int) {
	return p.Min[j], max(p.Min[j], p.Max[j])
}

// gain is the marginal gain F_j(s-1) - F_j(s) of job j's s-th slot. Two
// equal values (including +Inf and +Inf, whose difference would be NaN) gain
// nothing.
func (p *Problem) gain(j, s int) float64 {
	return diff(p.F(j, s-1), p.F(j, s))
}

// minima returns a fresh copy of the minima and the slots left after them.
func (p *Problem) minima() (s []int, left int) {
	s = make([]int, len(p.Min))
	left = p.Slots
	for j := range s {
		s[j] = p.Min[j]
		left -= s[j]
	}
	return s, left
}

// SumOf is the minisum objective sum_j F_j(s_j) of allocation s.
func SumOf(p Problem, s []int) float64 {
	var t float64
	for j, x := range s {
		t += p.F(j, x)
	}
	return t
}

// MaxOf is the minimax objective max_j F_j(s_j) of allocation s; -Inf for
// no jobs.
func MaxOf(p Problem, s []int) float64 {
	t := math.Inf(-1)
	for j, x := range s {
		t = max(t, p.F(j, x))
	}
	return t
}
