package epoch

import (
	"fmt"
	"slices"

	"github.com/flexd/flexd/estimate"
	"github.com/flexd/flexd/solver"
)

// The limits of the task-level state one request may carry (docs/api.md,
// "Errors and limits"; estimate-and-advice.md section 2.6). The body limit
// is the practical cap well before these.
const (
	// DefaultMaxNodes is the most nodes a request may list.
	DefaultMaxNodes = 100_000
	// DefaultMaxTasks is the most running plus completed task attempts a
	// request may list.
	DefaultMaxTasks = 1_000_000
	// MaxESAMRK, MaxKMeansIters, MaxESAMRHistory and MaxESPLASHLevels bound
	// the detectors' parameters: the history is kept in the cluster's
	// state and k-means runs over it at every job completion.
	MaxESAMRK        = 100
	MaxKMeansIters   = 1000
	MaxESAMRHistory  = 1000
	MaxESPLASHLevels = 64
	// MaxNodeLevel bounds a node's configured level.
	MaxNodeLevel = 1000
)

// Speculation is the request's speculation object: which straggler
// detector advises the shim, with its parameters. Nil pointers mean the
// defaults of estimate.DefaultSpeculationConfig.
type Speculation struct {
	// Detector is none (or empty), late, yarn_default, esamr or esplash.
	Detector string
	Cap      SpeculationCap
	ESAMR    ESAMRParams
	ESPLASH  ESPLASHParams
	SEPB     SEPBParams
}

// SEPBParams are SEPB's (DynamicMR Algorithm 3) settings; nil pointers
// mean the defaults.
type SEPBParams struct {
	Enabled     bool
	JobsChecked *float64
	// Scope is cluster (or empty) or pool.
	Scope      string
	KillFactor *float64
}

// SpeculationCap is Hadoop's speculative cap (D-G2).
type SpeculationCap struct {
	MinTasks                       *int
	TotalFraction, RunningFraction *float64
}

// ESAMRParams are ESAMR's (and late's) parameters.
type ESAMRParams struct {
	PFM, PFR, STT        *float64
	K, MaxIters, History *int
	// Basis is execution_time (or empty) or time_to_end (D-E13).
	Basis string
}

// ESPLASHParams are ESPLASH's parameters.
type ESPLASHParams struct {
	Levels                 *int
	Tau, SigmaFloor, PRCap *float64
	// Progress is hadoop (or empty) or esamr.
	Progress string
}

// Node is one worker node as the shim reports it.
type Node struct {
	ID                        string
	MapSlots, ReduceSlots     int
	RunningMap, RunningReduce int
	// MapOnReduce and ReduceOnMap count DHSA's cross-phase use: map tasks
	// on reduce slots and the reverse.
	MapOnReduce, ReduceOnMap int
	// Level is the node's pre-configured level (1 the slowest), 0 for
	// dynamic classification.
	Level int
}

// TaskAttempt is a running attempt, or a waiting speculative one.
type TaskAttempt struct {
	Attempt, Task, Job, Phase string
	// Node and Start are those of a running attempt.
	Node  string
	Start *float64
	// Progress, StageProgress and ProgressRate are nil when not sent.
	Progress, StageProgress, ProgressRate *float64
	Stage                                 string
	Speculative                           bool
	// State is running (or empty) or waiting.
	State string
}

// The states of a task attempt.
const (
	StateRunning = "running"
	StateWaiting = "waiting"
)

// CompletedTask is an attempt that finished successfully since the
// previous epoch.
type CompletedTask struct {
	Attempt, Task, Job, Phase, Node string
	Start, Finish                   float64
	StageTimes                      []float64
	Speculative                     bool
}

