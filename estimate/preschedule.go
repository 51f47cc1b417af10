package estimate

import (
	"cmp"
	"math"
	"slices"
)

// Slot PreScheduling (DynamicMR, seed 000 Algorithm 4 and Appendices A
// and D; estimate-and-advice.md section 6): Hadoop's fair scheduler caps
// each node's usable slots at its share of the cluster's load (the
// load-balancing line), and delay scheduling makes a job wait for a node
// with its data. A job whose data sits only on nodes above the line waits
// everywhere. PreScheduling lets such a job run a data-local map task on
// the node's idle slots above the line (Case 1) or, with DHSA, on an idle
// reduce slot (Case 2); and gives borrowed reduce slots back by running
// reduce tasks on idle map slots (P3). Only jobs below their allocation
// are prescheduled, so flexd's allocations hold.

// PrescheduleConfig is the epoch's preschedule object, defaults applied.
type PrescheduleConfig struct {
	Enabled bool
	// MaxBorrowedReduceSlots bounds the map tasks on reduce slots
	// (mapred.preScheduler.maximumNumBorrowedReduceSlots).
	MaxBorrowedReduceSlots int
	// DHSA says the epoch's ratio mode lends slots between phases
	// (pi_dhsa, pd_dhsa): Case 2 is allowed only then.
	DHSA bool
}

// DefaultMaxBorrowedReduceSlots is the paper's default ("100000 by
// default", seed 000 Table 2).
const DefaultMaxBorrowedReduceSlots = 100_000

// The cases of an assignment.
const (
	CaseExtraIdleMap = "extra_idle_map"
	CaseIdleReduce   = "idle_reduce"
)

// Preschedule is the answer's preschedule object.
type Preschedule struct {
	LoadFactor  LoadFactor        `json:"load_factor"`
	Nodes       []PrescheduleNode `json:"nodes"`
	Assign      []PreAssign       `json:"assign"`
	ReduceOnMap []PreRestore      `json:"reduce_on_map"`
}

// LoadFactor is each phase's demand over its slots (Step 1#).
type LoadFactor struct {
	Map    float64 `json:"map"`
	Reduce float64 `json:"reduce"`
}

// PrescheduleNode is one node's idle slots below and above the balancing
// line, before this epoch's assignments.
type PrescheduleNode struct {
	Node                string `json:"node"`
	AllowableIdleMap    int    `json:"allowable_idle_map"`
	ExtraIdleMap        int    `json:"extra_idle_map"`
	IdleReduce          int    `json:"idle_reduce"`
	AllowableIdleReduce int    `json:"allowable_idle_reduce"`
	ExtraIdleReduce     int    `json:"extra_idle_reduce"`
}

// PreAssign is one data-local map task to start: of Job on Node, in a map
// slot above the line (CaseExtraIdleMap) or in a reduce slot
// (CaseIdleReduce).
type PreAssign struct {
	Job  string `json:"job"`
	Node string `json:"node"`
	Slot string `json:"slot"`
	Case string `json:"case"`
}

// PreRestore is one reduce task of Job to start on an idle map slot of
// Node, giving a borrowed reduce slot back (P3).
type PreRestore struct {
	Job  string `json:"job"`
	Node string `json:"node"`
}

// slotLine is one node's slots in one phase against the balancing line.
type slotLine struct{ allowable, extra, idle int }

// line computes a node's usable slots K = ceil(C min(LF, 1)) (D-P1, as
// Hadoop's CapBasedLoadManager), allowable = max(0, K - U) and extra =
// C - max(U, K) (D-P2: the idle slots above the line).
func line(capacity, used int, lf float64) slotLine {
	k := int(math.Ceil(float64(capacity) * math.Min(lf, 1)))
	return slotLine{
		allowable: max(0, k-used),
		extra:     max(0, capacity-max(used, k)),
		idle:      max(0, capacity-used),
	}
}

