package tasksim

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/flexd/flexd/epoch"
	"github.com/flexd/flexd/estimate"
	"github.com/flexd/flexd/httpapi"
)

// decide sends flexd the epoch's request, as a shim would build it from
// the simulated cluster, and applies the answer: the allocations steer
// the assignment; the speculation advice, unless Config.NoBackups, queues
// backups, cancels waiting ones and excludes nodes.
func (r *runner) decide() error {
	w, ok := r.request()
	if !ok {
		return nil
	}
	dec, next, err := epoch.Decide(w.Domain(), r.state)
	if err != nil {
		return fmt.Errorf("tasksim: t=%g, epoch %d: %w", r.t, w.Epoch, err)
	}
	r.state = next
	r.rep.Decisions++
	if r.cfg.Log {
		w.Cluster = Cluster
		r.rep.Requests = append(r.rep.Requests, w)
	}
	r.completed, r.finished = nil, nil
	byID := map[string]*jobState{}
	for _, j := range r.jobs {
		byID[j.spec.ID] = j
	}
	for _, a := range dec.Allocations {
		if j := byID[a.ID]; j != nil {
			j.alloc = [2]int{a.Map, a.Reduce}
		}
	}
	if dec.Preschedule != nil {
		r.preschedule(dec.Preschedule, byID)
	}
	if dec.Speculation != nil {
		r.measure(dec.Speculation.Tasks)
		r.flag(dec.Speculation.Speculate)
		if !r.cfg.NoBackups {
			r.follow(dec.Speculation)
		}
	}
	return nil
}

// preschedule starts the data-local map tasks Slot PreScheduling advises
// (Case 1: a map slot above the balancing line; Case 2 needs DHSA's
// borrowed reduce slots, which the simulator does not model), bypassing
// the load-balancing cap.
func (r *runner) preschedule(p *estimate.Preschedule, jobs map[string]*jobState) {
	for _, a := range p.Assign {
		j, node := jobs[a.Job], r.byID[a.Node]
		if j == nil || node == nil || a.Slot != estimate.MapPhase || node.free(0) <= 0 || node.spec.down(r.t) {
			continue
		}
		for _, t := range j.tasks[0] {
			if t.pending() && t.localTo(node) {
				r.start(t, node, false)
				r.rep.Prescheduled++
				break
			}
		}
	}
}

// request builds the epoch request; false when no job is live.
func (r *runner) request() (httpapi.EpochRequest, bool) {
	r.epoch++
	w := httpapi.EpochRequest{
		Epoch: r.epoch, Now: r.t, EpochLength: r.cfg.Epoch, Policy: r.cfg.Policy,
		Speculation: r.cfg.Speculation,
	}
	if !r.cfg.Oracle {
		w.Estimate = &httpapi.EstimateConfig{Work: "extrapolate"}
		if r.cfg.Elapsed {
			w.Estimate.Work = "extrapolate_elapsed"
		}
	}
	for _, n := range r.nodes {
		if n.spec.down(r.t) {
			continue
		}
		ns := httpapi.NodeState{
			ID: n.spec.ID, MapSlots: n.spec.MapSlots, ReduceSlots: n.spec.ReduceSlots,
			RunningMap: n.running[0], RunningReduce: n.running[1],
		}
		if n.spec.ReportLevel {
			ns.Level = n.spec.Level
		}
		w.Nodes = append(w.Nodes, ns)
		w.Slots.Map += ns.MapSlots
		w.Slots.Reduce += ns.ReduceSlots
	}
	for _, j := range r.jobs {
		if !j.arrived || j.finished {
			continue
		}
		w.Jobs = append(w.Jobs, httpapi.EpochJob{ID: j.spec.ID, Submitted: j.arrival, Map: r.phaseState(j, 0), Reduce: r.phaseState(j, 1)})
		if j.spec.Measure {
			w.Explain = true
		}
	}
	if len(w.Jobs) == 0 || w.Slots.Map < 1 || w.Slots.Reduce < 1 {
		r.epoch--
		return w, false
	}
	if r.cfg.MinShare > 0 {
		// FLEX 4.2's pool minimum, split evenly among a phase's jobs.
		var in [2]int
		for _, j := range w.Jobs {
			if j.Map != nil {
				in[0]++
			}
			if j.Reduce != nil {
				in[1]++
			}
		}
		for i := range w.Jobs {
			if p := w.Jobs[i].Map; p != nil {
				p.Min = int(math.Floor(r.cfg.MinShare * float64(w.Slots.Map) / float64(in[0])))
			}
			if p := w.Jobs[i].Reduce; p != nil {
				p.Min = int(math.Floor(r.cfg.MinShare * float64(w.Slots.Reduce) / float64(in[1])))
			}
		}
	}
	for _, a := range r.live {
		p, stage, sub := a.progress()
		start := a.start
		w.Tasks = append(w.Tasks, httpapi.TaskAttemptState{
			Attempt: a.id, Task: a.task.id, Job: a.task.job.spec.ID, Phase: phaseName(a.task.phase),
			Node: a.node.spec.ID, Start: &start, Progress: &p, Stage: stage, StageProgress: &sub, Speculative: a.spec,
		})
	}
	for _, t := range r.waitingTasks() {
		w.Tasks = append(w.Tasks, httpapi.TaskAttemptState{
			Attempt: t.waiting.id, Task: t.id, Job: t.job.spec.ID, Phase: phaseName(t.phase), Speculative: true, State: "waiting",
		})
	}
	slices.SortFunc(w.Tasks, func(a, b httpapi.TaskAttemptState) int { return cmp.Compare(a.Attempt, b.Attempt) })
	w.CompletedTasks = r.completed
	w.FinishedJobs = r.finished
	if r.cfg.Preschedule {
		w.Preschedule = &httpapi.PrescheduleConfig{Enabled: true}
	}
	if w.Speculation == nil {
		// Without a detector the shim sends no attempts.
		w.Tasks, w.CompletedTasks, w.FinishedJobs, w.Explain = nil, nil, nil, false
		if !r.cfg.Preschedule {
			w.Nodes = nil
		}
	}
	return w, true
}

