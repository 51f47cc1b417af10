package solver

// The candidate orders FLEX builds beyond the classical ones (orders.go):
// the generic order of the moldable relaxation (FLEX 3.2, solved by package
// rap), and on step metrics the admission, threshold and sacrifice orders.

import (
	"math"
	"sort"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver/rap"
)

// penaltyAt is F_j(s) of the moldable problem: job k's penalty when it
// holds s slots from now until done (FLEX 3.2). s = 0 never completes.
func (in *instance) penaltyAt(k, s int) float64 {
	c := math.Inf(1)
	if s > 0 {
		c = in.now + in.work[k]/float64(s)
	}
	v := in.fn[k].At(c) // in.metrics[k].Of(in.pj[k], c), resolved once
	if math.IsNaN(v) {
		// 0 * Inf: a job of weight 0 costs nothing, even never finishing.
		return 0
	}
	return v
}

// genericOrder is FLEX's generic scheme (section 3.2; docs/algorithms.md
// section 4 item 1): solve the moldable problem as a separable RAP and use
// the completion order of its solution as the priority order.
//
// For step metrics it also returns the knapsack's on-time set in deadline
// orders (plain and "deadline minus fastest duration") followed by the
// other jobs: the set is what the knapsack decides, the order within it
// is better left to the deadlines than to the moldable completion times,
// which MPS does not keep.
func (in *instance) genericOrder(dpCells int) ([]ordering, Stats) {
	var stats Stats
	n := len(in.jobs)
	convex, allFlow := true, true
	for _, m := range in.distinctMetrics() {
		info, _ := penalty.Lookup(m)
		convex = convex && info.Convex
		allFlow = allFlow && (m == penalty.AvgResponseTime || m == penalty.WeightedResponseTime || m == penalty.AvgStretch || m == penalty.AvgLateness)
	}
	rp := rap.Problem{Slots: in.slots, Min: in.min, Max: in.max, F: in.penaltyAt}
	var s []int
	var onTime []bool
	switch {
	case in.agg == penalty.Max:
		s = rap.Minimax(rp)
	case convex:
		if allFlow {
			// F_j(s) = a_j + b_j / s for these metrics: the marginal gain
			// b_j / (s (s-1)) has a closed-form inverse.
			rp.Inverse = in.flowInverse
		}
		s = rap.Threshold(rp)
	default:
		if dpCells == 0 {
			dpCells = defaultDPCells
		}
		choices := in.stepChoices()
		if choices == nil {
			s = rap.Greedy(rp)
			break
		}
		pick, cells, exact := rap.Knapsack(in.slots, choices, dpCells)
		stats.DPCells, stats.DPFallback = cells, !exact
		s = make([]int, n)
		onTime = make([]bool, n)
		for k, x := range pick {
			s[k] = choices[k][x].Slots
			onTime[k] = x > 0
		}
	}
	comp := make([]float64, n)
	for k := range comp {
		comp[k] = math.Inf(1)
		if s[k] > 0 {
			comp[k] = in.now + in.work[k]/float64(s[k])
		}
	}
	// Jobs the RAP leaves without slots never finish in the moldable
	// schedule; among them, shortest isolated time first.
	order := sortedBy(n, func(k int) float64 { return comp[k] })
	sort.SliceStable(order, func(a, b int) bool {
		ka, kb := order[a], order[b]
		if comp[ka] != comp[kb] || !math.IsInf(comp[ka], 1) {
			return false
		}
		return in.work[ka]/float64(in.max[ka]) < in.work[kb]/float64(in.max[kb])
	})
	out := []ordering{{"generic_rap", order}}
	if onTime != nil {
		fastest := func(k int) float64 { return in.work[k] / float64(in.max[k]) }
		due := func(k int) float64 {
			if in.metrics[k] == penalty.SLACost {
				// The deadline of the step the knapsack chose to meet.
				c := in.now + in.work[k]/float64(max(1, s[k]))
				for _, st := range in.pj[k].SLA {
					if c <= st.Deadline {
						return st.Deadline
					}
				}
				return in.pj[k].SLA[len(in.pj[k].SLA)-1].Deadline
			}
			return in.pj[k].Deadline
		}
		split := func(scheme string, key func(k int) float64) ordering {
			o := sortedBy(n, func(k int) float64 {
				if onTime[k] {
					return key(k)
				}
				return math.Inf(1)
			})
			// The rest keep the moldable completion order.
			rest := o[:0:0]
			for _, k := range order {
				if !onTime[k] {
					rest = append(rest, k)
				}
			}
			return ordering{scheme, append(o[:n-len(rest)], rest...)}
		}
		out = append(out, split("generic_rap_edd", due),
			split("generic_rap_edd_slack", func(k int) float64 { return due(k) - fastest(k) }))
	}
	return out, stats
}

