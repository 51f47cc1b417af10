// Package estimate estimates what a Hadoop or YARN shim cannot know and
// FLEX needs: each job's remaining work per phase, in slot-seconds, from the
// task statistics the shim does know (task counts and the mean duration of
// the phase's completed tasks). It implements the extrapolation of FLEX's
// own implementation (Wolf et al., Middleware 2010, section 4.2, on the
// assumption of section 2.5): the average completed task time times the
// number of tasks left, a minimum of one slot while a phase has no sample,
// and a chain of priors for phases without one. The exact rules and the
// decisions where the paper is vague (D-F1 to D-F7) are in
// docs/algorithms.md section 8.
//
// It also holds the epoch's advice on task attempts (docs/algorithms.md
// section 9): the straggler detectors behind Advise (LATE and YARN's
// speculator as baselines, ESAMR's learned stage weights, ESPLASH's node
// levels), DynamicMR's SEPB over any of them, and its Slot PreScheduling
// (PrescheduleConfig.Schedule).
//
// The package is pure: no I/O, clock or globals, so that an epoch's
// decision stays a function of its request.
package estimate

import "math"

// Mode selects how an epoch's remaining work is obtained.
type Mode string

// The modes of the epoch request's estimate.work.
const (
	// Given: the shim supplies each phase's work; nothing is estimated
	// (flexd's behaviour without an estimate object).
	Given Mode = ""
	// Extrapolate: FLEX 4.2, a running task counted as a whole task (D-F1).
	Extrapolate Mode = "extrapolate"
	// ExtrapolateElapsed: as Extrapolate, but each running task counts
	// only its expected time left (the mean task time less its elapsed
	// time, at least ElapsedFloor of the mean), from the phase's
	// RunningElapsed. The refinement FLEX's section 6 asks for.
	ExtrapolateElapsed Mode = "extrapolate_elapsed"
)

// GivenName is the wire name of Given.
const GivenName = "given"

// MinOne says when an estimated phase's minimum is raised to one slot.
type MinOne string

// The policies of the epoch request's estimate.min_one (D-F4).
const (
	// NoSample raises it while the phase has no completed task: FLEX 4.2
	// "ensure that its number of minimum slots is at least 1" so that a
	// first task runs and gives a sample.
	NoSample MinOne = "no_sample"
	// Always raises it for every estimated phase.
	Always MinOne = "always"
	// Never leaves the minimum alone.
	Never MinOne = "never"
	// Runnable is NoSample for phases that can complete a task now: a
	// reduce phase whose job still has maps left (PhaseStats.Blocked) is
	// not raised, since no reduce task completes before the maps do and
	// a slot held earlier gets no sample sooner. Beyond the paper: D-F4
	// in docs/algorithms.md, measured in docs/estimation.md.
	Runnable MinOne = "runnable"
)

// DefaultTaskTime is the last prior of the chain (D-F3), seconds per task.
const DefaultTaskTime = 60.0

// ElapsedFloor is the least share of the mean task time a running task
// counts for in ExtrapolateElapsed: a task past the mean is late, not done,
// and counting it as nothing would let its job look finished.
const ElapsedFloor = 0.1

// Source says where a phase's task time came from.
type Source string

// The sources, most trustworthy first (the prior chain of D-F3).
const (
	// Extrapolated: the phase's own completed tasks.
	Extrapolated Source = "extrapolated"
	// PriorJob: no task of the phase has completed, but the shim sent a
	// mean (a seed from past runs of the same periodic job, section 2.5).
	PriorJob Source = "prior_job"
	// PriorCluster: the completed-weighted mean of the other jobs' same
	// phase in the request.
	PriorCluster Source = "prior_cluster"
	// Default: Config.DefaultTaskTime.
	Default Source = "default"
)

// Config is the epoch request's estimate object.
type Config struct {
	// Mode is how work is obtained; Given estimates nothing.
	Mode Mode
	// DefaultTaskTime is the last prior, seconds (> 0); 0 means
	// DefaultTaskTime.
	DefaultTaskTime float64
	// MinOne is when the minimum is raised; "" means NoSample.
	MinOne MinOne
}