// config returns the speculation configuration with defaults applied.
func (s Speculation) config(explain bool) estimate.SpeculationConfig {
	cfg := estimate.DefaultSpeculationConfig()
	if s.Detector != "" {
		cfg.Detector = estimate.Detector(s.Detector)
	}
	setInt(&cfg.Cap.MinTasks, s.Cap.MinTasks)
	setFloat(&cfg.Cap.TotalFraction, s.Cap.TotalFraction)
	setFloat(&cfg.Cap.RunningFraction, s.Cap.RunningFraction)
	e := &cfg.ESAMR
	setFloat(&e.PFM, s.ESAMR.PFM)
	setFloat(&e.PFR, s.ESAMR.PFR)
	setFloat(&e.STT, s.ESAMR.STT)
	setInt(&e.K, s.ESAMR.K)
	setInt(&e.MaxIters, s.ESAMR.MaxIters)
	setInt(&e.History, s.ESAMR.History)
	if s.ESAMR.Basis != "" {
		e.Basis = s.ESAMR.Basis
	}
	p := &cfg.ESPLASH
	setInt(&p.Levels, s.ESPLASH.Levels)
	setFloat(&p.Tau, s.ESPLASH.Tau)
	setFloat(&p.SigmaFloor, s.ESPLASH.SigmaFloor)
	setFloat(&p.PRCap, s.ESPLASH.PRCap)
	if s.ESPLASH.Progress != "" {
		p.Progress = s.ESPLASH.Progress
	}
	b := &cfg.SEPB
	b.Enabled = s.SEPB.Enabled
	setFloat(&b.JobsChecked, s.SEPB.JobsChecked)
	setFloat(&b.KillFactor, s.SEPB.KillFactor)
	if s.SEPB.Scope != "" {
		b.Scope = s.SEPB.Scope
	}
	cfg.Explain = explain
	return cfg
}

func setInt(dst *int, p *int) {
	if p != nil {
		*dst = *p
	}
}

func setFloat(dst *float64, p *float64) {
	if p != nil {
		*dst = *p
	}
}

// speculating reports whether the request asks for speculation advice.
func (req Request) speculating() bool {
	return req.Speculation != nil && req.Speculation.Detector != "" && req.Speculation.Detector != string(estimate.DetectorNone)
}

