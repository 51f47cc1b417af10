package estimate

import (
	"cmp"
	"math"
	"slices"
)

// State is what the detectors learn from epoch to epoch, kept in the
// cluster's state (estimate-and-advice.md section 2.5). Its JSON form is a
// stored format: add fields, never rename them.
type State struct {
	ESAMR   *ESAMRState   `json:"esamr,omitempty"`
	ESPLASH *ESPLASHState `json:"esplash,omitempty"`
}

// Advise runs the configured detector over the epoch's task-level state
// (estimate-and-advice.md section 2.1, step 4): it folds this epoch's
// completed tasks and finished jobs into what the detector learns (ESAMR's
// weight history and k-means; ESPLASH's statistics and progress samples),
// finds candidates for a backup attempt, applies Hadoop's speculative cap
// and one backup per task, and returns the advice and the next state. prev
// is the previous epoch's state (the zero value: nothing learnt yet). The
// input is assumed valid (the epoch layer checks section 2.6), but odd
// valid input (no tasks, a completed task of an unknown node, a task of a
// job without counts) is handled, never a panic.
func Advise(in AdviceInput, cfg SpeculationConfig, prev State) (Advice, State) {
	adv := Advice{
		Detector:  cfg.Detector,
		Speculate: []Speculate{}, Deferred: []Deferred{}, Cancel: []Cancel{}, ExcludeNodes: []string{},
		IdleSlots: idleSlots(in),
	}
	next := prev
	in = sorted(in)
	var cands []candidate
	switch cfg.Detector {
	case ESAMR, Late:
		st := prev.ESAMR.clone()
		st.fold(in, cfg.ESAMR)
		next.ESAMR = st
		cands = findSlowTasks(in, cfg, st, &adv)
	case YARNDefault:
		cands = yarnCandidates(in, &adv)
	case ESPLASH:
		var progress func(Attempt) float64
		if cfg.ESPLASH.Progress == ProgressESAMR {
			// D-S11: ESAMR learns its stage weights beside ESPLASH, and
			// its progress score feeds EstT and EstEnd.
			es := prev.ESAMR.clone()
			es.fold(in, cfg.ESAMR)
			next.ESAMR = es
			progress = es.progressScore
		}
		st := prev.ESPLASH.clone()
		cands = st.advise(in, cfg, progress, &adv)
		next.ESPLASH = st
	default:
		adv.Detector = DetectorNone
		return adv, prev
	}
	admit(in, cfg.Cap, cands, &adv)
	if cfg.SEPB.Enabled {
		sepb(in, cfg.SEPB, &adv)
	}
	return adv, next
}

// candidate is an attempt a detector would back up, with its advice.
type candidate struct {
	a         Attempt
	reason    string
	rank      float64 // larger first; +Inf first of all
	tte       *float64
	value     *float64
	minLevel  int
	onePerJob bool // yarn_default and esplash: one per (job, phase) per scan
}

// sorted returns in with its lists in id order, so that the advice does
// not depend on the order the shim listed them in.
func sorted(in AdviceInput) AdviceInput {
	in.Tasks = slices.Clone(in.Tasks)
	slices.SortFunc(in.Tasks, func(a, b Attempt) int { return cmp.Compare(a.Attempt, b.Attempt) })
	in.Completed = slices.Clone(in.Completed)
	slices.SortFunc(in.Completed, func(a, b CompletedTask) int {
		return cmp.Or(cmp.Compare(a.Finish, b.Finish), cmp.Compare(a.Attempt, b.Attempt))
	})
	in.Nodes = slices.Clone(in.Nodes)
	slices.SortFunc(in.Nodes, func(a, b Node) int { return cmp.Compare(a.ID, b.ID) })
	in.Finished = slices.Clone(in.Finished)
	slices.Sort(in.Finished)
	return in
}

// idleSlots are the phases' budgets less their running attempts,
// speculative ones included (D-G3).
func idleSlots(in AdviceInput) IdleSlots {
	var run [2]int
	for _, t := range in.Tasks {
		if !t.Waiting {
			run[phaseIndex(t.Phase)]++
		}
	}
	return IdleSlots{Map: max(0, in.MapBudget-run[0]), Reduce: max(0, in.ReduceBudget-run[1])}
}

func phaseIndex(phase string) int {
	if phase == ReducePhase {
		return 1
	}
	return 0
}

// counts returns the job's counts for a phase (nil when unknown).
func counts(jobs map[string]*JobStatus, job, phase string) *PhaseCounts {
	j := jobs[job]
	if j == nil {
		return nil
	}
	if phase == ReducePhase {
		return j.Reduce
	}
	return j.Map
}

func jobIndex(in AdviceInput) map[string]*JobStatus {
	m := make(map[string]*JobStatus, len(in.Jobs))
	for i := range in.Jobs {
		m[in.Jobs[i].ID] = &in.Jobs[i]
	}
	return m
}

// backedUp lists the tasks that already have a speculative attempt,
// running or waiting: a task has at most one (Hadoop), so they are never
// candidates (section 2.8).
func backedUp(in AdviceInput) map[string]bool {
	m := map[string]bool{}
	for _, t := range in.Tasks {
		if t.Speculative {
			m[t.Task] = true
		}
	}
	return m
}

// admit ranks the candidates and moves them to Speculate, or to Deferred
// with the reason: one_per_scan for a second candidate of a (job, phase)
// whose detector submits one per scan, cap past Hadoop's speculative cap
// (D-G2).
func admit(in AdviceInput, c Cap, cands []candidate, adv *Advice) {
	slices.SortStableFunc(cands, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(b.rank, a.rank), cmp.Compare(a.a.Attempt, b.a.Attempt))
	})
	jobs := jobIndex(in)
	type key struct{ job, phase string }
	running := map[key]int{}
	specRunning := map[key]int{}
	for _, t := range in.Tasks {
		k := key{t.Job, t.Phase}
		if t.Speculative && !t.Waiting {
			specRunning[k]++
		}
		if !t.Waiting {
			running[k]++
		}
	}
	chosen := map[key]bool{}
	for _, cd := range cands {
		k := key{cd.a.Job, cd.a.Phase}
		if cd.onePerJob && chosen[k] {
			adv.Deferred = append(adv.Deferred, deferOf(cd.a, ReasonOnePerScan))
			continue
		}
		tasks := 0
		if pc := counts(jobs, cd.a.Job, cd.a.Phase); pc != nil {
			tasks = pc.Tasks
		}
		limit := max(c.MinTasks, int(math.Floor(c.TotalFraction*float64(tasks))), int(math.Floor(c.RunningFraction*float64(running[k]))))
		if specRunning[k] >= limit {
			adv.Deferred = append(adv.Deferred, deferOf(cd.a, ReasonCap))
			continue
		}
		specRunning[k]++
		chosen[k] = true
		adv.Speculate = append(adv.Speculate, Speculate{
			Job: cd.a.Job, Task: cd.a.Task, Attempt: cd.a.Attempt, Phase: cd.a.Phase, Node: cd.a.Node,
			Reason: cd.reason, MinLevel: cd.minLevel, Value: cd.value, TimeToEnd: cd.tte,
		})
	}
}

func deferOf(a Attempt, reason string) Deferred {
	return Deferred{Job: a.Job, Task: a.Task, Attempt: a.Attempt, Phase: a.Phase, Node: a.Node, Reason: reason}
}

// finitePtr returns &x, or nil when x is not finite (D-G4: no infinities
// in JSON).
func finitePtr(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}
