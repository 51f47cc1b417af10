package fairshare

import (
	"fmt"
	"math"
)

// Variant selects which of Hadoop's fair-share computations Compute mirrors
// (docs/fair-share.md, "Two variants"; request field fair_variant).
type Variant string

const (
	// MRv1 is SchedulingAlgorithms.computeFairShares of the contrib fair
	// scheduler (Hadoop 0.20.203+, 0.21, 1.x): caps are demands, shares are
	// real numbers. It is the default because it is what FLEX compared
	// against.
	MRv1 Variant = "mrv1"
	// YARN is policies/ComputeFairShares of the YARN FairScheduler (2.6 to
	// trunk): caps are max shares, zero-weight and zero-max schedulables are
	// fixed first, shares are truncated to integers at the upper end of the
	// bisection bracket and weights are Java floats.
	YARN Variant = "yarn"
)

// Iterations is the number of bisection steps both variants take
// (COMPUTE_FAIR_SHARES_ITERATIONS in both Hadoop sources): 25 bits of
// precision, "better than 0.1 slots in clusters with one million slots".
const Iterations = 25

// ParseVariant maps a request's fair_variant to a Variant: "" means MRv1.
// The boolean is false for any other name, which the caller reports as a
// validation error.
func ParseVariant(name string) (Variant, bool) {
	switch Variant(name) {
	case "", MRv1:
		return MRv1, true
	case YARN:
		return YARN, true
	}
	return "", false
}

// Schedulable is one job (Hadoop's Schedulable) as the fair-share
// computation sees it, on the request's raw numbers.
type Schedulable struct {
	// Weight w >= 0 scales the job's share of the water level R. YARN
	// rounds it through float32 (Schedulable.getWeight returns a Java
	// float); MRv1 uses it as is (a Java double there).
	Weight float64
	// Min is the minimum share m, in slots: the floor of s(R).
	Min int
	// Max is the cap c, in slots: the demand in MRv1, the max share in YARN.
	// The cap is applied last, so it wins over Min when Min > Max (except
	// for YARN's weight-0 jobs, which Hadoop fixes at Min unclipped).
	Max int
}

// Compute returns Hadoop's fair share of each job for a cluster of total
// slots, indexed like jobs: s(R*) = min(c, max(m, w R*)) with R* found by
// doubling R from 1 while the total is below the target, then bisecting
// [0, R] Iterations times and evaluating at the right end
// (docs/fair-share.md, "The search both use").
//
// The result is reported as Hadoop computes it: it can add up to more than
// total (YARN's truncation at the upper end: 10240 over 3 equal queues is
// 3414 each; or minima beyond total), so it is not an allocation; Slots
// derives one. MRv1 shares are real numbers, YARN shares are integers.
//
// Two deliberate departures, both only where Hadoop has no finite answer:
// when no job with positive weight can grow any more (every weight 0, or
// the rest capped) the doubling stops instead of running R to +Inf, where
// Hadoop MRv1 loops until 0*Inf makes the total NaN and reports NaN shares;
// and a zero weight times an infinite R counts as 0, not NaN. Such jobs get
// their floor clipped by their cap, as docs/fair-share.md requires.
//
// Weights must be finite and >= 0 (NaN propagates as Java's would). Compute
// panics on a Variant other than MRv1 and YARN: that is a programmer error,
// since ParseVariant is where request values are checked.
func Compute(v Variant, jobs []Schedulable, total int) []float64 {
	out := make([]float64, len(jobs))
	var c computer
	c.compute(out, v, jobs, total)
	return out
}

// computer holds scratch space so that Plan's repeated recomputations do not
// allocate.
type computer struct {
	w32   []float64 // YARN weights rounded through float32
	index []int     // YARN's non-fixed schedulables
}

func (c *computer) compute(out []float64, v Variant, jobs []Schedulable, total int) {
	switch v {
	case MRv1, "":
		computeMRv1(out, jobs, total)
	case YARN:
		c.computeYARN(out, jobs, total)
	default:
		panic(fmt.Sprintf("fairshare: unknown variant %q", string(v)))
	}
}

// computeMRv1 mirrors SchedulingAlgorithms.computeFairShares (Hadoop 1.x,
// src/contrib/fairscheduler/src/java/org/apache/hadoop/mapred/
// SchedulingAlgorithms.java) in Java double arithmetic, summing in input
// order as the Java loop over the collection does.
func computeMRv1(out []float64, jobs []Schedulable, total int) {
	if len(jobs) == 0 {
		return
	}
	// double totalDemand = sum of getDemand(); cap = min(totalDemand, totalSlots)
	totalDemand := 0.0
	for _, j := range jobs {
		totalDemand += float64(j.Max)
	}
	target := math.Min(totalDemand, float64(total))

	// while (slotsUsedWithWeightToSlotRatio(rMax) < cap) rMax *= 2, stopped
	// early once nothing can grow (see Compute).
	rMax := 1.0
	for {
		used, saturated := usedMRv1(jobs, rMax)
		if !(used < target) || saturated {
			break
		}
		rMax *= 2
	}
	left, right := 0.0, rMax
	for range Iterations {
		mid := (left + right) / 2
		if used, _ := usedMRv1(jobs, mid); used < target {
			left = mid
		} else {
			right = mid
		}
	}
	for i, j := range jobs {
		out[i] = shareMRv1(j.Weight, j.Min, j.Max, right)
	}
}

// shareMRv1 is computeShare: max with the min share first, min with the
// demand last.
func shareMRv1(w float64, lo, hi int, r float64) float64 {
	s := float64(w * r) // explicit conversion: no fused multiply-add
	if w == 0 {
		s = 0 // Java gives NaN for 0*Inf; see Compute
	}
	s = javaMax(s, float64(lo))
	return javaMin(s, float64(hi))
}

