package rap

import "math"

// Threshold solves a convex minisum RAP with the same objective as Greedy by
// a Lagrangian threshold search on marginal gains, the practical form of the
// Galil-Megiddo and Frederickson-Johnson schemes FLEX uses for large S
// (FLEX section 3.2, refs. [16], [17]; docs/algorithms.md section 4 item 1).
//
// For a threshold lambda > 0 let n_j(lambda) be the largest s in
// [Min_j, Max_j] whose slots all gain at least lambda (by convexity, the
// slots with gain >= lambda form a prefix). n_j is non-increasing in lambda,
// so Threshold narrows a bracket [lo, hi) until the slots with gain in it
// number at most about J, where taking every slot with gain >= hi fits and
// taking every slot with gain >= lo does not. Slots with an infinite gain
// (a job that cannot finish without one) are counted up front. The search
// runs on the IEEE-754 bit patterns of lambda, which are ordered like the
// positive floats, so it can end on adjacent floats and never loses a tie
// to rounding; each round proposes lambda by regula falsi on
// log(count) against log(lambda) (see regulaFalsi), typically 3-15 rounds.
// Each job's n_j is searched only inside its bracket [n_j(hi), n_j(lo)] (by
// binary search, or one call of p.Inverse), and jobs whose bracket is empty
// drop out.
//
// The remaining slots, those with gain in [lo, hi), are handed out by
// Greedy's own rule (largest gain, then lower index), so Threshold takes
// exactly the slots Greedy takes: the allocations differ, if at all, only
// where rounding breaks a tie differently, and the objectives agree to
// rounding. Like Greedy it only ever takes slots with a positive gain, so
// when every such slot fits it returns that allocation with slots to spare.
//
// Cost: O(J log S) evaluations of F per round without Inverse, O(J) calls
// of Inverse and O(J) evaluations of F with it (at most 3 rounds per
// halving of the 64-bit key range, in practice 3-15 rounds); then
// O(J log J) for the final hand-out. A function with long runs of equal
// gains (linear F) can leave a large tie set to the final hand-out, which
// then costs what Greedy costs.
func Threshold(p Problem) []int {
	n := p.jobs()
	s, left := p.minima()
	if left <= 0 || n == 0 {
		return s
	}
	// top[j] is the last slot with positive gain; by convexity the positive
	// gains are a prefix of [Min_j+1, Max_j]. minLast is the smallest gain
	// among those prefixes' last slots and maxFirst the largest first gain:
	// every bracket lies in [minLast, maxFirst].
	top := make([]int, n)
	firsts := make([]float64, n)
	minLast, maxFirst := math.Inf(1), 0.0
	total := 0
	for j := range n {
		lo, hi := p.bounds(j)
		top[j] = lo
		if hi == lo {
			continue
		}
		first := p.gain(j, lo+1)
		firsts[j] = first
		if !(first > 0) {
			continue
		}
		t, last := hi, first
		if hi > lo+1 {
			last = p.gain(j, hi)
		}
		if !(last > 0) {
			a, b := lo+1, hi-1
			for a < b {
				if m := a + (b-a+1)/2; p.gain(j, m) > 0 {
					a = m
				} else {
					b = m - 1
				}
			}
			t, last = a, p.gain(j, a)
		}
		top[j] = t
		minLast, maxFirst = min(minLast, last), max(maxFirst, first)
		total += t - lo
	}
	if total <= left {
		return top
	}

	// Slots with an infinite gain (F_j(Min_j) = +Inf, typically Min_j = 0)
	// come first; if they alone use up the slots, lower index wins.
	nHi := s
	cntHi, maxFinite := 0, 0.0
	for j := range n {
		lo, _ := p.bounds(j)
		if top[j] == lo {
			continue
		}
		g := firsts[j]
		if math.IsInf(g, 1) {
			nHi[j]++
			cntHi++
			if top[j] > lo+1 {
				g = p.gain(j, lo+2)
			}
		}
		if !math.IsInf(g, 1) {
			maxFinite = max(maxFinite, g)
		}
	}
	if cntHi >= left {
		copy(nHi, p.Min)
		for j := 0; left > 0; j++ {
			if top[j] > nHi[j] && math.IsInf(firsts[j], 1) {
				nHi[j]++
				left--
			}
		}
		return nHi
	}

	// Invariant: cnt(lo) = cntLo > left >= cntHi = cnt(hi), where cnt is
	// the number of slots above the minima with gain >= lambda, and nLo,
	// nHi are the n_j at lo and hi. hiK starts one bit pattern above the
	// largest finite gain, where only the infinite gains qualify.
	nLo, cntLo := top, total
	loK, hiK := math.Float64bits(minLast), math.Float64bits(maxFinite)+1
	active := make([]int, 0, n)
	for j := range n {
		if nLo[j] > nHi[j] {
			active = append(active, j)
		}
	}
	mid := make([]int, n)
	gap := max(n, minGap)
	var rf regulaFalsi
	for cntLo-cntHi > gap && loK+1 < hiK {
		mk := rf.next(loK, hiK, cntLo, cntHi, left)
		lambda := math.Float64frombits(mk)
		cnt := cntHi
		for _, j := range active {
			a, b := nHi[j], nLo[j]
			if p.Inverse != nil {
				a = min(max(p.Inverse(j, lambda), a), b)
			} else {
				for a < b {
					if m := a + (b-a+1)/2; p.gain(j, m) >= lambda {
						a = m
					} else {
						b = m - 1
					}
				}
			}
			mid[j] = a
			cnt += a - nHi[j]
		}
		if cnt > left {
			loK, cntLo = mk, cnt
			for _, j := range active {
				nLo[j] = mid[j]
			}
		} else {
			hiK, cntHi = mk, cnt
			for _, j := range active {
				nHi[j] = mid[j]
			}
		}
		rf.moved(cnt > left)
		k := 0
		for _, j := range active {
			if nLo[j] > nHi[j] {
				active[k] = j
				k++
			}
		}
		active = active[:k]
	}
	greedyFill(&p, nHi, nLo, left-cntHi)
	return nHi
}

