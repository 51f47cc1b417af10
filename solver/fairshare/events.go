package fairshare

import (
	"math"
	"math/bits"
	"slices"

	"github.com/flexd/flexd/solver/mps"
)

// The job classes of the event-driven rounding (see planEvents).
const (
	clsNone   = iota - 1 // not yet looked at (see evaluateAll)
	clsCapped            // slots == Max: takes no spare slot
	clsBelow             // deficit < lo: no spare slot
	clsWindow            // lo <= deficit <= hi: selected among, every interval
	clsAbove             // deficit > hi: a spare slot
	clsGroup             // share unclamped, in a weight class handled as a block (see group)
)

// completionSlack scales the bound on how far a job's exact completion
// quotient can drift from the estimate nextCompletion keeps (see there);
// the bound proper is about a quarter of it.
const completionSlack = 16

// planEvents is planMRv1 without a pass over every live job per interval
// for the shares, the rounding or the next completion; only the work done
// (one multiply-subtract per live job, the loop planRecompute has too)
// stays a pass. Between completions only the water level R moves, and a
// job's state in the rounding changes at values of R known in advance:
//
//   - its deficit w R - o (Slots's first key; o = floor(w R), clamped into
//     [Min, Max]) crosses the bounds lo and hi of a window of deficits at
//     R = (o+lo)/w and (o+hi)/w;
//   - below the window its slots are o, above it o+1, and the latter stay
//     o+1 when the floor steps up to o+1 (the deficit then below the
//     window) until the deficit reaches the window again at (o+1+lo)/w:
//     one look per slot gained, and no look at a floor step.
//
// Jobs above the window get a spare slot, jobs below get none, and the
// spare slots left go to the window's first jobs in Slots's order (exact
// keys, selected every interval, mostly among a narrow band around the
// last cut: selectWindow): the same allocation as Slots whenever the spare
// slots fall within the window, which the counts tell. Each job's next
// such R sits in a bucket queue (evQueue); an interval re-evaluates only
// the jobs whose R has passed, exactly, as the direct computation would.
// When the spare slots leave the window, or R goes down (the target
// shrank), every job is re-evaluated and the window re-centred on the cut
// (rebuild).
//
// The interval's length is the least remaining/slots. A job's quotient
// falls by the interval's length every interval while its slots stay, so
// its estimated completion time t + remaining/slots, taken when its slots
// last changed, holds up to the roundings of the work done since; a heap of
// the nearest estimates (the rest unordered behind a horizon) names the
// few jobs near the minimum, whose exact quotients decide
// (nextCompletion). The work pass is then one multiply-subtract per live
// job and nothing else, and the changes are listed from a bitset.
//
// The jobs of a weight that at least groupMin jobs share are selected
// among as one candidate while their shares are unclamped (their keys are
// then equal; see group): with every weight equal, as in Hadoop's default,
// they would otherwise all sit in the window, tied, every interval.
func planEvents(jobs []Job, total int, now float64) mps.Plan {
	return planEventsWith(jobs, total, now, 0, nearCompletions, groupMin)
}

