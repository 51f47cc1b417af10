package fairshare

import (
	"math/bits"
	"slices"
)

// groupMin is how many jobs of one weight make a class that planEvents
// handles as a block (see group). Below it, the jobs are looked at one by
// one as with distinct weights: the classes' own cost per interval (a few
// passes over the classes and one over each one's membership bitset) then
// buys nothing. Measured at J = 10,000 (solvertest.Large's shape, plan
// alone): 500 weights of 20 jobs each, 127 ms with classes from 16 jobs
// and 115-120 ms from 32 or without; 100 weights of 100 jobs, 81-83 ms
// with classes from 16, 32 or 64 jobs and 170 ms without.
const groupMin = 32

// group is a weight class of planEvents: the jobs of one weight w. While a
// job's share is unclamped (Min <= w R < Max), its floor is floor(w R),
// its deficit w R - floor(w R) and its slots per weight floor(w R) / w:
// the same for every such job of the class, so Slots's order ranks them
// together and among themselves by rank alone. Such jobs are the class's
// members (clsGroup), and the spare slots they get go to the first m
// members in rank order, m chosen once for all of them.
//
// With all weights equal (Hadoop's default) every job with an unclamped
// share is in one class. Looked at one by one, every one of them would be
// in the rounding's window every interval, all tied: a pass over every
// live job per interval (0.6 to 1 s at J = 10,000). As a block, the class
// costs a pass over its membership bitset per interval, and the slots set
// are those that change.
type group struct {
	w    float64
	jobs []int32  // the class's jobs, in rank order: a job's index here is its gpos
	bits []uint64 // the members, by index in jobs
	n    int      // members
	rank int32    // the rank of jobs[0]: the class's place among equal keys (see selectUnits)

	// This interval's floor, deficit and slots per weight of the members
	// (advance), and how many members get a spare slot (selectWindow).
	o     int
	d, pw float64
	m     int
	setO  int  // the floor the members' slots were last set with
	setP  int  // ... and the boundary: members with index < setP got a spare slot
	valid bool // whether every member's slots are setO (+1 below setP)
}

// makeGroups makes the classes of at least minGroup jobs that can ever be
// members (positive weight, work, Min < Max), in ascending weight.
func (e *evPlanner) makeGroups(minGroup int) {
	member := func(job *Job) bool { return job.Weight > 0 && job.Work > 0 && job.Min < job.Max }
	// Counted first, and the classes' jobs listed only for the weights that
	// make one: with distinct weights (the common real-valued case) a list
	// per job was most of this function's cost.
	count := make(map[float64]int32, len(e.jobs))
	for j := range e.jobs {
		if job := &e.jobs[j]; member(job) {
			count[job.Weight]++
		}
	}
	var ws []float64
	for w, c := range count {
		if int(c) >= max(minGroup, 2) {
			ws = append(ws, w)
		}
	}
	if len(ws) == 0 {
		return
	}
	slices.Sort(ws)
	e.groupOf = make([]int32, len(e.jobs))
	e.gpos = make([]int32, len(e.jobs))
	index := make(map[float64]int32, len(ws))
	for gi, w := range ws {
		index[w] = int32(gi)
		e.groups = append(e.groups, group{w: w, jobs: make([]int32, 0, count[w])})
	}
	for j := range e.jobs {
		e.groupOf[j] = -1
		if job := &e.jobs[j]; member(job) {
			if gi, ok := index[job.Weight]; ok {
				e.groupOf[j] = gi
				e.groups[gi].jobs = append(e.groups[gi].jobs, int32(j))
			}
		}
	}
	for gi := range e.groups {
		g := &e.groups[gi]
		slices.SortFunc(g.jobs, func(a, b int32) int { return int(e.rd.rank[a] - e.rd.rank[b]) })
		for i, j := range g.jobs {
			e.gpos[j] = int32(i)
		}
		g.bits, g.rank = make([]uint64, (len(g.jobs)+63)/64), e.rd.rank[g.jobs[0]]
	}
}

// groupAdd makes job j a member of its class.
func (e *evPlanner) groupAdd(j int32) {
	g, i := &e.groups[e.groupOf[j]], e.gpos[j]
	g.bits[i>>6] |= 1 << (i & 63)
	g.n++
	e.gmem++
	// A job joins when w R reaches its Min, so the class's floor has moved
	// since its members' slots were set: applyGroups sets them all anyway.
	g.valid = false
}

// groupRemove takes job j out of its class's members.
func (e *evPlanner) groupRemove(j int32) {
	g, i := &e.groups[e.groupOf[j]], e.gpos[j]
	g.bits[i>>6] &^= 1 << (i & 63)
	g.n--
	e.gmem--
}

// resetGroups empties every class (evaluateAll looks at every job again).
func (e *evPlanner) resetGroups() {
	for gi := range e.groups {
		g := &e.groups[gi]
		clear(g.bits)
		g.n, g.valid = 0, false
	}
	e.gmem = 0
}

// groupCandidates appends the classes with members whose deficit is in
// [cLo, cHi] to cand, each as one candidate (k = -1 - its index), and
// sets the others' m: every member above cHi, none below cLo.
func (e *evPlanner) groupCandidates(cand []candidate, cLo, cHi float64) []candidate {
	for gi := range e.groups {
		g := &e.groups[gi]
		switch {
		case g.n == 0:
			g.m = 0
		case g.d > cHi:
			g.m = g.n
		case g.d < cLo:
			g.m = 0
		default:
			cand = append(cand, candidate{g.d, g.pw, g.rank, int32(-1 - gi)})
		}
	}
	return cand
}