// minGap is the least number of undecided slots at which Threshold stops
// bisecting and hands out the rest greedily; the gap is otherwise J, which
// keeps the final hand-out at O(J log J).
const minGap = 64

// regulaFalsi proposes Threshold's next key inside (loK, hiK): the
// Illinois variant of regula falsi on y = log(count + 1) against
// x = log(lambda). Counts of convex penalties behave like powers of lambda
// (sqrt(W / lambda) for W/s), so the line through the bracket ends lands
// close to the target count; when the same end moves twice running, the
// other end's weight is halved so that both ends close in. Proposals stay
// inside the inner 1/64..63/64 of the key range, and the range is bisected
// when its upper end is not finite or after two rounds that did not halve
// it, so at most three rounds pass per halving.
type regulaFalsi struct {
	wLo, wHi float64
	last     int    // 0 none, 1 lo moved, 2 hi moved
	width    uint64 // key range at the last proposal
	slow     int    // consecutive rounds that did not halve the range
}

func (r *regulaFalsi) next(loK, hiK uint64, cntLo, cntHi, left int) uint64 {
	if r.wLo == 0 {
		r.wLo, r.wHi = 1, 1
	}
	width := hiK - loK
	if r.width != 0 && width > r.width/2 {
		r.slow++
	} else {
		r.slow = 0
	}
	r.width = width
	minK, maxK := loK+max(1, width/64), hiK-max(1, width/64)
	hi := math.Float64frombits(hiK)
	if r.slow >= 2 || minK > maxK || math.IsInf(hi, 0) || math.IsNaN(hi) {
		r.slow = 0
		return loK + width/2
	}
	yT := math.Log(float64(left) + 1)
	fLo := r.wLo * (math.Log(float64(cntLo)+1) - yT)
	fHi := r.wHi * (math.Log(float64(cntHi)+1) - yT)
	xLo, xHi := math.Log(math.Float64frombits(loK)), math.Log(hi)
	x := xLo + fLo*(xHi-xLo)/(fLo-fHi)
	k := math.Float64bits(math.Exp(x))
	return min(max(k, minK), maxK)
}

// moved records which end the last proposal replaced.
func (r *regulaFalsi) moved(lo bool) {
	if lo {
		r.wLo = 1
		if r.last == 1 {
			r.wHi /= 2
		}
		r.last = 1
		return
	}
	r.wHi = 1
	if r.last == 2 {
		r.wLo /= 2
	}
	r.last = 2
}
