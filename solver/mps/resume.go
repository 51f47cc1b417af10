package mps

import "fmt"

// Prefix reuse (issue: FLEX at the sizes real clusters run). A local search
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
	p.recording = true
	defer func() { p.recording = false }()
	p.run(p.boundIn, p.recOrder, out, nil) // prepare checks that order is a permutation
}

// Resume is BoundCompletions for an order whose first k jobs are those of
// the last Record's order, reusing that run up to the last snapshot whose
// state the new order shares. It panics if there was no Record since the
// last Bind, or if the prefixes differ.
func (p *Packer) Resume(order []int, k int, out []float64) {
	if !p.bound || len(p.recOrder) == 0 {
		panic("mps: Resume without Record")
	}
	n := len(p.recOrder)
	if len(order) != n || len(out) != n {
		panic(fmt.Sprintf("mps: Resume: len(order) = %d, len(out) = %d, want %d", len(order), len(out), n))
	}
	if k < 0 || k > n {
		panic(fmt.Sprintf("mps: Resume: prefix %d out of [0, %d]", k, n))
	}
	for x := range k {
		if order[x] != p.recOrder[x] {
			panic(fmt.Sprintf("mps: Resume: order[%d] = %d differs from the recorded order within the prefix %d", x, order[x], k))
		}
	}
	// The latest snapshot valid for prefix k: need only grows along a run.
	c := -1
	for x := p.ncp - 1; x >= 0; x-- {
		if p.cps[x].need <= k {
			c = x
			break
		}
	}
	if c < 0 {
		p.BoundCompletions(order, out)
		return
	}
	cp := &p.cps[c]
	in := p.boundIn
	p.rec = false
	p.jobs = append(p.jobs[:0], cp.jobs...)
	p.heap = append(p.heap[:0], cp.heap...)
	// The suffix's positions change; a permutation of the rest is checked
	// as BoundCompletions would.
	for x := k; x < n; x++ {
		p.jobs[order[x]].pos = -1
	}
	for x := k; x < n; x++ {
		j := order[x]
		if j < 0 || j >= n || p.jobs[j].pos >= 0 {
			panic(fmt.Sprintf("mps: order is not a permutation of 0..%d (order[%d] = %d)", n-1, x, j))
		}
		p.jobs[j].pos = int32(x)
	}
	// Heap entries of suffix jobs keep their old positions as tie-breakers.
	// Only jobs completing within CompletionTolerance of each other can tie,
	// and those complete together in one event whatever their order.
	for j := range p.jobs {
		if js := &p.jobs[j]; !js.live {
			out[j] = in.Now + js.tUpd
		}
	}
	p.in, p.order = in, order
	p.ptr, p.slack, p.used = cp.ptr, cp.slack, cp.used
	p.loop(out, nil, cp.live, cp.t, cp.t)
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
		if j := p.order[p.ptr]; p.jobs[j].cur > p.in.Min[j] {
			cp.need = p.ptr + 1
		}
	}
	cp.t, cp.live = t, live
	cp.ptr, cp.slack, cp.used = p.ptr, p.slack, p.used
	cp.jobs = append(cp.jobs[:0], p.jobs...)
	cp.heap = append(cp.heap[:0], p.heap...)
}
