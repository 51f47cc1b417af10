package mps

import (
	"fmt"
	"math"
	"slices"
)

// Prefix reuse (docs/solver-at-scale.md). A local search
// over priority orders scores thousands of orders that differ from the
// incumbent only from some position k on: an insertion of the job at i
// before the job at k changes nothing before min(i, k). The MPS schedule of
// two orders sharing their first k jobs is the same until the slack
// boundary first reaches position k: until then every job at position k or
// later holds exactly its minimum, which does not depend on the order among
// them. So Record runs the incumbent once and keeps snapshots of the run's
// state (checkpoints) at its events, and Resume schedules another order by
// restoring the latest snapshot taken while the boundary was still before
// position k, then running the rest of the schedule as usual. The result is
// bit for bit what BoundCompletions computes: the restored state is the
// state a full run reaches at that event, and the rest of the run performs
// the same floating-point operations in the same order.

// maxCheckpoints bounds the snapshots Record keeps, so that recording costs
// about maxCheckpoints * J words whatever J is: with more events than that,
// every stride-th event is kept, and Resume replays at most stride-1 events
// more than it would with every one.
const maxCheckpoints = 32

// checkpoint is the state of a run after an event (or after the first
// interval's allocation, before any event).
type checkpoint struct {
	// need is the shortest prefix an order must share with the recorded
	// one for the snapshot to be its state too: the jobs at positions
	// need and later hold their minima.
	need             int
	t                float64
	live             int
	ptr, slack, used int
	mcur             int
	bnd, bndPos      int32
	bndAt            float64
	jobs             []jobState
	heap             []heapEntry
}

// Record is BoundCompletions for the input of the last Bind, which also
// remembers the order and snapshots of the run for Resume. order is copied.
func (p *Packer) Record(order []int, out []float64) {
	if !p.bound {
		panic("mps: Record without Bind")
	}
	n := len(order)
	if len(out) != len(p.boundIn.Work) {
		panic(fmt.Sprintf("mps: len(out) = %d, want %d", len(out), len(p.boundIn.Work)))
	}
	p.rec = false
	p.recOrder = append(p.recOrder[:0], order...)
	p.stride = max(1, (n+maxCheckpoints-1)/maxCheckpoints)
	p.ncp = 0
	p.evPtr, p.evLive, p.evT, p.evLeft, p.evRem = p.evPtr[:0], p.evLive[:0], p.evT[:0], p.evLeft[:0], p.evRem[:0]
	p.recording = true
	defer func() { p.recording = false }()
	p.estimating = false
	p.run(p.boundIn, p.recOrder, out, nil) // prepare checks that order is a permutation
	p.recOut = append(p.recOut[:0], out...)
}

// Rerecord is Record for an order whose first k jobs are those of the
// last Record's order: it keeps that recording's snapshots up to the last
// one the new order shares and records the rest of the run from there, so
// it costs what Resume does rather than a whole run. The recording is then
// the one Record(order, out) makes. It panics as Resume does.
func (p *Packer) Rerecord(order []int, k int, out []float64) {
	p.checkPrefix("Rerecord", order, k, out)
	n := len(p.recOrder)
	c := p.lastCheckpoint(k, true)
	if c < 0 {
		p.Record(order, out)
		return
	}
	// The snapshots kept hold each job's position in the old order; the
	// jobs between k and the last position that changes move.
	q := n - 1
	for q > k && order[q] == p.recOrder[q] {
		q--
	}
	for x := range c {
		jobs := p.cps[x].jobs
		for y := k; y <= q; y++ {
			jobs[order[y]].pos = int32(y)
		}
	}
	copy(p.recOrder[k:], order[k:])
	p.recording = true
	defer func() { p.recording = false }()
	p.estimating = false
	p.resume(p.recOrder, k, q, out)
	p.recOut = append(p.recOut[:0], out...)
}