// flowInverse returns the largest s in [min, max] whose marginal gain
// F(s-1) - F(s) = b / (s (s-1)) is at least lambda, b being the job's
// weighted work (FLEX 3.2 response time and stretch, FLEX Fig. 1a).
func (in *instance) flowInverse(k int, lambda float64) int {
	b := in.work[k] * in.flowWeight(k)
	lo, hi := in.min[k], in.max[k]
	if lambda <= 0 {
		return hi
	}
	// b / (s(s-1)) >= lambda  <=>  s(s-1) <= b / lambda.
	r := b / lambda
	if r >= float64(hi)*float64(hi) {
		return hi // also keeps the conversion below in int range
	}
	s := int(math.Floor((1 + math.Sqrt(1+4*r)) / 2))
	for s > lo && float64(s)*float64(s-1) > r {
		s--
	}
	for s < hi && float64(s+1)*float64(s) <= r {
		s++
	}
	return max(lo, min(hi, s))
}

// flowWeight is the slope of job k's penalty in its completion time.
func (in *instance) flowWeight(k int) float64 {
	switch in.metrics[k] {
	case penalty.WeightedResponseTime:
		return in.pj[k].Weight
	case penalty.AvgStretch:
		return 1 / in.pj[k].Iso
	}
	return 1
}

// stepChoices lists, for step metrics, each job's useful allocations: its
// minimum and the least slot count reaching each lower penalty level
// (docs/algorithms.md section 4 item 1, the multiple-choice knapsack). It
// returns nil when some job's metric is not a step metric.
func (in *instance) stepChoices() [][]rap.Choice {
	out := make([][]rap.Choice, len(in.jobs))
	for k := range in.jobs {
		info, _ := penalty.Lookup(in.metrics[k])
		if !info.Step {
			return nil
		}
		var deadlines []float64
		if in.metrics[k] == penalty.SLACost {
			for _, st := range in.pj[k].SLA {
				deadlines = append(deadlines, st.Deadline)
			}
		} else {
			deadlines = []float64{in.pj[k].Deadline}
		}
		cs := []rap.Choice{{Slots: in.min[k], Value: in.penaltyAt(k, in.min[k])}}
		// Later deadlines need fewer slots: walk them from the last.
		for x := len(deadlines) - 1; x >= 0; x-- {
			d := deadlines[x] - in.now
			if d <= 0 {
				continue
			}
			need := int(math.Ceil(in.work[k]/d - 1e-9))
			if need <= cs[len(cs)-1].Slots || need > in.max[k] {
				continue
			}
			v := in.penaltyAt(k, need)
			if v < cs[len(cs)-1].Value {
				cs = append(cs, rap.Choice{Slots: need, Value: v})
			}
		}
		out[k] = cs
	}
	return out
}

// admissionOrders builds orders for step metrics by greedy admission, the
// Moore-Hodgson idea with MPS itself as the judge (FLEX 3.2 names
// Moore-Hodgson for tardy jobs; its single-machine test does not fit
// malleable jobs): jobs are considered in a priority (heaviest penalty,
// densest penalty per unit of work, earliest due), and each is moved into
// the front set, kept in due order, when that makes the schedule better.
// Each order costs J evaluations.
func (ev *evaluator) admissionOrders() []ordering {
	in := ev.in
	n := len(in.jobs)
	fastest := func(k int) float64 { return in.work[k] / float64(in.max[k]) }
	deadline := func(k int) float64 {
		if in.metrics[k] == penalty.SLACost && len(in.pj[k].SLA) > 0 {
			return in.pj[k].SLA[0].Deadline
		}
		return in.pj[k].Deadline
	}
	due := func(k int) float64 { return deadline(k) - fastest(k) }
	stake := in.stake
	admit := func(e *evaluator, byDue []int, scheme string, priority []int) ordering {
		front := make([]bool, n)
		order := make([]int, 0, n)
		build := func() {
			order = order[:0]
			for _, k := range byDue {
				if front[k] {
					order = append(order, k)
				}
			}
			for _, k := range byDue {
				if !front[k] {
					order = append(order, k)
				}
			}
		}
		build()
		best := e.score(order)
		try := func() bool {
			build()
			if s := e.score(order); s.less(best) {
				best = s
				return true
			}
			return false
		}
		for _, k := range priority {
			front[k] = true
			if !try() {
				front[k] = false
			}
		}
		build()
		return ordering{scheme, append([]int(nil), order...)}
	}
	// The front set runs in deadline order, less the fastest duration or
	// not: which one meets more deadlines depends on the caps.
	keys := []struct {
		name string
		due  func(k int) float64
	}{{"", due}, {"_edd", deadline}}
	res := make([][]ordering, len(keys))
	run := func(e *evaluator, x int) {
		byDue := sortedBy(n, keys[x].due)
		name := keys[x].name
		res[x] = []ordering{
			admit(e, byDue, "admission_stake"+name, sortedBy(n, func(k int) float64 { return -stake(k) })),
			admit(e, byDue, "admission_density"+name, sortedBy(n, func(k int) float64 { return -stake(k) / in.work[k] })),
			admit(e, byDue, "admission_due"+name, byDue),
		}
	}
	// The two keys' orders are independent, J schedules each: the second
	// key's are made on a goroutine of its own with its own evaluator
	// (the answers are those of one goroutine: TestParallelSolveIsSerial).
	ev.atOnce(len(keys), run)
	return append(res[0], res[1]...)
}