// units is how many jobs a candidate stands for: a class's members, or one.
func (e *evPlanner) units(c *candidate) int {
	if c.k < 0 {
		return e.groups[-1-c.k].n
	}
	return 1
}

// selectUnits is selectFirst for candidates that stand for several jobs
// (units): it reorders c so that c[:split] are the first candidates in the
// order before, holding k jobs between them but for partial, the number of
// members of the class c[split] that get a slot when the k-th job is one
// of them (0 otherwise). Equal keys among a class and other candidates are
// ranked by the class's rank here; groupsHold sends those to a rebuild
// when they matter.
func (e *evPlanner) selectUnits(c []candidate, k int) (split, partial int) {
	return e.selectUnitsWithin(c, k, 2*bits.Len(uint(len(c))))
}

// selectUnitsWithin is selectUnits partitioning at most budget times
// before it sorts what is left.
func (e *evPlanner) selectUnitsWithin(c []candidate, k, budget int) (split, partial int) {
	lo, hi := 0, len(c) // the k-th job is among c[lo:hi]'s, k counted from lo
	for hi-lo > 1 && k > 0 {
		if budget == 0 {
			// The partitions stopped shrinking: sort and count.
			slices.SortFunc(c[lo:hi], cmpCandidates)
			for i := lo; i < hi; i++ {
				u := e.units(&c[i])
				if k < u {
					return i, k
				}
				k -= u
			}
			return hi, 0
		}
		budget--
		m := medianOfThree(c, lo, hi)
		pivot := c[m]
		c[m], c[hi-1] = c[hi-1], c[m]
		s, before := lo, 0
		for i := lo; i < hi-1; i++ {
			if c[i].before(&pivot) {
				before += e.units(&c[i])
				c[i], c[s] = c[s], c[i]
				s++
			}
		}
		c[s], c[hi-1] = c[hi-1], c[s]
		u := e.units(&c[s])
		switch {
		case k <= before:
			hi = s
		case k < before+u:
			return s, k - before
		default:
			k -= before + u
			lo = s + 1
		}
	}
	if k > 0 && lo < hi { // one candidate left
		if u := e.units(&c[lo]); k < u {
			return lo, k
		}
		return lo + 1, 0
	}
	return lo, 0
}

// groupsHold sets the m of the classes among the candidates from a
// selection (selectUnits) and reports whether the selection is Slots's.
// It is not when a class straddles the cut with another candidate of equal
// keys (Slots orders their jobs by rank, one by one), or when a class
// with a deficit above the window keeps members without a spare slot, or
// one below it gives some one: the jobs outside the window, above it with
// a slot and below without, are then not all on their side of the cut.
// A rebuild, job by job, decides those.
func (e *evPlanner) groupsHold(cand []candidate, split, partial int) bool {
	for i := range cand {
		c := &cand[i]
		if c.k >= 0 {
			continue
		}
		g := &e.groups[-1-c.k]
		switch {
		case i < split:
			g.m = g.n
		case i == split && partial > 0:
			g.m = partial
		default:
			g.m = 0
		}
	}
	for gi := range e.groups {
		g := &e.groups[gi]
		if g.n > 0 && (g.m < g.n && g.d > e.hi || g.m > 0 && g.d < e.lo) {
			return false
		}
	}
	sameKeys := func(a, b *candidate) bool { return a.deficit == b.deficit && a.perWeight == b.perWeight }
	if partial > 0 {
		for i := range cand {
			if i != split && sameKeys(&cand[i], &cand[split]) {
				return false
			}
		}
		return true
	}
	if split == 0 || split == len(cand) {
		return true
	}
	last, first := &cand[0], &cand[split]
	for i := range cand[:split] {
		if last.before(&cand[i]) {
			last = &cand[i]
		}
	}
	for i := split; i < len(cand); i++ {
		if cand[i].before(first) {
			first = &cand[i]
		}
	}
	return !((last.k < 0 || first.k < 0) && sameKeys(last, first))
}

// applyGroups sets every member's slots from its class's floor and m: a
// spare slot for the first m members in rank order. Only what may have
// changed is set: with the floor as before and no member joined, the
// members between the old and the new boundary (those that left have
// their slots set by their new class).
func (e *evPlanner) applyGroups() {
	for gi := range e.groups {
		g := &e.groups[gi]
		if g.n == 0 {
			continue
		}
		p := g.boundary(g.m)
		if !g.valid || g.o != g.setO {
			e.setMembers(g, 0, len(g.jobs), p)
		} else {
			e.setMembers(g, min(p, g.setP), max(p, g.setP), p)
		}
		g.setO, g.setP, g.valid = g.o, p, true
	}
}

// setMembers sets the slots of g's members with index in [a, b): the
// floor, plus a spare slot below the boundary p.
func (e *evPlanner) setMembers(g *group, a, b, p int) {
	for wi := a >> 6; wi<<6 < b; wi++ {
		word := g.bits[wi]
		for ; word != 0; word &= word - 1 {
			i := wi<<6 | bits.TrailingZeros64(word)
			if i < a {
				continue
			}
			if i >= b {
				break
			}
			e.setAl(g.jobs[i], g.o+b2i(i < p))
		}
	}
}

// boundary is the index just past g's m-th member in rank order (0 for
// m = 0): the members below it are the first m.
func (g *group) boundary(m int) int {
	if m <= 0 {
		return 0
	}
	if m >= g.n {
		return len(g.jobs)
	}
	for wi, word := range g.bits {
		c := bits.OnesCount64(word)
		if m > c {
			m -= c
			continue
		}
		for ; m > 1; m-- {
			word &= word - 1
		}
		return (wi<<6 | bits.TrailingZeros64(word)) + 1
	}
	panic("fairshare: a class has fewer members than it counts") // n is kept with bits
}