// Schedule is Slot PreScheduling over the epoch (section 6.2, flexd's
// advisory form): the load factors and every node's lines, then, node by
// node in id order (D-P4), for a node with no allowable idle map slot, the
// eligible jobs (positive map deficit, allocated - running; D-P3) in
// fair-share order with a local pending map there get one task each in
// turn, on an extra idle map slot (Case 1) or else, with DHSA and under
// the borrowing bound, on an idle reduce slot (Case 2; D-P5), a job never
// beyond its pending maps (D-P6); last, while map tasks run on reduce
// slots (the shim's count, D-P7), reduce tasks go to idle map slots of
// nodes without an idle reduce slot.
func (c PrescheduleConfig) Schedule(in AdviceInput) Preschedule {
	out := Preschedule{Nodes: []PrescheduleNode{}, Assign: []PreAssign{}, ReduceOnMap: []PreRestore{}}
	nodes := slices.Clone(in.Nodes)
	slices.SortFunc(nodes, func(a, b Node) int { return cmp.Compare(a.ID, b.ID) })
	var demand, capacity [2]int
	for _, j := range in.Jobs {
		for ph, pc := range []*PhaseCounts{j.Map, j.Reduce} {
			if pc != nil {
				demand[ph] += pc.Pending + pc.Running
			}
		}
	}
	borrowed := 0
	for _, n := range nodes {
		capacity[0] += n.MapSlots
		capacity[1] += n.ReduceSlots
		borrowed += n.MapOnReduce
	}
	lf := func(ph int) float64 {
		if capacity[ph] == 0 {
			return 0
		}
		return float64(demand[ph]) / float64(capacity[ph])
	}
	out.LoadFactor = LoadFactor{Map: lf(0), Reduce: lf(1)}
	maps := make([]slotLine, len(nodes))
	reduces := make([]slotLine, len(nodes))
	for i, n := range nodes {
		maps[i] = line(n.MapSlots, n.RunningMap+n.ReduceOnMap, out.LoadFactor.Map)
		reduces[i] = line(n.ReduceSlots, n.RunningReduce+n.MapOnReduce, out.LoadFactor.Reduce)
		out.Nodes = append(out.Nodes, PrescheduleNode{Node: n.ID,
			AllowableIdleMap: maps[i].allowable, ExtraIdleMap: maps[i].extra, IdleReduce: reduces[i].idle,
			AllowableIdleReduce: reduces[i].allowable, ExtraIdleReduce: reduces[i].extra})
	}

	type cand struct {
		id        string
		submitted float64
		deficit   int
		budget    int
		local     map[string]int
	}
	order := func(cs []*cand) {
		slices.SortStableFunc(cs, func(a, b *cand) int {
			return cmp.Or(cmp.Compare(b.deficit, a.deficit), cmp.Compare(a.submitted, b.submitted), cmp.Compare(a.id, b.id))
		})
	}
	var jobs []*cand
	for _, j := range in.Jobs {
		if m := j.Map; m != nil && m.Allocated-m.Running > 0 && m.Pending > 0 {
			local := make(map[string]int, len(m.LocalPending))
			for n, k := range m.LocalPending {
				local[n] = k
			}
			jobs = append(jobs, &cand{id: j.ID, submitted: j.Submitted, deficit: m.Allocated - m.Running, budget: m.Pending, local: local})
		}
	}
	order(jobs)
	caseTwo := c.DHSA
	newBorrowed := borrowed
	for i, n := range nodes {
		if maps[i].allowable > 0 {
			continue // the normal scheduler (and delay scheduling) places tasks here
		}
		for {
			var j *cand
			for _, x := range jobs {
				if x.deficit > 0 && x.budget > 0 && x.local[n.ID] > 0 {
					j = x
					break
				}
			}
			if j == nil {
				break
			}
			var a *PreAssign
			switch {
			case maps[i].extra > 0:
				a = &PreAssign{Job: j.id, Node: n.ID, Slot: MapPhase, Case: CaseExtraIdleMap}
				maps[i].extra--
			case caseTwo && reduces[i].idle > 0 && newBorrowed < c.MaxBorrowedReduceSlots:
				a = &PreAssign{Job: j.id, Node: n.ID, Slot: ReducePhase, Case: CaseIdleReduce}
				reduces[i].idle--
				newBorrowed++
			}
			if a == nil {
				break // neither case has a slot left here
			}
			out.Assign = append(out.Assign, *a)
			j.deficit--
			j.budget--
			j.local[n.ID]--
			order(jobs)
		}
	}

	// P3: reduce tasks on idle map slots while reduce slots are lent out.
	type rcand struct {
		id        string
		submitted float64
		deficit   int
		pending   int
	}
	var rjobs []*rcand
	for _, j := range in.Jobs {
		if r := j.Reduce; r != nil && r.Pending > 0 && r.Allocated-r.Running > 0 {
			rjobs = append(rjobs, &rcand{id: j.ID, submitted: j.Submitted, deficit: r.Allocated - r.Running, pending: r.Pending})
		}
	}
	for i, n := range nodes {
		for borrowed > 0 && reduces[i].idle == 0 && maps[i].allowable+maps[i].extra > 0 {
			slices.SortStableFunc(rjobs, func(a, b *rcand) int {
				return cmp.Or(cmp.Compare(b.deficit, a.deficit), cmp.Compare(a.submitted, b.submitted), cmp.Compare(a.id, b.id))
			})
			var j *rcand
			for _, x := range rjobs {
				if x.deficit > 0 && x.pending > 0 {
					j = x
					break
				}
			}
			if j == nil {
				return out
			}
			out.ReduceOnMap = append(out.ReduceOnMap, PreRestore{Job: j.id, Node: n.ID})
			j.deficit--
			j.pending--
			borrowed--
			if maps[i].allowable > 0 {
				maps[i].allowable--
			} else {
				maps[i].extra--
			}
		}
	}
	return out
}
