package fairshare

import (
	"math"

	"github.com/flexd/flexd/solver/mps"
)

// planYARN is planRecompute for the YARN variant, the same plan bit for
// bit with each interval's allocation computed in about a pass over the
// live jobs instead of some forty and a heap (yarnAlloc): about 9 times
// faster at J = 1,000 and 12 at 10,000. The loop (planWith) is
// planRecompute's own.
func planYARN(jobs []Job, total int, now float64) mps.Plan {
	return planYARNWith(jobs, total, now, yarnReach)
}

// planYARNWith is planYARN with brackets reach/J wide either way; tests
// use narrow ones, so that the bisection ends outside them and they are
// made anew every interval, and wide ones.
func planYARNWith(jobs []Job, total int, now float64, reach float64) mps.Plan {
	a := newYarnAlloc(jobs, total)
	a.reach = reach
	return planWith(jobs, now, a.allocate)
}

// fastYARN reports whether planYARN may take the jobs: finite weights in
// [0, 2^100] (so that their float32 form is finite), ordered submission
// times and 0 <= Min <= Max. Anything else keeps the direct computation.
func fastYARN(jobs []Job) bool {
	for _, j := range jobs {
		if !(j.Weight >= 0 && j.Weight <= 0x1p100) || j.Submitted != j.Submitted || j.Min < 0 || j.Min > j.Max {
			return false
		}
	}
	return true
}

// yarnReach is the bracket's half width (see yarnAlloc.bracket), relative
// to the water level, times the live jobs: the level moves by about
// 1/J relatively per completion, so a bracket lasts some yarnReach/2
// completions, and holds about 2 yarnReach S/J share steps.
const yarnReach = 16

// yarnAlloc computes YARN's fair shares (computeYARN) and the slots
// (Slots) of the live jobs of a plan, interval after interval, exactly as
// planRecompute does, faster:
//
//   - The shares. computeYARN doubles R from 1 until the total of the
//     truncated shares reaches the target, then bisects 25 times, and every
//     step is a pass over the jobs. Each share is non-decreasing in R (a
//     float product with a positive weight is monotone, and so are the
//     clamp and the truncation), so the total is too, and exact (integers
//     far below 2^63, no saturation). Given a bracket [x, y] with
//     total(x) < target < total(y), every step at an R outside it is
//     decided without a pass (below x the total is below the target,
//     above y above it), and one inside it sums only the jobs whose share
//     differs between x and y (the active ones), plus the constant shares
//     of the others. The bracket is kept across intervals, the jobs that
//     left taken out of its sums, and made anew (a few passes) when the
//     target leaves it.
//   - The slots. YARN's shares are integers, so every job below its Max
//     has a deficit (share - slots) of 0 in Slots's order, and the spare
//     slots go one each to the eligible jobs first in the order's next
//     keys (fewer slots per weight, then Submitted, ID, index): a
//     selection instead of a heap. When there are more spare slots than
//     such jobs, Slots itself decides.
type yarnAlloc struct {
	jobs  []Job
	total int
	w32   []float64 // the weight through float32, as Schedulable.getWeight
	fixed []bool    // Max <= 0 or w32 <= 0: a share of its own (handleFixedFairShares)
	rank  []int32   // Slots's last keys
	reach float64   // yarnReach, or a test's

	prev            []int // the live jobs of the last allocation
	taken, totalMax int64 // over the live jobs: the fixed shares, the others' Max

	// The bracket: x < y, with the live non-fixed jobs' shares at x and y;
	// active lists those whose shares differ (isActive marks them), base is
	// the others' shares' sum, sx and sy the active ones' sums. The active
	// jobs are summed by terms: a job alone, or every active job of one
	// weight whose share is unclamped (Min <= w R <= Max) over the whole
	// bracket, whose shares are then all trunc(w R) (termOf: a job's term).
	valid      bool
	x, y       float64
	atX, atY   []int64
	active     []int32
	isActive   []bool
	terms      []yarnTerm
	termOf     []int32
	base       int64
	sumX, sumY int64
	lastRight  float64

	work  []yarnTerm // the bisection's terms whose shares still differ at its interval's ends
	share []int64    // this interval's shares, per job
	sub   []Job
	shF   []float64
	cand  []candidate
	r     rounder
	c     computer
}