// phaseState is what a shim knows of a job's phase: task counts and the
// mean duration of its completed tasks; flexd estimates the work.
func (r *runner) phaseState(j *jobState, ph int) *httpapi.PhaseState {
	n := len(j.tasks[ph])
	if n == 0 || j.doneCount[ph] == n {
		return nil
	}
	p := &httpapi.PhaseState{Pending: j.pendingCount(ph), Running: j.running(ph), Tasks: n}
	p.Max = p.Pending + p.Running
	if ds := j.durations[ph]; len(ds) > 0 {
		sum := 0.0
		for _, d := range ds {
			sum += d
		}
		p.AvgTaskTime = sum / float64(len(ds))
	}
	if ph == 1 {
		started := j.reduceEligible(r.cfg.SlowStart)
		p.Started = &started
	}
	if r.cfg.Preschedule && ph == 0 {
		if lp := j.localPending(); len(lp) > 0 {
			p.LocalPending = lp
		}
	}
	if r.cfg.Elapsed {
		for _, t := range j.tasks[ph] {
			if !t.done && len(t.attempts) > 0 {
				first := t.attempts[0].start
				for _, a := range t.attempts {
					first = math.Min(first, a.start)
				}
				p.RunningElapsed += r.t - first
			}
		}
	}
	if r.cfg.Oracle {
		p.Work, p.TotalWork = j.trueWork(ph)
		if !(p.Work > 0) {
			// A phase whose last attempts are about to end: a sliver, so
			// that it still takes part.
			p.Work = 1e-6
		}
	}
	return p
}

// trueWork is a phase's remaining and whole work in slot-seconds of a
// speed-1 node: the nominal times of its tasks, less what its most
// advanced running attempt has done.
func (j *jobState) trueWork(ph int) (rem, total float64) {
	base := j.spec.Profile.MapTime
	if ph == 1 {
		base = j.spec.Profile.ReduceTime
	}
	for _, t := range j.tasks[ph] {
		total += base
		if t.done {
			continue
		}
		left := base
		for _, a := range t.attempts {
			done := 0.0
			for s := range a.stage {
				done += a.stageDur[s]
			}
			sum := 0.0
			for _, d := range a.stageDur {
				sum += d
			}
			if sum > 0 {
				left = math.Min(left, base*(1-(done+a.inStage)/sum))
			}
		}
		rem += left
	}
	return rem, total
}

// waitingTasks are the tasks with a backup requested and not placed, in
// the order they were advised.
func (r *runner) waitingTasks() []*task {
	var out []*task
	for _, t := range r.queue {
		if t.waiting != nil && !t.done {
			out = append(out, t)
		}
	}
	return out
}