// thresholdOrders builds orders for minimax objectives by bisection on the
// threshold theta, the malleable counterpart of the RAP minimax of
// docs/algorithms.md section 4: each job must complete by the latest time
// its penalty stays within theta, which makes the problem one of meeting
// deadlines, for which earliest-deadline orders (plain, and less the job's
// fastest duration) are the natural MPS priorities. A theta is reached when
// the MPS schedule of such an order scores within it; the search keeps the
// best order seen. upper is the best value known so far.
func (ev *evaluator) thresholdOrders(upper float64) []ordering {
	in := ev.in
	n := len(in.jobs)
	if math.IsInf(upper, 0) || math.IsNaN(upper) {
		return nil
	}
	iterations := min(thresholdIterations, max(2, searchJobEvaluations/(2*n)))
	fastest := func(k int) float64 { return in.work[k] / float64(in.max[k]) }
	// The least conceivable value: every job alone at full speed from now.
	lower := math.Inf(-1)
	for k := range in.jobs {
		lower = math.Max(lower, in.metrics[k].Of(in.pj[k], in.now+fastest(k)))
	}
	var out []ordering
	for _, variant := range []struct {
		scheme string
		slack  bool
	}{{"threshold_edd", false}, {"threshold_edd_slack", true}} {
		lo, hi := lower, upper
		var bestOrder []int
		bestScore := score{math.Inf(1), math.Inf(1)}
		for it := 0; it < iterations && hi-lo > 1e-9*math.Max(1, math.Abs(hi)); it++ {
			theta := lo + (hi-lo)/2
			order := sortedBy(n, func(k int) float64 {
				d := in.latest(k, theta)
				if variant.slack {
					d -= fastest(k)
				}
				return d
			})
			sc := ev.score(order)
			if sc.less(bestScore) {
				bestOrder, bestScore = order, sc
			}
			if sc.value <= theta {
				hi = math.Min(theta, sc.value)
			} else {
				lo = theta
			}
		}
		if bestOrder != nil {
			out = append(out, ordering{variant.scheme, bestOrder})
		}
	}
	return out
}

// thresholdIterations bounds each bisection of thresholdOrders; for large
// J it shrinks so that the bisection costs about searchJobEvaluations job-
// evaluations, like the local search.
const thresholdIterations = 30

// maxAdmissionJobs is the largest J for which admissionOrders runs: each of
// its orders costs J schedules, O(J^2 log J) in all.
const maxAdmissionJobs = 200

