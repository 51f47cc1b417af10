package ratio

// Mode names a phase-budget algorithm; the names are part of the API
// (docs/api.md, "ratio.mode").
type Mode string

// The modes of docs/algorithms.md section 7.
const (
	// ModeStatic keeps the caller's map and reduce slot counts.
	ModeStatic Mode = "static"
	// ModePIDHSA is DynamicMR's pool-independent DHSA (Algorithm 1).
	ModePIDHSA Mode = "pi_dhsa"
	// ModePDDHSA is DynamicMR's pool-dependent DHSA (Algorithm 2).
	ModePDDHSA Mode = "pd_dhsa"
	// ModeFresh is FRESH's dynamic slot configuration (Alg. 3.3.2-3.3.3).
	ModeFresh Mode = "fresh"
)

// Defaults applied when a Config field is zero (Config.withDefaults).
const (
	// DefaultTau1 is FRESH's progress threshold tau1 (dissertation 3.4.1).
	DefaultTau1 = 0.8
	// DefaultTau2 is FRESH's ratio-difference threshold tau2 (3.4.1).
	DefaultTau2 = 0.6
	// DefaultEMAAlpha is the weight of the newest window in OMO's moving
	// averages (Eq. 4.1); the dissertation leaves it open.
	DefaultEMAAlpha = 0.3
	// DefaultReduceSlotWeight counts a reduce slot as one map slot, which is
	// DynamicMR without its challenge-C2 weighting.
	DefaultReduceSlotWeight = 1.0
	// DefaultPool is the pool of a job that names none.
	DefaultPool = "default"
)

// Config selects and tunes the phase-budget stage. The zero value is the
// static split with OMO off. Fields whose zero value is invalid (taus,
// weights, EMA alpha) take their default when zero; the borrow fractions
// cannot, because 0 is meaningful (DynamicMR Appendix B: zero disables
// borrowing), so DefaultConfig and the wire layer set them to 1.
type Config struct {
	// Mode is the budget algorithm; empty means ModeStatic.
	Mode Mode
	// BorrowMap is percentageOfBorrowedMapSlots (DynamicMR Appendix F,
	// Pec_M): the fraction in [0,1] of unused map slots the reduce phase may
	// borrow. Zero means no borrowing.
	BorrowMap float64
	// BorrowReduce is percentageOfBorrowedReduceSlots (Pec_R): the fraction
	// in [0,1] of unused reduce slots the map phase may borrow.
	BorrowReduce float64
	// ReduceSlotWeight is DynamicMR's challenge C2: a reduce slot costs this
	// many map slots when slots move between phases (> 0; zero means 1).
	ReduceSlotWeight float64
	// Tau1 is FRESH's progress threshold in (0,1] (zero means 0.8).
	Tau1 float64
	// Tau2 is FRESH's relative ratio-difference threshold in (0,1] (zero
	// means 0.6).
	Tau2 float64
	// Pools optionally declares pools with weights for PD-DHSA. When it is
	// non-empty every job must name a declared pool; when empty every pool
	// a job names exists with weight 1.
	Pools []Pool
	// OMO switches on OMO's techniques.
	OMO OMOConfig
}

// Pool declares one pool of PD-DHSA.
type Pool struct {
	// Name is the pool's id; unique and non-empty.
	Name string
	// Weight is the pool's share weight in max-min sharing (> 0; zero means
	// 1).
	Weight float64
}

// OMOConfig holds OMO's switches (dissertation ch. 4).
type OMOConfig struct {
	// LazyStart holds a job's reduce demand at 0 until Eq. 4.3 says to start
	// its reduce phase (4.3.2).
	LazyStart bool
	// BatchFinish raises one job's map minimum to all its remaining map
	// tasks (pending plus running) when Eq. 4.4-4.5 say finishing its
	// pending ones in a batch pays (4.3.3).
	BatchFinish bool
	// Bandwidth is B, the network bandwidth in bytes per second used for the
	// shuffle time T_s = d*m/(B*r); >= 0, and > 0 when LazyStart is on.
	Bandwidth float64
	// Alpha is the EMA weight of Eq. 4.1 in (0,1]; zero means 0.3.
	Alpha float64
}

// Enabled reports whether any OMO technique is on.
func (o OMOConfig) Enabled() bool { return o.LazyStart || o.BatchFinish }

// DefaultConfig is the configuration docs/api.md documents as the default:
// static split, full borrowing, FRESH thresholds 0.8 and 0.6, OMO off.
func DefaultConfig() Config {
	return Config{
		Mode:             ModeStatic,
		BorrowMap:        1,
		BorrowReduce:     1,
		ReduceSlotWeight: DefaultReduceSlotWeight,
		Tau1:             DefaultTau1,
		Tau2:             DefaultTau2,
		OMO:              OMOConfig{Alpha: DefaultEMAAlpha},
	}
}

// withDefaults fills the zero fields that have a default.
func (c Config) withDefaults() Config {
	if c.Mode == "" {
		c.Mode = ModeStatic
	}
	if c.ReduceSlotWeight == 0 {
		c.ReduceSlotWeight = DefaultReduceSlotWeight
	}
	if c.Tau1 == 0 {
		c.Tau1 = DefaultTau1
	}
	if c.Tau2 == 0 {
		c.Tau2 = DefaultTau2
	}
	if c.OMO.Alpha == 0 {
		c.OMO.Alpha = DefaultEMAAlpha
	}
	return c
}

// Cluster is the caller's configured slot split ("slots" in the epoch
// request). FRESH and OMO treat the MapSlots+ReduceSlots slots as fungible.
type Cluster struct {
	MapSlots, ReduceSlots int
}

// Total is the number of slots in the cluster, S.
func (c Cluster) Total() int { return c.MapSlots + c.ReduceSlots }