// follow applies the speculation advice as a shim would.
func (r *runner) follow(adv *estimate.Advice) {
	for _, nr := range adv.Nodes {
		if n := r.byID[nr.Node]; n != nil && !n.spec.ReportLevel {
			n.level = nr.Level
		}
	}
	clear(r.excluded)
	for _, id := range adv.ExcludeNodes {
		r.excluded[id] = true
	}
	for _, c := range adv.Cancel {
		if t := r.tasks[c.Task]; t != nil && t.waiting != nil && t.waiting.id == c.Attempt {
			t.waiting = nil
		}
	}
	// SEPB: a backup deferred for checked jobs' pending tasks is not
	// launched (a waiting one is dropped); one deferred only for want of
	// an idle slot waits for the next slot that frees, as Algorithm 3
	// would give it; a killed attempt gives its slot back and its task
	// runs again first.
	for _, d := range adv.Deferred {
		if t := r.tasks[d.Task]; t != nil && len(d.PendingJobs) > 0 {
			t.waiting = nil
		}
	}
	for _, k := range adv.Kill {
		for _, a := range r.live {
			if a.id == k.Attempt {
				a.task.rerun = true
				r.rep.Speculation.KilledSlow++
				r.kill(a)
				break
			}
		}
	}
	queue := slices.Clone(adv.Speculate)
	for _, d := range adv.Deferred {
		if d.Reason == estimate.ReasonNoIdleSlot && len(d.PendingJobs) == 0 {
			queue = append(queue, estimate.Speculate{Job: d.Job, Task: d.Task, Attempt: d.Attempt, Phase: d.Phase, Node: d.Node})
		}
	}
	for _, s := range queue {
		t := r.tasks[s.Task]
		if t == nil || t.done || len(t.attempts) != 1 || t.attempts[0].spec {
			continue
		}
		if t.waiting != nil {
			t.waiting.minLevel = s.MinLevel
			continue
		}
		t.waiting = &backup{id: fmt.Sprintf("attempt_%s_%d", t.id, t.nextAttempt), minLevel: s.MinLevel}
		t.nextAttempt++
		if !slices.Contains(r.queue, t) {
			r.queue = append(r.queue, t)
		}
	}
	r.queue = slices.DeleteFunc(r.queue, func(t *task) bool { return t.waiting == nil || t.done })
}

// measured reports whether a's TimeToEnd is measured: an original attempt
// of a measured job.
func measured(a *attempt) bool { return a.task.job.spec.Measure && !a.spec }

// measure keeps the detector's TimeToEnd of measured attempts and the
// stage weights it used on each node.
func (r *runner) measure(tasks []estimate.Explained) {
	if len(tasks) == 0 {
		return
	}
	live := make(map[string]*attempt, len(r.live))
	for _, a := range r.live {
		live[a.id] = a
	}
	for _, e := range tasks {
		a := live[e.Attempt]
		if a == nil || !measured(a) {
			continue
		}
		if e.TimeToEnd != nil {
			a.tte = append(a.tte, sample{r.t, *e.TimeToEnd})
		}
		if len(e.Weights) == 0 {
			continue
		}
		job := a.task.job.spec
		per := r.weights[job.ID]
		if per == nil {
			per = map[string]*weightSeen{}
			r.weights[job.ID] = per
		}
		ws := per[a.node.spec.ID]
		if ws == nil {
			ws = &weightSeen{}
			per[a.node.spec.ID] = ws
		}
		if a.task.phase == 0 {
			if m1, ok := e.Weights["m1"]; ok {
				ws.m1, ws.mapSeen = m1, true
			}
		} else {
			r1, ok1 := e.Weights["r1"]
			r3, ok3 := e.Weights["r3"]
			if ok1 && ok3 {
				ws.r1, ws.r3, ws.reduceSeen = r1, r3, true
			}
		}
	}
}

// weightSeen is the last stage weights a detector used for a measured
// job's tasks on one node; weightTrue sums the shares the job's completed
// attempts there really spent in each stage (the paper's "real" weights
// are measured, not configured: a reduce that starts early waits in its
// shuffle for the maps).
type weightSeen struct {
	m1, r1, r3          float64
	mapSeen, reduceSeen bool
}

type weightTrue struct {
	m1, r1, r3 float64
	nMap, nRed int
}