// yarnTerm is n jobs summed as one at a water level: job j alone (n is 1,
// or 0 once it left), or (j < 0) n jobs of weight w with unclamped shares.
type yarnTerm struct {
	j int32
	w float64
	n int64
}

// termAt is the term's total at r.
func (a *yarnAlloc) termAt(t *yarnTerm, r float64) int64 {
	if t.j >= 0 {
		return t.n * a.at(int(t.j), r)
	}
	return t.n * javaLong(float64(t.w*r))
}

// newYarnAlloc is a yarnAlloc for a plan of jobs on total slots, with the
// default bracket width.
func newYarnAlloc(jobs []Job, total int) *yarnAlloc {
	n := len(jobs)
	a := &yarnAlloc{
		jobs: jobs, total: total,
		w32: make([]float64, n), fixed: make([]bool, n), rank: newRounding(jobs).rank,
		atX: make([]int64, n), atY: make([]int64, n), isActive: make([]bool, n), share: make([]int64, n), termOf: make([]int32, n),
		reach: yarnReach,
	}
	for j, job := range jobs {
		a.w32[j] = float64(float32(job.Weight))
		a.fixed[j] = job.Max <= 0 || !(a.w32[j] > 0)
	}
	return a
}

// fixedShare is a fixed job's share (computeYARN's getFairShareIfFixed).
func (a *yarnAlloc) fixedShare(j int) int64 {
	if a.jobs[j].Max <= 0 {
		return 0
	}
	return max(int64(a.jobs[j].Min), 0)
}

// at is job j's share at r.
func (a *yarnAlloc) at(j int, r float64) int64 {
	return shareYARN(a.w32[j], a.jobs[j].Min, a.jobs[j].Max, r)
}

// allocate sets al[k] to the slots of live[k] (ascending job indexes, a
// subset of the last call's).
func (a *yarnAlloc) allocate(live []int, al []int) {
	if a.prev == nil {
		for _, j := range live {
			if a.fixed[j] {
				a.taken += a.fixedShare(j)
			} else {
				a.totalMax += int64(a.jobs[j].Max)
			}
		}
	} else {
		a.leave(live)
	}
	a.prev = append(a.prev[:0], live...)
	target := min(a.totalMax, max(int64(a.total)-a.taken, 0))
	if !a.shares(live, target) {
		// No bracket holds (the target is 0 or every job's Max, or the
		// minima reach it): the direct computation.
		a.direct(live)
	}
	a.round(live, al)
}

// leave takes the jobs of the last call that are not in live out of the
// sums.
func (a *yarnAlloc) leave(live []int) {
	k := 0
	for _, j := range a.prev {
		if k < len(live) && live[k] == j {
			k++
			continue
		}
		if a.fixed[j] {
			a.taken -= a.fixedShare(j)
			continue
		}
		a.totalMax -= int64(a.jobs[j].Max)
		if !a.valid {
			continue
		}
		if a.isActive[j] {
			a.isActive[j] = false
			a.sumX -= a.atX[j]
			a.sumY -= a.atY[j]
			a.terms[a.termOf[j]].n--
		} else {
			a.base -= a.atX[j]
		}
	}
	if a.valid {
		n := 0
		for _, j := range a.active {
			if a.isActive[j] {
				a.active[n] = j
				n++
			}
		}
		a.active = a.active[:n]
	}
}