// planEventsWith is planEvents with the estimates' error bound taken as
// slack relative to the times (0: the bound proper) and about near
// completion entries kept in the heap. Tests use a large slack, so that
// many jobs need their exact quotient every interval, and a small near, so
// that the estimates move in and out of the heap often (reheap); and with
// weight classes of at least minGroup jobs handled as blocks (a small
// value makes every repeated weight one).
func planEventsWith(jobs []Job, total int, now float64, slack float64, near, minGroup int) mps.Plan {
	n := len(jobs)
	p := mps.Plan{Completions: make([]float64, n), First: make([]int, n)}
	e := &evPlanner{
		jobs: jobs, total: total,
		alive: make([]bool, n),
		js:    make([]jobState, n),
		prev:  make([]int, n), dirty: make([]uint64, (n+63)/64), dirtyWords: make([]uint64, (n+4095)/4096),
		cver: make([]uint32, n), isPending: make([]bool, n),
		delta: 1.0 / 64, now: now, horizon: math.Inf(1), near: near,
	}
	// Over at most n intervals each estimate drifts from the exact quotient
	// by at most (2n+4) roundings of the times involved (see
	// nextCompletion); completionSlack times that leaves room to spare.
	e.relErr = completionSlack * 0x1p-53 * float64(2*n+4)
	if slack > 0 {
		e.relErr = slack
	}
	for j, job := range jobs {
		e.js[j] = jobState{w: job.Weight, lo: float64(job.Min), hi: float64(job.Max), winPos: -1}
		if job.Weight > 0 {
			e.js[j].iw = 1 / job.Weight // a look's level needs no division
		}
		if job.Work > 0 {
			e.alive[j] = true
			e.js[j].livePos = int32(len(e.live))
			e.live = append(e.live, int32(j))
			e.lrem = append(e.lrem, job.Work)
			e.lal = append(e.lal, 0)
			e.lest = append(e.lest, math.Inf(1))
			e.sumMax += job.Max
		} else {
			p.Completions[j] = now
		}
	}
	e.queue.init(n)
	e.wl = newWaterline(jobs, e.alive)
	e.rd = newRounding(jobs)
	for j := range e.js {
		e.js[j].rank = e.rd.rank[j]
	}
	e.makeGroups(minGroup)
	e.r = math.Inf(-1)

	t := now
	var gone []int32 // jobs that left since the last interval emitted
	for len(e.live) > 0 {
		r := e.wl.solve(nil, total)
		e.advance(r)

		dt, cands := e.nextCompletion(t)
		if math.IsInf(dt, 1) || dt != dt {
			for _, j := range e.live {
				p.Completions[j] = math.Inf(1)
			}
			break
		}
		end := t + dt
		if !(end > t) {
			for _, j := range cands {
				p.Completions[j] = t
				e.leave(j)
				gone = append(gone, j)
			}
			continue
		}

		// The interval's changes: the jobs touched since the last interval
		// emitted and those that left, in ascending order as
		// planRecompute lists them.
		// A bitset over the job indexes lists them in order without a sort
		// (sorting the touched jobs was a tenth of the plan at J = 10,000),
		// and a second one names the words of the first that are not zero
		// (a third of them at J = 10,000: testing each for zero was a guess
		// the branch predictor often missed).
		iv := mps.Interval{Start: t, End: end}
		first := len(e.slab)
		for _, j := range gone {
			e.touch(j)
		}
		for ui, used := range e.dirtyWords {
			e.dirtyWords[ui] = 0
			for ; used != 0; used &= used - 1 {
				wi := ui<<6 | bits.TrailingZeros64(used)
				word := e.dirty[wi]
				e.dirty[wi] = 0
				for ; word != 0; word &= word - 1 {
					j := int32(wi<<6 | bits.TrailingZeros64(word))
					cur := 0
					if e.alive[j] {
						cur = e.js[j].al
					}
					if cur != e.prev[j] {
						if len(e.slab) == cap(e.slab) {
							// A new chunk, this interval's changes so far moved
							// into it: no copying of the earlier intervals'
							// (growing one slab by doubling was a tenth of the
							// plan at J = 10,000, half a million changes).
							chunk := make([]mps.Change, len(e.slab)-first, max(1<<15, 2*n))
							copy(chunk, e.slab[first:])
							e.slab, first = chunk, 0
						}
						e.slab = append(e.slab, mps.Change{Job: int(j), Slots: cur})
						e.prev[j] = cur
					}
				}
			}
		}
		if len(e.slab) > first {
			iv.Changes = e.slab[first:len(e.slab):len(e.slab)]
		}
		if len(p.Intervals) == 0 {
			copy(p.First, e.prev)
		}
		p.Intervals = append(p.Intervals, iv)
		gone = gone[:0]

		for _, j := range cands {
			p.Completions[j] = end
			e.leave(j)
			gone = append(gone, j)
		}
		e.work(dt)
		t = end
	}
	return p
}

// evPlanner is planEvents's state; see there.
type evPlanner struct {
	jobs  []Job
	total int
	wl    *waterline
	rd    *rounding

	alive []bool
	live  []int32 // the live jobs, in no order
	// lrem and lal are the live jobs' remaining work and slots, in the
	// order of live, for the work pass.
	lrem, lal []float64
	sumMax    int // sum of the live jobs' Max

	r     float64    // the water level the state is for
	js    []jobState // per job
	sumO  int        // sum of o over the live jobs
	above int        // live jobs in clsAbove
	elig  int        // live jobs not in clsCapped
	gmem  int        // live jobs in clsGroup

	// The weight classes handled as blocks (nil without any): groupOf and
	// gpos give a job's class (-1: none) and its index in the class.
	groups  []group
	groupOf []int32
	gpos    []int32

	lo, hi, delta float64 // the window of deficits and its half width
	// The deficits up to which a job's class lasts (see look): above
	// the window 1+max(lo, 0), in it min(hi, 1), below it min(lo, 1).
	nextAbove, nextWin, nextBelow float64
	theta, beta                   float64 // the band selectWindow selects in: centre, half width
	dwin                          []float64
	band                          []int32
	fix                           []int32 // window positions whose slots selectWindow may change
	win                           []int32 // the jobs in clsWindow
	winJob                        []winJob
	sinceRebuild                  int

	queue evQueue
	buf   []int32

	dirty      []uint64 // bitset of the jobs whose slots may have changed since the last interval emitted
	dirtyWords []uint64 // bitset of dirty's words that are not zero
	prev       []int    // slots in the last interval emitted
	slab       []mps.Change
	cand       []candidate

	// The next completion (see nextCompletion): each live job's estimated
	// completion time (lest, in the order of live; +Inf without slots),
	// those at or below horizon also in a heap, lazily deleted (an entry is
	// current while its version is the job's cver), and the jobs whose
	// slots changed since their estimate was made.
	lest      []float64
	comp      compHeap
	cver      []uint32
	pending   []int32
	isPending []bool
	cbuf      []compEntry
	horizon   float64
	sample    []float64
	near      int // nearCompletions, or a test's value

	relErr float64
	now    float64
}

func (e *evPlanner) touch(j int32) {
	e.dirty[j>>6] |= 1 << (j & 63)
	e.dirtyWords[j>>12] |= 1 << (j >> 6 & 63)
}