// RecordedPrefix is how many first jobs order shares with the last
// Record's (or Rerecord's) order: the k Rerecord and Resume may be given;
// 0 with no recording since the last Bind.
func (p *Packer) RecordedPrefix(order []int) int {
	if !p.bound || len(p.recOrder) != len(order) {
		return 0
	}
	k := 0
	for k < len(order) && order[k] == p.recOrder[k] {
		k++
	}
	return k
}

// checkPrefix panics, naming op, unless there is a recording since the
// last Bind and order (with out) has its length and its first k jobs.
func (p *Packer) checkPrefix(op string, order []int, k int, out []float64) {
	if !p.bound || len(p.recOrder) == 0 {
		panic("mps: " + op + " without Record")
	}
	n := len(p.recOrder)
	if len(order) != n || len(out) != n {
		panic(fmt.Sprintf("mps: %s: len(order) = %d, len(out) = %d, want %d", op, len(order), len(out), n))
	}
	if k < 0 || k > n {
		panic(fmt.Sprintf("mps: %s: prefix %d out of [0, %d]", op, k, n))
	}
	for x := range k {
		if order[x] != p.recOrder[x] {
			panic(fmt.Sprintf("mps: %s: order[%d] = %d differs from the recorded order within the prefix %d", op, x, order[x], k))
		}
	}
}

// lastCheckpoint is the latest snapshot valid for prefix k, -1 if none:
// need only grows along a run. With whole, the snapshot's events must also
// have had the slack boundary before k: a recording kept up to there
// (Rerecord) is then the new order's as it stands. (A boundary at k with
// no slack left over is a state the new order shares too, its jobs from k
// on at their minima, but the new order's boundary may stand past k, over
// jobs with nothing to top up, and the events there name the old order's
// job at k.)
func (p *Packer) lastCheckpoint(k int, whole bool) int {
	for x := p.ncp - 1; x >= 0; x-- {
		if cp := &p.cps[x]; cp.need <= k && (!whole || cp.ptr < k) {
			return x
		}
	}
	return -1
}

// Resume is BoundCompletions for an order whose first k jobs are those of
// the last Record's order, reusing that run up to the last snapshot whose
// state the new order shares. It panics if there was no Record since the
// last Bind, or if the prefixes differ.
func (p *Packer) Resume(order []int, k int, out []float64) {
	p.checkPrefix("Resume", order, k, out)
	p.estimating = false
	p.resume(order, k, len(order)-1, out)
}

// resume restores the latest snapshot valid for prefix k and runs the rest
// of the schedule of order, which differs from the recorded order at most
// in positions k to m. Outside an Estimate it writes every completion into
// out; in one, only those of the jobs it lists in p.touched.
func (p *Packer) resume(order []int, k, m int, out []float64) {
	n := len(p.recOrder)
	c := p.lastCheckpoint(k, p.recording)
	if c < 0 {
		p.startPtr = 0
		p.rec = false
		p.run(p.boundIn, order, out, nil)
		return
	}
	cp := &p.cps[c]
	in := p.boundIn
	p.rec = false
	p.jobs = append(p.jobs[:0], cp.jobs...)
	p.heap = append(p.heap[:0], cp.heap...)
	// Positions k to m change; a permutation of them is checked as
	// BoundCompletions would.
	for x := k; x <= m; x++ {
		if j := order[x]; j >= 0 && j < n {
			p.jobs[j].pos = -1
		}
	}
	for x := k; x <= m; x++ {
		j := order[x]
		if j < 0 || j >= n || p.jobs[j].pos >= 0 {
			panic(fmt.Sprintf("mps: order is not a permutation of 0..%d (order[%d] = %d)", n-1, x, j))
		}
		p.jobs[j].pos = int32(x)
	}
	// Heap entries of moved jobs keep their old positions as tie-breakers.
	// Only jobs completing within CompletionTolerance of each other can tie,
	// and those complete together in one event whatever their order.
	if !p.estimating {
		for j := range p.jobs {
			if js := &p.jobs[j]; !js.live {
				out[j] = in.Now + js.tUpd
			}
		}
	}
	p.in, p.order = in, order
	p.ptr, p.slack, p.used = cp.ptr, cp.slack, cp.used
	p.mcur = cp.mcur
	p.bnd, p.bndAt, p.bndPos = cp.bnd, cp.bndAt, cp.bndPos
	p.startPtr = cp.ptr
	ev := 0
	if p.recording {
		// Rerecord: the snapshots after c and the events after c's are
		// the old order's; the run takes snapshot c again (the same
		// state) and goes on from there.
		ev = c * p.stride
		p.ncp = c
		p.evPtr, p.evLive, p.evT, p.evLeft, p.evRem = p.evPtr[:ev], p.evLive[:ev], p.evT[:ev], p.evLeft[:ev], p.evRem[:ev]
	}
	p.loop(out, nil, cp.live, cp.t, cp.t, ev)
}

