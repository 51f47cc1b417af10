package mps

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// CompletionTolerance is the relative tolerance under which projected
// completions count as simultaneous: at an event at elapsed time T (seconds
// since Input.Now), every live job projected to finish by T*(1+CompletionTolerance)
// completes at T together, in one event.
//
// Without it, jobs that finish together in exact arithmetic (equal work at
// equal rates, FLEX 3.1 "ties among jobs") would finish a few ulps apart in
// floating point, leaving slivers of intervals and spurious slot changes. The
// tolerance is relative to elapsed time because the rounding of the lazy work
// accounting grows with the magnitude of the times involved; 1e-9 is far above
// that rounding (about 1e-16 per operation) and far below any duration a
// scheduler acts on. A job reported with completion T may therefore hold up
// to CompletionTolerance*T*slots slot-seconds of unfinished work.
const CompletionTolerance = 1e-9

// Input is one phase problem as MPS sees it (docs/algorithms.md section 1),
// already normalised by the caller. Job j is described by Min[j], Max[j] and
// Work[j]; all three slices have the same length J.
//
// Preconditions (violations are programmer errors and make Pack and
// Packer.Completions panic): 0 <= Min[j] <= Max[j] <= Slots, Max[j] >= 1,
// sum(Min) <= Slots, Work[j] > 0 and finite, Now finite.
type Input struct {
	// Slots is S, the number of interchangeable slots.
	Slots int
	// Now is the start of the schedule, seconds on the caller's clock; every
	// time in the output is absolute on the same clock.
	Now float64
	// Min and Max are each job's minimum (fair-share guarantee) and maximum
	// (demand) slots.
	Min, Max []int
	// Work is each job's remaining work in slot-seconds: with linear speedup
	// (FLEX 2.5) a job holding s slots for dt seconds does s*dt of work.
	Work []float64
}

// Pack runs the Malleable Packing Scheme (FLEX 3.1, Fig. 3) over the jobs of
// in, in the priority order given by order (a permutation of 0..J-1, highest
// priority first), and returns the malleable schedule.
//
// In every interval each live job holds its minimum and the slack
// S - sum(Min of live jobs) is handed down the order, each job up to its
// maximum, so at most one job holds a partial top-up. The interval ends at the
// first completion (completions within CompletionTolerance happen together;
// heap ties are broken by priority); the finished jobs are removed and the
// next interval begins.
//
// Intervals have positive length on the caller's clock: an interval whose
// absolute end rounds to its start (possible only for durations below an ulp
// of Now, about 2e-7 s for a Unix time) is not emitted; its slot changes are
// folded into the next interval and the jobs finishing in it complete at the
// previous interval's end. Plan.First is always the allocation at Now.
//
// Pack takes O(J log J) time and O(J) space. It allocates a fresh workspace;
// a Packer reuses one across calls. Pack panics if in or order violate the
// preconditions documented on Input.
func Pack(in Input, order []int) Plan {
	var p Packer
	return p.Pack(in, order)
}