// jobState is what planEvents reads and writes of a job when it is looked
// at, in one cache line: spread over a dozen arrays, a look missed the
// cache once per array (most of the looks' time at J = 10,000).
type jobState struct {
	w, lo, hi, iw float64 // Weight, Min, Max, 1/Weight (0 if Weight is 0)
	o             int     // floored share, clamped into [Min, Max]
	al            int     // slots: o plus a spare slot or not
	winPos        int32   // position in win, -1 if not in the window
	livePos       int32   // position in live
	rank          int32   // Slots's last keys (rounding.rank)
	cls           int8
}

// look sets job j's floored share, class and next event at water level r,
// exactly as the direct computation sees it (shareMRv1 as fastShare, and
// floorSlots as in rounding.round), and moves its counts from its last
// class (clsNone: not counted) to the new one. Most looks move a job from
// the window to above it or back, so only what differs is updated (taking
// the job's counts out and putting them back whole cost a tenth more
// instructions per look, and a fifth more mispredicted branches).
func (e *evPlanner) look(j int32, r float64) {
	js := &e.js[j]
	w, mn, mx := js.w, js.lo, js.hi
	s := fastShare(w, r, mn, mx)
	o := int(s)
	d := s - float64(o)
	var c int8
	var next float64 // the deficit (or the floor) the job's state lasts until
	grouped := e.groupOf != nil && e.groupOf[j] >= 0
	switch {
	case float64(o) >= mx:
		c, next = clsCapped, math.Inf(1)
	case grouped && s == float64(w*r):
		// Its class decides its slots, every member's the same way; it
		// leaves the class when its share reaches Max (capped), and R
		// does not go down between rebuilds, so that is its next look.
		c, next = clsGroup, mx-float64(o)
	case d > e.hi:
		// It holds one slot more than its floor, and keeps that number when
		// the floor steps up (its deficit then below the window) until the
		// deficit enters the window again, or for good if that slot is its
		// cap: one look per slot gained instead of two (a third of the
		// looks at J = 10,000). Past the floor step o and the class are
		// those of the last look; the counts advance uses (sumO + above)
		// are unchanged by the step.
		c, next = clsAbove, e.nextAbove
		if float64(o+1) >= mx {
			next = math.Inf(1)
		}
	case d >= e.lo:
		c, next = clsWindow, e.nextWin
	default:
		c, next = clsBelow, e.nextBelow
	}
	old, oldO := js.cls, js.o
	js.o, js.cls = o, c
	e.sumO += counted(o, c) - counted(oldO, old)
	switch {
	case c != old:
		e.leaveClass(j, old)
		switch c {
		case clsAbove:
			e.above++
		case clsGroup:
			e.groupAdd(j)
		case clsWindow:
			js.winPos = int32(len(e.win))
			e.win = append(e.win, j)
			e.winJob = append(e.winJob, winJob{w: w, lo: mn, hi: mx, al: js.al, rank: js.rank})
			e.winJob[js.winPos].setFloor(o)
		}
		e.elig += b2i(c > clsCapped) - b2i(old > clsCapped) // clsNone is below clsCapped
	case c == clsWindow && o != oldO:
		e.winJob[js.winPos].setFloor(o)
	}
	// The state holds while w R - o stays below next: until R reaches
	// (o+next)/w, taken a hair early (1e-12, far above the roundings) so
	// that the float deficit cannot cross first. At or past r, the job is
	// looked at again at the next interval.
	at := math.Inf(1)
	if w > 0 && !math.IsInf(next, 1) {
		at = (float64(o) + next) * js.iw * (1 - 1e-12)
		if grouped && c != clsGroup && c != clsCapped {
			// Held at its minimum (its share clamped): it joins its
			// class when w R reaches Min.
			at = min(at, mn*js.iw*(1-1e-12))
		}
		if !(at > r) {
			at = math.Nextafter(r, math.Inf(1))
		}
	}
	e.queue.insert(j, at)
}

// counted is what a job of class c with floor o adds to sumO: a class's
// members are counted by the class (advance).
func counted(o int, c int8) int {
	return o * b2i(c != clsGroup)
}

// setFloor sets a window job's floored share o and what derives from it.
func (wj *winJob) setFloor(o int) {
	wj.o, wj.oi = float64(o), o
	wj.perWeight = math.Inf(1)
	if wj.w > 0 {
		wj.perWeight = float64(o) / wj.w
	}
}

// leaveWindow takes a job out of the window (swapping the last one into
// its place).
func (e *evPlanner) leaveWindow(js *jobState) {
	k := js.winPos
	n := len(e.win) - 1
	last := e.win[n]
	e.win[k], e.winJob[k] = last, e.winJob[n]
	e.js[last].winPos = k
	e.win, e.winJob = e.win[:n], e.winJob[:n]
	js.winPos = -1
}

// leaveClass takes job j out of class c's count or list (the window, its
// weight class); sumO and elig are the callers'.
func (e *evPlanner) leaveClass(j int32, c int8) {
	switch c {
	case clsAbove:
		e.above--
	case clsWindow:
		e.leaveWindow(&e.js[j])
	case clsGroup:
		e.groupRemove(j)
	}
}

// forget takes job j's counts out (when it leaves).
func (e *evPlanner) forget(j int32) {
	js := &e.js[j]
	e.sumO -= counted(js.o, js.cls)
	e.leaveClass(j, js.cls)
	if js.cls != clsCapped {
		e.elig--
	}
}

