package fairshare

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/flexd/flexd/solver/mps"
)

// Plan simulates FAIR from now (docs/algorithms.md section 5; docs/
// fair-share.md, "In a plan ... FAIR is recomputed every time a job
// completes"): the live jobs' fair shares by Compute with variant v, turned
// into slots by Slots, held until the first live job completes, which
// leaves; then recomputed, until every job is done. Work is in slot-seconds
// with linear speedup (FLEX 2.5); times are seconds on the caller's clock.
//
// The result is an mps.Plan indexed like jobs: delta-encoded intervals (a
// finished job appears once with 0 slots), each job's completion time, and
// the first interval's slots (what the caller enforces now). Jobs complete
// together when within CompletionTolerance of each other.
//
// Jobs should be normalised as Slots expects and have finite Work > 0. A job
// with Work <= 0 (or NaN) is complete at now and never holds a slot. If the
// live jobs can make no progress (total < 1, or every live Max is 0) or the
// next completion is infinitely far (infinite Work), the plan stops there
// and those jobs complete at +Inf. A completion closer to the previous one
// than the clock's float64 resolution there gets no interval of its own:
// the job completes at that same instant.
//
// The result is bit for bit the plan of the direct computation
// (planRecompute, the test oracle), but for MRv1 it is not computed that
// way. Hadoop's fair shares depend only on the live jobs' weights, minima
// and maxima, so between completions they are fixed and each completion
// moves the water level R. The total as a function of R is piecewise
// linear with breakpoints at Min/Weight and Max/Weight that only move when
// a job leaves: kept sorted under Fenwick trees (waterline), one descent
// per completion finds the segment where the total crosses the target, and
// the monotonicity of Hadoop's sum decides computeMRv1's doubling and
// bisection steps from it, the exact in-order float sum Hadoop's loop
// computes being evaluated only when the estimate is too close to the
// target to decide. The rounding and the next completion are event-driven
// (planEvents): a job is looked at again only when R passes a value known
// in advance at which its slots or its rank among the spare slots can
// change, and the next completion comes from estimates that only change
// when a job's slots do. What stays a pass over the live jobs per
// completion is the work done, one multiply-subtract each, as in
// planRecompute. For fewer jobs a pass with a small constant (planScan:
// floors, a selection of the spare slots in a window of deficits, the next
// completion) is faster, and eventsPay chooses. YARN's integer shares
// have a total with no closed form: planYARN keeps the direct
// computation's loop and computes each interval's shares from a bracket
// of water levels and its slots by a selection (yarnAlloc), a pass or so
// per interval. Inputs outside the documented preconditions (NaN weights
// or submission times, minima above maxima) take the direct computation.
func Plan(v Variant, jobs []Job, total int, now float64) mps.Plan {
	if (v == MRv1 || v == "") && fastMRv1(jobs) {
		if eventsPay(jobs) {
			return planEvents(jobs, total, now)
		}
		return planScan(jobs, total, now)
	}
	if v == YARN && fastYARN(jobs) {
		return planYARN(jobs, total, now)
	}
	return planRecompute(v, jobs, total, now)
}

// eventsPay says which of the two exact MRv1 plans is faster for jobs:
// planEvents from 500 jobs, planScan below. Jobs of equal weight have equal
// deficits, so they cross the event-driven rounding's bounds together and
// fill its window; once planEvents's window pass and looks were made
// cheaper (issue 13's second round), it still beat the scan there from 500
// jobs. Measured per plan, 20 plans x 3 runs on the quiet machine, medians
// (events / scan): solvertest.Large's shape (largeJobs) 1.54 / 1.56 ms at
// J = 300, 2.72 / 3.74 at 500, 5.36 / 13.1 at 1,000; four weight values
// (benchJobs) 1.84 / 1.55 at 300, 3.53 / 3.77 at 500, 10.5 / 12.1 at
// 1,000, 617 / 925 ms at 10,000; one weight 1.71 / 1.74 at 300, 3.73 /
// 3.86 at 500, 11.9 / 12.6 at 1,000, 961 / 1,059 ms at 10,000. (It used to
// also ask for mostly distinct weights, when the scan won on ties.)
func eventsPay(jobs []Job) bool {
	return len(jobs) >= 500
}