// Packer is a reusable MPS workspace. Its zero value is ready to use. After
// the first call with J jobs, calls with at most J jobs do not allocate in
// Completions, which is the point: the local search over orders
// (docs/algorithms.md section 4, after FLEX 3.2) scores thousands of orders,
// each by one MPS run. A Packer is not safe for concurrent use; give each
// goroutine its own.
type Packer struct {
	jobs []jobState
	heap []heapEntry
	// mins lists every job with a positive minimum by its completion at
	// that minimum from the start (Work/Min), earliest first: a job holds
	// its minimum until the slack boundary reaches it, so until then its
	// projected completion is that entry and it stays out of the heap.
	// The entry counts while the job is live and not in the heap; mcur is
	// the first entry not yet passed. Sorted once per Bind (per run
	// otherwise), it keeps the heap to the jobs above their minima, which
	// at J = 100,000 is what made a schedule cost cache misses.
	mins    []minEntry
	mcur    int
	minsTmp []minEntry
	order   []int // the current run's order (borrowed, not retained after return)
	ptr     int   // slack boundary: position in order of the partially topped-up job
	// bnd is the job at the slack boundary while it holds a partial
	// top-up (above its minimum, below its maximum), -1 otherwise. It
	// stays out of the heap, its projected completion in bndAt and its
	// tie-breaking position in bndPos (what its heap entry would hold):
	// its slots change at almost every event, and re-keying it in the
	// heap each time was a third of the heap's work.
	bnd    int32
	bndAt  float64
	bndPos int32
	slack  int   // S - sum(Min of live jobs)
	used   int   // sum(Max-Min) over live jobs at positions before ptr
	in     Input // the current run's input (borrowed, not retained after return)

	// Recording state, used by Pack only.
	rec bool
	// bound is set by Bind: run then trusts the input (boundIn) it checked.
	bound     bool
	boundIn   Input
	dirty     []int32    // jobs whose slots changed since the last emitted interval
	emitted   []int      // each job's slots in the last emitted interval
	changes   []Change   // the plan's changes (owned by the Plan being built)
	intervals []Interval // the plan's intervals (owned by the Plan being built)

	// Prefix reuse (resume.go): the last Record's order and its snapshots.
	recording bool
	recOrder  []int
	stride    int
	ncp       int
	cps       []checkpoint
	// The last Record's completions and, per event, its slack boundary,
	// live jobs and time (Estimate's meeting points).
	recOut     []float64
	evPtr      []int
	evLive     []int
	evT        []float64
	evLeft     []int
	evRem      []float64 // work left of the job at the boundary
	events     int       // events run so far, for Events
	estimating bool      // the current run is Estimate's
	touched    []int32   // Estimate: the jobs it completed itself
	startPtr   int       // the slack boundary where the current run resumed
	spliceM    int       // Estimate: look for a meeting once the boundary passes this position
	spliceLo   int       // Estimate: the first recorded event whose boundary is not before the run's
	spliced    bool      // Estimate: the run was cut short
	// stopJob is 1 + the job whose completion, or the clock passing
	// stopBy (absolute), ends the run early (CompletionBy); 0 runs on.
	stopJob int32
	stopBy  float64
}

// jobState is one job's state during a run. Work is accounted lazily: rem is
// the remaining work at elapsed time tUpd, and the job has held cur slots
// since, so its projected completion is tUpd + rem/cur. It is brought up to
// date only when cur changes, which happens O(1) times amortised.
type jobState struct {
	rem  float64 // remaining work at tUpd, slot-seconds
	tUpd float64 // elapsed seconds (since Input.Now) of the last accounting
	// cur is the slots held now: int32 (MaxSlots is 10^7 in package
	// solver; check panics past math.MaxInt32) keeps the state at 32
	// bytes, which Resume copies whole at every call.
	cur   int32
	hidx  int32 // index in the heap; notInHeap, or atBoundary for Packer.bnd
	pos   int32 // position in the priority order
	live  bool
	dirty bool // listed in Packer.dirty
}

// jobState.hidx of a job outside the heap: at its minimum (on the mins
// list), without slots, or done; or the partial job at the boundary
// (Packer.bnd).
const (
	notInHeap  = -1
	atBoundary = -2
)

// minEntry is a job's completion at its minimum from the start.
type minEntry struct {
	at  float64
	job int32
}

// heapEntry is a projected completion. The heap orders entries by at, then
// by priority position, so ties are deterministic (FLEX 3.1: ties among jobs
// are adjudicated in priority order).
type heapEntry struct {
	at  float64 // projected completion, elapsed seconds since Input.Now
	pos int32
	job int32
}