// flag remembers the measured jobs' tasks the detector advised a backup
// for.
func (r *runner) flag(spec []estimate.Speculate) {
	for _, s := range spec {
		t := r.tasks[s.Task]
		if t == nil || !t.job.spec.Measure {
			continue
		}
		key := fmt.Sprintf("%s/%s/%d", t.job.spec.ID, phaseName(t.phase), t.index)
		if !slices.Contains(r.rep.Flagged, key) {
			r.rep.Flagged = append(r.rep.Flagged, key)
		}
	}
}

// measureDone scores a measured attempt's TimeToEnd estimates once its
// true end is known.
func (r *runner) measureDone(a *attempt, finish float64) {
	if !measured(a) {
		return
	}
	job, node := a.task.job.spec.ID, a.node.spec.ID
	if r.weightsTrue[job] == nil {
		r.weightsTrue[job] = map[string]*weightTrue{}
	}
	wt := r.weightsTrue[job][node]
	if wt == nil {
		wt = &weightTrue{}
		r.weightsTrue[job][node] = wt
	}
	total := finish - a.start
	if total > 0 {
		first := a.stageEnd[0] - a.start
		if a.task.phase == 0 {
			wt.m1 += first / total
			wt.nMap++
		} else {
			wt.r1 += first / total
			wt.r3 += (finish - a.stageEnd[1]) / total
			wt.nRed++
		}
	}
	if len(a.tte) == 0 {
		return
	}
	half := a.start + (finish-a.start)/2
	halfErr, life := math.NaN(), 0.0
	for _, s := range a.tte {
		e := math.Abs(s.v - (finish - s.t))
		life += e
		if math.IsNaN(halfErr) && s.t >= half {
			halfErr = e
		}
	}
	life /= float64(len(a.tte))
	acc := r.tteAcc[a.task.job.spec.ID]
	if acc == nil {
		acc = &tteAcc{}
		r.tteAcc[a.task.job.spec.ID] = acc
	}
	ph := a.task.phase
	acc.life[ph] += life
	acc.lifeN[ph]++
	if !math.IsNaN(halfErr) {
		acc.half[ph] += halfErr
		acc.halfN[ph]++
	}
}

type tteAcc struct {
	half, life   [2]float64
	halfN, lifeN [2]int
}

// finish fills the report.
func (r *runner) finish() {
	first, last, sum := math.Inf(1), 0.0, 0.0
	for _, j := range r.jobs {
		r.rep.Jobs = append(r.rep.Jobs, JobOutcome{ID: j.spec.ID, Arrival: j.arrival, Completion: j.completion})
		first = math.Min(first, j.arrival)
		last = math.Max(last, j.completion)
		sum += j.completion - j.arrival
	}
	r.rep.Makespan = last - first
	if r.cfg.Locality && r.maps > 0 {
		r.rep.Locality = float64(r.localMaps) / float64(r.maps)
	}
	if r.measured > 0 {
		r.rep.UnbalancedDegree, r.rep.UnfairnessDegree = r.unbalanced/r.measured, r.unfair/r.measured
	}
	r.rep.MeanResponse = sum / float64(len(r.jobs))
	slices.Sort(r.rep.Flagged)
	div := func(s float64, n int) float64 {
		if n == 0 {
			return 0
		}
		return s / float64(n)
	}
	for id, acc := range r.tteAcc {
		r.rep.TTE[id] = TTEError{
			MapHalf: div(acc.half[0], acc.halfN[0]), ReduceHalf: div(acc.half[1], acc.halfN[1]),
			MapLife: div(acc.life[0], acc.lifeN[0]), ReduceLife: div(acc.life[1], acc.lifeN[1]),
			MapN: acc.halfN[0], ReduceN: acc.halfN[1],
		}
	}
	for id, per := range r.weights {
		var list []WeightError
		for node, ws := range per {
			we := WeightError{Node: node}
			wt := r.weightsTrue[id][node]
			if ws.mapSeen && wt != nil && wt.nMap > 0 {
				we.M1, we.MapSeen = math.Abs(ws.m1-wt.m1/float64(wt.nMap)), true
			}
			if ws.reduceSeen && wt != nil && wt.nRed > 0 {
				we.R1 = math.Abs(ws.r1 - wt.r1/float64(wt.nRed))
				we.R3, we.ReduceSeen = math.Abs(ws.r3-wt.r3/float64(wt.nRed)), true
			}
			list = append(list, we)
		}
		slices.SortFunc(list, func(a, b WeightError) int { return cmp.Compare(a.Node, b.Node) })
		r.rep.Weights[id] = list
	}
}