// advance brings the allocation to water level r.
func (e *evPlanner) advance(r float64) {
	e.sinceRebuild++
	if r < e.r || e.r == math.Inf(-1) {
		e.rebuild(r)
		return
	}
	e.r = r
	// Jobs whose state may have changed are looked at again, in any order:
	// each evaluation depends on the job and r alone, and the counts are
	// sums. look schedules the next one strictly after r.
	e.queue.due(r, func(j int32) {
		if !e.alive[j] {
			return
		}
		e.look(j, r)
		e.setSlots(j)
	})
	// The spare slots left for the window: the target less every job's
	// floor and the slots above the window. Outside [0, len(win)] the cut
	// has left the window, or Slots's heap is needed (floors above the
	// target, more spare slots than eligible jobs: then k is below 0 or
	// above the window and below jobs too); rebuild decides which, with
	// every job's state afresh.
	target := max(min(e.total, e.sumMax), 0)
	k := target - e.sumO - e.above
	cands := len(e.win)
	for gi := range e.groups {
		// A class's members share their keys (the same w R, unclamped),
		// so the class's floor and deficit are computed once.
		g := &e.groups[gi]
		if g.n == 0 {
			continue
		}
		s := float64(g.w * r)
		g.o = int(s)
		g.d, g.pw = s-float64(g.o), float64(g.o)/g.w
		k -= g.n * g.o
		cands += g.n
	}
	if k < 0 || k > cands {
		e.rebuild(r)
		return
	}
	e.selectWindow(r, k)
}

// setSlots sets a job's slots from its class (window jobs: selectWindow).
func (e *evPlanner) setSlots(j int32) {
	js := &e.js[j]
	a := js.o
	if js.cls == clsAbove {
		a++
	}
	if js.cls != clsWindow && js.cls != clsGroup {
		e.setAl(j, a)
	}
}

// selectWindow hands k spare slots to the window's first jobs in Slots's
// order, with their exact keys at r.
//
// The window holds some 150 jobs at J = 10,000, and building every one's
// keys and selecting among them each interval was a quarter of the plan.
// The cut moves little between intervals, so only a band of deficits
// around the last one, [theta - beta, theta + beta], is selected among:
// every job above the band precedes every job in it in Slots's order (the
// deficit is its first key), and those in turn precede the jobs below, so
// when the k-th job falls in the band the jobs above it and the band's
// first ones are exactly Slots's first k. Otherwise the jobs above the
// band, or below it, are selected among, and the band widened.
func (e *evPlanner) selectWindow(r float64, k int) {
	n := len(e.winJob)
	d := grow(e.dwin, n)
	band, fix := grow(e.band, n), grow(e.fix, n)
	lo, hi := e.theta-e.beta, e.theta+e.beta
	above, nb, nf := 0, 0, 0
	for i := range e.winJob {
		// The share (fastShare) minus the floor.
		wj := &e.winJob[i] // not a copy: this loop runs some 1.5 million times
		x := fastShare(wj.w, r, wj.lo, wj.hi) - wj.o
		d[i] = x
		// Whether x is above the band or in it is a coin toss for the
		// branch predictor (a third of its guesses here were wrong), so
		// both are counted without a branch: each position is written
		// and kept only if it belongs.
		up, in := b2i(x > hi), b2i(x >= lo)&b2i(x <= hi)
		above += up
		band[nb] = int32(i)
		nb += in
		// The slots of the jobs outside the band are known here when the
		// k-th job falls in the band (most intervals): those whose slots
		// differ from them are listed (fix), so that no second pass over
		// the window is needed then.
		fix[nf] = int32(i)
		nf += b2i(wj.al != wj.oi+up) &^ in
	}
	band, fix = band[:nb], fix[:nf]
	e.dwin, e.band, e.fix = d, band, fix
	// The classes count as their members: those above the band precede it,
	// and so on.
	gAbove, gBand := 0, 0
	for gi := range e.groups {
		g := &e.groups[gi]
		switch {
		case g.n == 0:
		case g.d > hi:
			gAbove += g.n
		case g.d >= lo:
			gBand += g.n
		}
	}
	above += gAbove
	// The candidates are the jobs with deficits in [cLo, cHi]; of the
	// others, those above cHi get a slot and those below none.
	cand := e.cand[:0]
	var cLo, cHi float64
	inBand := above <= k && k <= above+len(band)+gBand
	switch {
	case inBand:
		cLo, cHi = lo, hi
		for _, i := range band {
			cand = append(cand, e.windowCandidate(d[i], i))
		}
		k -= above
		e.beta = max(e.beta*0.95, 1.0/(1<<20))
	case k < above: // the k-th is above the band: select among those
		cLo, cHi = math.Nextafter(hi, math.Inf(1)), math.Inf(1)
		for i, x := range d {
			if x > hi {
				cand = append(cand, e.windowCandidate(x, int32(i)))
			}
		}
		e.beta = min(e.beta*2, 1)
	default: // below the band: those above it and in it all get a slot
		cLo, cHi = math.Inf(-1), math.Nextafter(lo, math.Inf(-1))
		for i, x := range d {
			if x < lo {
				cand = append(cand, e.windowCandidate(x, int32(i)))
			}
		}
		k -= above + len(band) + gBand
		e.beta = min(e.beta*2, 1)
	}
	// The first split candidates get a slot each (a class's every member),
	// and, when partial > 0, the class cand[split] that many of its members.
	split, partial := k, 0
	if e.groups == nil {
		selectFirst(cand, k)
	} else {
		cand = e.groupCandidates(cand, cLo, cHi)
		split, partial = e.selectUnits(cand, k)
		if !e.groupsHold(cand, split, partial) {
			e.cand = cand
			e.rebuild(r)
			return
		}
	}
	e.cand = cand
	// The next band's centre: the least deficit that got a slot here, or
	// the largest that did not.
	switch sel := split + b2i(partial > 0); {
	case sel > 0:
		e.theta = cand[0].deficit
		for _, c := range cand[:sel] {
			e.theta = min(e.theta, c.deficit)
		}
	case len(cand) > 0:
		e.theta = cand[0].deficit
		for _, c := range cand {
			e.theta = max(e.theta, c.deficit)
		}
	}
	// The slots: a job's own state is read only when they change.
	if inBand {
		for _, i := range fix {
			a := e.winJob[i].oi
			if d[i] > cHi {
				a++
			}
			e.setAl(e.win[i], a)
		}
	} else {
		for i := range e.winJob {
			x := d[i]
			if x >= cLo && x <= cHi {
				continue // a candidate: below
			}
			a := e.winJob[i].oi
			if x > cHi {
				a++
			}
			if a != e.winJob[i].al {
				e.setAl(e.win[i], a)
			}
		}
	}
	for n, c := range cand {
		if c.k < 0 {
			continue // a class: applyGroups
		}
		a := e.winJob[c.k].oi
		if n < split {
			a++
		}
		if a != e.winJob[c.k].al {
			e.setAl(e.win[c.k], a)
		}
	}
	if e.groups != nil {
		e.applyGroups()
	}
}