// fastMRv1 reports whether planMRv1 may take the jobs: finite weights in
// [0, 2^200] (so that no product with the water level overflows), ordered
// submission times and 0 <= Min <= Max. Anything else keeps the direct
// computation, whose behaviour on such input is the definition.
func fastMRv1(jobs []Job) bool {
	for _, j := range jobs {
		if !(j.Weight >= 0 && j.Weight <= 0x1p200) || j.Submitted != j.Submitted || j.Min < 0 || j.Min > j.Max {
			return false
		}
	}
	return true
}

// planScan is the MRv1 plan with a pass over the live jobs per interval
// for the rounding (rounding.round) and the work, the water level coming
// from the waterline; see Plan for when it is used.
func planScan(jobs []Job, total int, now float64) mps.Plan {
	n := len(jobs)
	p := mps.Plan{Completions: make([]float64, n), First: make([]int, n)}

	remaining := make([]float64, n)
	alive := make([]bool, n)
	live := make([]int, 0, n) // ascending job index, kept so as jobs leave
	for j, job := range jobs {
		if job.Work > 0 {
			remaining[j] = job.Work
			live = append(live, j)
			alive[j] = true
		} else {
			p.Completions[j] = now
		}
	}
	var (
		wl     = newWaterline(jobs, alive)
		rd     = newRounding(jobs)
		shares = make([]float64, n)
		alloc  = make([]int, n)
		quot   = make([]float64, n) // remaining work / slots, by live position
		prev   = make([]int, n)     // slots of the last interval emitted, by job
		gone   []int                // jobs that left since the last interval emitted
		left   []int                // jobs that leave with this interval
		// slab holds every interval's changes, each interval a capped
		// slice of it: one growing allocation instead of one per interval.
		slab []mps.Change
		t    = now
	)
	for len(live) > 0 {
		right := wl.solve(live, total)
		sh, al, q := shares[:len(live)], alloc[:len(live)], quot[:len(live)]
		// From here on, as planRecompute: the interval lasts until the first
		// live job with slots completes (dt, from round). Each job's
		// quotient is kept for the test of who completes with it.
		dt := rd.round(al, sh, q, live, remaining, right, total, int(wl.sumMax))
		cut := dt * (1 + CompletionTolerance)
		screen := cut * (1 + 1e-12)
		// completes is planRecompute's test remaining/slots <= cut, with the
		// same screen: a job whose work exceeds screen*slots does not
		// complete now.
		completes := func(k, j int) bool {
			s := float64(al[k])
			if !(s > 0) || remaining[j] > screen*s {
				return false
			}
			if q[k] < 0 {
				q[k] = remaining[j] / s
			}
			return q[k] <= cut
		}
		if math.IsInf(dt, 1) || dt != dt {
			for _, j := range live {
				p.Completions[j] = math.Inf(1)
			}
			break
		}
		end := t + dt
		if !(end > t) {
			next := live[:0]
			for k, j := range live {
				if completes(k, j) {
					p.Completions[j] = t
					wl.remove(j)
					gone = append(gone, j)
					continue
				}
				next = append(next, j)
			}
			live = next
			continue
		}

		// One pass: the interval's changes against the last interval
		// emitted (the live jobs, and those that left since, now at 0),
		// in ascending job order as planRecompute lists them; then the work
		// done and the jobs that complete with this interval.
		iv := mps.Interval{Start: t, End: end}
		first := len(slab)
		slices.Sort(gone)
		g := 0
		next := live[:0]
		left = left[:0]
		for k, j := range live {
			for ; g < len(gone) && gone[g] < j; g++ {
				if prev[gone[g]] != 0 {
					slab = append(slab, mps.Change{Job: gone[g], Slots: 0})
					prev[gone[g]] = 0
				}
			}
			if al[k] != prev[j] {
				slab = append(slab, mps.Change{Job: j, Slots: al[k]})
				prev[j] = al[k]
			}
			if completes(k, j) {
				p.Completions[j] = end
				remaining[j] = 0
				wl.remove(j)
				left = append(left, j)
				continue
			}
			remaining[j] -= float64(al[k]) * dt
			next = append(next, j)
		}
		for ; g < len(gone); g++ {
			if prev[gone[g]] != 0 {
				slab = append(slab, mps.Change{Job: gone[g], Slots: 0})
				prev[gone[g]] = 0
			}
		}
		if len(slab) > first {
			iv.Changes = slab[first:len(slab):len(slab)]
		}
		if len(p.Intervals) == 0 {
			copy(p.First, prev)
		}
		p.Intervals = append(p.Intervals, iv)
		gone, left = left, gone
		live = next
		t = end
	}
	return p
}