// validateTaskState checks the speculation object and the task-level
// state (nodes, tasks, completed_tasks, finished_jobs): section 2.6 of
// estimate-and-advice.md. The counts are checked first, so an oversized
// request costs nothing more.
func (v *validator) validateTaskState(req Request, maxNodes, maxTasks int) {
	if n := len(req.Nodes); n > maxNodes {
		v.add(-1, "nodes", "", "must hold at most %d nodes, got %d", maxNodes, n)
		return
	}
	if n := len(req.Tasks) + len(req.CompletedTasks); n > maxTasks {
		v.add(-1, "tasks", "", "tasks and completed_tasks must hold at most %d attempts together, got %d", maxTasks, n)
		return
	}
	if s := req.Speculation; s != nil {
		v.speculationParams(*s)
	}
	nodes := v.nodes(req)
	jobs := make(map[string]*Job, len(req.Jobs))
	for i := range req.Jobs {
		jobs[req.Jobs[i].ID] = &req.Jobs[i]
	}
	detector := ""
	if req.Speculation != nil {
		detector = req.Speculation.Detector
	}
	attempts := make(map[string]bool, len(req.Tasks))
	for i, t := range req.Tasks {
		path := fmt.Sprintf("tasks[%d]", i)
		v.attemptIDs(path, t.Attempt, t.Task, t.Job)
		if attempts[t.Attempt] && t.Attempt != "" {
			v.add(-1, path+".attempt", "", "duplicate attempt %q", t.Attempt)
		}
		attempts[t.Attempt] = true
		if t.Job != "" && jobs[t.Job] == nil {
			v.add(-1, path+".job", "", "job %q is not in jobs", t.Job)
		}
		phaseOK := v.taskPhase(path, t.Phase)
		if phaseOK && t.Stage != "" && !validStage(t.Phase, t.Stage) {
			v.add(-1, path+".stage", "", "unknown stage %q for a %s task; one of %s", t.Stage, t.Phase, stagesOf(t.Phase))
		}
		v.unit(path+".progress", t.Progress)
		v.unit(path+".stage_progress", t.StageProgress)
		if r := t.ProgressRate; r != nil && (!finite(*r) || *r < 0) {
			v.add(-1, path+".progress_rate", "", "must be a finite number >= 0 (progress per second), got %v", *r)
		}
		switch t.State {
		case "", StateRunning:
			if t.Node == "" {
				v.add(-1, path+".node", "", "a running attempt needs its node")
			} else if nodes != nil && !nodes[t.Node] {
				v.add(-1, path+".node", "", "node %q is not in nodes", t.Node)
			}
			switch {
			case t.Start == nil:
				v.add(-1, path+".start", "", "a running attempt needs its start time")
			case !finite(*t.Start) || *t.Start > req.Now:
				v.add(-1, path+".start", "", "must be a finite time <= now (%v), got %v", req.Now, *t.Start)
			}
			v.detectorInputs(path, detector, t)
		case StateWaiting:
			if !t.Speculative {
				v.add(-1, path+".speculative", "", "a waiting attempt is a speculative one: speculative must be true")
			}
		default:
			v.add(-1, path+".state", "", "unknown state %q; one of running, waiting", t.State)
		}
	}
	for i, c := range req.CompletedTasks {
		path := fmt.Sprintf("completed_tasks[%d]", i)
		v.attemptIDs(path, c.Attempt, c.Task, c.Job)
		phaseOK := v.taskPhase(path, c.Phase)
		if !finite(c.Start) || !finite(c.Finish) || c.Start > c.Finish || c.Finish > req.Now {
			v.add(-1, path+".finish", "", "must satisfy start <= finish <= now (%v), got start %v and finish %v", req.Now, c.Start, c.Finish)
		}
		if len(c.StageTimes) > 0 && phaseOK {
			if want := len(stages[c.Phase]); len(c.StageTimes) != want {
				v.add(-1, path+".stage_times", "", "a %s task has %d stages (%s), got %d times", c.Phase, want, stagesOf(c.Phase), len(c.StageTimes))
			}
			for k, st := range c.StageTimes {
				if !finite(st) || st < 0 {
					v.add(-1, fmt.Sprintf("%s.stage_times[%d]", path, k), "", "must be a finite number >= 0 (seconds), got %v", st)
				}
			}
		}
	}
	finished := make(map[string]bool, len(req.FinishedJobs))
	for i, id := range req.FinishedJobs {
		path := fmt.Sprintf("finished_jobs[%d]", i)
		switch {
		case !solver.PrintableID(id):
			v.add(-1, path, "", "must be a non-empty id of printable characters, got %q", id)
		case finished[id]:
			v.add(-1, path, "", "duplicate job %q", id)
		case jobs[id] != nil:
			v.add(-1, path, "", "job %q is finished but still in jobs", id)
		}
		finished[id] = true
	}
	if detector == string(estimate.ESPLASH) && len(req.Nodes) == 0 {
		v.add(-1, "nodes", "", "speculation.detector esplash needs the nodes")
	}
	if req.Preschedule.Enabled && len(req.Nodes) == 0 {
		v.add(-1, "nodes", "", "preschedule needs the nodes")
	}
	if m := req.Preschedule.MaxBorrowedReduceSlots; m != nil && *m < 0 {
		v.add(-1, "preschedule.max_borrowed_reduce_slots", "", "must be >= 0, got %d", *m)
	}
	for i, j := range req.Jobs {
		for _, ph := range []struct {
			name string
			p    *Phase
		}{{"map", j.Map}, {"reduce", j.Reduce}} {
			if ph.p == nil {
				continue
			}
			for node, k := range ph.p.LocalPending {
				field := fmt.Sprintf("jobs[%d].%s.local_pending", i, ph.name)
				switch {
				case nodes == nil:
					v.add(i, field, j.ID, "names node %q, but the request lists no nodes", node)
				case !nodes[node]:
					v.add(i, field, j.ID, "node %q is not in nodes", node)
				case k < 0 || k > ph.p.Pending:
					v.add(i, field, j.ID, "node %q: must be in [0, pending = %d], got %d", node, ph.p.Pending, k)
				}
			}
		}
	}
}