// shares sets a.share for the live jobs as computeYARN would, by the
// bracket; false when no bracket can be made.
func (a *yarnAlloc) shares(live []int, target int64) bool {
	if target == a.totalMax && target > 0 {
		// Demand within the target: the bisection ends where the total
		// reaches it (its right end always has a total at or above the
		// target), so every job is at its Max, whatever the level.
		for _, j := range live {
			if a.fixed[j] {
				a.share[j] = a.fixedShare(j)
			} else {
				a.share[j] = int64(a.jobs[j].Max)
			}
		}
		return true
	}
	if target <= 0 || target >= a.totalMax {
		a.valid = false
		return false
	}
	if !a.valid || !(a.base+a.sumX < target && target < a.base+a.sumY) {
		if !a.bracket(live, target) {
			return false
		}
	}
	// used reports how the total at r compares with the target: -1, 0, 1.
	// Inside the bracket it sums the active jobs, dropping from the
	// working list those whose shares are equal at the ends of the
	// bisection's interval (lo and hi, the bracket's ends clipped to it).
	work := a.work[:0]
	for _, t := range a.terms {
		if t.n > 0 {
			work = append(work, t)
		}
	}
	workBase := a.base
	lo, hi := a.x, a.y
	used := func(r float64) int {
		switch {
		case r <= a.x:
			return -1
		case r >= a.y:
			return 1
		}
		u := workBase
		for x := range work {
			u += a.termAt(&work[x], r)
		}
		c := cmp64(u, target)
		// The bisection goes on in [r, hi] (c < 0) or [lo, r]: the shares
		// equal at its ends stay so.
		if c < 0 {
			lo = r
		} else {
			hi = r
		}
		n := 0
		for x := range work {
			if sl, sh := a.termAt(&work[x], lo), a.termAt(&work[x], hi); sl != sh {
				work[n] = work[x]
				n++
			} else {
				workBase += sl
			}
		}
		work = work[:n]
		return c
	}
	rMax := 1.0
	for used(rMax) < 0 {
		rMax *= 2
	}
	left, right := 0.0, rMax
	for range Iterations {
		mid := (left + right) / 2
		c := used(mid)
		if c == 0 {
			right = mid
			break
		} else if c < 0 {
			left = mid
		} else {
			right = mid
		}
	}
	a.work = work
	a.lastRight = right
	if right < a.x || right > a.y {
		for _, j := range live {
			if !a.fixed[j] {
				a.share[j] = a.at(j, right)
			}
		}
	} else {
		for _, j := range live {
			if !a.fixed[j] {
				a.share[j] = a.atX[j] // equal to its share at y unless active
			}
		}
		for _, j := range a.active {
			if t := &a.terms[a.termOf[j]]; t.j < 0 {
				a.share[j] = javaLong(float64(t.w * right))
			} else {
				a.share[j] = a.at(int(j), right)
			}
		}
	}
	for _, j := range live {
		if a.fixed[j] {
			a.share[j] = a.fixedShare(j)
		}
	}
	return true
}