// waterline answers computeMRv1's question "is the total below the target
// at water level r?" for the live jobs without a pass over them.
//
// Each live job's share min(c, max(m, w r)) is m up to r = m/w, w r up to
// r = c/w, and c after (Hadoop's computeShare in SchedulingAlgorithms), so
// the total is piecewise linear in r: the sum of the live minima, plus,
// over the breakpoints at or below r, a constant part (-m at m/w, +c at
// c/w) and a slope (+w at m/w, -w at c/w) times r. The breakpoints are
// sorted once; two Fenwick trees over that order hold the constant parts
// (exactly, in integers) and the slopes, and a job leaving removes its two
// entries. Jobs with weight 0 or Min == Max have no breakpoint: their share
// is their Min.
type waterline struct {
	jobs     []Job
	alive    []bool
	liveBits []uint64 // alive as a bitset
	nLive    int

	bpv []float64  // breakpoint values, ascending
	pos [][2]int32 // per job: 1-based Fenwick positions of its two entries, 0 if none
	fc  []int64    // Fenwick tree of the constant parts
	fw  []float64  // Fenwick tree of the slopes

	base   int64 // sum of the live jobs' Min
	sumMax int64 // sum of the live jobs' Max

	// Error bound terms (see below): the sum over all jobs of Min + Max and
	// of the weights, and the Fenwick trees' error factor.
	mabs, wabs, errK float64

	// sat lists the jobs computeMRv1's saturation test looks at (weight > 0
	// and Min < Max) by Max/Weight descending (satV); satTop is the first
	// that may still be live.
	sat    []int32
	satV   []float64
	satTop int

	// exact counts the evaluations that needed the exact in-order sum.
	exact int

	// The current solve's segment and proofs (see bracket).
	segLo, segHi, segW float64
	segC               int64
	okLo, okHi         float64
}

func newWaterline(jobs []Job, alive []bool) *waterline {
	n := len(jobs)
	wl := &waterline{jobs: jobs, alive: alive, pos: make([][2]int32, n), liveBits: make([]uint64, (n+63)/64)}
	var entries []breakpoint
	for j, job := range jobs {
		wl.mabs += float64(job.Min) + float64(job.Max)
		if !alive[j] {
			continue
		}
		wl.liveBits[j>>6] |= 1 << (j & 63)
		wl.nLive++
		wl.base += int64(job.Min)
		wl.sumMax += int64(job.Max)
		if job.Weight > 0 && job.Min < job.Max {
			wl.wabs += job.Weight
			entries = append(entries,
				breakpoint{float64(job.Min) / job.Weight, int32(j), false},
				breakpoint{float64(job.Max) / job.Weight, int32(j), true})
		}
	}
	// Sorted by value, then job, then low before high: they were appended
	// in the order of the last two keys, so a stable sort by value alone.
	sortBreakpoints(entries)
	m := len(entries)
	wl.bpv = make([]float64, m)
	wl.fc = make([]int64, m+1)
	wl.fw = make([]float64, m+1)
	for k, e := range entries {
		job := jobs[e.job]
		wl.bpv[k] = e.v
		if e.hi {
			wl.pos[e.job][1] = int32(k + 1)
			wl.fc[k+1] = int64(job.Max)
			wl.fw[k+1] = -job.Weight
		} else {
			wl.pos[e.job][0] = int32(k + 1)
			wl.fc[k+1] = -int64(job.Min)
			wl.fw[k+1] = job.Weight
		}
	}
	for i := 1; i <= m; i++ { // linear-time Fenwick construction
		if p := i + i&-i; p <= m {
			wl.fc[p] += wl.fc[i]
			wl.fw[p] += wl.fw[i]
		}
	}
	// Each Fenwick node is a float sum of at most 2m additions (building,
	// then removals), each off by at most u times the sum of all weights;
	// a query adds up to bits.Len(m) nodes. Doubled for headroom.
	wl.errK = 2 * float64(2*m+bits.Len(uint(m))+4)

	// The jobs by Max/Weight descending, ties by index: the high
	// breakpoints, whose values are Max/Weight, ascending with ties by
	// index, taken from the last group of equal values to the first.
	his := make([]breakpoint, 0, m/2)
	for _, e := range entries {
		if e.hi {
			his = append(his, e)
		}
	}
	wl.sat = make([]int32, 0, len(his))
	wl.satV = make([]float64, 0, len(his))
	for end := len(his); end > 0; {
		start := end - 1
		for start > 0 && his[start-1].v == his[end-1].v {
			start--
		}
		for _, e := range his[start:end] {
			wl.sat = append(wl.sat, e.job)
			wl.satV = append(wl.satV, e.v)
		}
		end = start
	}
	return wl
}