// nodes checks the nodes and returns their ids (nil when none are sent).
func (v *validator) nodes(req Request) map[string]bool {
	if len(req.Nodes) == 0 {
		return nil
	}
	ids := make(map[string]bool, len(req.Nodes))
	var sumMap, sumReduce, leveled int
	for i, n := range req.Nodes {
		path := fmt.Sprintf("nodes[%d]", i)
		switch {
		case !solver.PrintableID(n.ID):
			v.add(-1, path+".id", "", "must be a non-empty id of printable characters, got %q", n.ID)
		case ids[n.ID]:
			v.add(-1, path+".id", "", "duplicate node %q", n.ID)
		}
		ids[n.ID] = true
		for _, f := range []struct {
			name string
			n    int
			most int
		}{
			{"map_slots", n.MapSlots, solver.MaxSlots}, {"reduce_slots", n.ReduceSlots, solver.MaxSlots},
			{"running_map", n.RunningMap, solver.MaxSlots}, {"running_reduce", n.RunningReduce, solver.MaxSlots},
			{"map_on_reduce", n.MapOnReduce, solver.MaxSlots}, {"reduce_on_map", n.ReduceOnMap, solver.MaxSlots},
			{"level", n.Level, MaxNodeLevel},
		} {
			// The upper bounds keep sums from wrapping and level-indexed
			// tables small.
			if f.n < 0 || f.n > f.most {
				v.add(-1, path+"."+f.name, "", "must be an integer in [0, %d], got %d", f.most, f.n)
			}
		}
		if n.RunningMap+n.ReduceOnMap > n.MapSlots {
			v.add(-1, path+".running_map", "", "running_map + reduce_on_map (%d) must be at most map_slots (%d)", n.RunningMap+n.ReduceOnMap, n.MapSlots)
		}
		if n.RunningReduce+n.MapOnReduce > n.ReduceSlots {
			v.add(-1, path+".running_reduce", "", "running_reduce + map_on_reduce (%d) must be at most reduce_slots (%d)", n.RunningReduce+n.MapOnReduce, n.ReduceSlots)
		}
		sumMap += n.MapSlots
		sumReduce += n.ReduceSlots
		if n.Level > 0 {
			leveled++
		}
	}
	if sumMap != req.Slots.Map {
		v.add(-1, "nodes", "", "the nodes' map_slots add up to %d, but slots.map is %d", sumMap, req.Slots.Map)
	}
	if sumReduce != req.Slots.Reduce {
		v.add(-1, "nodes", "", "the nodes' reduce_slots add up to %d, but slots.reduce is %d", sumReduce, req.Slots.Reduce)
	}
	if leveled > 0 && leveled < len(req.Nodes) {
		v.add(-1, "nodes", "", "either every node has a level > 0 (pre-configured) or none has (classified by flexd): %d of %d have one", leveled, len(req.Nodes))
	}
	return ids
}

// attemptIDs checks an attempt's ids.
func (v *validator) attemptIDs(path, attempt, task, job string) {
	for _, f := range []struct{ name, id string }{{"attempt", attempt}, {"task", task}, {"job", job}} {
		if !solver.PrintableID(f.id) {
			v.add(-1, path+"."+f.name, "", "must be a non-empty id of printable characters, got %q", f.id)
		}
	}
}

// taskPhase checks an attempt's phase and reports whether it is valid.
func (v *validator) taskPhase(path, phase string) bool {
	if phase == estimate.MapPhase || phase == estimate.ReducePhase {
		return true
	}
	v.add(-1, path+".phase", "", "unknown phase %q; one of map, reduce", phase)
	return false
}

// unit checks an optional fraction.
func (v *validator) unit(field string, p *float64) {
	if p != nil && (!finite(*p) || *p < 0 || *p > 1) {
		v.add(-1, field, "", "must be a number in [0, 1], got %v", *p)
	}
}

// detectorInputs checks that a running attempt carries what the detector
// reads: stage and stage_progress for late and esamr, progress for
// yarn_default and esplash.
func (v *validator) detectorInputs(path, detector string, t TaskAttempt) {
	switch estimate.Detector(detector) {
	case estimate.Late, estimate.ESAMR:
		if t.Stage == "" {
			v.add(-1, path+".stage", "", "speculation.detector %s needs every running attempt's stage", detector)
		}
		if t.StageProgress == nil {
			v.add(-1, path+".stage_progress", "", "speculation.detector %s needs every running attempt's stage_progress", detector)
		}
	case estimate.YARNDefault, estimate.ESPLASH:
		if t.Progress == nil {
			v.add(-1, path+".progress", "", "speculation.detector %s needs every running attempt's progress", detector)
		}
	}
}

// stages are each phase's stages in order (ESAMR Fig. 1).
var stages = map[string][]string{
	estimate.MapPhase:    {estimate.StageMap, estimate.StageSort},
	estimate.ReducePhase: {estimate.StageShuffle, estimate.StageSort, estimate.StageReduce},
}

