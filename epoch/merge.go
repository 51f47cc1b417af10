package epoch

import (
	"maps"
	"slices"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver"
	"github.com/flexd/flexd/solver/mps"
)

// SchemePerPool is the Scheme of a merged pd_dhsa phase result whose jobs
// come from more than one pool: each pool's own order is in
// Decision.PoolPhases, and no single order spans the pools.
const SchemePerPool = "per_pool"

// poolPart is one pool's result in a phase and, for each of its jobs, the
// job's index in the phase problem.
type poolPart struct {
	res *solver.Result
	at  []int
}

// mergePools is the merged view of a pd_dhsa phase (see
// Decision.PoolPhases): the pools' results of the phase, picked by get,
// combined over the jobs of pp, which must hold at least one job. With one
// pool holding every job the pool's result is the phase's as it is.
func mergePools(pp PhaseProblem, pools map[string]Phases, get func(Phases) *solver.Result) *solver.Result {
	at := make(map[string]int, len(pp.Problem.Jobs))
	for k, j := range pp.Problem.Jobs {
		at[j.ID] = k
	}
	var parts []poolPart
	for _, name := range slices.Sorted(maps.Keys(pools)) {
		r := get(pools[name])
		if r == nil || len(r.Allocations) == 0 {
			continue
		}
		p := poolPart{res: r, at: make([]int, len(r.Allocations))}
		for x, a := range r.Allocations {
			p.at[x] = at[a.ID]
		}
		parts = append(parts, p)
	}
	n := len(pp.Problem.Jobs)
	if len(parts) == 1 && len(parts[0].at) == n {
		return parts[0].res
	}
	first := parts[0].res
	out := &solver.Result{
		Policy:      first.Policy,
		Metric:      first.Metric,
		Aggregate:   first.Aggregate,
		Allocations: make([]solver.Allocation, n),
		Scheme:      SchemePerPool,
	}
	planned, solved, shares := true, 0, true
	for _, p := range parts {
		for x, a := range p.res.Allocations {
			out.Allocations[p.at[x]] = a
		}
		out.NormalizedMinima = out.NormalizedMinima || p.res.NormalizedMinima
		out.Stats.Evaluations += p.res.Stats.Evaluations
		out.Stats.DPCells += p.res.Stats.DPCells
		out.Stats.DPFallback = out.Stats.DPFallback || p.res.Stats.DPFallback
		shares = shares && len(p.res.FairShares) == len(p.at)
		if len(p.res.Plan.Completions) != len(p.at) {
			planned = false // a pool without a budget: nothing planned its jobs
			continue
		}
		solved += len(p.at)
		if out.Aggregate == penalty.Max {
			out.Value = max(out.Value, p.res.Value)
		} else {
			out.Value += p.res.Value
		}
	}
	switch {
	case out.Aggregate == penalty.Max:
		out.Mean = out.Value
	case solved > 0:
		out.Mean = out.Value / float64(solved)
	}
	if shares {
		out.FairShares = make([]float64, n)
		for _, p := range parts {
			for x, f := range p.res.FairShares {
				out.FairShares[p.at[x]] = f
			}
		}
	}
	if planned {
		out.Plan = mergePlans(n, parts)
	}
	return out
}

// planEvent is something that happens to the merged plan at a time: a
// pool's interval starts (its changes apply) or a pool's plan ends (its
// jobs are done, and hold no more slots).
type planEvent struct {
	at      float64
	part    int
	end     bool // the part's plan ends (changes is empty then)
	changes []mps.Change
}

// mergePlans merges the pools' plans, which all start at the epoch's now,
// into one plan over the phase's n jobs: an interval starts wherever a
// pool's does, and its changes are the pools' changes then, at the phase
// problem's job indexes. It stays sparse: O(total changes) besides the
// sort, never intervals x jobs.
func mergePlans(n int, parts []poolPart) solver.Plan {
	out := solver.Plan{Completions: make([]float64, n), First: make([]int, n)}
	var events []planEvent
	for p, part := range parts {
		pl := part.res.Plan
		for x, c := range pl.Completions {
			out.Completions[part.at[x]] = c
		}
		for x, f := range pl.First {
			out.First[part.at[x]] = f
		}
		for _, iv := range pl.Intervals {
			events = append(events, planEvent{at: iv.Start, part: p, changes: iv.Changes})
		}
		if k := len(pl.Intervals); k > 0 {
			events = append(events, planEvent{at: pl.Intervals[k-1].End, part: p, end: true})
		}
	}
	// Stable: a pool's own events keep their order at equal times.
	slices.SortStableFunc(events, func(a, b planEvent) int {
		switch {
		case a.at < b.at:
			return -1
		case a.at > b.at:
			return 1
		}
		return 0
	})
	cur := make([]int, n)
	for e := 0; e < len(events); {
		t := events[e].at
		var changes []mps.Change
		set := func(job, slots int) {
			if cur[job] != slots {
				cur[job] = slots
				changes = append(changes, mps.Change{Job: job, Slots: slots})
			}
		}
		for ; e < len(events) && events[e].at == t; e++ {
			ev := events[e]
			part := parts[ev.part]
			if ev.end {
				for _, k := range part.at {
					set(k, 0)
				}
				continue
			}
			for _, c := range ev.changes {
				if c.Job >= 0 && c.Job < len(part.at) {
					set(part.at[c.Job], c.Slots)
				}
			}
		}
		if e == len(events) {
			break // the last pool ends: so does the plan
		}
		out.Intervals = append(out.Intervals, mps.Interval{Start: t, End: events[e].at, Changes: changes})
	}
	return out
}
