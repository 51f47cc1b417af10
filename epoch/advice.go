package epoch

import "github.com/flexd/flexd/estimate"

// advise is step 4 of the epoch (estimate-and-advice.md section 2.1): the
// straggler detector's advice, computed after the allocations exist and
// from them, never feeding back into them. It returns the advice and the
// detectors' next learned state.
func advise(req Request, dec Decision, prev *estimate.State) (*estimate.Advice, *estimate.State) {
	var st estimate.State
	if prev != nil {
		st = *prev
	}
	adv, next := estimate.Advise(adviceInput(req, dec), req.Speculation.config(req.Explain), st)
	return &adv, &next
}

// preschedule is Slot PreScheduling's advice for the decided epoch
// (estimate-and-advice.md section 6): it reads the allocations and
// changes none.
func preschedule(req Request, dec Decision) *estimate.Preschedule {
	cfg := estimate.PrescheduleConfig{Enabled: true, MaxBorrowedReduceSlots: estimate.DefaultMaxBorrowedReduceSlots,
		DHSA: req.Ratio.Mode == ModePIDHSA || req.Ratio.Mode == ModePDDHSA}
	if p := req.Preschedule.MaxBorrowedReduceSlots; p != nil {
		cfg.MaxBorrowedReduceSlots = *p
	}
	out := cfg.Schedule(adviceInput(req, dec))
	return &out
}

// adviceInput is the request's task-level state and the decision's
// allocations and budgets in package estimate's terms.
func adviceInput(req Request, dec Decision) estimate.AdviceInput {
	in := estimate.AdviceInput{
		Now:          req.Now,
		Jobs:         make([]estimate.JobStatus, len(req.Jobs)),
		Nodes:        make([]estimate.Node, len(req.Nodes)),
		Tasks:        make([]estimate.Attempt, len(req.Tasks)),
		Completed:    make([]estimate.CompletedTask, len(req.CompletedTasks)),
		Finished:     req.FinishedJobs,
		MapBudget:    dec.Budgets.Map,
		ReduceBudget: dec.Budgets.Reduce,
	}
	counts := func(p *Phase, allocated int) *estimate.PhaseCounts {
		if p == nil {
			return nil
		}
		return &estimate.PhaseCounts{Tasks: p.Tasks, Pending: p.Pending, Running: p.Running, Allocated: allocated,
			AvgTaskTime: p.AvgTaskTime, LocalPending: p.LocalPending}
	}
	for i, j := range req.Jobs {
		a := dec.Allocations[i]
		in.Jobs[i] = estimate.JobStatus{ID: j.ID, Pool: j.Pool, Submitted: j.Submitted, Map: counts(j.Map, a.Map), Reduce: counts(j.Reduce, a.Reduce)}
	}
	for i, n := range req.Nodes {
		in.Nodes[i] = estimate.Node{ID: n.ID, MapSlots: n.MapSlots, ReduceSlots: n.ReduceSlots, Level: n.Level,
			RunningMap: n.RunningMap, RunningReduce: n.RunningReduce, MapOnReduce: n.MapOnReduce, ReduceOnMap: n.ReduceOnMap}
	}
	for i, t := range req.Tasks {
		a := estimate.Attempt{
			Attempt: t.Attempt, Task: t.Task, Job: t.Job, Phase: t.Phase, Node: t.Node,
			Progress: t.Progress, Stage: t.Stage, StageProgress: t.StageProgress, ProgressRate: t.ProgressRate,
			Speculative: t.Speculative, Waiting: t.State == StateWaiting,
		}
		if t.Start != nil {
			a.Start = *t.Start
		}
		in.Tasks[i] = a
	}
	for i, c := range req.CompletedTasks {
		in.Completed[i] = estimate.CompletedTask{
			Attempt: c.Attempt, Task: c.Task, Job: c.Job, Phase: c.Phase, Node: c.Node,
			Start: c.Start, Finish: c.Finish, StageTimes: c.StageTimes, Speculative: c.Speculative,
		}
	}
	return in
}