// b2i is 1 for true and 0 for false, without a branch.
func b2i(b bool) int {
	var i int
	if b {
		i = 1
	}
	return i
}

// winJob is what selectWindow needs of a window job, kept beside win so
// that its pass over the window, and the candidates' keys, read memory in
// order (reading the per-job arrays at the window's scattered indexes was
// most of its time).
type winJob struct {
	w, lo, hi, o float64
	al           int     // the job's slots (setAl keeps it)
	oi           int     // o as an int
	perWeight    float64 // o / w, Slots's second key (+Inf for weight 0)
	rank         int32   // Slots's last keys (rounding.rank)
}

// windowCandidate is the keys of the window's job at position pos, at
// deficit x; its k is that position.
func (e *evPlanner) windowCandidate(x float64, pos int32) candidate {
	wj := &e.winJob[pos]
	return candidate{x, wj.perWeight, wj.rank, pos}
}

// rebuild re-evaluates every live job at r, selects the spare slots among
// all of them (as rounding.round's full path) and centres the window on
// the cut.
func (e *evPlanner) rebuild(r float64) {
	// The window's width trades the pass over its jobs every interval
	// against these rebuilds (every job): aim at some 2 x half jobs in it,
	// the deficits being spread over [0, 1), and widen it while rebuilds
	// come often (the cut wanders). Rebuilds cost more the more jobs there
	// are, so the window is wider past 3,000 jobs. Measured in instructions
	// (cachegrind) per plan of solvertest.Large's shape: half = 96 is best at
	// J = 1,000 (128: 9% more), 128 at 10,000 (48, 64, 96, 160, 200, 256:
	// 1.07G, 0.98G, 0.95G, 0.93G, 0.96G, 0.99G against 0.92G).
	half := 96.0
	if len(e.live) > 3000 {
		half = 128
	}
	switch {
	case e.r == math.Inf(-1): // the first
		e.delta = math.Max(half/float64(max(len(e.live), 1)), 1.0/4096)
	case e.sinceRebuild < 16:
		e.delta = math.Min(e.delta*2, 1)
	default:
		// A class's members are not in the window: it is for the others.
		e.delta = math.Max(half/float64(max(e.elig-e.gmem, 1)), 1.0/4096)
	}
	e.sinceRebuild = 0
	e.r = r
	e.win, e.winJob = e.win[:0], e.winJob[:0]
	e.sumO, e.above, e.elig = 0, 0, 0
	// First the floors, with the window open wide, to find the cut.
	e.lo, e.hi = math.Inf(1), math.Inf(1) // everyone eligible is "below"
	cand := e.cand[:0]
	for _, j := range e.live {
		e.js[j].winPos = -1
		w, mn, mx := e.js[j].w, e.js[j].lo, e.js[j].hi
		s := fastShare(w, r, mn, mx)
		o := int(s)
		e.js[j].o = o
		e.sumO += o
		if float64(o) < mx {
			pw := math.Inf(1)
			if w > 0 {
				pw = float64(o) / w
			}
			cand = append(cand, candidate{s - float64(o), pw, e.rd.rank[j], j})
		}
	}
	e.cand = cand
	target := max(min(e.total, e.sumMax), 0)
	spare := target - e.sumO
	if spare < 0 || spare > len(cand) {
		// Slots's heap decides; the window is centred anywhere.
		e.setWindow(0.5-e.delta, 0.5+e.delta)
		e.evaluateAll(r)
		e.heapRound(r)
		return
	}
	selectFirst(cand, spare)
	cut := 1.0
	for _, c := range cand[:spare] {
		cut = math.Min(cut, c.deficit)
	}
	if spare == 0 {
		cut = math.Inf(-1)
		for _, c := range cand {
			cut = math.Max(cut, c.deficit)
		}
		cut = math.Min(cut+e.delta/2, 1) // the window just above the largest deficit
	}
	// Selected jobs have deficits >= cut >= lo, the others <= cut <= hi:
	// the window holds the boundary, so the classes agree with the
	// selection just made.
	e.setWindow(cut-e.delta, cut+e.delta)
	e.theta, e.beta = cut, e.delta/4
	e.evaluateAll(r)
	for _, c := range cand[:spare] {
		e.setAl(c.k, e.js[c.k].o+1)
	}
	for _, c := range cand[spare:] {
		e.setAl(c.k, e.js[c.k].o)
	}
	for _, j := range e.live {
		if e.js[j].cls == clsCapped {
			e.setAl(j, e.js[j].o)
		}
		e.touch(j)
	}
}