// Pack is like the package-level Pack but reuses p's workspace. The returned
// Plan does not share memory with p.
func (p *Packer) Pack(in Input, order []int) Plan {
	j := len(in.Work)
	plan := Plan{Completions: make([]float64, j), First: make([]int, j)}
	// A plan has at most 4J changes (each job gets its first non-zero count
	// once, reaches its maximum once and drops to 0 once; each of at most J
	// events tops up one partial job) and at most J intervals (each ends at
	// a completion), so these never grow. Were they to, intervals already
	// emitted would keep their own backing array.
	p.changes = make([]Change, 0, 4*j)
	p.intervals = make([]Interval, 0, j)
	p.rec = true
	p.bound = false
	p.run(in, order, plan.Completions, plan.First)
	p.rec = false
	plan.Intervals = p.intervals
	p.changes, p.intervals = nil, nil
	return plan
}

// Completions writes each job's MPS completion time (absolute seconds) into
// out, which must have length J. It computes the same schedule as Pack but
// records no intervals, and does not allocate once p has seen J jobs. It
// panics if in or order violate the preconditions documented on Input or if
// len(out) != J.
func (p *Packer) Completions(in Input, order []int, out []float64) {
	if len(out) != len(in.Work) {
		panic(fmt.Sprintf("mps: len(out) = %d, want %d", len(out), len(in.Work)))
	}
	p.rec = false // in case an earlier Pack panicked mid-run
	p.bound = false
	p.run(in, order, out, nil)
}

// Bind validates in once for BoundCompletions, which then schedules many
// orders of the same jobs without checking them again: a search scoring
// thousands of orders of one instance (FLEX's local search, the exhaustive
// OPT) spends a fifth of each small schedule re-validating the same
// numbers. in's slices are borrowed until the next Bind, Pack or
// Completions and must not change meanwhile. Bind panics on invalid input,
// as Completions does.
func (p *Packer) Bind(in Input) {
	p.check(in)
	p.sortMins(in)
	p.boundIn = in
	p.bound = true
	p.recOrder = p.recOrder[:0]
}

// BoundCompletions is Completions for the input of the last Bind: it checks
// only that order is a permutation and that out has one entry per job.
func (p *Packer) BoundCompletions(order []int, out []float64) {
	if !p.bound {
		panic("mps: BoundCompletions without Bind")
	}
	in := p.boundIn
	if len(out) != len(in.Work) {
		panic(fmt.Sprintf("mps: len(out) = %d, want %d", len(out), len(in.Work)))
	}
	p.rec = false
	p.run(in, order, out, nil)
}

// run is the event-driven MPS shared by Pack and Completions. Each event
// takes the earliest projected completion T from the heap, completes every
// job projected by T*(1+CompletionTolerance), and then moves the slack
// boundary. Removing a job never shrinks the leftover slack
// S - sum(Min of live) - used (removing a job before the boundary frees its
// Max, at the boundary its partial share, after it its Min), so the boundary
// only moves down the order and the jobs it passes go to their maximum for
// good. Per event the work is O(log J) for each completion and each job that
// changes slots, plus one partial top-up: O(J log J) in total.
func (p *Packer) run(in Input, order []int, out []float64, first []int) {
	p.prepare(in, order)
	for j := range first {
		first[j] = int(p.jobs[j].cur)
	}
	p.loop(out, first, len(in.Work), 0, 0, 0)
}