// PhaseDemand is one job's state in one phase.
type PhaseDemand struct {
	// Pending and Running count the phase's tasks waiting and running now;
	// their sum is the job's slot demand in the phase (DynamicMR's
	// mapSlotsDemand / reduceSlotsDemand).
	Pending, Running int
	// Tasks is the phase's total task count (n_m(i), n_r(i) in FRESH; m_i,
	// r_i in OMO); zero means unknown.
	Tasks int
	// Work is the remaining work in slot-seconds, FRESH's w'(i) = n'(i) *
	// mean task time (3.3.2.2); zero means nothing left in the phase.
	Work float64
	// AvgTaskTime is the mean task time in seconds (T_m(i) in OMO).
	AvgTaskTime float64
}

// Demand is the phase's slot demand: pending plus running tasks.
func (p PhaseDemand) Demand() int { return max(p.Pending, 0) + max(p.Running, 0) }

// Completed is the phase's finished tasks, Tasks - Pending - Running (at
// least 0).
func (p PhaseDemand) Completed() int {
	return max(p.Tasks-p.Demand(), 0)
}

// Job is one job's state as the budget stage needs it.
type Job struct {
	// ID identifies the job; unique and non-empty.
	ID string
	// Pool is the job's pool; empty means DefaultPool.
	Pool string
	// Submitted is the arrival time in seconds on the caller's clock, used
	// only to break ties.
	Submitted float64
	// Map and Reduce are the job's two phases.
	Map, Reduce PhaseDemand
	// OutputBytesPerMapTask is d, the intermediate data one map task emits
	// (OMO Table 4.1), in bytes.
	OutputBytesPerMapTask float64
	// ReduceStarted says the job's reduce phase has begun (a reduce task has
	// been launched); a job with running reduce tasks counts as started.
	ReduceStarted bool
}

func (j Job) pool() string {
	if j.Pool == "" {
		return DefaultPool
	}
	return j.Pool
}

func (j Job) reduceStarted() bool { return j.ReduceStarted || j.Reduce.Running > 0 }

func (j Job) mapDone() bool { return j.Map.Demand() == 0 }

func (j Job) active() bool { return j.Map.Demand()+j.Reduce.Demand() > 0 }

// Input is one epoch as the budget stage sees it.
type Input struct {
	// Cluster is the configured slot split.
	Cluster Cluster
	// Jobs are the live jobs, in request order.
	Jobs []Job
	// ReleasedSlots is R_t, the slots released since the previous epoch
	// (OMO 4.3.1), >= 0.
	ReleasedSlots int
	// EpochLength is T_w, the window in seconds the release count covers;
	// OMO's averages are updated only when it is > 0.
	EpochLength float64
}

// Borrowed counts the slots lent across phases, in slots of the lending
// phase (with a reduce-slot weight w != 1 the receiving phase gains
// floor(lent*w) map slots or floor(lent/w) reduce slots).
type Borrowed struct {
	// ReduceToMap is the reduce slots running map tasks.
	ReduceToMap int
	// MapToReduce is the map slots running reduce tasks.
	MapToReduce int
}

// PoolBudget is one pool's per-phase budget in PD-DHSA.
type PoolBudget struct {
	Pool        string
	Map, Reduce int
	// MapShare and ReduceShare are the pool's fair shares of each phase
	// before any lending (for explanation).
	MapShare, ReduceShare int
}

// OMODecision is OMO's output for one epoch.
type OMODecision struct {
	// StartReduce lists the jobs that start their reduce phase now (lazy
	// start), best candidate first: fewest occupied slots, then earlier
	// submission, then id (Alg. 4.3.1 line 25).
	StartReduce []string
	// BatchFinish is the job whose pending map tasks finish in a batch
	// (Alg. 4.3.2), or "" for none.
	BatchFinish string
	// ReleaseRate is F_o, the moving average of released slots per second.
	ReleaseRate float64
	// AvailableSlots is A_o, the moving average of available slots.
	AvailableSlots float64
}

// Override is a change to one job's phase problems that the caller applies
// before FLEX.
type Override struct {
	// ID is the job.
	ID string
	// HoldReduce says the job's reduce demand is held at 0 this epoch: OMO
	// lazy start has not started its reduce phase yet.
	HoldReduce bool
	// MapMin, when > 0, is the job's new map minimum: its map demand
	// (pending plus running tasks, so every pending task gets a slot while
	// the running ones keep theirs), capped by its map budget (OMO batch
	// finish, Alg. 4.3.3).
	MapMin int
}

// Result is the budget stage's decision for one epoch.
type Result struct {
	// Mode is the algorithm that produced the budgets.
	Mode Mode
	// Map and Reduce are the phase budgets across all jobs, in slots.
	Map, Reduce int
	// Borrowed is what moved between phases.
	Borrowed Borrowed
	// Pools are the per-pool budgets, by pool name; only in pd_dhsa.
	Pools []PoolBudget
	// Theta is FRESH's map ratio used for the split (0 in other modes).
	Theta float64
	// OMO is OMO's decision; nil when OMO is off.
	OMO *OMODecision
	// Overrides are per-job changes, in job order.
	Overrides []Override
	// Why explains the decision step by step, for people.
	Why []string
}

// State is the per-cluster state carried between epochs: OMO's moving
// averages (Eq. 4.1). The store saves it as JSON.
type State struct {
	// ReleaseRate is F_o, released slots per second.
	ReleaseRate float64 `json:"release_rate"`
	// AvailableSlots is A_o, the average number of available slots.
	AvailableSlots float64 `json:"available_slots"`
	// Windows counts the epochs folded into the averages; the first one
	// seeds them.
	Windows int `json:"windows"`
}