// bracket makes a bracket around the level where the total reaches the
// target, about yarnReach/J wide either way of it, starting from the last
// interval's level: a pass per point tried, and one to take the shares
// at both ends. It returns false when there is none (the minima alone
// reach the target).
func (a *yarnAlloc) bracket(live []int, target int64) bool {
	a.valid = false
	total := func(r float64) int64 {
		var u int64
		for _, j := range live {
			if !a.fixed[j] {
				u += a.at(j, r)
			}
		}
		return u
	}
	if total(0) >= target {
		return false
	}
	r0 := a.lastRight
	if !(r0 > 0) {
		// The first interval: the level of the direct computation.
		a.direct(live)
		r0 = a.lastRight
		if !(r0 > 0) {
			return false
		}
	}
	d := a.reach / float64(len(live))
	x, y := 0.0, math.Inf(1)
	if u := total(r0); u < target {
		x = r0
	} else if u > target {
		y = r0
	}
	// Widen on the open side(s) until both hold: x from below (or 0,
	// where the total is below the target), y from above.
	for step := d; math.IsInf(y, 1); step *= 2 {
		r := r0 * (1 + step)
		if math.IsInf(r, 1) {
			return false
		}
		if u := total(r); u > target {
			y = r
		} else if u < target {
			x = max(x, r)
		}
	}
	for step := d; x == 0 && step < 1; step *= 2 {
		r := r0 * (1 - step)
		if u := total(r); u < target {
			x = r
		} else if u > target {
			y = min(y, r)
		}
	}
	a.x, a.y = x, y
	a.base, a.sumX, a.sumY = 0, 0, 0
	a.active, a.terms = a.active[:0], a.terms[:0]
	classes := map[float64]int32{}
	for _, j := range live {
		if a.fixed[j] {
			continue
		}
		sx, sy := a.at(j, x), a.at(j, y)
		a.atX[j], a.atY[j] = sx, sy
		a.isActive[j] = sx != sy
		if sx == sy {
			a.base += sx
			continue
		}
		a.active = append(a.active, int32(j))
		a.sumX += sx
		a.sumY += sy
		w, job := a.w32[j], &a.jobs[j]
		if float64(w*x) >= float64(job.Min) && float64(w*y) <= float64(job.Max) {
			// Unclamped over the bracket: its share is trunc(w R), as
			// every such job's of its weight (with every weight equal,
			// all of them: one term instead of a job each).
			t, ok := classes[w]
			if !ok {
				t = int32(len(a.terms))
				classes[w] = t
				a.terms = append(a.terms, yarnTerm{j: -1, w: w})
			}
			a.terms[t].n++
			a.termOf[j] = t
			continue
		}
		a.termOf[j] = int32(len(a.terms))
		a.terms = append(a.terms, yarnTerm{j: int32(j), n: 1})
	}
	a.valid = a.base+a.sumX < target && target < a.base+a.sumY
	return a.valid
}

// direct sets a.share for the live jobs by computeYARN itself.
func (a *yarnAlloc) direct(live []int) {
	sched := make([]Schedulable, len(live))
	for k, j := range live {
		sched[k] = a.jobs[j].Schedulable()
	}
	sh := a.shF[:0]
	for range live {
		sh = append(sh, 0)
	}
	a.shF = sh
	a.lastRight = a.c.computeYARN(sh, sched, a.total)
	for k, j := range live {
		a.share[j] = int64(sh[k])
	}
	a.valid = false
}

// round is Slots on the live jobs' shares (see yarnAlloc).
func (a *yarnAlloc) round(live []int, al []int) {
	sumMax, sum := 0, 0
	for k, j := range live {
		job := &a.jobs[j]
		sumMax += job.Max
		al[k] = floorSlots(float64(a.share[j]), job)
		sum += al[k]
	}
	target := max(min(a.total, sumMax), 0)
	if sum == target {
		return
	}
	give := sum < target
	cand := a.cand[:0]
	for k, j := range live {
		job := &a.jobs[j]
		if give && al[k] >= job.Max || !give && (al[k] <= job.Min || al[k] <= 0) {
			continue
		}
		if float64(a.share[j])-float64(al[k]) != 0 {
			cand = nil // a deficit other than 0: Slots's heap decides
			break
		}
		pw := math.Inf(1)
		if w := job.Weight; w > 0 {
			pw = float64(al[k]) / w
		}
		c := candidate{0, pw, a.rank[j], int32(k)}
		if !give {
			c.perWeight, c.rank = -pw, -c.rank // the reverse order
		}
		cand = append(cand, c)
	}
	need := target - sum
	if !give {
		need = sum - target
	}
	if cand == nil || need > len(cand) {
		a.slotsByHeap(live, al)
		return
	}
	a.cand = cand
	selectFirst(cand, need)
	d := 1
	if !give {
		d = -1
	}
	for _, c := range cand[:need] {
		al[c.k] += d
	}
}

// slotsByHeap is Slots itself on the live jobs.
func (a *yarnAlloc) slotsByHeap(live []int, al []int) {
	a.sub = a.sub[:0]
	sh := a.shF[:0]
	for _, j := range live {
		a.sub = append(a.sub, a.jobs[j])
		sh = append(sh, float64(a.share[j]))
	}
	a.shF = sh
	a.r.round(al, sh, a.sub, a.total)
}

// cmp64 compares two int64s: -1, 0 or 1.
func cmp64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