// PhaseStats is what a shim knows of one job's phase.
type PhaseStats struct {
	// Tasks, Pending and Running count the phase's tasks; Tasks 0 means
	// unknown (then no task is known to have completed).
	Tasks, Pending, Running int
	// AvgTaskTime is the mean duration of the phase's completed successful
	// attempts, seconds; 0 while none has completed (or, with no completed
	// task, a seed from past runs).
	AvgTaskTime float64
	// RunningElapsed is the sum over the running tasks of the time each
	// has run, seconds (ExtrapolateElapsed only).
	RunningElapsed float64
	// Blocked is true when no task of the phase can complete yet: a
	// reduce phase whose job's map phase has tasks or work left
	// (Runnable only).
	Blocked bool
}

// Completed is the number of completed tasks, max(tasks - pending -
// running, 0).
func (p PhaseStats) Completed() int { return max(p.Tasks-p.Pending-p.Running, 0) }

// Left is the number of tasks left, pending + running (D-F1).
func (p PhaseStats) Left() int { return p.Pending + p.Running }

// Prior is what a phase without a sample of its own falls back on.
type Prior struct {
	// Cluster is the completed-weighted mean task time of the other jobs'
	// same phase; meaningful when HasCluster.
	Cluster    float64
	HasCluster bool
	// Default is the last resort, seconds (> 0).
	Default float64
}

// Work is a phase's estimate.
type Work struct {
	// Work is the estimated remaining work, slot-seconds; TotalWork the
	// whole phase's (task time x tasks), for stretch.
	Work, TotalWork float64
	// TaskTime is the per-task time used, seconds, and Source where it
	// came from.
	TaskTime float64
	Source   Source
	// TasksLeft is pending + running.
	TasksLeft int
	// MinRaised is true when the phase's minimum must be raised to 1.
	MinRaised bool
}

// TaskTime is the per-task time of a phase and its source, by the prior
// chain of D-F3: the phase's own mean when it has completed tasks; a mean
// the shim sent without completed tasks (a seed); the cluster prior; the
// default.
func TaskTime(p PhaseStats, prior Prior) (float64, Source) {
	switch {
	case p.AvgTaskTime > 0 && p.Completed() >= 1:
		return p.AvgTaskTime, Extrapolated
	case p.AvgTaskTime > 0:
		return p.AvgTaskTime, PriorJob
	case prior.HasCluster:
		return prior.Cluster, PriorCluster
	}
	return prior.Default, Default
}

// ExtrapolateWork estimates one phase's work (FLEX 4.2, section 7.2 of the
// specification): task time by the prior chain, times the tasks left; in
// ExtrapolateElapsed the running tasks count their expected time left
// instead. It reports false when the phase has no task left (nothing to
// estimate: the job takes no part in the phase). MinRaised follows
// minOne.
func ExtrapolateWork(p PhaseStats, prior Prior, mode Mode, minOne MinOne) (Work, bool) {
	left := p.Left()
	if left <= 0 {
		return Work{}, false
	}
	t, src := TaskTime(p, prior)
	w := Work{TaskTime: t, Source: src, TasksLeft: left, Work: t * float64(left)}
	if mode == ExtrapolateElapsed && p.Running > 0 {
		// Each running task has about t - elapsed left; with only the sum
		// of elapsed times, the floor applies to the phase's running tasks
		// together.
		running := math.Max(t*float64(p.Running)-p.RunningElapsed, ElapsedFloor*t*float64(p.Running))
		w.Work = t*float64(p.Pending) + running
	}
	w.TotalWork = t * float64(max(p.Tasks, left))
	switch minOne {
	case Always:
		w.MinRaised = true
	case Never:
	case Runnable:
		w.MinRaised = p.Completed() == 0 && !p.Blocked
	default:
		w.MinRaised = p.Completed() == 0
	}
	return w, true
}

// ClusterPrior is the completed-weighted mean task time of phases that
// have completed tasks and a mean (D-F3: Σ completed·avg / Σ completed),
// and false when none has.
func ClusterPrior(phases []PhaseStats) (float64, bool) {
	sum, n := 0.0, 0
	for _, p := range phases {
		if c := p.Completed(); c >= 1 && p.AvgTaskTime > 0 {
			sum += float64(c) * p.AvgTaskTime
			n += c
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}
