package estimate

// This file is the contract of the epoch's advisory outputs
// (docs/algorithms.md section 9; the specification is estimate-and-
// advice.md sections 2 to 6): what a shim tells flexd about nodes and task
// attempts, what the straggler detectors (late, yarn_default, esamr,
// esplash) and SEPB answer, and the state they learn from epoch to epoch. Advice never changes an allocation: Advise reads the decision's
// phase budgets and nothing it returns feeds back into the solve.
//
// Every list in an Advice is in a stated order, and no float in it is NaN
// or infinite (D-G4: a value that would be infinite is left out).

// The phases of a task attempt, as on the wire.
const (
	MapPhase    = "map"
	ReducePhase = "reduce"
)

// Detector names a straggler detector (speculation.detector).
type Detector string

// The detectors.
const (
	// DetectorNone: no speculation advice (the default).
	DetectorNone Detector = "none"
	// Late: LATE's TimeToEnd with Hadoop's fixed stage weights (ESAMR
	// paper section II-B), gated by the same PFM, PFR and STT as ESAMR.
	Late Detector = "late"
	// YARNDefault: YARN's DefaultSpeculator (ESPLASH dissertation Eq.
	// 5.1-5.2), one backup per (job, phase) per scan.
	YARNDefault Detector = "yarn_default"
	// ESAMR: per-node stage weights learned with k-means (seed 002).
	ESAMR Detector = "esamr"
	// ESPLASH: node levels, straggler nodes, minL and the speculative
	// value (seed 004, chapter 5).
	ESPLASH Detector = "esplash"
)

// Reasons in Advice lists (wire enums, section 2.4).
const (
	ReasonESAMRSlow    = "esamr_slow"
	ReasonLateSlow     = "late_slow"
	ReasonYARNBenefit  = "yarn_benefit"
	ReasonStraggler    = "straggler_node"
	ReasonNoProgress   = "no_progress"
	ReasonPendingTasks = "pending_tasks"
	ReasonCap          = "cap"
	ReasonNoIdleSlot   = "no_idle_slot"
	ReasonOnePerScan   = "one_per_scan"
	ReasonTwiceMean    = "twice_mean"
	ReasonNoBenefit    = "no_benefit"
)

// Where an explained attempt's stage weights came from (weights_source).
const (
	WeightsCluster     = "cluster"
	WeightsNodeAverage = "node_average"
	WeightsHadoop      = "hadoop_default"
	WeightsFixed       = "fixed"
)

// Which progress feeds ESPLASH's EstT and EstEnd (D-S11).
const (
	ProgressHadoop = "hadoop"
	ProgressESAMR  = "esamr"
)

// The stages of a task (ESAMR Fig. 1): map tasks have map and sort,
// reduce tasks shuffle, sort and reduce.
const (
	StageMap     = "map"
	StageSort    = "sort"
	StageShuffle = "shuffle"
	StageReduce  = "reduce"
)

// The defaults of section 2.3.
const (
	DefaultCapMinTasks = 10   // YARN MINIMUM_ALLOWED_SPECULATIVE_TASKS
	DefaultCapTotal    = 0.01 // PROPORTION_TOTAL_TASKS_SPECULATABLE
	DefaultCapRunning  = 0.1  // PROPORTION_RUNNING_TASKS_SPECULATABLE
	DefaultPFM         = 0.2
	DefaultPFR         = 0.2
	DefaultK           = 10
	DefaultSTT         = 0.4
	DefaultMaxIters    = 100 // D-E4
	DefaultHistory     = 50  // D-E6
	DefaultLevels      = 4
	DefaultTau         = 3.0 // D-S6
	DefaultSigmaFloor  = 0.1 // D-S5
	DefaultPRCap       = 10.0
)

// Cap is Hadoop's speculative cap (D-G2): a (job, phase) may start a
// backup only while its running speculative attempts number fewer than
// max(MinTasks, floor(TotalFraction*tasks), floor(RunningFraction*running)).
type Cap struct {
	MinTasks        int     `json:"min_tasks"`
	TotalFraction   float64 `json:"total_fraction"`
	RunningFraction float64 `json:"running_fraction"`
}

// ESAMRConfig holds ESAMR's parameters (section 2.3; the paper's section
// IV values are the defaults).
type ESAMRConfig struct {
	PFM      float64 `json:"pfm"`
	PFR      float64 `json:"pfr"`
	K        int     `json:"k"`
	STT      float64 `json:"stt"`
	MaxIters int     `json:"max_iters"`
	History  int     `json:"history"`
	// Basis is what Algorithm 4 compares with the job's mean: BasisTime
	// (the default: each attempt's estimated execution time, elapsed +
	// TimeToEnd, as the paper's Figs. 7-8 identify slow tasks) or
	// BasisTimeToEnd (Algorithm 4 as printed; D-E13).
	Basis string `json:"basis"`
}