// setWindow sets the window of deficits and what look derives from it.
func (e *evPlanner) setWindow(lo, hi float64) {
	e.lo, e.hi = lo, hi
	e.nextAbove, e.nextWin, e.nextBelow = 1+max(lo, 0), math.Min(hi, 1), math.Min(lo, 1)
}

// evaluateAll evaluates every live job afresh (counts from zero) and
// queues their next looks afresh.
func (e *evPlanner) evaluateAll(r float64) {
	e.sumO = 0
	e.queue.reset(r)
	e.resetGroups()
	for _, j := range e.live {
		e.js[j].cls, e.js[j].o = clsNone, 0
		e.look(j, r)
	}
}

// heapRound allocates by Slots itself (rounder.round over the live jobs in
// index order): more spare slots than eligible jobs, or floors above the
// target. The classes stay as they are; only the slots change.
func (e *evPlanner) heapRound(r float64) {
	order := make([]int, len(e.live))
	for i, j := range e.live {
		order[i] = int(j)
	}
	slices.Sort(order)
	sh := make([]float64, len(order))
	sub := make([]Job, len(order))
	al := make([]int, len(order))
	for k, j := range order {
		job := &e.jobs[j]
		sh[k] = shareMRv1(job.Weight, job.Min, job.Max, r)
		sub[k] = *job
	}
	e.rd.r.round(al, sh, sub, e.total)
	for k, j := range order {
		e.setAl(int32(j), al[k])
		e.touch(int32(j))
	}
}

// nextCompletion is the interval's length dt (planRecompute's least
// remaining/slots, exactly) and the jobs within dt (1 +
// CompletionTolerance) of it, who complete with the interval, in
// ascending order; t is the interval's start.
//
// Each live job with slots has an entry C = t0 + remaining/slots made at
// the start t0 of the first interval with its current slots. After N more
// intervals with those slots, remaining/slots differs from C - t by at most
// the roundings of the quotient and of C (u (q0 + |C|), u = 2^-53), of the
// N updates of remaining (each at most u times the product and u times the
// result, both below the remaining work at t0: u (N+1) q0) and of the N
// additions that advanced the clock (u max |t| each); with q0 <= |C| +
// max |t| and max |t| <= |now| + |t|, that is at most u (2N+4) (|C| + |now|
// + |t|), and N is below the number of jobs. So every job whose estimate
// is above the least estimate plus twice that bound, stretched by the
// tolerance, neither ends the interval nor completes with it: only the
// entries up to there are looked at, with the exact quotient planRecompute
// computes.
func (e *evPlanner) nextCompletion(t float64) (dt float64, done []int32) {
	h := &e.comp
	if len(e.pending) > len(e.live)/2 {
		// Most slots changed (a rebuild): make the estimates afresh.
		for k, j := range e.live {
			e.isPending[j] = false
			e.cver[j]++
			e.lest[k] = math.Inf(1)
			if a := e.js[j].al; a > 0 {
				e.lest[k] = t + e.lrem[k]/float64(a)
			}
		}
		e.reheap(math.Inf(-1))
	} else {
		for _, j := range e.pending {
			e.isPending[j] = false
			if !e.alive[j] {
				continue
			}
			e.cver[j]++
			k := e.js[j].livePos
			e.lest[k] = math.Inf(1)
			if a := e.js[j].al; a > 0 {
				c := t + e.lrem[k]/float64(a)
				e.lest[k] = c
				if c <= e.horizon {
					h.push(compEntry{c, j, e.cver[j]})
				}
			}
		}
	}
	e.pending = e.pending[:0]
	for len(h.xs) > 0 && e.stale(h.xs[0]) {
		h.pop()
	}
	if len(h.xs) == 0 || len(h.xs) > 4*e.near+64 {
		// The horizon's entries are used up, or the heap holds mostly
		// stale ones: sifting past them costs more than making it anew.
		e.reheap(math.Inf(-1))
	}
	e.buf = e.buf[:0]
	if len(h.xs) == 0 {
		return math.Inf(1), e.buf // no live job has slots
	}
	least := h.xs[0].c // the heap's entries are at or below the horizon, the others above
	bound := e.relErr * (math.Abs(least) + math.Abs(e.now) + math.Abs(t) + 1)
	// The exact dt is at most least - t + bound; a job whose estimate is
	// above lim has an exact quotient above dt (1 + CompletionTolerance).
	lim := t + ((least-t+bound)*(1+CompletionTolerance) + bound)
	lim += e.relErr * math.Abs(lim) // lim's own roundings
	if lim > e.horizon {
		e.reheap(lim) // every entry up to lim into the heap
	}
	e.cbuf = e.cbuf[:0]
	for len(h.xs) > 0 && h.xs[0].c <= lim {
		if x := h.pop(); !e.stale(x) {
			e.cbuf = append(e.cbuf, x)
		}
	}
	dt = math.Inf(1)
	for _, x := range e.cbuf {
		dt = min(dt, e.lrem[e.js[x.j].livePos]/float64(e.js[x.j].al))
	}
	cut := dt * (1 + CompletionTolerance)
	for _, x := range e.cbuf {
		if e.lrem[e.js[x.j].livePos]/float64(e.js[x.j].al) <= cut {
			e.buf = append(e.buf, x.j)
		} else {
			h.push(x)
		}
	}
	slices.Sort(e.buf)
	return dt, e.buf
}