// breakpoint is a job's Min/Weight (low) or Max/Weight (high), where its
// share's slope in the water level changes (see waterline).
type breakpoint struct {
	v   float64
	job int32
	hi  bool
}

// sortBreakpoints sorts b by value, stably: an LSD radix sort on the
// float64 bits, which order non-negative values as the values do (the
// values are quotients of non-negative integers by positive weights, so
// neither negative nor NaN), one pass per byte that is not the same for
// all. The comparison sort it replaces was two thirds of newWaterline
// (2.5 ms at J = 10,000, 20,000 breakpoints).
func sortBreakpoints(b []breakpoint) {
	n := len(b)
	if n < 2 {
		return
	}
	var count [8][256]int
	for _, e := range b {
		k := math.Float64bits(e.v)
		for d := range count {
			count[d][byte(k>>(8*d))]++
		}
	}
	src, dst := b, make([]breakpoint, n)
	for d := range count {
		c := &count[d]
		if c[byte(math.Float64bits(src[0].v)>>(8*d))] == n {
			continue // every key has this byte
		}
		sum := 0
		for i, x := range c {
			c[i], sum = sum, sum+x
		}
		for _, e := range src {
			x := byte(math.Float64bits(e.v) >> (8 * d))
			dst[c[x]] = e
			c[x]++
		}
		src, dst = dst, src
	}
	if &src[0] != &b[0] {
		copy(b, src)
	}
}

// remove takes job j out of the live set.
func (wl *waterline) remove(j int) {
	job := wl.jobs[j]
	wl.alive[j] = false
	wl.liveBits[j>>6] &^= 1 << (j & 63)
	wl.nLive--
	wl.base -= int64(job.Min)
	wl.sumMax -= int64(job.Max)
	if lo := wl.pos[j][0]; lo > 0 {
		wl.add(int(lo), int64(job.Min), -job.Weight)
		wl.add(int(wl.pos[j][1]), -int64(job.Max), job.Weight)
	}
}

func (wl *waterline) add(i int, dc int64, dw float64) {
	for ; i < len(wl.fc); i += i & -i {
		wl.fc[i] += dc
		wl.fw[i] += dw
	}
}

// solve is computeMRv1 on the live jobs (ascending index order, which is
// the order Hadoop's loop sums in; nil means every job alive): the right
// end of the bisection bracket, where the shares are evaluated.
func (wl *waterline) solve(live []int, total int) float64 {
	target := math.Min(float64(wl.sumMax), float64(total))
	wl.bracket(live, target)
	rMax := 1.0
	for !wl.saturated(rMax) && wl.belowNear(live, rMax, target) {
		rMax *= 2
	}
	left, right := 0.0, rMax
	for range Iterations {
		mid := (left + right) / 2
		if wl.belowNear(live, mid, target) {
			left = mid
		} else {
			right = mid
		}
	}
	return right
}