// loop runs the events from elapsed time t with live jobs left, the state
// set up by prepare or restored by Resume; lastEnd is the elapsed end of the
// last emitted interval, and ev the number of events run before (for a
// recording's snapshots).
func (p *Packer) loop(out []float64, first []int, live int, t, lastEnd float64, ev int) {
	in := p.in
	if p.recording {
		p.snapshot(ev, live, t)
	}
	for live > 0 {
		at, src := p.next()
		if src == fromNone {
			// Unreachable for valid input: Max >= 1 and sum(Min) <= S give
			// the first live job in the order at least one slot.
			panic("mps: live jobs remain but none holds a slot (input not normalised)")
		}
		if at < t {
			at = t // rounding in lazy accounting; completion cannot precede the event
		}
		if at > t {
			// An interval shorter than an ulp of the absolute clock (tiny work
			// with Now far from zero) is not emitted: its changes carry over
			// to the next interval, which starts where the last one ended.
			if p.rec && in.Now+at > in.Now+lastEnd {
				p.emit(lastEnd, at)
				lastEnd = at
			}
			t = at
		}
		// A completion that rounds to the current time (a job given its first
		// slots with work below an ulp of t) is folded into this event: no
		// zero-length interval is emitted and pending changes carry over.
		p.events++
		// The completion found above is the event's first: at <= t <=
		// limit, and nothing has changed since next found it.
		limit := t + CompletionTolerance*t
		for ; src != fromNone && at <= limit; at, src = p.next() {
			var j int32
			switch src {
			case fromMins:
				j = p.mins[p.mcur].job
				p.mcur++
			case fromBoundary:
				j = p.bnd
				p.bnd = -1
				p.jobs[j].hidx = notInHeap
			default:
				j = p.pop()
			}
			p.complete(j, t)
			out[j] = in.Now + t
			if p.estimating {
				p.touched = append(p.touched, j)
			}
			live--
		}
		if p.stopJob > 0 && (!p.jobs[p.stopJob-1].live || in.Now+t > p.stopBy) {
			break
		}
		p.advance(t)
		if p.recording && live > 0 {
			ev++
			p.snapshot(ev, live, t)
			p.evPtr = append(p.evPtr, p.ptr)
			p.evLive = append(p.evLive, live)
			p.evT = append(p.evT, t)
			p.evLeft = append(p.evLeft, p.slack-p.used)
			p.evRem = append(p.evRem, p.boundaryRem(t))
		}
		if p.estimating && p.ptr > p.spliceM && live > 0 && p.splice(live, t) {
			p.spliced = true
			break
		}
	}
	p.in = Input{}
	p.order = nil
}

// prepare validates the input, sizes the workspace and sets up the first
// interval's allocation and heap.
func (p *Packer) prepare(in Input, order []int) {
	n := len(in.Work)
	if len(order) != n {
		panic(fmt.Sprintf("mps: len(order) = %d, want len(Work) = %d", len(order), n))
	}
	if !p.bound {
		p.check(in)
		p.sortMins(in)
	}
	p.mcur = 0
	if cap(p.jobs) < n {
		p.jobs = make([]jobState, n)
		p.heap = make([]heapEntry, 0, n)
	}
	p.jobs = p.jobs[:n]
	p.heap = p.heap[:0]
	for j := range p.jobs {
		p.jobs[j].pos = -1
	}
	for k, j := range order {
		if j < 0 || j >= n || p.jobs[j].pos >= 0 {
			panic(fmt.Sprintf("mps: order is not a permutation of 0..%d (order[%d] = %d)", n-1, k, j))
		}
		p.jobs[j].pos = int32(k)
	}
	sumMin := 0
	for j := range n {
		sumMin += in.Min[j]
		p.jobs[j] = jobState{rem: in.Work[j], cur: int32(in.Min[j]), hidx: notInHeap, pos: p.jobs[j].pos, live: true}
	}
	p.in, p.order = in, order
	p.slack, p.used, p.ptr = in.Slots-sumMin, 0, 0

	if p.rec {
		if cap(p.emitted) < n {
			p.emitted = make([]int, n)
			p.dirty = make([]int32, 0, n)
		}
		p.emitted = p.emitted[:n]
		clear(p.emitted)
		p.dirty = p.dirty[:0]
	}

	// First interval: hand the slack down the order (Fig. 3 lines 4-11).
	// Everything is at t = 0, so no work needs accounting; set slots directly
	// and heapify once, O(J).
	for ; p.ptr < n; p.ptr++ {
		j := order[p.ptr]
		js := &p.jobs[j]
		d := in.Max[j] - in.Min[j]
		if left := p.slack - p.used; left < d {
			js.cur += int32(left)
			break
		}
		p.used += d
		js.cur = int32(in.Max[j])
	}
	p.bnd = -1
	if p.ptr < n {
		if j := order[p.ptr]; int(p.jobs[j].cur) != in.Min[j] {
			js := &p.jobs[j]
			p.bnd, p.bndAt, p.bndPos = int32(j), js.rem/float64(js.cur), js.pos
			js.hidx = atBoundary
		}
	}
	for j := range p.jobs {
		js := &p.jobs[j]
		if js.cur > 0 && p.rec {
			p.markDirty(int32(j))
		}
		// A job at its minimum is on the mins list.
		if js.cur > 0 && int(js.cur) != in.Min[j] && js.hidx != atBoundary {
			js.hidx = int32(len(p.heap))
			p.heap = append(p.heap, heapEntry{at: js.rem / float64(js.cur), pos: js.pos, job: int32(j)})
		}
	}
	for i := (len(p.heap) - 2) / heapArity; i >= 0; i-- {
		p.down(i)
	}
}