// CompletionBy is job x's completion in order's schedule if that is at
// most by (absolute), and +Inf otherwise, computed only as far as it must
// be: the run stops once x completes or the clock passes by. It
// resumes from the last Record's run where order shares a prefix with that
// run's order, and runs from the start otherwise. Of out it writes only
// the completions of the jobs done by the time it stops. It panics without
// a Bind.
//
// Why: a bisection for the latest position where a job is on time (package
// solver's admissions of late jobs) needs that job's completion alone, and
// the jobs moved to near the front of the order complete early: at J = 200
// such a probe ran 1 to 60 of the 200 events.
func (p *Packer) CompletionBy(order []int, x int, by float64, out []float64) float64 {
	if !p.bound {
		panic("mps: CompletionBy without Bind")
	}
	if x < 0 || x >= len(p.boundIn.Work) {
		panic(fmt.Sprintf("mps: CompletionBy: job %d out of [0, %d)", x, len(p.boundIn.Work)))
	}
	p.stopJob, p.stopBy = int32(x)+1, by
	defer func() { p.stopJob = 0 }()
	if len(p.recOrder) == len(order) {
		k := p.RecordedPrefix(order)
		p.checkPrefix("CompletionBy", order, k, out)
		p.estimating = false
		p.resume(order, k, len(order)-1, out)
	} else {
		p.BoundCompletions(order, out)
	}
	if p.jobs[x].live || out[x] > by {
		return math.Inf(1)
	}
	return out[x]
}

// Estimate is Resume for an order that also equals the recorded one after
// position m (a move within positions k to m): it stops the run as soon as
// it reaches a state the recorded run also passed through, and takes the
// recorded completions for the jobs still live. Once the jobs the two
// orders rank differently are done, the schedules usually meet again: the
// same work has been done by the same time, and the jobs after m have held
// their minima throughout in both. A meeting is an event of the recorded
// run with the slack boundary past m at the same position, as many jobs
// live, as much slack left over, the same time within 1e-9 (relative), and
// every live job before the boundary due to complete when it did there.
// The job at the boundary is not compared (its work left follows from the
// others' when no slot stayed idle), so the result is an estimate, exact in
// every case measured on the study's instances to about 1e-9 of the
// objective: package solver's search scores moves with it and keeps the
// ones it finds better by more than that. It reports whether the run was
// cut short.
//
// It trusts its caller: order must be a permutation equal to the recorded
// order before k and after m (Resume checks; Estimate, called thousands of
// times per search, does not). It writes into out only the completions of
// the jobs it returns, the ones it scheduled itself; every other job
// completes as in the recorded run. The slice is reused by the next call.
func (p *Packer) Estimate(order []int, k, m int, out []float64) (touched []int32) {
	if !p.bound || len(p.recOrder) == 0 {
		panic("mps: Estimate without Record")
	}
	p.estimating, p.spliceM, p.spliced, p.spliceLo = true, m, false, -1
	p.touched = p.touched[:0]
	defer func() { p.estimating = false }()
	p.resume(order, k, min(m, len(order)-1), out)
	return p.touched
}

