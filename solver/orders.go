package solver

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/flexd/flexd/penalty"
)

// An ordering scheme: a name (reported as Result.Scheme) and a priority
// order over the instance's jobs in canonical indexes.
type ordering struct {
	scheme string
	order  []int
}

// sortedBy returns the job indexes sorted by key ascending, ties by
// canonical index (that is, by id); NaN sorts as +Inf and -0 as 0, as
// cmp.Compare orders them. Past radixSortJobs it is a radix sort on the
// keys' bits, stable from index order: the same order as the comparison
// sort (sortedByCompare, its test oracle) in O(J), which at J = 100,000
// is a tenth of the comparison sort's time, and FLEX sorts the jobs
// several times per solve (the candidate orders).
func sortedBy(n int, key func(k int) float64) []int {
	if n < radixSortJobs {
		return sortedByCompare(n, key)
	}
	// Each key's bits made unsigned-sortable: the sign bit flipped on
	// non-negative numbers, every bit on negative ones.
	bits := make([]uint64, n)
	for k := range bits {
		f := key(k)
		switch {
		case math.IsNaN(f):
			f = math.Inf(1)
		case f == 0:
			f = 0 // -0 ties with 0
		}
		b := math.Float64bits(f)
		if b>>63 != 0 {
			b = ^b
		} else {
			b |= 1 << 63
		}
		bits[k] = b
	}
	idx := make([]int32, n)
	for k := range idx {
		idx[k] = int32(k)
	}
	tmp := make([]int32, n)
	var count [1 << radixBits]int
	for shift := uint(0); shift < 64; shift += radixBits {
		clear(count[:])
		for _, b := range bits {
			count[(b>>shift)&(1<<radixBits-1)]++
		}
		// A digit every key shares moves nothing.
		if count[(bits[0]>>shift)&(1<<radixBits-1)] == n {
			continue
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for _, k := range idx {
			d := (bits[k] >> shift) & (1<<radixBits - 1)
			tmp[count[d]] = k
			count[d]++
		}
		idx, tmp = tmp, idx
	}
	out := make([]int, n)
	for i, k := range idx {
		out[i] = int(k)
	}
	return out
}

// radixSortJobs is the J from which sortedBy sorts by radix; below it the
// comparison sort is as fast.
const radixSortJobs = 512

// radixBits is the digit of sortedBy's radix sort: 8 passes of 256
// buckets, each skipped when every key has the same digit.
const radixBits = 8

// sortedByCompare is sortedBy as a comparison sort.
func sortedByCompare(n int, key func(k int) float64) []int {
	idx := make([]int, n)
	keys := make([]float64, n)
	for k := range idx {
		idx[k] = k
		keys[k] = key(k)
		if math.IsNaN(keys[k]) {
			keys[k] = math.Inf(1)
		}
	}
	slices.SortFunc(idx, func(a, b int) int {
		if c := cmp.Compare(keys[a], keys[b]); c != 0 {
			return c
		}
		return a - b
	})
	return idx
}

// classicalOrders returns the orders of docs/algorithms.md section 4 item 2
// that suit the instance's metrics: the orders the generic scheme reduces
// to when caps do not bind, and their cap-aware variants (which account for
// a job's fastest possible duration W/M). Every order is cheap, O(J log J);
// each is then scored by MPS with the true objective.
func (in *instance) classicalOrders() []ordering {
	n := len(in.jobs)
	w := func(k int) float64 { return in.pj[k].Weight }
	fastest := func(k int) float64 { return in.work[k] / float64(in.max[k]) }
	deadline := func(k int) float64 {
		if in.pj[k].HasDeadline {
			return in.pj[k].Deadline
		}
		if len(in.pj[k].SLA) > 0 {
			return in.pj[k].SLA[0].Deadline
		}
		return math.Inf(1)
	}
	var fams = map[string]bool{}
	for _, m := range in.distinctMetrics() {
		switch m {
		case penalty.AvgResponseTime, penalty.WeightedResponseTime:
			fams["flow"] = true
		case penalty.AvgStretch:
			fams["flow"], fams["stretch"] = true, true
		case penalty.MaxResponseTime, penalty.MaxWeightedResponseTime, penalty.Makespan, penalty.MaxStretch:
			fams["max"] = true
		case penalty.AvgTardiness, penalty.WeightedTardiness, penalty.AvgLateness:
			fams["due"], fams["flow"] = true, true
		case penalty.MaxTardiness, penalty.MaxLateness:
			// The threshold bisection (thresholdOrders) covers minimax
			// deadlines; the response-time "max" orders add little.
			fams["due"] = true
		case penalty.MaxWeightedTardiness, penalty.MaxWeightedLateness:
			fams["due"], fams["weight"] = true, true
		case penalty.TardyJobs, penalty.WeightedTardyJobs:
			fams["due"], fams["tardy"] = true, true
		case penalty.SLACost:
			fams["due"], fams["sla"] = true, true
		}
	}
	var out []ordering
	add := func(scheme string, key func(k int) float64) {
		out = append(out, ordering{scheme, sortedBy(n, key)})
	}
	// Shortest remaining work first is the classical answer for response
	// time without caps (FLEX 3.2) and a sound default for every metric.
	add("srpt", func(k int) float64 { return in.work[k] })
	add("shortest_isolated", fastest)
	if fams["flow"] {
		// Smith's ratio rule, plain and cap-aware.
		add("smith", func(k int) float64 { return in.work[k] / w(k) })
		add("smith_capped", func(k int) float64 { return fastest(k) / w(k) })
	}
	if fams["stretch"] {
		// Stretch weights each job by 1/iso: Smith with w = 1/iso.
		add("stretch_smith", func(k int) float64 { return in.work[k] * in.pj[k].Iso })
		add("stretch_capped", func(k int) float64 { return fastest(k) * in.pj[k].Iso })
	}
	if fams["max"] {
		add("arrival", func(k int) float64 { return in.pj[k].Submitted })
		add("weight_desc", func(k int) float64 { return -w(k) })
		add("longest_first", func(k int) float64 { return -in.work[k] })
		add("longest_isolated_first", func(k int) float64 { return -fastest(k) })
		add("max_stretch", func(k int) float64 { return in.pj[k].Submitted + in.pj[k].Iso })
	}
	if fams["weight"] && !fams["max"] {
		add("weight_desc", func(k int) float64 { return -w(k) })
	}
	if fams["due"] {
		add("edd", deadline)
		// Plain EDD can miss a reachable deadline: order by the latest time a
		// job can start at full speed and still make it.
		add("edd_slack", func(k int) float64 { return deadline(k) - fastest(k) })
	}
	if fams["tardy"] {
		out = append(out, ordering{"moore_hodgson", in.mooreHodgson(deadline)})
	}
	if fams["sla"] {
		add("sla_density", func(k int) float64 {
			s := in.pj[k].SLA
			if len(s) == 0 {
				return math.Inf(1)
			}
			return -s[len(s)-1].Penalty / in.work[k]
		})
		add("sla_last_deadline", func(k int) float64 {
			s := in.pj[k].SLA
			if len(s) == 0 {
				return math.Inf(1)
			}
			return s[len(s)-1].Deadline - fastest(k)
		})
	}
	return out
}

// mooreHodgson adapts the Moore-Hodgson rule for the number of tardy jobs
// to the malleable setting: jobs in EDD order, each taking its work / S of
// the cluster's time (the whole cluster as one machine); whenever the
// running job misses its deadline, the job in the on-time set with the
// largest weighted work is moved to the end. The on-time set keeps EDD
// order, the late jobs follow by deadline.
func (in *instance) mooreHodgson(deadline func(k int) float64) []int {
	edd := sortedBy(len(in.jobs), deadline)
	var onTime, late []int
	t := in.now
	for _, k := range edd {
		onTime = append(onTime, k)
		t += in.work[k] / float64(in.slots)
		if t > deadline(k) {
			worst, wv := -1, -1.0
			for x, j := range onTime {
				v := in.work[j] / math.Max(in.pj[j].Weight, 1e-12)
				if v > wv {
					worst, wv = x, v
				}
			}
			j := onTime[worst]
			onTime = append(onTime[:worst], onTime[worst+1:]...)
			late = append(late, j)
			t -= in.work[j] / float64(in.slots)
		}
	}
	sort.SliceStable(late, func(a, b int) bool { return deadline(late[a]) < deadline(late[b]) })
	return append(onTime, late...)
}

// lawlerMoore is the on-time set that Lawler and Moore's dynamic program
// for the weighted number of tardy jobs on one machine (1||sum wU, 1969)
// finds with the cluster as that machine, as mooreHodgson has it: jobs in
// order of deadline, each taking its work / S of the cluster's time, a job
// on time when the work of the on-time jobs up to it is done by its
// deadline, each worth its stake. The work is counted in fluidUnits units
// of the whole work (fluidUnitsFor), each job's rounded up, so that the
// program costs about J x that many steps. Jobs that cannot meet their
// deadline even alone at their maximum are left out. The fluid model
// ignores the maxima and the minima the others hold, so the set is only a
// start: many of its jobs are late in the MPS schedule of its split order,
// and the exchanges (swapSearch) take it from there.
func (in *instance) lawlerMoore(deadline func(k int) float64) []bool {
	n := len(in.jobs)
	edd := sortedBy(n, deadline)
	total := 0.0
	for k := range n {
		total += in.work[k]
	}
	front := make([]bool, n)
	if total <= 0 {
		return front
	}
	span := fluidUnitsFor(n)
	unit := total / float64(span)
	units := func(k int) int { return int(math.Ceil(in.work[k] / unit)) }
	// best[t] is the most stake on time with t units of work done; took
	// has a row per job in edd, bit t set when the job is in the set
	// behind best[t] after it.
	best := make([]float64, span+1)
	for t := range best {
		best[t] = math.Inf(-1)
	}
	best[0] = 0
	words := (span + 64) / 64
	took := make([]uint64, n*words)
	for x, k := range edd {
		st := in.stake(k)
		if st <= 0 || !in.reachable(k, deadline(k)) {
			continue
		}
		w := units(k)
		// The units done by the deadline (all of them past the last: a
		// far or infinite deadline must not overflow the conversion).
		lim := span
		if f := (deadline(k) - in.now) * float64(in.slots) / unit; f < float64(span) {
			lim = int(math.Floor(f))
		}
		row := took[x*words : (x+1)*words]
		for t := lim; t >= w; t-- {
			if v := best[t-w] + st; v > best[t] {
				best[t] = v
				row[t/64] |= 1 << (t % 64)
			}
		}
	}
	bt := 0
	for t, v := range best {
		if v > best[bt] {
			bt = t
		}
	}
	for x := n - 1; x >= 0; x-- {
		if took[x*words+bt/64]&(1<<(bt%64)) != 0 {
			k := edd[x]
			front[k] = true
			bt -= units(k)
		}
	}
	return front
}

// fluidUnitsFor is how many units lawlerMoore counts the whole work of n
// jobs in: fluidUnits, fewer past fluidSteps / fluidUnits jobs so that the
// program's J x units steps (and bits) stay within fluidSteps, never fewer
// than 64.
func fluidUnitsFor(n int) int {
	return max(64, min(fluidUnits, fluidSteps/max(1, n)))
}

const (
	// fluidUnits is how many units lawlerMoore counts the whole work in:
	// at J = 200 a unit is about a fifth of a small job's work.
	fluidUnits = 2000
	// fluidSteps bounds lawlerMoore's steps: 2,000 units up to 2,000 jobs.
	fluidSteps = 4_000_000
)

// distinctMetrics lists the metrics in use, in a stable order.
func (in *instance) distinctMetrics() []penalty.Metric {
	seen := map[penalty.Metric]bool{}
	var out []penalty.Metric
	for _, m := range in.metrics {
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
}

// unweightedTardy is whether every job's metric is tardy jobs (unweighted):
// one late job is worth another, which the searches of tardy jobs use.
func (in *instance) unweightedTardy() bool {
	return !slices.ContainsFunc(in.metrics, func(m penalty.Metric) bool { return m != penalty.TardyJobs })
}

// dispatchOrders builds orders for sums of deadline penalties by
// dispatching, the classical constructive heuristics for total (weighted)
// tardiness on one machine, with the cluster as that machine (each job
// takes work / S of its time, as in mooreHodgson): apparent tardiness cost
// (ATC: Vepsalainen and Morton, 1987), next the job with the largest
// (w/p) exp(-max(0, d - p - t) / (K p̄)), and the modified due date (MDD:
// Baker and Bertrand, 1982), next the job with the least max(d, t + p). The
// weight is what the job stands to lose (its weight, or its last SLA step)
// and the due date the first deadline it can still meet. Each order costs
// O(J^2) and no schedule.
//
// The look-aheads K are 4, 8, 16 and 32, not the textbook 0.5 to 2: the
// machine here is the whole cluster, so p̄ is small against the deadlines.
// On the FLEX 4.1 base case at J = 200 (instance 0, weighted tardiness),
// K = 2 scores 31, K = 8 scores 10.4 and the best known order 9.0, where
// FLEX's other candidates score 40 or more; as a start for the search at
// scale it took that metric at J = 200 from 1.78 to about 1.1 of the best
// known.
func (in *instance) dispatchOrders() []ordering {
	n := len(in.jobs)
	p := make([]float64, n)
	pbar := 0.0
	for k := range p {
		p[k] = in.work[k] / float64(in.slots)
		pbar += p[k] / float64(n)
	}
	// The index's terms that do not depend on the time are computed once:
	// the dispatch loops evaluate it J^2 / 2 times per order, and the logs
	// were most of a J = 1,000 SLA solve.
	logStake := make([]float64, n)
	due := make([]float64, n)
	for k := range n {
		logStake[k] = math.Log(math.Max(in.stake(k), 1e-300) / p[k])
		due[k] = in.reachableDue(k)
	}
	dispatch := func(scheme string, index func(k int, t float64) float64) ordering {
		used := make([]bool, n)
		order := make([]int, 0, n)
		t := in.now
		for range n {
			best, bv := -1, math.Inf(-1)
			for k := range n {
				if used[k] {
					continue
				}
				if v := index(k, t); best < 0 || v > bv {
					best, bv = k, v
				}
			}
			used[best] = true
			order = append(order, best)
			t += p[best]
		}
		return ordering{scheme, order}
	}
	// atc is the log of the apparent tardiness cost index: the
	// exponential underflows for jobs whose deadline is far, and only the
	// order matters.
	atc := func(k int, t, look float64) float64 {
		return logStake[k] - max(0, due[k]-p[k]-t)/(look*pbar)
	}
	var out []ordering
	for _, look := range []struct {
		name string
		k    float64
	}{{"atc_4", 4}, {"atc_8", 8}, {"atc_16", 16}, {"atc_32", 32}} {
		out = append(out, dispatch(look.name, func(k int, t float64) float64 { return atc(k, t, look.k) }))
	}
	out = append(out, dispatch("mdd", func(k int, t float64) float64 {
		return -max(due[k], t+p[k])
	}))
	// SLA steps: ATC on each step as a job of its own, the job's index the
	// best over the steps it can still meet. On 10 instances of the base
	// case it took sla_cost from 1.070 to 1.033 of the (then) best known at
	// J = 100, 1.032 to 1.018 at J = 50. Each order costs O(J^2 x steps):
	// past maxSLADispatchJobs it would take the J = 1,000 solve past its
	// 100 ms.
	sla := false
	for _, m := range in.metrics {
		sla = sla || m == penalty.SLACost
	}
	if sla && n <= maxSLADispatchJobs {
		// Per job, the steps with a positive gain: deadline and log(gain/p).
		type step struct{ deadline, logGain float64 }
		steps := make([][]step, n)
		for k := range n {
			if in.metrics[k] != penalty.SLACost {
				continue
			}
			prev := 0.0
			for _, st := range in.pj[k].SLA {
				if gain := st.Penalty - prev; gain > 0 {
					steps[k] = append(steps[k], step{st.Deadline, math.Log(gain / p[k])})
				}
				prev = st.Penalty
			}
		}
		for _, look := range []float64{4, 8, 16, 32} {
			out = append(out, dispatch(fmt.Sprintf("atc_sla_%g", look), func(k int, t float64) float64 {
				if in.metrics[k] != penalty.SLACost || len(in.pj[k].SLA) == 0 {
					return atc(k, t, look)
				}
				best := math.Inf(-1)
				for _, st := range steps[k] {
					if st.deadline < t+p[k] {
						continue
					}
					best = max(best, st.logGain-max(0, st.deadline-p[k]-t)/(look*pbar))
				}
				return best
			}))
		}
	}
	return out
}

// maxSLADispatchJobs is the largest J for which dispatchOrders adds the SLA
// step orders.
const maxSLADispatchJobs = 400

// backOrder is the search at scale's back order (dueSearch, relink), where
// the jobs given up go: Smith's rule, cap-aware (fastest duration, work
// over maximum, by stake), the jobs with nothing at stake last.
func (in *instance) backOrder() []int {
	return sortedBy(len(in.jobs), func(k int) float64 {
		if st := in.stake(k); st > 0 {
			return in.work[k] / float64(in.max[k]) / st
		}
		return math.Inf(1)
	})
}

// stake is what job k stands to lose by missing its deadline, the weight of
// the search at scale's orders: its weight on the weighted deadline
// metrics, its last SLA step's penalty on SLA cost, 1 otherwise.
func (in *instance) stake(k int) float64 {
	switch in.metrics[k] {
	case penalty.WeightedTardyJobs, penalty.WeightedTardiness:
		return in.pj[k].Weight
	case penalty.SLACost:
		if sla := in.pj[k].SLA; len(sla) > 0 {
			return sla[len(sla)-1].Penalty
		}
		return 0
	}
	return 1
}
