package rap

import "math"

// Minimax solves a minimax RAP exactly for any non-increasing F_j by
// bisection on the threshold theta (docs/algorithms.md section 4 item 1, the
// minimax correction of FLEX section 3.2: the paper's transform
// G_j(s) = sum_{i<=s} F_j(i) is concave, not convex, for penalties that fall
// with s, so it is not used). For a threshold theta, job j needs
// need_j(theta), the least s >= Min_j with F_j(s) <= theta; theta is
// feasible when every job has such an s and sum_j need_j(theta) <= S.
//
// The optimum theta* is one of the values F_j(s). Minimax keeps a feasible
// hi (always snapped down to the objective max_j F_j(need_j(hi)), itself a
// value of F) and an infeasible lo (with the next value above lo at which
// some need falls, below which nothing changes) and bisects between them on
// the ordered bit patterns of the floats, so it stops exactly at theta*.
// Each job's need is searched only inside its bracket
// [need_j(hi), need_j(lo)]; jobs whose bracket is empty drop out.
//
// It returns need_j(theta*) for every job: the least allocation achieving
// the optimum. The slots it leaves free do not change the objective; the
// caller hands them out by its own rule. Cost: O(J log S) evaluations of F
// per round, over at most 64 rounds and usually far fewer.
func Minimax(p Problem) []int {
	n := p.jobs()
	if n == 0 {
		return []int{}
	}
	// No threshold below max_j F_j(Max_j) is feasible; at it every job has
	// a need, and if those fit, they are the answer.
	lo := math.Inf(-1)
	for j := range n {
		_, hi := p.bounds(j)
		lo = max(lo, p.F(j, hi))
	}
	nLo := make([]int, n)
	sum := 0
	for j := range n {
		a, b := p.bounds(j)
		nLo[j] = needIn(&p, j, a, b, lo)
		sum += nLo[j]
	}
	if sum <= p.Slots {
		return nLo
	}
	// The minima are feasible by contract: hi = max_j F_j(Min_j).
	nHi, left := p.minima()
	sumHi := p.Slots - left
	hi := MaxOf(p, nHi)
	active := make([]int, 0, n)
	inactiveMax := math.Inf(-1)
	for j := range n {
		if nLo[j] > nHi[j] {
			active = append(active, j)
		} else {
			inactiveMax = max(inactiveMax, p.F(j, nHi[j]))
		}
	}
	mid := make([]int, n)
	for len(active) > 0 {
		// next is the least theta above lo at which some need falls; every
		// theta in [lo, next) is infeasible. It is at most hi.
		next := math.Inf(1)
		for _, j := range active {
			next = min(next, p.F(j, nLo[j]-1))
		}
		if next >= hi {
			break
		}
		theta := fromKey(key(next) + (key(hi)-key(next))/2)
		sum, obj := 0, inactiveMax
		for _, j := range active {
			mid[j] = needIn(&p, j, nHi[j], nLo[j], theta)
			sum += mid[j] - nHi[j]
			obj = max(obj, p.F(j, mid[j]))
		}
		if sumHi+sum <= p.Slots {
			hi, sumHi = obj, sumHi+sum
			for _, j := range active {
				nHi[j] = mid[j]
			}
		} else {
			lo = theta
			for _, j := range active {
				nLo[j] = mid[j]
			}
		}
		k := 0
		for _, j := range active {
			if nLo[j] > nHi[j] {
				active[k] = j
				k++
			} else {
				inactiveMax = max(inactiveMax, p.F(j, nHi[j]))
			}
		}
		active = active[:k]
	}
	return nHi
}

// needIn is the least s in [a, b] with F_j(s) <= theta, given that
// F_j(b) <= theta; binary search, since F_j is non-increasing.
func needIn(p *Problem, j, a, b int, theta float64) int {
	for a < b {
		if m := a + (b-a)/2; p.F(j, m) <= theta {
			b = m
		} else {
			a = m + 1
		}
	}
	return a
}

// key maps a float64 (not NaN) to a uint64 with the same order, so that
// bisecting keys bisects floats by their representation.
func key(x float64) uint64 {
	u := math.Float64bits(x)
	if u>>63 == 1 {
		return ^u
	}
	return u | 1<<63
}

// fromKey inverts key.
func fromKey(k uint64) float64 {
	if k>>63 == 1 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}
