// Package cluster is flexd's closed-loop simulator: a MapReduce cluster in
// continuous time whose slots are re-divided by an allocation policy at
// every epoch boundary and at every phase completion, the way a Hadoop shim
// consults flexd. Jobs arrive over time; each runs a map phase and then,
// once its maps are done, a reduce phase; each phase is one job of the
// policy's phase problem, with the true remaining work (the simulator knows
// it exactly, which isolates the policy from estimation error). The policy's
// first interval is applied until the next decision; the simulator reports
// realised response time, stretch and makespan.
//
// It consults package solver directly, one phase problem per phase; once
// package epoch lands it should call epoch.Decide instead, so that the
// simulator exercises the ratio stage and the estimators too.
//
// The package is pure and deterministic: no clock, no randomness.
package cluster

import (
	"cmp"
	"fmt"
	"math"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver"
)

// doneTol is the relative remaining work below which a phase counts as
// finished, absorbing float64 rounding in work accounting.
const doneTol = 1e-9

// Job is one simulated job.
type Job struct {
	ID string
	// Arrival is the submission time, seconds.
	Arrival float64
	// MapWork > 0 and ReduceWork >= 0 are the phases' work, slot-seconds;
	// a job with no reduce work is map-only.
	MapWork, ReduceWork float64
	// MapTasks >= 1 and ReduceTasks bound the slots a phase can use; as a
	// phase progresses its bound falls with its remaining work
	// (ceil(tasks * remaining / work)).
	MapTasks, ReduceTasks int
	// Weight is the job's weight for weighted metrics (0 means 1).
	Weight float64
}

// Config is one simulation. Zero values mean defaults where stated.
type Config struct {
	// MapSlots and ReduceSlots are the cluster's slots per phase (>= 1).
	MapSlots, ReduceSlots int
	// Epoch is the time between scheduled decisions, seconds (default 10).
	Epoch float64
	// Policy is the solver policy by name (default "flex").
	Policy string
	// Metric is the policy's objective (default avg_response_time); it
	// must not need deadlines or SLAs, which traces do not carry.
	Metric penalty.Metric
	// MinShare is the share of a phase's slots guaranteed as minima, split
	// evenly among the jobs in that phase (FAIR's pool minimum; default 0).
	MinShare float64
}

// Outcome is one job's realised schedule.
type Outcome struct {
	ID                string
	Arrival, MapDone  float64
	Completion        float64
	Response, Stretch float64
}

// Report is a simulation's result.
type Report struct {
	Jobs []Outcome
	// Makespan is the last completion, seconds; MeanResponse and
	// MeanStretch average over jobs, MaxStretch is the worst.
	Makespan, MeanResponse, MeanStretch, MaxStretch float64
	// Decisions counts the policy calls.
	Decisions int
}

type state struct {
	job       Job
	remaining [2]float64 // map, reduce
	done      [2]float64 // completion time of each phase
}

