package httpapi

import (
	"github.com/flexd/flexd/epoch"
)

// The epoch's task-level extension (docs/api.md, "Straggler advice"): the
// nodes, attempts and completed tasks a shim reports so that flexd can
// advise which attempts to back up. The fast JSON path does not know these
// members: a body carrying them is decoded, and its parts encoded, by
// encoding/json (the advice is not on the path of a plain epoch).

// SpeculationConfig chooses the straggler detector and its parameters;
// every parameter is optional (the defaults are the papers').
type SpeculationConfig struct {
	// Detector is none (default), late, yarn_default, esamr or esplash.
	Detector string          `json:"detector,omitempty" example:"esamr" enums:"none,late,yarn_default,esamr,esplash"`
	Cap      *SpeculationCap `json:"cap,omitempty"`
	ESAMR    *ESAMRParams    `json:"esamr,omitempty"`
	ESPLASH  *ESPLASHParams  `json:"esplash,omitempty"`
	SEPB     *SEPBParams     `json:"sepb,omitempty"`
}

// SEPBParams are DynamicMR's SEPB settings: a backup takes an idle slot
// only once the checked jobs' pending tasks have theirs.
type SEPBParams struct {
	Enabled bool `json:"enabled" example:"true"`
	// JobsChecked is the share of runnable jobs checked for pending tasks,
	// in [0, 1] (default 0.8; 0 is plain speculation).
	JobsChecked *float64 `json:"jobs_checked,omitempty" example:"0.8" minimum:"0" maximum:"1"`
	// Scope is cluster (default) or pool: the jobs checked are the
	// candidate's pool's.
	Scope string `json:"scope,omitempty" example:"cluster" enums:"cluster,pool"`
	// KillFactor kills an attempt running longer than this many times its
	// job's mean task time (default 2; 0 off).
	KillFactor *float64 `json:"kill_factor,omitempty" example:"2"`
}

// SpeculationCap is Hadoop's speculative cap per (job, phase): running
// backups stay below max(min_tasks, total_fraction x tasks,
// running_fraction x running).
type SpeculationCap struct {
	MinTasks        *int     `json:"min_tasks,omitempty" example:"10" minimum:"0"`
	TotalFraction   *float64 `json:"total_fraction,omitempty" example:"0.01" minimum:"0" maximum:"1"`
	RunningFraction *float64 `json:"running_fraction,omitempty" example:"0.1" minimum:"0" maximum:"1"`
}

// ESAMRParams are ESAMR's parameters (also late's PFM, PFR and STT).
type ESAMRParams struct {
	// PFM and PFR are the shares of a job's map (reduce) tasks that must
	// be complete before its weights are used and slow tasks looked for.
	PFM *float64 `json:"pfm,omitempty" example:"0.2" minimum:"0" maximum:"1"`
	PFR *float64 `json:"pfr,omitempty" example:"0.2" minimum:"0" maximum:"1"`
	// K is the number of k-means clusters per node.
	K *int `json:"k,omitempty" example:"10" minimum:"1" maximum:"100"`
	// STT is the slow task threshold: slow when TimeToEnd > (1 + STT) x the job's mean.
	STT      *float64 `json:"stt,omitempty" example:"0.4"`
	MaxIters *int     `json:"max_iters,omitempty" example:"100" minimum:"1" maximum:"1000"`
	// History is the number of weight records kept per node and phase.
	History *int `json:"history,omitempty" example:"50" minimum:"1" maximum:"1000"`
	// Basis is what a slow attempt is compared on: execution_time (default:
	// elapsed + TimeToEnd) or time_to_end (Algorithm 4 as printed).
	Basis string `json:"basis,omitempty" example:"execution_time" enums:"execution_time,time_to_end"`
}

// ESPLASHParams are ESPLASH's parameters.
type ESPLASHParams struct {
	Levels *int `json:"levels,omitempty" example:"4" minimum:"1" maximum:"64"`
	// Tau is the straggler threshold per running task.
	Tau        *float64 `json:"tau,omitempty" example:"3"`
	SigmaFloor *float64 `json:"sigma_floor,omitempty" example:"0.1"`
	PRCap      *float64 `json:"pr_cap,omitempty" example:"10"`
	// Progress is which progress feeds the estimated execution time:
	// hadoop (the default: the attempts' progress) or esamr (ESAMR's
	// progress score by the stage weights learnt per job and node, from
	// each attempt's stage and stage_progress; D-S11).
	Progress string `json:"progress,omitempty" example:"hadoop" enums:"hadoop,esamr"`
}

// NodeState is one worker node (tasktracker or NodeManager). When nodes
// are sent, their slots add up to the request's slots.
type NodeState struct {
	ID            string `json:"id" example:"n1" validate:"required"`
	MapSlots      int    `json:"map_slots" example:"4" minimum:"0"`
	ReduceSlots   int    `json:"reduce_slots" example:"2" minimum:"0"`
	RunningMap    int    `json:"running_map,omitempty" example:"3" minimum:"0"`
	RunningReduce int    `json:"running_reduce,omitempty" example:"1" minimum:"0"`
	// MapOnReduce and ReduceOnMap count DHSA's cross-phase use of slots.
	MapOnReduce int `json:"map_on_reduce,omitempty" example:"0" minimum:"0"`
	ReduceOnMap int `json:"reduce_on_map,omitempty" example:"0" minimum:"0"`
	// Level is a pre-configured performance level (1 the slowest); absent
	// or 0 on every node lets flexd classify the nodes.
	Level int `json:"level,omitempty" example:"0" minimum:"0"`
}