// Spliced reports whether the last Estimate was cut short at a meeting
// with the recorded run (for tests and measurements).
func (p *Packer) Spliced() bool { return p.spliced }

// splice ends a run of Estimate at a state the recorded run shared (see
// Estimate): it reports false when the recorded run has no event at this
// boundary position with as many live jobs at the same time.
func (p *Packer) splice(live int, t float64) bool {
	// The recorded run's events, in order, have the boundary moving down
	// (evPtr never falls) and fewer live jobs each (evLive falls at every
	// event), so at most one has this boundary and this many live jobs:
	// the first not before them in that order. This run's boundary and
	// live jobs move the same ways, so that event is at or after the last
	// call's (spliceLo; -1 before an Estimate's first call, which
	// searches for the boundary): a walk forward, amortised O(1) per
	// event. A binary search at every event and then a look at every
	// recorded event at the boundary were a fifth of a tardiness search's
	// instructions at J = 200.
	lo := p.spliceLo
	if lo < 0 {
		lo, _ = slices.BinarySearch(p.evPtr, p.ptr)
	}
	for lo < len(p.evPtr) && (p.evPtr[lo] < p.ptr || p.evPtr[lo] == p.ptr && p.evLive[lo] > live) {
		lo++
	}
	p.spliceLo = lo
	if lo == len(p.evPtr) || p.evPtr[lo] != p.ptr || p.evLive[lo] != live || p.evLeft[lo] != p.slack-p.used {
		return false
	}
	tol := 1e-9 * max(1, t)
	if p.evT[lo] >= t-tol && p.evT[lo] <= t+tol && closeTo(p.boundaryRem(t), p.evRem[lo]) {
		return p.sameAhead(tol)
	}
	return false
}

// sameAhead reports whether every live job before the slack boundary, at
// its maximum for good, completes when it did in the recorded run: then
// those jobs have the same work left as there. The jobs after the boundary
// have held their minima since the start in both runs, and the job at the
// boundary has what the others leave of the same work done.
func (p *Packer) sameAhead(tol float64) bool {
	// A job that reached its maximum before the run was resumed completes
	// when it did in the recorded run: its slots have not changed since.
	for _, j := range p.order[p.startPtr:p.ptr] {
		js := &p.jobs[j]
		if !js.live {
			continue
		}
		at := js.tUpd + js.rem/float64(js.cur)
		want := p.recOut[j] - p.in.Now
		if d := at - want; d > tol*max(1, want) || -d > tol*max(1, want) {
			return false
		}
	}
	return true
}

// snapshot keeps the run's state after event number ev (0: the first
// interval's allocation) when it falls on the stride.
func (p *Packer) snapshot(ev, live int, t float64) {
	if ev%p.stride != 0 || p.ncp == maxCheckpoints+1 {
		return
	}
	if p.ncp == len(p.cps) {
		p.cps = append(p.cps, checkpoint{})
	}
	cp := &p.cps[p.ncp]
	p.ncp++
	cp.need = p.ptr
	if p.ptr < len(p.order) {
		if j := p.order[p.ptr]; int(p.jobs[j].cur) > p.in.Min[j] {
			cp.need = p.ptr + 1
		}
	}
	cp.t, cp.live = t, live
	cp.ptr, cp.slack, cp.used = p.ptr, p.slack, p.used
	cp.mcur = p.mcur
	cp.bnd, cp.bndAt, cp.bndPos = p.bnd, p.bndAt, p.bndPos
	cp.jobs = append(cp.jobs[:0], p.jobs...)
	cp.heap = append(cp.heap[:0], p.heap...)
}

// closeTo reports whether amounts of work x and y agree within 1e-9,
// relative to the larger.
func closeTo(x, y float64) bool {
	return math.Abs(x-y) <= 1e-9*max(1, math.Abs(x), math.Abs(y))
}