// usedMRv1 is slotsUsedWithWeightToSlotRatio, plus whether doubling r can
// change the total any more (every positive-weight job already at its cap).
func usedMRv1(jobs []Schedulable, r float64) (used float64, saturated bool) {
	saturated = true
	for _, j := range jobs {
		used += shareMRv1(j.Weight, j.Min, j.Max, r)
		if j.Weight > 0 && float64(j.Min) < float64(j.Max) && float64(j.Weight*r) < float64(j.Max) {
			saturated = false
		}
	}
	return used, saturated
}

// computeYARN mirrors ComputeFairShares.computeSharesInternal (trunk,
// hadoop-yarn-project/.../scheduler/fair/policies/ComputeFairShares.java):
// handleFixedFairShares first, long arithmetic with safeAdd saturating at
// Long.MAX_VALUE, (long) truncation of each share, the early exit when the
// total at the midpoint equals the target, evaluation at the right end.
// Hadoop 2.6-2.8 did the same in int with an Integer.MAX_VALUE cap on the sum
// of max shares; the two agree wherever the int version does not overflow
// (which is what testResourceUsedWithWeightToResourceRatio fixed). It
// returns the water level the shares were taken at (the bisection's right
// end; 0 when every schedulable is fixed).
func (c *computer) computeYARN(out []float64, jobs []Schedulable, total int) float64 {
	c.w32 = grow(c.w32, len(jobs))
	c.index = c.index[:0]
	var taken int64
	for i, j := range jobs {
		w := float32(j.Weight) // Schedulable.getWeight() is a Java float
		c.w32[i] = float64(w)
		switch {
		case j.Max <= 0: // getFairShareIfFixed: maxShare <= 0 -> 0
			out[i] = 0
		case w <= 0: // weight <= 0 -> minShare (or 0), not clipped by max
			m := max(int64(j.Min), 0)
			out[i] = float64(m)
			taken = safeAdd(taken, m)
		default:
			c.index = append(c.index, i)
		}
	}
	if len(c.index) == 0 {
		return 0
	}
	var totalMax int64
	for _, i := range c.index {
		totalMax = safeAdd(int64(jobs[i].Max), totalMax)
		if totalMax == math.MaxInt64 {
			break
		}
	}
	target := max(int64(total)-taken, 0)
	target = min(totalMax, target)

	rMax := 1.0
	for {
		used, saturated := c.usedYARN(jobs, rMax)
		if !(used < target) || saturated {
			break
		}
		rMax *= 2
	}
	// The early exit when the total equals the target only saves time: every
	// share is non-decreasing in R, so all of them are constant over the R
	// where the total equals the target, and the plain bisection would end
	// on that set with the same shares.
	left, right := 0.0, rMax
	for range Iterations {
		mid := (left + right) / 2
		used, _ := c.usedYARN(jobs, mid)
		if used == target {
			right = mid
			break
		} else if used < target {
			left = mid
		} else {
			right = mid
		}
	}
	for _, i := range c.index {
		out[i] = float64(shareYARN(c.w32[i], jobs[i].Min, jobs[i].Max, right))
	}
	return right
}

// shareYARN is computeShare: (long) min(max, max(min, w * R)).
func shareYARN(w float64, lo, hi int, r float64) int64 {
	s := float64(w * r)
	s = javaMax(s, float64(lo))
	s = javaMin(s, float64(hi))
	return javaLong(s)
}

// usedYARN is resourceUsedWithWeightToResourceRatio over the non-fixed
// schedulables, plus whether doubling r can change the total any more. The
// latter only matters for NaN weights: with positive weights the total
// reaches the sum of max shares, which is at least the target.
func (c *computer) usedYARN(jobs []Schedulable, r float64) (used int64, saturated bool) {
	saturated = true
	for _, i := range c.index {
		j := jobs[i]
		used = safeAdd(used, shareYARN(c.w32[i], j.Min, j.Max, r))
		if float64(j.Min) < float64(j.Max) && !(float64(c.w32[i]*r) >= float64(j.Max)) {
			saturated = false
		}
		if used == math.MaxInt64 {
			break // as Hadoop: the total cannot grow past Long.MAX_VALUE
		}
	}
	if math.IsInf(r, 1) {
		saturated = true // nothing grows past +Inf; Hadoop would spin here
	}
	return used, saturated
}

// javaMax is Java's Math.max(a, b) for a bound b that is a finite integer
// (never NaN, never -0): NaN wins, and of two equal values b, so that
// max(-0.0, 0.0) is 0.0. Spelled out because math.Max is not inlined on
// amd64 and this is Plan's innermost loop.
func javaMax(a, b float64) float64 {
	if a > b || a != a {
		return a
	}
	return b
}

// javaMin is Java's Math.min(a, b) for a bound b that is a finite integer:
// NaN wins, and of two equal values a, so that min(-0.0, 0.0) is -0.0.
func javaMin(a, b float64) float64 {
	if a > b {
		return b
	}
	return a
}

// javaLong converts like Java's (long) cast of a double: truncation toward
// zero, NaN to 0, saturation at the int64 range. Go leaves out-of-range
// conversions implementation-defined, so they are spelled out.
func javaLong(f float64) int64 {
	switch {
	case f != f:
		return 0
	case f >= 0x1p63:
		return math.MaxInt64
	case f <= -0x1p63:
		return math.MinInt64
	}
	return int64(f)
}

// safeAdd is ComputeFairShares.safeAdd: Math.addExact, or Long.MAX_VALUE on
// overflow in either direction.
func safeAdd(a, b int64) int64 {
	s := a + b
	if (a > 0 && b > 0 && s < 0) || (a < 0 && b < 0 && s >= 0) {
		return math.MaxInt64
	}
	return s
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