// The bases of Algorithm 4's comparison (D-E13). As printed, Algorithm 4
// flags an attempt whose TimeToEnd exceeds (1 + STT) times the job's mean
// TimeToEnd; but a task that has just started has most of its time to
// run, so wherever attempts do not start in one wave every newly started
// attempt is "slow" (in the task-level simulator, 60 to 80 of a job's 100
// maps, against 3 injected stragglers). The paper's own evaluation (Figs.
// 7-8) identifies slow tasks by their estimated execution time, which
// does not depend on when an attempt started.
const (
	BasisExecutionTime = "execution_time"
	BasisTimeToEnd     = "time_to_end"
)

// ESPLASHConfig holds ESPLASH's parameters (section 2.3, D-S3 to D-S11).
type ESPLASHConfig struct {
	Levels     int     `json:"levels"`
	Tau        float64 `json:"tau"`
	SigmaFloor float64 `json:"sigma_floor"`
	PRCap      float64 `json:"pr_cap"`
	// Progress is ProgressHadoop or ProgressESAMR (D-S11).
	Progress string `json:"progress"`
}

// SEPBConfig is DynamicMR's Speculative Execution Performance Balancing
// (seed 000 Algorithm 3): backups only where the checked jobs have no
// pending task, and the kill heuristic.
type SEPBConfig struct {
	Enabled bool `json:"enabled"`
	// JobsChecked is the share of the runnable jobs checked for pending
	// tasks, in [0, 1] (percentageOfJobsCheckedForPendingTasks; 0 is plain
	// speculation).
	JobsChecked float64 `json:"jobs_checked"`
	// Scope is ScopeCluster (GlobalLevel) or ScopePool (PoolLevel).
	Scope string `json:"scope"`
	// KillFactor kills an attempt that has run longer than this many times
	// its (job, phase)'s mean task time; 0 switches it off (D-B5).
	KillFactor float64 `json:"kill_factor"`
}

// The scopes of SEPB's check (seed 000 Table 2).
const (
	ScopeCluster = "cluster"
	ScopePool    = "pool"
)

// SEPB's defaults (D-B2, D-B5).
const (
	DefaultJobsChecked = 0.8
	DefaultKillFactor  = 2.0
)

// SpeculationConfig is the epoch's speculation object, defaults applied.
type SpeculationConfig struct {
	Detector Detector
	Cap      Cap
	ESAMR    ESAMRConfig
	ESPLASH  ESPLASHConfig
	SEPB     SEPBConfig
	// Explain asks for Advice.Tasks, the per-attempt detail.
	Explain bool
}

// DefaultSpeculationConfig is the configuration with every default of
// section 2.3 and no detector.
func DefaultSpeculationConfig() SpeculationConfig {
	return SpeculationConfig{
		Detector: DetectorNone,
		Cap:      Cap{MinTasks: DefaultCapMinTasks, TotalFraction: DefaultCapTotal, RunningFraction: DefaultCapRunning},
		ESAMR: ESAMRConfig{PFM: DefaultPFM, PFR: DefaultPFR, K: DefaultK, STT: DefaultSTT,
			MaxIters: DefaultMaxIters, History: DefaultHistory, Basis: BasisExecutionTime},
		ESPLASH: ESPLASHConfig{Levels: DefaultLevels, Tau: DefaultTau, SigmaFloor: DefaultSigmaFloor,
			PRCap: DefaultPRCap, Progress: ProgressHadoop},
		SEPB: SEPBConfig{JobsChecked: DefaultJobsChecked, Scope: ScopeCluster, KillFactor: DefaultKillFactor},
	}
}

// Node is one worker node (tasktracker or NodeManager).
type Node struct {
	ID                    string
	MapSlots, ReduceSlots int
	// Level is the pre-configured performance level, 1 the slowest; 0
	// means classify dynamically (D-S1: all nodes or none).
	Level int
	// RunningMap and RunningReduce count the tasks on the node's own
	// slots; MapOnReduce and ReduceOnMap DHSA's cross-phase use (map
	// tasks on reduce slots and the reverse). Slot PreScheduling reads
	// them.
	RunningMap, RunningReduce int
	MapOnReduce, ReduceOnMap  int
}

// Attempt is a running task attempt, or a waiting (requested, not yet
// placed) speculative one.
type Attempt struct {
	Attempt, Task, Job string
	Phase              string // MapPhase or ReducePhase
	// Node and Start are empty for a waiting attempt.
	Node  string
	Start float64
	// Progress is Hadoop's reported progress in [0, 1] (nil: not sent).
	Progress *float64
	// Stage is the current stage (map: map, sort; reduce: shuffle, sort,
	// reduce), StageProgress the share of it done (SubPS); nil or empty
	// when not sent.
	Stage         string
	StageProgress *float64
	// ProgressRate is progress per second, when the shim measures it
	// (D-S8); nil lets flexd derive it.
	ProgressRate *float64
	Speculative  bool
	Waiting      bool
}