func validStage(phase, stage string) bool { return slices.Contains(stages[phase], stage) }

func stagesOf(phase string) string {
	out := ""
	for i, s := range stages[phase] {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}

// speculationParams checks the speculation object's parameters.
func (v *validator) speculationParams(s Speculation) {
	switch estimate.Detector(s.Detector) {
	case "", estimate.DetectorNone, estimate.Late, estimate.YARNDefault, estimate.ESAMR, estimate.ESPLASH:
	default:
		v.add(-1, "speculation.detector", "", "unknown detector %q; one of none, late, yarn_default, esamr, esplash", s.Detector)
	}
	type rule struct {
		field string
		p     *float64
		ok    func(float64) bool
		want  string
	}
	in01 := func(x float64) bool { return x >= 0 && x <= 1 }
	in01open := func(x float64) bool { return x > 0 && x <= 1 }
	positive := func(x float64) bool { return x > 0 }
	nonneg := func(x float64) bool { return x >= 0 }
	for _, r := range []rule{
		{"speculation.cap.total_fraction", s.Cap.TotalFraction, in01, "a number in [0, 1]"},
		{"speculation.cap.running_fraction", s.Cap.RunningFraction, in01, "a number in [0, 1]"},
		{"speculation.esamr.pfm", s.ESAMR.PFM, in01open, "a number in (0, 1]"},
		{"speculation.esamr.pfr", s.ESAMR.PFR, in01open, "a number in (0, 1]"},
		{"speculation.esamr.stt", s.ESAMR.STT, positive, "a finite number > 0"},
		{"speculation.esplash.tau", s.ESPLASH.Tau, positive, "a finite number > 0"},
		{"speculation.esplash.sigma_floor", s.ESPLASH.SigmaFloor, nonneg, "a finite number >= 0"},
		{"speculation.esplash.pr_cap", s.ESPLASH.PRCap, positive, "a finite number > 0"},
	} {
		if r.p != nil && (!finite(*r.p) || !r.ok(*r.p)) {
			v.add(-1, r.field, "", "must be %s, got %v", r.want, *r.p)
		}
	}
	// The integers have upper bounds too: each sizes work or state that
	// every later epoch of the cluster carries.
	for _, r := range []struct {
		field       string
		p           *int
		least, most int
	}{
		{"speculation.cap.min_tasks", s.Cap.MinTasks, 0, 1_000_000},
		{"speculation.esamr.k", s.ESAMR.K, 1, MaxESAMRK},
		{"speculation.esamr.max_iters", s.ESAMR.MaxIters, 1, MaxKMeansIters},
		{"speculation.esamr.history", s.ESAMR.History, 1, MaxESAMRHistory},
		{"speculation.esplash.levels", s.ESPLASH.Levels, 1, MaxESPLASHLevels},
	} {
		if r.p != nil && (*r.p < r.least || *r.p > r.most) {
			v.add(-1, r.field, "", "must be an integer in [%d, %d], got %d", r.least, r.most, *r.p)
		}
	}
	if p := s.SEPB.JobsChecked; p != nil && (!finite(*p) || *p < 0 || *p > 1) {
		v.add(-1, "speculation.sepb.jobs_checked", "", "must be a number in [0, 1], got %v", *p)
	}
	if k := s.SEPB.KillFactor; k != nil && (!finite(*k) || (*k != 0 && *k < 1)) {
		v.add(-1, "speculation.sepb.kill_factor", "", "must be 0 (off) or a finite number >= 1, got %v", *k)
	}
	switch s.SEPB.Scope {
	case "", estimate.ScopeCluster, estimate.ScopePool:
	default:
		v.add(-1, "speculation.sepb.scope", "", "unknown scope %q; one of cluster, pool", s.SEPB.Scope)
	}
	switch s.ESAMR.Basis {
	case "", estimate.BasisExecutionTime, estimate.BasisTimeToEnd:
	default:
		v.add(-1, "speculation.esamr.basis", "", "unknown basis %q; one of execution_time, time_to_end", s.ESAMR.Basis)
	}
	switch s.ESPLASH.Progress {
	case "", estimate.ProgressHadoop, estimate.ProgressESAMR:
	default:
		v.add(-1, "speculation.esplash.progress", "", "unknown progress %q; one of hadoop, esamr", s.ESPLASH.Progress)
	}
}