// bracket prepares belowNear for one solve: it finds the segment between
// two breakpoints where the estimated total crosses the target (a descent
// of the Fenwick trees, O(log J)), keeps that segment's constant part and
// slope, and proves the total below the target at the segment's left end
// and not below at its right end where it can.
//
// Hadoop's total (the in-order float sum of the shares) is non-decreasing
// in r: each share min(c, max(m, w r)) is, and a float sum is monotone in
// each term. So once usedMRv1 at okLo is below the target, so is every r <=
// okLo, and once it is not below at okHi, no r >= okHi is: the doubling and
// bisection steps outside the segment are decided without a query, and
// those inside it with the segment's line. Before, each of the thirty-odd
// steps searched the breakpoints and summed the trees (a tenth of the plan
// at J = 10,000).
func (wl *waterline) bracket(live []int, target float64) {
	m := len(wl.bpv)
	pos, c, w := 0, wl.base, 0.0
	for step := (1 << bits.Len(uint(m))) >> 1; step > 0; step >>= 1 {
		np := pos + step
		if np > m {
			continue
		}
		c2, w2 := c+wl.fc[np], w+wl.fw[np]
		if float64(c2)+w2*wl.bpv[np-1] < target {
			pos, c, w = np, c2, w2
		}
	}
	wl.segC, wl.segW = c, w
	wl.segLo, wl.segHi = math.Inf(-1), math.Inf(1)
	if pos > 0 {
		wl.segLo = wl.bpv[pos-1]
	}
	if pos < m {
		wl.segHi = wl.bpv[pos]
	}
	wl.okLo, wl.okHi = math.Inf(-1), math.Inf(1)
	if pos > 0 && wl.below(live, wl.segLo, target) {
		wl.okLo = wl.segLo
	}
	if pos < m && !wl.below(live, wl.segHi, target) {
		wl.okHi = wl.segHi
	}
}

// belowNear is below after bracket: the same answer, usedMRv1(live, r) <
// target exactly, mostly without searching the breakpoints.
func (wl *waterline) belowNear(live []int, r, target float64) bool {
	switch {
	case r <= wl.okLo:
		return true
	case r >= wl.okHi:
		return false
	case wl.segLo <= r && r < wl.segHi:
		// Exactly the breakpoints up to the segment's left end are <= r.
		return wl.belowWith(live, r, target, wl.segC, wl.segW)
	}
	return wl.below(live, r, target)
}