// stale reports whether a completion entry is out of date: its job left,
// or its slots changed since it was made.
func (e *evPlanner) stale(x compEntry) bool { return !e.alive[x.j] || x.ver != e.cver[x.j] }

// nearCompletions is about how many completion estimates reheap puts in
// the heap; the others wait in lest.
const nearCompletions = 256

// reheap makes the heap anew from the live jobs' estimates: those at or
// below a new horizon, about the nearCompletions smallest (from a sample)
// and at least every one up to atLeast. Only the next completions are ever
// asked for, so an estimate far in the future costs a store instead of a
// heap sift until the horizon passes it (the sifts of the half million
// estimates made at J = 10,000 were a seventh of the plan). The estimates
// above the horizon are kept by live position, not listed: the list of
// them this replaced gathered an entry per slot change, which reheap had
// to sift for the current ones.
func (e *evPlanner) reheap(atLeast float64) {
	e.comp.xs = e.comp.xs[:0]
	e.horizon = math.Inf(1)
	if len(e.lest) > 2*e.near {
		step := max(len(e.lest)/64, 1)
		sample := e.sample[:0]
		for i := 0; i < len(e.lest); i += step {
			sample = append(sample, e.lest[i])
		}
		slices.Sort(sample)
		e.sample = sample
		e.horizon = max(sample[e.near*len(sample)/len(e.lest)], atLeast)
	}
	for k, c := range e.lest {
		if c <= e.horizon {
			j := e.live[k]
			e.comp.xs = append(e.comp.xs, compEntry{c, j, e.cver[j]})
		}
	}
	e.comp.heapify()
}

// leave takes job j out: it completed.
func (e *evPlanner) leave(j int32) {
	e.forget(j)
	e.alive[j] = false
	e.sumMax -= e.jobs[j].Max
	e.wl.remove(int(j))
	k := e.js[j].livePos
	n := len(e.live) - 1
	last := e.live[n]
	e.live[k], e.lrem[k], e.lal[k], e.lest[k] = last, e.lrem[n], e.lal[n], e.lest[n]
	e.js[last].livePos = k
	e.live, e.lrem, e.lal, e.lest = e.live[:n], e.lrem[:n], e.lal[:n], e.lest[:n]
}

// setAl sets job j's slots (and queues a new completion estimate when
// they change).
func (e *evPlanner) setAl(j int32, a int) {
	js := &e.js[j]
	if a != js.al {
		// Only a change is listed (touch) and needs a new completion
		// estimate; a look that leaves the slots as they were costs neither.
		e.touch(j)
		if !e.isPending[j] {
			e.isPending[j] = true
			e.pending = append(e.pending, j)
		}
	}
	js.al = a
	e.lal[js.livePos] = float64(a)
	if wp := js.winPos; wp >= 0 {
		e.winJob[wp].al = a
	}
}

// work does dt seconds of every live job's work: planRecompute's
// remaining[j] -= slots*dt, the same operations, and nothing else (the
// quadratic part of the plan: a multiply and a subtract per live job per
// interval; subScaled).
func (e *evPlanner) work(dt float64) {
	subScaled(e.lrem, e.lal[:len(e.lrem)], dt)
}

// subScaled does rem[k] -= a[k] * dt for every k < len(rem) (a must be at
// least as long), unrolled by four. Each element is rounded as
// planRecompute's expression rounds it (no fused multiply-add on the
// default GOAMD64). SSE2 and AVX assembly for it measured 0 to 12% faster
// on the whole plan (J = 1,000 and 10,000, neither under its bar with or
// without it) and was left out: not worth 120 lines of assembly and a
// CPUID check.
func subScaled(rem, a []float64, dt float64) {
	a = a[:len(rem)]
	n := len(rem) &^ 3
	for k := 0; k < n; k += 4 {
		r, s := rem[k:k+4:k+4], a[k:k+4:k+4]
		r[0] -= s[0] * dt
		r[1] -= s[1] * dt
		r[2] -= s[2] * dt
		r[3] -= s[3] * dt
	}
	for k := n; k < len(rem); k++ {
		rem[k] -= a[k] * dt
	}
}