// Run simulates jobs on the cluster of cfg until every job completes.
func Run(cfg Config, jobs []Job) (Report, error) {
	cfg.Epoch = cmp.Or(cfg.Epoch, 10)
	cfg.Policy = cmp.Or(cfg.Policy, "flex")
	cfg.Metric = cmp.Or(cfg.Metric, penalty.AvgResponseTime)
	pol, ok := solver.ByName(cfg.Policy)
	if !ok {
		return Report{}, fmt.Errorf("cluster: unknown policy %q", cfg.Policy)
	}
	if cfg.MapSlots < 1 || cfg.ReduceSlots < 1 || !(cfg.Epoch > 0) || !(cfg.MinShare >= 0 && cfg.MinShare <= 1) {
		return Report{}, fmt.Errorf("cluster: bad config %+v", cfg)
	}
	st := make([]state, len(jobs))
	for i, j := range jobs {
		if !(j.MapWork > 0) || !(j.ReduceWork >= 0) || j.MapTasks < 1 || (j.ReduceWork > 0 && j.ReduceTasks < 1) {
			return Report{}, fmt.Errorf("cluster: job %q: bad work or tasks", j.ID)
		}
		st[i] = state{job: j, remaining: [2]float64{j.MapWork, j.ReduceWork}, done: [2]float64{-1, -1}}
		if j.ReduceWork == 0 {
			st[i].done[1] = 0 // no reduce phase
		}
	}
	slots := [2]int{cfg.MapSlots, cfg.ReduceSlots}
	rep := Report{}
	t, left := 0.0, len(jobs)
	alloc := [2][]int{make([]int, len(jobs)), make([]int, len(jobs))}
	for left > 0 {
		// Decide: one phase problem per phase over the jobs live in it.
		for ph := range 2 {
			clear(alloc[ph])
			p, idx := phaseProblem(cfg, st, ph, t, slots[ph])
			if len(idx) == 0 {
				continue
			}
			r, err := pol.Solve(p)
			if err != nil {
				return Report{}, fmt.Errorf("cluster: t=%g, phase %d: %w", t, ph, err)
			}
			rep.Decisions++
			for x, a := range r.Allocations {
				alloc[ph][idx[x]] = a.Slots
			}
		}
		// Run until the next epoch boundary or the first phase completion.
		next := (math.Floor(t/cfg.Epoch+doneTol) + 1) * cfg.Epoch
		for i := range st {
			for ph := range 2 {
				if s := alloc[ph][i]; s > 0 {
					next = math.Min(next, t+st[i].remaining[ph]/float64(s))
				}
			}
		}
		dt := next - t
		for i := range st {
			for ph := range 2 {
				s := alloc[ph][i]
				if s == 0 {
					continue
				}
				st[i].remaining[ph] -= float64(s) * dt
				work := st[i].job.MapWork
				if ph == 1 {
					work = st[i].job.ReduceWork
				}
				if st[i].remaining[ph] <= doneTol*work {
					st[i].remaining[ph] = 0
					st[i].done[ph] = next
					if ph == 1 || st[i].job.ReduceWork == 0 {
						left--
					}
				}
			}
		}
		t = next
	}
	rep.Jobs = make([]Outcome, len(st))
	for i, s := range st {
		c := math.Max(s.done[0], s.done[1])
		iso := s.job.MapWork/float64(min(s.job.MapTasks, cfg.MapSlots)) + reduceIso(s.job, cfg.ReduceSlots)
		o := Outcome{ID: s.job.ID, Arrival: s.job.Arrival, MapDone: s.done[0], Completion: c, Response: c - s.job.Arrival}
		o.Stretch = o.Response / iso
		rep.Jobs[i] = o
		rep.Makespan = math.Max(rep.Makespan, c)
		rep.MeanResponse += o.Response / float64(len(st))
		rep.MeanStretch += o.Stretch / float64(len(st))
		rep.MaxStretch = math.Max(rep.MaxStretch, o.Stretch)
	}
	return rep, nil
}

func reduceIso(j Job, slots int) float64 {
	if j.ReduceWork == 0 {
		return 0
	}
	return j.ReduceWork / float64(min(j.ReduceTasks, slots))
}

// phaseProblem builds phase ph's problem at time t over the jobs that have
// arrived and are in that phase (reduce only once the maps are done), and
// returns it with the job indexes behind its jobs.
func phaseProblem(cfg Config, st []state, ph int, t float64, slots int) (solver.Problem, []int) {
	var idx []int
	for i, s := range st {
		if s.job.Arrival > t || s.remaining[ph] <= 0 || (ph == 1 && s.remaining[0] > 0) {
			continue
		}
		idx = append(idx, i)
	}
	p := solver.Problem{Slots: slots, Now: t, Metric: cfg.Metric, Jobs: make([]solver.Job, len(idx))}
	if len(idx) == 0 {
		return p, nil
	}
	minEach := int(math.Floor(cfg.MinShare * float64(slots) / float64(len(idx))))
	for x, i := range idx {
		j := st[i].job
		work, tasks := j.MapWork, j.MapTasks
		if ph == 1 {
			work, tasks = j.ReduceWork, j.ReduceTasks
		}
		rem := st[i].remaining[ph]
		mx := max(1, int(math.Ceil(float64(tasks)*rem/work-doneTol)))
		w := j.Weight
		if w == 0 {
			w = 1
		}
		p.Jobs[x] = solver.Job{ID: j.ID, Min: min(minEach, mx), Max: mx, Work: rem, TotalWork: work, Submitted: j.Arrival, Weight: w}
	}
	return p, idx
}