// below reports usedMRv1(live, r) < target exactly. The piecewise-linear
// estimate differs from the float sum Hadoop's loop computes by at most the
// rounding of each share (u = 2^-53 of it), of the in-order sum (J u of the
// total), of the breakpoints (u (Min + Max) per job at most) and of the
// slopes' Fenwick sums (errK u times the sum of weights, times r); only
// when the target lies within that bound is the sum computed as Hadoop
// does, term by term in order. Away from the answer the bisection's steps
// are decided by the estimate alone, and at the answer the bracket's width
// makes a tie within 1e-7 or so of a slot rare (exact ties, as integer
// instances have, are where the exact sum runs).
func (wl *waterline) below(live []int, r, target float64) bool {
	// idx = number of breakpoints <= r.
	lo, hi := 0, len(wl.bpv)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if wl.bpv[mid] <= r {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	c, w := wl.base, 0.0
	for i := lo; i > 0; i &= i - 1 {
		c += wl.fc[i]
		w += wl.fw[i]
	}
	return wl.belowWith(live, r, target, c, w)
}

// belowWith is below given the constant part c and slope w of the total
// at r (the sums over the breakpoints <= r, plus the live minima). The
// Fenwick nodes may be added in any order: the bound covers each node's
// error and up to bits.Len(m) additions, whatever their order.
func (wl *waterline) belowWith(live []int, r, target float64, c int64, w float64) bool {
	est := float64(c) + w*r
	const u = 0x1p-53
	bound := 2 * u * (float64(wl.nLive+4)*(math.Abs(est)+1) + wl.mabs + wl.errK*wl.wabs*r)
	switch {
	case est+bound < target:
		return true
	case est-bound > target:
		return false
	}
	wl.exact++
	used := 0.0
	if live == nil {
		// The live jobs are those alive, in index order: the bitset skips
		// the ones gone 64 at a time (at the plan's end, when the caps
		// bind and every step is a tie, a loop over every job was a tenth
		// of the plan at J = 10,000).
		for wi, word := range wl.liveBits {
			for ; word != 0; word &= word - 1 {
				job := &wl.jobs[wi<<6|bits.TrailingZeros64(word)]
				used += shareMRv1(job.Weight, job.Min, job.Max, r)
			}
		}
		return used < target
	}
	for _, j := range live {
		job := &wl.jobs[j]
		used += shareMRv1(job.Weight, job.Min, job.Max, r)
	}
	return used < target
}

// saturated is usedMRv1's second result for the live jobs: whether every
// job with weight > 0 and Min < Max is at its cap at r. Only the jobs whose
// Max/Weight is within rounding of r or above need the exact test.
func (wl *waterline) saturated(r float64) bool {
	for wl.satTop < len(wl.sat) && !wl.alive[wl.sat[wl.satTop]] {
		wl.satTop++
	}
	for k := wl.satTop; k < len(wl.sat); k++ {
		j := wl.sat[k]
		if !wl.alive[j] {
			continue
		}
		if wl.satV[k] < r*(1-1e-9) {
			return true // this and every later job: Max/Weight < r
		}
		job := &wl.jobs[j]
		if float64(job.Weight*r) < float64(job.Max) {
			return false
		}
	}
	return true
}

// rounding holds what planEvents needs of each job to round as Slots
// does: its weight and bounds packed (a Job is 80 bytes) and its place in
// Slots's last tie-breakers; and Slots's own heap, for the rare intervals
// the selection cannot take (see evPlanner.heapRound).
type rounding struct {
	jobs      []Job
	w, lo, hi []float64
	rank      []int32 // Submitted, then ID, then index
	r         rounder
	// For planScan's rounding: its candidates and jobs in index order, and
	// the window of deficits it selects in: the last interval's least
	// deficit that got a spare slot and how far around it to look
	// (widened when it misses, narrowed when it hits).
	cand       []candidate
	sub        []Job
	cut, width float64
}

// candidate is a job that may get a spare slot, with Slots's order keys.
type candidate struct {
	deficit, perWeight float64
	rank               int32
	k                  int32 // the job's index (planEvents) or live position (planScan)
}

func newRounding(jobs []Job) *rounding {
	order := make([]int32, len(jobs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		ja, jb := &jobs[a], &jobs[b]
		if c := cmp.Compare(ja.Submitted, jb.Submitted); c != 0 {
			return c
		}
		if c := strings.Compare(ja.ID, jb.ID); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	rank := make([]int32, len(jobs))
	for r, j := range order {
		rank[j] = int32(r)
	}
	rd := &rounding{jobs: jobs, rank: rank, cut: 0.5, width: 2,
		w: make([]float64, len(jobs)), lo: make([]float64, len(jobs)), hi: make([]float64, len(jobs))}
	for j, job := range jobs {
		rd.w[j], rd.lo[j], rd.hi[j] = job.Weight, float64(job.Min), float64(job.Max)
	}
	return rd
}

// round sets al to Slots(sh, live jobs, total) where sh are the MRv1 shares
// at water level r, which it also fills in.
//
// Slots floors each share, clamps it into [Min, Max], then hands the spare
// slots one at a time to the first eligible job (slots < Max) in its order:
// larger deficit (share - slots), fewer slots per weight, earlier
// Submitted, smaller ID, smaller index. A share lies in [Min, Max], so a
// deficit is in [0, 1), and after its extra slot a job's deficit is
// negative: it ranks after every job still waiting. So while the spare
// slots k are no more than the eligible jobs, the heap hands them to the
// first k eligible jobs in that order, one each, which a selection finds.
// More spare slots than eligible jobs (a weight-0 job taking several) or
// floors above the target take the heap (rounder.round).
//
// The selection only looks at a window of deficits around the last
// interval's cut: the water level moves little from one completion to the
// next, so neither does the cut. Every eligible job above the window gets a
// slot, the window's jobs are selected among, and if the guess was wrong
// (the spare slots do not fall inside the window) the whole set is.
//
// round also starts the interval's clock: it returns dt, the least
// remaining[j] / slots over the live jobs with slots (planRecompute's min,
// which is exact whatever the order), and leaves each job's quotient in q,
// or -1 where a product showed it above dt without dividing
// (remaining > dt*slots*(1+1e-12): the roundings are about 1e-16 each).
// Doing it here, where each job's final slots are known, saves a pass.
//
// sumMax is the live jobs' sum of Max (the waterline keeps it).
func (rd *rounding) round(al []int, sh, q []float64, live []int, remaining []float64, r float64, total, sumMax int) (dt float64) {
	jobs := rd.jobs
	sum, above := 0, 0
	lo, hi := rd.cut-rd.width, rd.cut+rd.width
	cand := rd.cand[:0]
	dt = math.Inf(1)
	ws, los, his := rd.w, rd.lo, rd.hi
	for k, j := range live {
		// shareMRv1 (fastShare) and floorSlots for the fast path's
		// inputs: the share lies in [Min, Max], so its floor needs no
		// clamping.
		w, mn, mx := ws[j], los[j], his[j]
		s := fastShare(w, r, mn, mx)
		sh[k] = s
		// s >= 0: its floor is o, and o < Max exactly when s < Max.
		f := math.Floor(s)
		o := int(f)
		sum += o
		if s < mx {
			switch d := s - f; {
			case d > hi:
				o++
				above++
			case d >= lo:
				al[k] = o
				q[k] = -1
				cand = append(cand, rd.candidate(k, j, d, o))
				continue
			}
		}
		al[k] = o
		q[k] = -1
		if s := float64(o); s > 0 && !(remaining[j] > dt*s*(1+1e-12)) {
			q[k] = remaining[j] / s
			dt = min(dt, q[k])
		}
	}
	rd.cand = cand
	target := max(min(total, sumMax), 0)
	spare := target - sum
	if spare >= 0 && above <= spare && spare-above <= len(cand) {
		rd.pick(al, cand, spare-above)
		rd.width = max(rd.width*0.9, 1.0/1024)
		for _, c := range cand {
			k, j := int(c.k), live[c.k]
			if s := float64(al[k]); s > 0 && !(remaining[j] > dt*s*(1+1e-12)) {
				q[k] = remaining[j] / s
				dt = min(dt, q[k])
			}
		}
		return dt
	}
	// The window missed: undo its extra slots and select among every
	// eligible job (or, with more spare slots than eligible jobs or floors
	// above the target, take Slots's heap).
	rd.width = min(rd.width*2, 2)
	cand = cand[:0]
	for k, j := range live {
		job := &jobs[j]
		o := floorSlots(sh[k], job)
		al[k] = o
		if spare > 0 && o < job.Max {
			cand = append(cand, rd.candidate(k, j, sh[k]-float64(o), o))
		}
	}
	rd.cand = cand
	switch {
	case spare == 0:
	case spare > 0 && spare <= len(cand):
		rd.pick(al, cand, spare)
	default:
		sub := rd.sub[:0]
		for _, j := range live {
			sub = append(sub, jobs[j])
		}
		rd.sub = sub
		rd.r.round(al, sh, sub, total)
	}
	dt = math.Inf(1)
	for k, j := range live {
		q[k] = -1
		if s := float64(al[k]); s > 0 && !(remaining[j] > dt*s*(1+1e-12)) {
			q[k] = remaining[j] / s
			dt = min(dt, q[k])
		}
	}
	return dt
}

// fastShare is shareMRv1 for the fast path's inputs (finite weights >= 0,
// 0 <= Min <= Max): the share lies in [Min, Max], so Java's max and min
// are plain comparisons. w*r is rounded before the comparisons, as in
// shareMRv1: no fused multiply-add. Small enough to be inlined into the
// event-driven plan's loops.
func fastShare(w, r, mn, mx float64) float64 {
	s := float64(w * r)
	if w == 0 {
		s = 0
	}
	if s < mn {
		s = mn
	}
	if s > mx {
		s = mx
	}
	return s
}

// floorSlots is rounder.round's first step for one job: its share floored
// and clamped into [Min, Max] (and not below 0).
func floorSlots(s float64, job *Job) int {
	f := math.Floor(s)
	var o int
	switch {
	case f <= float64(job.Min):
		o = job.Min
	case f >= float64(job.Max):
		o = job.Max
	default:
		o = int(f)
	}
	return max(o, 0)
}

// candidate builds job j's keys (at live position k, deficit d, o slots).
func (rd *rounding) candidate(k, j int, d float64, o int) candidate {
	pw := math.Inf(1)
	if w := rd.jobs[j].Weight; w > 0 {
		pw = float64(o) / w
	}
	return candidate{d, pw, rd.rank[j], int32(k)}
}

// pick gives one slot to each of the first k candidates and remembers the
// last one's deficit as the next interval's cut.
func (rd *rounding) pick(al []int, cand []candidate, k int) {
	if k == 0 {
		return
	}
	selectFirst(cand, k)
	last := cand[0].deficit
	for _, c := range cand[:k] {
		al[c.k]++
		last = min(last, c.deficit)
	}
	rd.cut = last
}

// before is Slots's order on candidates: who gets the next spare slot.
func (a *candidate) before(b *candidate) bool {
	if a.deficit != b.deficit {
		return a.deficit > b.deficit
	}
	if a.perWeight != b.perWeight {
		return a.perWeight < b.perWeight
	}
	return a.rank < b.rank
}

// selectFirst reorders c so that its first k elements are the first k in
// the order before (a strict total order: ranks are distinct), by
// quickselect with a median-of-three pivot; it falls back to sorting when
// the partitions stop shrinking, so the worst case is O(n log n).
func selectFirst(c []candidate, k int) {
	lo, hi := 0, len(c) // the k-th boundary lies in [lo, hi)
	budget := 2 * bits.Len(uint(len(c)))
	for hi-lo > 16 && k > lo && k < hi {
		if budget == 0 {
			slices.SortFunc(c[lo:hi], cmpCandidates)
			return
		}
		budget--
		m := medianOfThree(c, lo, hi)
		pivot := c[m]
		// Lomuto partition with the pivot parked at the end, without a
		// branch on the comparison (a coin toss for the predictor): every
		// element is swapped into place s, which only advances past those
		// before the pivot; one that is not, swapped with s, leaves the
		// part not before the pivot as it was but for its order.
		c[m], c[hi-1] = c[hi-1], c[m]
		s := lo
		for i := lo; i < hi-1; i++ {
			b := b2i(c[i].before(&pivot))
			c[i], c[s] = c[s], c[i]
			s += b
		}
		c[s], c[hi-1] = c[hi-1], c[s]
		switch {
		case s == k || s+1 == k:
			return
		case k < s:
			hi = s
		default:
			lo = s + 1
		}
	}
	if k > lo && k < hi {
		insertionSort(c[lo:hi])
	}
}

// medianOfThree orders c[lo], c[m] and c[hi-1], m the middle of [lo,
// hi), by before and returns m: the pivot of a quickselect.
func medianOfThree(c []candidate, lo, hi int) int {
	m := lo + (hi-lo)/2
	if c[m].before(&c[lo]) {
		c[m], c[lo] = c[lo], c[m]
	}
	if c[hi-1].before(&c[lo]) {
		c[hi-1], c[lo] = c[lo], c[hi-1]
	}
	if c[hi-1].before(&c[m]) {
		c[hi-1], c[m] = c[m], c[hi-1]
	}
	return m
}

// insertionSort sorts c by before: selectFirst's last few (at most 16)
// elements, where slices.SortFunc's calls through a function value cost
// more than the comparisons (the selection among a band's two dozen
// candidates runs every interval).
func insertionSort(c []candidate) {
	for i := 1; i < len(c); i++ {
		x := c[i]
		j := i
		for ; j > 0 && x.before(&c[j-1]); j-- {
			c[j] = c[j-1]
		}
		c[j] = x
	}
}

func cmpCandidates(a, b candidate) int {
	switch {
	case a.before(&b):
		return -1
	case b.before(&a):
		return 1
	}
	return 0
}
