package estimate

import (
	"cmp"
	"math"
	"slices"
)

// sepb is DynamicMR's Speculative Execution Performance Balancing over the
// detector's advice (seed 000 Algorithm 3; estimate-and-advice.md section
// 5): in each phase a backup takes an idle slot only once the checked
// jobs' pending tasks have theirs, so launches = min(candidates, idle -
// pending of the checked jobs) (D-B1); the other candidates are deferred
// (pending_tasks, with the checked jobs that wait, or no_idle_slot). The
// checked jobs are the first ceil(jobs_checked x R) of the R runnable jobs
// in fair-share order (D-B3, D-G1), within the candidate's pool with scope
// pool. Then the kill heuristic: an original attempt without a second one
// that has run longer than kill_factor times its (job, phase)'s mean task
// time is killed, its task rerun first (seed 001; D-B5, D-B6), unless its
// own time to end is at most that mean (D-B10).
func sepb(in AdviceInput, c SEPBConfig, adv *Advice) {
	run := map[string]int{} // running attempts per job and phase
	for _, t := range in.Tasks {
		if !t.Waiting {
			run[t.Job+"/"+t.Phase]++
		}
	}
	var kept []Speculate
	for _, phase := range []string{MapPhase, ReducePhase} {
		idle := adv.IdleSlots.Map
		if phase == ReducePhase {
			idle = adv.IdleSlots.Reduce
		}
		// The runnable jobs of the phase in fair-share order.
		var jobs []JobStatus
		for _, j := range in.Jobs {
			if pc := phaseOf(j, phase); pc != nil {
				jobs = append(jobs, j)
			}
		}
		deficit := func(j JobStatus) int { return phaseOf(j, phase).Allocated - run[j.ID+"/"+phase] }
		slices.SortStableFunc(jobs, func(a, b JobStatus) int {
			return cmp.Or(cmp.Compare(deficit(b), deficit(a)), cmp.Compare(a.Submitted, b.Submitted), cmp.Compare(a.ID, b.ID))
		})
		pools := map[string]string{}
		for _, j := range in.Jobs {
			pools[j.ID] = j.Pool
		}
		// checked returns the checked jobs for a candidate of job id, and
		// their pending tasks.
		checked := func(id string) (pending int, waiting []string) {
			var scope []JobStatus
			for _, j := range jobs {
				if c.Scope != ScopePool || j.Pool == pools[id] {
					scope = append(scope, j)
				}
			}
			n := int(math.Ceil(c.JobsChecked * float64(len(scope))))
			for _, j := range scope[:min(n, len(scope))] {
				if p := phaseOf(j, phase).Pending; p > 0 {
					pending += p
					waiting = append(waiting, j.ID)
				}
			}
			return pending, waiting
		}
		for _, s := range adv.Speculate {
			if s.Phase != phase {
				continue
			}
			pending, waiting := checked(s.Job)
			switch {
			case idle <= 0:
				// pending_jobs is said here too (D-B9): with none, Algorithm
				// 3 would give the next slot that frees to this backup, and
				// a shim may hold it for that slot; with some, to them.
				adv.Deferred = append(adv.Deferred, Deferred{Job: s.Job, Task: s.Task, Attempt: s.Attempt, Phase: s.Phase,
					Node: s.Node, Reason: ReasonNoIdleSlot, PendingJobs: waiting})
			case idle-pending <= 0:
				adv.Deferred = append(adv.Deferred, Deferred{Job: s.Job, Task: s.Task, Attempt: s.Attempt, Phase: s.Phase,
					Node: s.Node, Reason: ReasonPendingTasks, PendingJobs: waiting})
			default:
				kept = append(kept, s)
				idle--
			}
		}
	}
	// Keep the ranked order across phases.
	var out []Speculate
	for _, s := range adv.Speculate {
		if slices.ContainsFunc(kept, func(k Speculate) bool { return k.Attempt == s.Attempt }) {
			out = append(out, s)
		}
	}
	adv.Speculate = append([]Speculate{}, out...)

	if !(c.KillFactor > 0) {
		return
	}
	jobs := jobIndex(in)
	attempts := map[string]int{}
	for _, t := range in.Tasks {
		attempts[t.Task]++
	}
	backedUp := map[string]bool{}
	for _, s := range adv.Speculate {
		backedUp[s.Attempt] = true
	}
	for _, t := range in.Tasks {
		if t.Speculative || t.Waiting || attempts[t.Task] > 1 || backedUp[t.Attempt] {
			continue
		}
		pc := counts(jobs, t.Job, t.Phase)
		if pc == nil || !(pc.AvgTaskTime > 0) || pc.Tasks-pc.Pending-pc.Running < 1 {
			continue
		}
		elapsed := in.Now - t.Start
		if math.IsInf(elapsed, 0) || !(elapsed > c.KillFactor*pc.AvgTaskTime) {
			continue
		}
		// D-B10: the rerun starts from nothing, so an attempt whose own
		// time to end (at its progress so far) is at most a mean task is
		// left to finish: killing it would only lose its work.
		if pg := t.Progress; pg != nil && *pg > 0 && elapsed*(1-*pg)/(*pg) <= pc.AvgTaskTime {
			continue
		}
		adv.Kill = append(adv.Kill, Kill{Job: t.Job, Task: t.Task, Attempt: t.Attempt, Phase: t.Phase, Node: t.Node,
			Reason: ReasonTwiceMean, Elapsed: elapsed, Mean: pc.AvgTaskTime})
	}
}

// phaseOf is a job's counts in a phase (nil when it has no part there).
func phaseOf(j JobStatus, phase string) *PhaseCounts {
	if phase == ReducePhase {
		return j.Reduce
	}
	return j.Map
}