// latest returns the latest completion time of job k whose penalty stays
// within theta (+Inf when any time will do, the job's weight being 0).
// Closed forms for the menu's minimax metrics; penalties are
// non-decreasing in the completion time, so bisection serves the rest.
func (in *instance) latest(k int, theta float64) float64 {
	j := in.pj[k]
	per := func(w float64) float64 {
		if w <= 0 {
			return math.Inf(1)
		}
		return theta / w
	}
	switch in.metrics[k] {
	case penalty.MaxResponseTime, penalty.AvgResponseTime:
		return j.Submitted + theta
	case penalty.MaxWeightedResponseTime, penalty.WeightedResponseTime:
		return j.Submitted + per(j.Weight)
	case penalty.Makespan:
		return theta
	case penalty.MaxStretch, penalty.AvgStretch:
		return j.Submitted + theta*j.Iso
	case penalty.MaxTardiness, penalty.AvgTardiness, penalty.MaxLateness, penalty.AvgLateness:
		return j.Deadline + theta
	case penalty.MaxWeightedTardiness, penalty.WeightedTardiness, penalty.MaxWeightedLateness:
		return j.Deadline + per(j.Weight)
	}
	lo, hi := in.now, in.now+1
	for in.metrics[k].Of(j, hi) <= theta && hi < 1e300 {
		lo, hi = hi, in.now+2*(hi-in.now)
	}
	for range 100 {
		mid := lo + (hi-lo)/2
		if in.metrics[k].Of(j, mid) <= theta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// sacrificeOrders builds, for sums of deadline penalties, orders that give
// up a few jobs on purpose: for every set B of at most b jobs, the other
// jobs in deadline order, then B in deadline order, B running on its minima
// until the others finish. It is the enumerative counterpart of Moore-
// Hodgson (FLEX 3.2 names it for tardy jobs): which jobs to give up is the
// hard part, and for a handful of jobs every small set can be tried. b is
// the largest of maxSacrifice, ..., 1, 0 whose enumeration costs at most
// 2 * searchJobEvaluations job-evaluations per due key (b = 3 up to J = 15,
// 2 up to J = 26, 1 up to J = 99; at most 2 for the second key). It returns
// the best order per due key: deadline, and deadline less the fastest
// duration.
func (ev *evaluator) sacrificeOrders() []ordering {
	in := ev.in
	n := len(in.jobs)
	b := 0
	for b < maxSacrifice && n*setsUpTo(n, b+1) <= 2*searchJobEvaluations {
		b++
	}
	if b == 0 {
		return nil
	}
	fastest := func(k int) float64 { return in.work[k] / float64(in.max[k]) }
	deadline := in.reachableDue
	order := make([]int, n)
	given := make([]bool, n)
	var out []ordering
	for _, key := range []struct {
		scheme string
		due    func(k int) float64
		most   int
	}{
		{"sacrifice_edd", deadline, maxSacrifice},
		// Sets of three added nothing over deadline order on 310 FLEX 4.1
		// instances and cost 120 schedules at J = 10.
		{"sacrifice_edd_slack", func(k int) float64 { return deadline(k) - fastest(k) }, 2},
	} {
		byDue := sortedBy(n, key.due)
		var bestOrder []int
		bestScore := score{math.Inf(1), math.Inf(1)}
		try := func() {
			front := 0
			back := n
			for x := n - 1; x >= 0; x-- {
				if k := byDue[x]; given[k] {
					back--
					order[back] = k
				}
			}
			for _, k := range byDue {
				if !given[k] {
					order[front] = k
					front++
				}
			}
			if sc := ev.score(order); sc.less(bestScore) {
				bestScore, bestOrder = sc, append(bestOrder[:0], order...)
			}
		}
		// Every set of at most b jobs, each once: sets grow from the
		// positions after their last member.
		var sets func(from, left int)
		sets = func(from, left int) {
			try()
			if left == 0 {
				return
			}
			for x := from; x < n; x++ {
				given[byDue[x]] = true
				sets(x+1, left-1)
				given[byDue[x]] = false
			}
		}
		sets(0, min(b, key.most))
		out = append(out, ordering{key.scheme, bestOrder})
	}
	return out
}

// jitDue is job k's place in the tardy keys' jit order (dueSearch) and
// admitRepair's: its reachable deadline plus its work over the cluster's
// slots, so that a big job goes just in time behind small ones due a
// little after it.
func (in *instance) jitDue(k int) float64 {
	return in.reachableDue(k) + in.work[k]/float64(in.slots)
}

// reachableDue is job k's deadline; an SLA job is due at its first step it
// can still meet (alone, at full speed): a step already out of reach orders
// nothing.
func (in *instance) reachableDue(k int) float64 {
	if sla := in.pj[k].SLA; in.metrics[k] == penalty.SLACost && len(sla) > 0 {
		for _, st := range sla {
			if in.reachable(k, st.Deadline) {
				return st.Deadline
			}
		}
		return sla[len(sla)-1].Deadline
	}
	return in.pj[k].Deadline
}

// maxSacrifice is the most jobs sacrificeOrders gives up at once. Three:
// with 90% slack (FLEX 4.1's generator, seed 5, instance 7, weighted tardy
// jobs) the optimum gives up three light jobs (weights 0.16, 0.21, 0.25)
// to keep one of 0.86, and no sequence of smaller moves gets there.
const maxSacrifice = 3

// setsUpTo is the number of subsets of at most b of n items.
func setsUpTo(n, b int) int {
	total, c := 0, 1
	for i := 0; i <= b && i <= n; i++ {
		total += c
		c = c * (n - i) / (i + 1)
	}
	return total
}