// check panics unless in meets the preconditions documented on Input.
func (p *Packer) check(in Input) {
	n := len(in.Work)
	if len(in.Min) != n || len(in.Max) != n {
		panic(fmt.Sprintf("mps: len(Min) = %d, len(Max) = %d, want len(Work) = %d", len(in.Min), len(in.Max), n))
	}
	if n > math.MaxInt32 || in.Slots > math.MaxInt32 {
		panic(fmt.Sprintf("mps: %d jobs and %d slots, at most %d of each supported", n, in.Slots, math.MaxInt32))
	}
	if math.IsNaN(in.Now) || math.IsInf(in.Now, 0) {
		panic(fmt.Sprintf("mps: Now = %v, want finite", in.Now))
	}
	sumMin := 0
	for j := range n {
		lo, hi, w := in.Min[j], in.Max[j], in.Work[j]
		if lo < 0 || lo > hi || hi > in.Slots || hi < 1 {
			panic(fmt.Sprintf("mps: job %d: Min = %d, Max = %d, Slots = %d, want 0 <= Min <= Max <= Slots and Max >= 1",
				j, lo, hi, in.Slots))
		}
		if !(w > 0) || math.IsInf(w, 1) {
			panic(fmt.Sprintf("mps: job %d: Work = %v, want positive and finite", j, w))
		}
		sumMin += lo
	}
	if sumMin > in.Slots {
		panic(fmt.Sprintf("mps: sum(Min) = %d exceeds Slots = %d (minima not normalised)", sumMin, in.Slots))
	}
}

// complete removes job j at elapsed time t (Fig. 3 line 14) and returns its
// slots to the pool; advance then hands them out.
func (p *Packer) complete(j int32, t float64) {
	js := &p.jobs[j]
	js.live = false
	js.rem = 0
	js.tUpd = t
	js.cur = 0
	if p.rec {
		p.markDirty(j)
	}
	p.slack += p.in.Min[j]
	if int(js.pos) < p.ptr {
		p.used -= p.in.Max[j] - p.in.Min[j]
	}
}

// advance moves the slack boundary down the order after completions at
// elapsed time t: jobs whose full top-up now fits go to their maximum, and the
// job at the new boundary gets what is left (Fig. 3 lines 6-11, done
// incrementally).
func (p *Packer) advance(t float64) {
	n := len(p.order)
	for ; p.ptr < n; p.ptr++ {
		j := p.order[p.ptr]
		if !p.jobs[j].live {
			continue
		}
		lo, hi := p.in.Min[j], p.in.Max[j]
		if left := p.slack - p.used; left < hi-lo {
			p.setSlots(int32(j), lo+left, t, true)
			return
		}
		p.used += hi - lo
		p.setSlots(int32(j), hi, t, false)
	}
}