// evQueue holds the jobs' next looks by water level: a monotone bucket
// queue (a calendar) instead of a heap, because advance only ever asks for
// every entry at or below a level that does not go down between resets,
// and in no particular order. A positive float64's bits are monotone in
// its value, so its top bits name a bucket of relative width 2^-14; a
// window of evBuckets of them (a quarter of a binade) from base on is kept,
// the entries beyond it in a far list, moved in when the window is moved
// past it. A job has at most one entry, so the lists are threaded through
// per-job arrays: no allocation and no pointers for the collector. Before,
// a binary heap's sift per event was a fifth of the plan at J = 10,000
// (some 1.3 million events).
type evQueue struct {
	ent  []evEntry // per job
	gen  uint32
	head []int32 // per bucket: its list's first job, -1 if empty
	far  int32   // the list of entries beyond the window
	base uint64  // bucket key of head[0]
	cur  uint64  // buckets below cur are empty
	top  int     // head[top:] are empty
}

// evEntry is a job's entry in evQueue, its fields together so that a look
// reads one cache line of the queue's, not three.
type evEntry struct {
	at     float64 // the level of its entry
	next   int32   // the next job in its list, -1 at the end
	queued uint32  // gen while it has an entry
}

const (
	evShift   = 52 - 14 // mantissa bits dropped: buckets 2^-14 wide, relatively
	evBuckets = 1 << 12
)

func evKey(at float64) uint64 { return math.Float64bits(at) >> evShift }

func (q *evQueue) init(n int) {
	q.ent = make([]evEntry, n)
	q.head = make([]int32, evBuckets)
	for i := range q.head {
		q.head[i] = -1
	}
	q.far = -1
}

// reset empties the queue; the levels asked for from now on are >= r >= 0.
func (q *evQueue) reset(r float64) {
	for i := range q.head[:q.top] {
		q.head[i] = -1
	}
	q.far = -1
	q.gen++
	q.base, q.cur, q.top = evKey(max(r, 0)), evKey(max(r, 0)), 0
}

// insert queues job j's next look at level at, which must be above the
// last level due was asked for (+Inf: never due, not kept). A job must not
// be queued twice (a programmer error: its list would be corrupted).
func (q *evQueue) insert(j int32, at float64) {
	en := &q.ent[j]
	if en.queued == q.gen {
		panic("fairshare: a job queued twice")
	}
	if math.IsInf(at, 1) {
		return
	}
	en.queued = q.gen
	en.at = at
	k := evKey(at)
	if k >= q.base+evBuckets {
		en.next = q.far
		q.far = j
		return
	}
	i := int(max(k, q.cur) - q.base)
	en.next = q.head[i]
	q.head[i] = j
	q.top = max(q.top, i+1)
}

// due removes every entry at or below r and calls f on its job, in no
// particular order; f may insert entries above r.
func (q *evQueue) due(r float64, f func(int32)) {
	kr := evKey(r)
	if kr < q.cur {
		return // every entry is above the last level asked for, so above r
	}
	for kr >= q.base+evBuckets {
		// Everything in the window is due: drain it, then move the window
		// to r and the far entries into it (those at or below r into r's
		// bucket).
		for i := int(q.cur - q.base); i < q.top; i++ {
			j := q.head[i]
			q.head[i] = -1
			for j >= 0 {
				nx := q.ent[j].next
				q.ent[j].queued = 0
				f(j) // its insertions are beyond the window: far
				j = nx
			}
		}
		j := q.far
		q.far = -1
		q.base, q.cur, q.top = kr, kr, 0
		for j >= 0 {
			nx := q.ent[j].next
			q.ent[j].queued = 0
			q.insert(j, q.ent[j].at)
			j = nx
		}
	}
	end := int(kr - q.base)
	for i := int(q.cur - q.base); i <= end && i < q.top; i++ {
		j := q.head[i]
		if j < 0 {
			continue
		}
		q.head[i] = -1
		for j >= 0 {
			nx := q.ent[j].next
			if i < end || q.ent[j].at <= r {
				q.ent[j].queued = 0
				f(j)
			} else { // r's own bucket: keep what is above r
				q.ent[j].next = q.head[i]
				q.head[i] = j
			}
			j = nx
		}
	}
	q.cur = kr
}

// compEntry is a job's estimated completion time c (see nextCompletion).
type compEntry struct {
	c   float64
	j   int32
	ver uint32
}

// compHeap is a binary min-heap of compEntry by c.
type compHeap struct{ xs []compEntry }

func (h *compHeap) push(x compEntry) {
	h.xs = append(h.xs, x)
	i := len(h.xs) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !(h.xs[i].c < h.xs[p].c) {
			break
		}
		h.xs[i], h.xs[p] = h.xs[p], h.xs[i]
		i = p
	}
}

func (h *compHeap) pop() compEntry {
	x := h.xs[0]
	last := len(h.xs) - 1
	h.xs[0] = h.xs[last]
	h.xs = h.xs[:last]
	h.down(0)
	return x
}

func (h *compHeap) heapify() {
	for i := len(h.xs)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *compHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h.xs) {
			return
		}
		c := l
		if r := l + 1; r < len(h.xs) && h.xs[r].c < h.xs[l].c {
			c = r
		}
		if !(h.xs[c].c < h.xs[i].c) {
			return
		}
		h.xs[i], h.xs[c] = h.xs[c], h.xs[i]
		i = c
	}
}