// TaskAttemptState is a running task attempt, or a speculative one
// requested and not placed yet (state waiting).
type TaskAttemptState struct {
	Attempt string `json:"attempt" example:"attempt_0042_m_000017_0" validate:"required"`
	Task    string `json:"task" example:"task_0042_m_000017" validate:"required"`
	Job     string `json:"job" example:"job_1" validate:"required"`
	Phase   string `json:"phase" example:"map" enums:"map,reduce" validate:"required"`
	// Node and Start (seconds, the caller's clock) locate a running attempt.
	Node  string   `json:"node,omitempty" example:"n3"`
	Start *float64 `json:"start,omitempty" example:"12301.5"`
	// Progress is Hadoop's reported progress in [0, 1] (yarn_default, esplash).
	Progress *float64 `json:"progress,omitempty" example:"0.61" minimum:"0" maximum:"1"`
	// Stage (map: map, sort; reduce: shuffle, sort, reduce) and the share
	// of it done (late, esamr).
	Stage         string   `json:"stage,omitempty" example:"sort" enums:"map,sort,shuffle,reduce"`
	StageProgress *float64 `json:"stage_progress,omitempty" example:"0.5" minimum:"0" maximum:"1"`
	Speculative   bool     `json:"speculative,omitempty" example:"false"`
	// State is running (default) or waiting.
	State string `json:"state,omitempty" example:"running" enums:"running,waiting"`
	// ProgressRate is progress per second, when the shim measures it.
	ProgressRate *float64 `json:"progress_rate,omitempty" example:"0.004" minimum:"0"`
}

// CompletedTaskState is an attempt that succeeded since the previous epoch.
type CompletedTaskState struct {
	Attempt string  `json:"attempt" example:"attempt_0042_m_000003_0" validate:"required"`
	Task    string  `json:"task" example:"task_0042_m_000003" validate:"required"`
	Job     string  `json:"job" example:"job_1" validate:"required"`
	Phase   string  `json:"phase" example:"map" enums:"map,reduce" validate:"required"`
	Node    string  `json:"node,omitempty" example:"n2"`
	Start   float64 `json:"start" example:"12250"`
	Finish  float64 `json:"finish" example:"12290"`
	// StageTimes are the stage durations, seconds: map (map, sort),
	// reduce (shuffle, sort, reduce).
	StageTimes  []float64 `json:"stage_times,omitempty"`
	Speculative bool      `json:"speculative,omitempty" example:"false"`
}

// hasTaskState reports whether the request carries any member of the
// task-level extension.
func (w *EpochRequest) hasTaskState() bool {
	return w.Speculation != nil || w.Explain || w.Nodes != nil || w.Tasks != nil ||
		w.CompletedTasks != nil || w.FinishedJobs != nil || w.Preschedule != nil
}

// taskStateDomain copies the extension into req.
func (w *EpochRequest) taskStateDomain(req *epoch.Request) {
	req.Explain = w.Explain
	if s := w.Speculation; s != nil {
		ds := &epoch.Speculation{Detector: s.Detector}
		if c := s.Cap; c != nil {
			ds.Cap = epoch.SpeculationCap{MinTasks: c.MinTasks, TotalFraction: c.TotalFraction, RunningFraction: c.RunningFraction}
		}
		if e := s.ESAMR; e != nil {
			ds.ESAMR = epoch.ESAMRParams{PFM: e.PFM, PFR: e.PFR, STT: e.STT, K: e.K, MaxIters: e.MaxIters, History: e.History, Basis: e.Basis}
		}
		if e := s.ESPLASH; e != nil {
			ds.ESPLASH = epoch.ESPLASHParams{Levels: e.Levels, Tau: e.Tau, SigmaFloor: e.SigmaFloor, PRCap: e.PRCap, Progress: e.Progress}
		}
		if b := s.SEPB; b != nil {
			ds.SEPB = epoch.SEPBParams{Enabled: b.Enabled, JobsChecked: b.JobsChecked, Scope: b.Scope, KillFactor: b.KillFactor}
		}
		req.Speculation = ds
	}
	if len(w.Nodes) > 0 {
		req.Nodes = make([]epoch.Node, len(w.Nodes))
		for i, n := range w.Nodes {
			req.Nodes[i] = epoch.Node{
				ID: n.ID, MapSlots: n.MapSlots, ReduceSlots: n.ReduceSlots,
				RunningMap: n.RunningMap, RunningReduce: n.RunningReduce,
				MapOnReduce: n.MapOnReduce, ReduceOnMap: n.ReduceOnMap, Level: n.Level,
			}
		}
	}
	if len(w.Tasks) > 0 {
		req.Tasks = make([]epoch.TaskAttempt, len(w.Tasks))
		for i, t := range w.Tasks {
			req.Tasks[i] = epoch.TaskAttempt{
				Attempt: t.Attempt, Task: t.Task, Job: t.Job, Phase: t.Phase, Node: t.Node, Start: t.Start,
				Progress: t.Progress, StageProgress: t.StageProgress, ProgressRate: t.ProgressRate,
				Stage: t.Stage, Speculative: t.Speculative, State: t.State,
			}
		}
	}
	if len(w.CompletedTasks) > 0 {
		req.CompletedTasks = make([]epoch.CompletedTask, len(w.CompletedTasks))
		for i, c := range w.CompletedTasks {
			req.CompletedTasks[i] = epoch.CompletedTask{
				Attempt: c.Attempt, Task: c.Task, Job: c.Job, Phase: c.Phase, Node: c.Node,
				Start: c.Start, Finish: c.Finish, StageTimes: c.StageTimes, Speculative: c.Speculative,
			}
		}
	}
	req.FinishedJobs = w.FinishedJobs
	if p := w.Preschedule; p != nil {
		req.Preschedule = epoch.Preschedule{Enabled: p.Enabled, MaxBorrowedReduceSlots: p.MaxBorrowedReduceSlots}
	}
}