// setSlots gives live job j s slots from elapsed time t, first accounting the
// work done at its old count (lazy accounting). A live job's slots never
// decrease, so its projected completion only moves earlier. partial says
// that s is a partial top-up (below the job's maximum): the job is then the
// one at the boundary (bnd).
func (p *Packer) setSlots(j int32, s int, t float64, partial bool) {
	js := &p.jobs[j]
	if int(js.cur) == s {
		return
	}
	if js.cur > 0 {
		// Not the builtin max, which orders NaNs and costs a call here.
		if js.rem -= float64(js.cur) * (t - js.tUpd); js.rem < 0 {
			js.rem = 0
		}
	}
	js.tUpd = t
	js.cur = int32(s)
	at := t + js.rem/float64(s)
	switch {
	case js.hidx == atBoundary && partial:
		p.bndAt = at
	case js.hidx == atBoundary:
		// Past the boundary, at its maximum for good: into the heap
		// with the position it became partial at.
		p.bnd = -1
		js.hidx = int32(len(p.heap))
		p.heap = append(p.heap, heapEntry{at: at, pos: p.bndPos, job: j})
		p.up(int(js.hidx))
	case js.hidx < 0 && partial:
		// advance tops up one job partially, after the last one went to
		// its maximum (or completed).
		p.bnd, p.bndAt, p.bndPos = j, at, js.pos
		js.hidx = atBoundary
	case js.hidx < 0:
		js.hidx = int32(len(p.heap))
		p.heap = append(p.heap, heapEntry{at: at, pos: js.pos, job: j})
		p.up(int(js.hidx))
	default:
		i := int(js.hidx)
		p.heap[i].at = at
		// Mathematically at only decreases; rounding may nudge it up.
		if !p.up(i) {
			p.down(i)
		}
	}
	if p.rec {
		p.markDirty(j)
	}
}

func (p *Packer) markDirty(j int32) {
	if !p.jobs[j].dirty {
		p.jobs[j].dirty = true
		p.dirty = append(p.dirty, j)
	}
}

// emit records the interval [start, end) (elapsed seconds) with the net slot
// changes since the last emitted interval, sorted by job for deterministic
// output.
func (p *Packer) emit(start, end float64) {
	lo := len(p.changes)
	for _, j := range p.dirty {
		js := &p.jobs[j]
		js.dirty = false
		if int(js.cur) != p.emitted[j] {
			p.emitted[j] = int(js.cur)
			p.changes = append(p.changes, Change{Job: int(j), Slots: int(js.cur)})
		}
	}
	p.dirty = p.dirty[:0]
	hi := len(p.changes)
	added := p.changes[lo:hi:hi]
	slices.SortFunc(added, func(a, b Change) int { return cmp.Compare(a.Job, b.Job) })
	p.intervals = append(p.intervals, Interval{Start: p.in.Now + start, End: p.in.Now + end, Changes: added})
}

// The heap is a 4-ary min-heap of projected completions, with each job's
// index kept in jobState.hidx so a slot change can re-key it in O(log J).
// Four 16-byte children share a cache line and the tree is half as deep as a
// binary heap, so a pop takes fewer cache misses; at J = 100,000 it measured
// about 20% faster than a binary heap on BenchmarkCompletions.

const heapArity = 4

func (p *Packer) less(a, b int) bool {
	x, y := &p.heap[a], &p.heap[b]
	return x.at < y.at || (x.at == y.at && x.pos < y.pos)
}

func (p *Packer) swap(a, b int) {
	h := p.heap
	h[a], h[b] = h[b], h[a]
	p.jobs[h[a].job].hidx = int32(a)
	p.jobs[h[b].job].hidx = int32(b)
}

// up sifts entry i towards the root and reports whether it moved.
func (p *Packer) up(i int) bool {
	moved := false
	for i > 0 {
		parent := (i - 1) / heapArity
		if !p.less(i, parent) {
			break
		}
		p.swap(i, parent)
		i = parent
		moved = true
	}
	return moved
}