// CompletedTask is an attempt that finished successfully since the
// previous epoch.
type CompletedTask struct {
	Attempt, Task, Job string
	Phase              string
	Node               string
	Start, Finish      float64
	// StageTimes are the stage durations: map (map, sort), reduce
	// (shuffle, sort, reduce); empty when not sent.
	StageTimes  []float64
	Speculative bool
}

// PhaseCounts are one job phase's task counts and this epoch's allocation
// (the decision's slots for the phase).
type PhaseCounts struct {
	Tasks, Pending, Running int
	Allocated               int
	// AvgTaskTime is the mean duration of the phase's completed tasks as
	// the shim reports it (0: unknown); yarn_default's type mean.
	AvgTaskTime float64
	// LocalPending counts, per node, the pending tasks with an input
	// replica there (map phase; Slot PreScheduling).
	LocalPending map[string]int
}

// JobStatus is one active job as the detectors see it.
type JobStatus struct {
	ID        string
	Pool      string
	Submitted float64
	// Map and Reduce are nil when the job has no part in the phase.
	Map, Reduce *PhaseCounts
}

// AdviceInput is everything Advise reads: the epoch's task-level state
// and the decision's phase budgets.
type AdviceInput struct {
	Now       float64
	Jobs      []JobStatus
	Nodes     []Node
	Tasks     []Attempt
	Completed []CompletedTask
	// Finished lists the jobs that completed since the previous epoch.
	Finished []string
	// MapBudget and ReduceBudget are the decision's phase budgets, after
	// the ratio stage (idle slots, D-G3).
	MapBudget, ReduceBudget int
}

// Speculate is one recommended backup attempt, ranked best first.
type Speculate struct {
	Job     string `json:"job"`
	Task    string `json:"task"`
	Attempt string `json:"attempt"`
	Phase   string `json:"phase"`
	Node    string `json:"node,omitempty"`
	Reason  string `json:"reason"`
	// MinLevel and Value are ESPLASH's (0 and nil otherwise).
	MinLevel int      `json:"min_level,omitempty"`
	Value    *float64 `json:"value,omitempty"`
	// TimeToEnd is the original attempt's estimated seconds left; nil
	// when infinite (progress 0).
	TimeToEnd *float64 `json:"time_to_end,omitempty"`
}

// Deferred is a candidate held back, and why.
type Deferred struct {
	Job         string   `json:"job"`
	Task        string   `json:"task"`
	Attempt     string   `json:"attempt"`
	Phase       string   `json:"phase"`
	Node        string   `json:"node,omitempty"`
	Reason      string   `json:"reason"`
	PendingJobs []string `json:"pending_jobs,omitempty"`
}

// Kill is an attempt to kill (SEPB's heuristic).
type Kill struct {
	Job     string  `json:"job"`
	Task    string  `json:"task"`
	Attempt string  `json:"attempt"`
	Phase   string  `json:"phase"`
	Node    string  `json:"node,omitempty"`
	Reason  string  `json:"reason"`
	Elapsed float64 `json:"elapsed"`
	Mean    float64 `json:"mean"`
}

// Cancel is a waiting backup no longer worth running.
type Cancel struct {
	Job     string `json:"job"`
	Task    string `json:"task"`
	Attempt string `json:"attempt"`
	Reason  string `json:"reason"`
}

// NodeReport is ESPLASH's view of a node.
type NodeReport struct {
	Node  string `json:"node"`
	Level int    `json:"level"`
	// StragglerValue is SV/N (0 when no task contributed).
	StragglerValue float64 `json:"straggler_value"`
	Straggler      bool    `json:"straggler"`
}

// IdleSlots are the phases' idle slots (D-G3).
type IdleSlots struct {
	Map    int `json:"map"`
	Reduce int `json:"reduce"`
}

// Explained is the detail of one examined running attempt (explain).
type Explained struct {
	Attempt       string             `json:"attempt"`
	ProgressScore *float64           `json:"progress_score,omitempty"`
	TimeToEnd     *float64           `json:"time_to_end,omitempty"`
	Weights       map[string]float64 `json:"weights,omitempty"`
	WeightsSource string             `json:"weights_source,omitempty"`
}

// Advice is the epoch answer's speculation object.
type Advice struct {
	Detector     Detector     `json:"detector"`
	Speculate    []Speculate  `json:"speculate"`
	Deferred     []Deferred   `json:"deferred"`
	Kill         []Kill       `json:"kill,omitempty"`
	Cancel       []Cancel     `json:"cancel"`
	ExcludeNodes []string     `json:"exclude_nodes"`
	Nodes        []NodeReport `json:"nodes,omitempty"`
	IdleSlots    IdleSlots    `json:"idle_slots"`
	Tasks        []Explained  `json:"tasks,omitempty"`
}