func (p *Packer) down(i int) {
	n := len(p.heap)
	for {
		l := heapArity*i + 1
		if l >= n {
			return
		}
		c := l
		for r := l + 1; r < min(l+heapArity, n); r++ {
			if p.less(r, c) {
				c = r
			}
		}
		if !p.less(c, i) {
			return
		}
		p.swap(i, c)
		i = c
	}
}

// source says where next found the earliest projected completion.
type source uint8

const (
	fromNone source = iota
	fromHeap
	fromMins
	fromBoundary
)

// next returns the earliest projected completion and its source: the
// heap, the mins list (passing its entries that no longer count) or the
// partial job at the boundary (Packer.bnd); fromNone when all three are
// empty. Between equal times they are ordered by priority, as the heap
// orders its own entries, so the events are those of one heap holding
// them all; jobs due at equal times complete in one event anyway.
func (p *Packer) next() (at float64, src source) {
	var pos int32
	if len(p.heap) > 0 {
		h := &p.heap[0]
		at, pos, src = h.at, h.pos, fromHeap
	}
	if p.bnd >= 0 && (src == fromNone || p.bndAt < at || (p.bndAt == at && p.bndPos < pos)) {
		at, pos, src = p.bndAt, p.bndPos, fromBoundary
	}
	for p.mcur < len(p.mins) {
		js := &p.jobs[p.mins[p.mcur].job]
		if js.live && js.hidx == notInHeap {
			break
		}
		p.mcur++
	}
	if p.mcur == len(p.mins) {
		return at, src
	}
	m := &p.mins[p.mcur]
	if src != fromNone && (at < m.at || (at == m.at && pos < p.jobs[m.job].pos)) {
		return at, src
	}
	return m.at, fromMins
}

// sortMins builds the mins list of in: every job with a positive minimum
// by Work/Min, ties by job, with a radix sort of the (positive) times'
// bits, stable from job order.
func (p *Packer) sortMins(in Input) {
	n := 0
	for _, lo := range in.Min {
		if lo > 0 {
			n++
		}
	}
	if cap(p.mins) < n {
		p.mins = make([]minEntry, 0, n)
	}
	p.mins = p.mins[:0]
	for j, lo := range in.Min {
		if lo > 0 {
			p.mins = append(p.mins, minEntry{at: in.Work[j] / float64(lo), job: int32(j)})
		}
	}
	if n < 2 {
		return
	}
	if n < 256 {
		slices.SortStableFunc(p.mins, func(a, b minEntry) int { return cmp.Compare(a.at, b.at) })
		return
	}
	if cap(p.minsTmp) < n {
		p.minsTmp = make([]minEntry, n)
	}
	src, dst := p.mins, p.minsTmp[:n]
	var count [256]int
	for shift := uint(0); shift < 64; shift += 8 {
		clear(count[:])
		for _, e := range src {
			count[(math.Float64bits(e.at)>>shift)&0xff]++
		}
		if count[(math.Float64bits(src[0].at)>>shift)&0xff] == n {
			continue // every time shares this digit
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for _, e := range src {
			d := (math.Float64bits(e.at) >> shift) & 0xff
			dst[count[d]] = e
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &p.mins[0] {
		copy(p.mins, src)
	}
}

// pop removes the earliest projected completion and returns its job.
func (p *Packer) pop() int32 {
	last := len(p.heap) - 1
	p.swap(0, last)
	j := p.heap[last].job
	p.heap = p.heap[:last]
	p.jobs[j].hidx = notInHeap
	if last > 0 {
		p.down(0)
	}
	return j
}

// Events is the number of events (completions) the Packer has run since
// it was made: the work of a run, for a search that counts its effort in
// schedule work rather than time.
func (p *Packer) Events() int { return p.events }

// boundaryRem is the work left at elapsed time t of the live job at the
// slack boundary (0 when the boundary is past the order).
func (p *Packer) boundaryRem(t float64) float64 {
	if p.ptr >= len(p.order) {
		return 0
	}
	js := &p.jobs[p.order[p.ptr]]
	return js.rem - float64(js.cur)*(t-js.tUpd)
}
