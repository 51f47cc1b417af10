package httpapi

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	gojson "github.com/goccy/go-json"
	"github.com/google/uuid"

	"github.com/flexd/flexd/epoch"
	"github.com/flexd/flexd/estimate"
	"github.com/flexd/flexd/solver"
	"github.com/flexd/flexd/store"
)

// EpochRequest is the body of POST /v1/clusters/{cluster}/epochs: the
// shim's view of its cluster at the start of one epoch.
type EpochRequest struct {
	// Cluster is optional in the body (the path names the cluster); when
	// present it must equal the path's. Lines of the epochs.jsonl export
	// carry it.
	Cluster string `json:"cluster,omitempty" example:"c1"`
	// Epoch increases per cluster: a required integer in [0, 2^53 - 1].
	Epoch int64 `json:"epoch" example:"42" minimum:"0" maximum:"9007199254740991" validate:"required"`
	// Now is the epoch's start, seconds on the caller's clock.
	Now float64 `json:"now" example:"12345"`
	// EpochLength is the time between calls, seconds.
	EpochLength float64 `json:"epoch_length" example:"0.5"`
	// Objective is a metric name (GET /v1/metrics); default avg_response_time.
	Objective string `json:"objective,omitempty" example:"avg_response_time"`
	// Policy is flex (default), fair or fifo, for both phases.
	Policy string `json:"policy,omitempty" example:"flex"`
	// PhasePolicy overrides policy per phase.
	PhasePolicy *PhasePolicy `json:"phase_policy,omitempty"`
	// FairVariant selects Hadoop's fair share for policy fair: mrv1 (default) or yarn.
	FairVariant string       `json:"fair_variant,omitempty" enums:"mrv1,yarn"`
	Slots       PhaseSlots   `json:"slots" validate:"required"`
	Ratio       *RatioConfig `json:"ratio,omitempty"`
	OMO         *OMOConfig   `json:"omo,omitempty"`
	// ReleasedSlots is how many slots were released since the last epoch (OMO).
	ReleasedSlots int `json:"released_slots,omitempty" example:"37"`
	// Effort scales FLEX's search in both phases: 1 (default), n times the
	// default search (at most 16), or 0, the fastest answer.
	Effort *int `json:"effort,omitempty" example:"1" minimum:"0" maximum:"16"`
	// Estimate says how remaining work is obtained: given (default) or
	// estimated from task statistics (FLEX 4.2; algorithms.md section 8).
	Estimate *EstimateConfig `json:"estimate,omitempty"`
	Jobs     []EpochJob      `json:"jobs" validate:"required"`
	// Speculation chooses the straggler detector whose advice the answer
	// carries (default none); it never changes an allocation.
	Speculation *SpeculationConfig `json:"speculation,omitempty"`
	// Explain asks for the detector's per-attempt detail
	// (speculation.tasks); so does the query parameter explain.
	Explain bool `json:"explain,omitempty" example:"false"`
	// Nodes are the worker nodes (needed by esplash).
	Nodes []NodeState `json:"nodes,omitempty"`
	// Tasks are the running attempts and the waiting speculative ones.
	Tasks []TaskAttemptState `json:"tasks,omitempty"`
	// CompletedTasks are the attempts that succeeded since the previous epoch.
	CompletedTasks []CompletedTaskState `json:"completed_tasks,omitempty"`
	// FinishedJobs are the jobs that completed since the previous epoch.
	FinishedJobs []string `json:"finished_jobs,omitempty" example:"job_0"`
	// Preschedule switches Slot PreScheduling's advice on (DynamicMR):
	// data-local map tasks of jobs below their allocation on idle slots
	// above the load-balancing line, or on idle reduce slots with DHSA.
	Preschedule *PrescheduleConfig `json:"preschedule,omitempty"`
	// Plan is the encoding of the answer's plans, as the query parameter
	// plan: delta (default; what is stored), dense or none. It is not part
	// of the request as hashed for idempotency: a retry asking another
	// encoding gets the stored decision in that encoding.
	Plan string `json:"plan,omitempty" example:"delta" enums:"delta,dense,none"`
}

// PrescheduleConfig is the epoch's preschedule object.
type PrescheduleConfig struct {
	Enabled bool `json:"enabled" example:"true"`
	// MaxBorrowedReduceSlots bounds the map tasks on reduce slots
	// (default 100000).
	MaxBorrowedReduceSlots *int `json:"max_borrowed_reduce_slots,omitempty" example:"100000" minimum:"0"`
}

// EstimateConfig is how an epoch's remaining work is obtained.
type EstimateConfig struct {
	// Work is given (default: each phase's work as sent), extrapolate
	// (a phase with work 0 or absent and tasks left gets mean task time x
	// tasks left) or extrapolate_elapsed (a running task counts only its
	// expected time left, from running_elapsed).
	Work string `json:"work,omitempty" example:"extrapolate" enums:"given,extrapolate,extrapolate_elapsed"`
	// DefaultTaskTime is the task time, seconds, of a phase without a
	// sample of its own, of its job's seed or of the cluster; default 60.
	DefaultTaskTime *float64 `json:"default_task_time,omitempty" example:"60"`
	// MinOne says when an estimated phase's minimum is raised to one slot:
	// no_sample (default: while no task of it has completed), always,
	// never, or runnable (no_sample, except that a reduce phase waits
	// until its job's maps have no task or work left: until then no
	// reduce task can complete).
	MinOne string `json:"min_one,omitempty" example:"no_sample" enums:"no_sample,always,never,runnable"`
}

// PhasePolicy names a policy per phase; empty means the request's policy.
type PhasePolicy struct {
	Map    string `json:"map,omitempty" example:"flex"`
	Reduce string `json:"reduce,omitempty" example:"fair"`
}

// PhaseSlots counts slots per phase.
type PhaseSlots struct {
	Map    int `json:"map" example:"100"`
	Reduce int `json:"reduce" example:"50"`
}

// RatioConfig chooses how slots are split between phases (algorithms.md 7).
type RatioConfig struct {
	// Mode is static (default: the slots as given), pi_dhsa, pd_dhsa or fresh.
	Mode string `json:"mode,omitempty" example:"static" enums:"static,pi_dhsa,pd_dhsa,fresh"`
	// BorrowMap and BorrowReduce are DynamicMR's borrowing percentages in
	// [0, 1]; absent means 1 (null and absence alike: 0 means "never lend").
	BorrowMap    *float64 `json:"borrow_map,omitempty" example:"1"`
	BorrowReduce *float64 `json:"borrow_reduce,omitempty" example:"1"`
	// Tau1 and Tau2 are FRESH's switching thresholds in (0, 1] (defaults 0.8 and 0.6).
	Tau1 *float64 `json:"tau1,omitempty" example:"0.8"`
	Tau2 *float64 `json:"tau2,omitempty" example:"0.6"`
	// ReduceSlotWeight is what one reduce slot costs in map slots when
	// DHSA moves slots between phases (> 0; absent or 0 means 1).
	ReduceSlotWeight float64 `json:"reduce_slot_weight,omitempty" example:"1"`
	// Pools declares pd_dhsa's pools and weights. Absent means every pool a
	// job names exists with weight 1; present, every job's pool must be in it.
	Pools []PoolConfig `json:"pools,omitempty"`
}

// PoolConfig declares one pd_dhsa pool.
type PoolConfig struct {
	// Name is the pool's id, unique and non-empty; jobs[].pool refers to it.
	Name string `json:"name" example:"default" validate:"required"`
	// Weight is the pool's weight in max-min sharing (>= 0; absent or 0 means 1).
	Weight float64 `json:"weight,omitempty" example:"1"`
}

// OMOConfig switches OMO's lazy start and batch finish on. OMO needs
// fungible slots: ratio.mode pi_dhsa, pd_dhsa or fresh.
type OMOConfig struct {
	LazyStart   bool `json:"lazy_start" example:"false"`
	BatchFinish bool `json:"batch_finish" example:"false"`
	// Bandwidth is the shuffle bandwidth, bytes per second (> 0 with lazy_start).
	Bandwidth float64 `json:"bandwidth,omitempty" example:"125000000"`
	// EMAAlpha is the moving averages' smoothing factor in [0, 1]; absent or 0 means 0.3.
	EMAAlpha float64 `json:"ema_alpha,omitempty" example:"0.3"`
}

// EpochJob is one job's state in both phases.
type EpochJob struct {
	ID        string    `json:"id" example:"job_1" validate:"required"`
	Pool      string    `json:"pool,omitempty" example:"default"`
	Submitted float64   `json:"submitted" example:"12000"`
	Weight    *float64  `json:"weight,omitempty" example:"1"`
	Deadline  *float64  `json:"deadline,omitempty" example:"13000"`
	SLA       []SLAStep `json:"sla,omitempty"`
	// Objective overrides the request's metric for this job.
	Objective string `json:"objective,omitempty"`
	// ConsumedSlotSeconds is the work the job's tasks have done so far, for
	// the overall-fairness index.
	ConsumedSlotSeconds *float64 `json:"consumed_slot_seconds,omitempty" example:"5400"`
	// Map and Reduce are the phases; omitted or work 0 means nothing to do there.
	Map    *PhaseState `json:"map,omitempty"`
	Reduce *PhaseState `json:"reduce,omitempty"`
}

// PhaseState is one job's state in one phase.
type PhaseState struct {
	Min int `json:"min" example:"5"`
	Max int `json:"max" example:"40"`
	// Work is the remaining work in slot-seconds (0 or absent: nothing to
	// do, or, with estimate.work extrapolate, estimated from task statistics).
	Work float64 `json:"work" example:"1200"`
	// TotalWork is the phase's whole work, for stretch; default work.
	TotalWork float64 `json:"total_work,omitempty" example:"1500"`
	Pending   int     `json:"pending,omitempty" example:"30"`
	Running   int     `json:"running,omitempty" example:"10"`
	Tasks     int     `json:"tasks,omitempty" example:"80"`
	// AvgTaskTime is seconds per task so far.
	AvgTaskTime        float64 `json:"avg_task_time,omitempty" example:"40"`
	OutputBytesPerTask float64 `json:"output_bytes_per_task,omitempty" example:"100000000"`
	// Started says whether the reduce phase has started.
	Started *bool `json:"started,omitempty" example:"false"`
	// RunningElapsed is the sum of the running tasks' elapsed times,
	// seconds (estimate.work extrapolate_elapsed).
	RunningElapsed float64 `json:"running_elapsed,omitempty" example:"25"`
	// LocalPending counts, per node id, the pending map tasks with an
	// input replica on that node (Slot PreScheduling).
	LocalPending map[string]int `json:"local_pending,omitempty"`
}

// EpochResponse is the decision for one epoch.
type EpochResponse struct {
	Cluster    string      `json:"cluster" example:"c1" validate:"required"`
	Epoch      int64       `json:"epoch" example:"42" validate:"required"`
	DecisionID string      `json:"decision_id" example:"0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b" validate:"required"`
	Budgets    Budgets     `json:"budgets" validate:"required"`
	Phases     EpochPhases `json:"phases" validate:"required"`
	// PoolPhases holds, in pd_dhsa only, each pool's own phase solves on
	// the pool's budget, keyed by pool name; phases then is their merged
	// view (ordering scheme per_pool when more than one pool has jobs).
	PoolPhases map[string]EpochPhases `json:"pool_phases,omitempty"`
	// OMO appears when OMO is on.
	OMO         *OMODecision      `json:"omo,omitempty"`
	Allocations []EpochAllocation `json:"allocations" validate:"required"`
	// Fairness is Jain's index over the jobs' resource rates (FRESH Eq.
	// 3.1), present when jobs report consumed_slot_seconds.
	Fairness *float64 `json:"fairness,omitempty" example:"0.93"`
	// Why explains the ratio stage's decision step by step, for people;
	// its wording is not part of the API.
	Why []string `json:"why" validate:"required"`
	// Estimates lists, with estimate.work extrapolate, every job whose
	// work was estimated, in request order.
	Estimates []EpochEstimate `json:"estimates,omitempty"`
	// Speculation is the straggler detector's advice, present when
	// speculation.detector is not none: backups to launch (ranked),
	// deferred candidates, waiting backups to cancel, nodes to keep
	// backups off.
	Speculation *estimate.Advice `json:"speculation,omitempty"`
	// Preschedule is Slot PreScheduling's advice, present when
	// preschedule.enabled: load factors, each node's idle slots below and
	// above the balancing line, the data-local map tasks to start
	// (assign) and the reduce tasks to start on map slots.
	Preschedule *estimate.Preschedule `json:"preschedule,omitempty"`
}

// EpochEstimate is one job's estimated phases.
type EpochEstimate struct {
	ID     string         `json:"id" example:"job_1" validate:"required"`
	Map    *PhaseEstimate `json:"map,omitempty"`
	Reduce *PhaseEstimate `json:"reduce,omitempty"`
}

// PhaseEstimate is how one phase's work was estimated.
type PhaseEstimate struct {
	// Work is the estimated remaining work, slot-seconds.
	Work float64 `json:"work" example:"1600" validate:"required"`
	// Source is where the task time came from: extrapolated (the phase's
	// completed tasks), prior_job (the job's seed), prior_cluster (the
	// other jobs' same phase) or default.
	Source string `json:"source" example:"extrapolated" enums:"extrapolated,prior_job,prior_cluster,default" validate:"required"`
	// TaskTime is the per-task time used, seconds.
	TaskTime float64 `json:"task_time" example:"40" validate:"required"`
	// TasksLeft is pending + running.
	TasksLeft int `json:"tasks_left" example:"40" validate:"required"`
	// MinRaised is true when the phase's minimum was raised to one slot.
	MinRaised bool `json:"min_raised" example:"false" validate:"required"`
}

// EpochPhases holds each phase's solve, the same shape as /v1/solve's
// response; a phase without work has no allocations and an empty plan.
type EpochPhases struct {
	Map    SolveResponse `json:"map" validate:"required"`
	Reduce SolveResponse `json:"reduce" validate:"required"`
}

// Budgets are the slots each phase (and pool) gets this epoch.
type Budgets struct {
	Mode     string   `json:"mode" example:"pi_dhsa" enums:"static,pi_dhsa,pd_dhsa,fresh" validate:"required"`
	Map      int      `json:"map" example:"110" validate:"required"`
	Reduce   int      `json:"reduce" example:"40" validate:"required"`
	Borrowed Borrowed `json:"borrowed" validate:"required"`
	// Pools holds each pool's budget per phase, by pool name (pd_dhsa);
	// {} in the other modes.
	Pools map[string]PhaseSlots `json:"pools" validate:"required"`
	// Theta is FRESH's map share of all slots behind the split; 0 in the
	// other modes.
	Theta float64 `json:"theta" example:"0.6" validate:"required"`
}

// Borrowed counts slots lent between phases.
type Borrowed struct {
	ReduceToMap int `json:"reduce_to_map" example:"10" validate:"required"`
	MapToReduce int `json:"map_to_reduce" example:"0" validate:"required"`
}

// OMODecision is what OMO decided this epoch.
type OMODecision struct {
	StartReduce    []string `json:"start_reduce" validate:"required"`
	BatchFinish    string   `json:"batch_finish,omitempty" example:"job_2"`
	ReleaseRate    float64  `json:"release_rate" example:"12.5" validate:"required"`
	AvailableSlots float64  `json:"available_slots" example:"96" validate:"required"`
}

// EpochAllocation is one job's slots in both phases now.
type EpochAllocation struct {
	ID     string `json:"id" example:"job_1" validate:"required"`
	Map    int    `json:"map" example:"12" validate:"required"`
	Reduce int    `json:"reduce" example:"0" validate:"required"`
	// MapReason and ReduceReason are /v1/solve's reasons, or: none for a
	// phase the job takes no part in, held for a reduce phase OMO's lazy
	// start holds back, no_budget for a phase (or pd_dhsa pool phase) whose
	// budget this epoch is 0 slots.
	MapReason    string `json:"map_reason" example:"priority" enums:"min,max,priority,partial,demand,normalized,none,held,no_budget" validate:"required"`
	ReduceReason string `json:"reduce_reason" example:"none" enums:"min,max,priority,partial,demand,normalized,none,held,no_budget" validate:"required"`
}

// StoredEpoch is one stored epoch as history returns it.
type StoredEpoch struct {
	Cluster    string    `json:"cluster" example:"c1" validate:"required"`
	Epoch      int64     `json:"epoch" example:"42" validate:"required"`
	DecisionID string    `json:"decision_id" validate:"required"`
	CreatedAt  time.Time `json:"created_at" validate:"required"`
	// Request is the body the shim posted.
	Request json.RawMessage `json:"request" swaggertype:"object" validate:"required"`
	// Decision is the EpochResponse flexd answered.
	Decision json.RawMessage `json:"decision" swaggertype:"object" validate:"required"`
}

// EpochPage is a page of history, newest first.
type EpochPage struct {
	Epochs []StoredEpoch `json:"epochs" validate:"required"`
	// NextCursor, when present, fetches the next (older) page.
	NextCursor string `json:"next_cursor,omitempty" example:"41"`
}

// clusterName bounds what a path segment may name: it becomes a store key
// and a log field.
var clusterName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// cluster returns the path's cluster, or 404 for a name no cluster can have.
func clusterParam(r *http.Request) (string, error) {
	c := chi.URLParam(r, "cluster")
	if !clusterName.MatchString(c) {
		return "", errNotFound
	}
	return c, nil
}

// postEpoch godoc
//
//	@Summary		Decide one epoch of a cluster
//	@ID			decideEpoch
//	@Description	The shim's call, once per epoch. Idempotent on (cluster, epoch): the same body again returns the stored decision with Idempotent-Replay: true; a different body is 409. The phases' plans are delta-encoded (plan.encoding "delta": each interval lists only the jobs whose slots changed, 0 meaning released), which is also how the decision is stored; ?plan=dense (or the body's "plan": "dense") lists every job's slots in every interval, for people; ?plan=none leaves the intervals out. The encoding is not part of the request as hashed: a retry may ask another.
//	@Tags			epochs
//	@Accept			json
//	@Produce		json
//	@Param			cluster	path		string			true	"cluster name"
//	@Param			plan	query		string			false	"plan encoding of the answer (default delta)"	Enums(delta, dense, none)
//	@Param			explain	query		bool			false	"the speculation advice's per-attempt detail (as the body's explain)"
//	@Param			request	body		EpochRequest	true	"the cluster's state"
//	@Success		200		{object}	EpochResponse
//	@Header			200		{string}	Idempotent-Replay	"present, with the value true, only when this is a stored decision returned again (an idempotent retry); a first decision has no such header"
//	@Failure		400		{object}	Problem	"malformed body, an unknown plan encoding in the query, or query and body asking different ones"
//	@Failure		401		{object}	Problem
//	@Failure		404		{object}	Problem
//	@Failure		409		{object}	Problem	"epoch stored with a different body, or below the latest"
//	@Failure		413		{object}	Problem
//	@Failure		415		{object}	Problem	"Content-Type not JSON, or a compressed body"
//	@Failure		422		{object}	Problem
//	@Failure		429		{object}	Problem
//	@Failure		503		{object}	Problem
//	@Security		BearerAuth
//	@Router			/v1/clusters/{cluster}/epochs [post]
func (s *Server) postEpoch(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	cluster, err := s.authorizeCluster(r)
	if err != nil {
		s.problem(w, r, err)
		return
	}
	enc, err := planParam(r)
	if err != nil {
		s.problem(w, r, err)
		return
	}
	body, err := readBody(r)
	if err != nil {
		s.problem(w, r, err)
		return
	}
	explain, err := explainParam(r)
	if err != nil {
		s.problem(w, r, err)
		return
	}
	checked, wire, err := decodeEpochRequest(body, cluster, explain, s.cfg.Limits)
	if err != nil {
		s.problem(w, r, err)
		return
	}
	if enc, err = bodyPlan(r, enc, wire.Plan); err != nil {
		s.problem(w, r, err)
		return
	}
	req := checked.Request()
	canonical, err := canonicalRequest(wire)
	if err != nil {
		// The body decoded, so this cannot be the caller's fault.
		s.problem(w, r, err)
		return
	}
	sum := sha256.Sum256(canonical)
	hash := hex.EncodeToString(sum[:])
	timeoutKey := fmt.Sprintf("%s/%d/%s", cluster, req.Epoch, hash)
	if s.timedOut.has(timeoutKey) {
		// Deciding it again would run out of time again: refuse at once
		// rather than spend the timeout on every retry.
		s.problem(w, r, errTimedOutBefore)
		return
	}

	for attempt := 0; ; attempt++ {
		// One read gives the state to decide from and shows an idempotent
		// retry, or a clash, before any work is done.
		start, err := s.store.StartEpoch(ctx, cluster, req.Epoch)
		if err != nil {
			s.problem(w, r, fmt.Errorf("reading cluster %s state for epoch %d: %w", cluster, req.Epoch, err))
			return
		}
		if start.Stored != nil {
			s.replayOrConflict(w, r, *start.Stored, hash, enc)
			return
		}
		prev := start.State
		var prevState epoch.ClusterState
		if prev.Found && len(prev.State) > 0 {
			if err := json.Unmarshal(prev.State, &prevState); err != nil {
				s.problem(w, r, fmt.Errorf("decoding cluster %s state of epoch %d: %w", cluster, prev.Epoch, err))
				return
			}
		}
		resp, next, err := s.decide(r.Context().Done(), cluster, checked, prevState)
		if err != nil {
			if errors.Is(err, solver.ErrCanceled) || errors.Is(err, context.DeadlineExceeded) {
				s.timedOut.add(timeoutKey)
			}
			s.problem(w, r, err)
			return
		}
		id, err := uuid.NewV7()
		if err != nil {
			s.problem(w, r, fmt.Errorf("making a decision id: %w", err))
			return
		}
		resp.DecisionID = id.String()
		decision, err := gojson.Marshal(resp)
		if err != nil {
			s.problem(w, r, fmt.Errorf("encoding decision: %w", err))
			return
		}
		state, err := json.Marshal(next)
		if err != nil {
			s.problem(w, r, fmt.Errorf("encoding cluster state: %w", err))
			return
		}
		prevEpoch := int64(0)
		if prev.Found {
			prevEpoch = prev.Epoch
		}
		rec := store.Record{
			Cluster: cluster, Epoch: req.Epoch, DecisionID: resp.DecisionID,
			RequestHash: hash, Request: canonical, Decision: decision,
			State: state, Allocations: storeAllocations(resp), CreatedAt: s.cfg.Now().UTC(),
		}
		// While the store spools, a save waits its turn for the spool's
		// fsync (serialized, 0.4 ms each on the 2-core VM): the deciding
		// slot goes to the next request meanwhile. With the database
		// there the slot is held to the end, which keeps the saves that
		// run at once few: scripts/load.sh, the slot held to the end and
		// given back before every save in turn, four pairs, p99 109 / 291,
		// 55 / 77, 149 / 227 and 432 / 70 ms (the last pair's first run
		// in a slow spell), the warm-up's 586 / 975, 504 / 646, 689 /
		// 1,137 and 868 / 776 ms; through a 5-second outage and the drain
		// after it (LOAD_PG_OUTAGE=15:5) 191-264 epochs/s held against
		// 243-265 given back (docs/request-cost.md).
		// (A retry after a stale state then decides without a slot:
		// another replica saved in between, which is rare.)
		if s.spooling() {
			leaveDeciding(r)
		}
		stored, replay, err := s.store.SaveEpoch(ctx, rec, prevEpoch)
		switch {
		case err == nil && replay:
			// Another replica stored this very request meanwhile.
			s.replayOrConflict(w, r, stored, hash, enc)
			return
		case err == nil:
			s.observeEpoch(len(req.Jobs), resp)
			if enc != planDelta {
				s.writeJSON(w, r, http.StatusOK, "application/json", resp.withPlans(enc))
				return
			}
			s.writeRaw(w, r, http.StatusOK, "application/json", decision)
			return
		case errors.Is(err, store.ErrStaleState) && attempt < s.cfg.StaleRetries:
			continue
		}
		s.problem(w, r, fmt.Errorf("saving epoch %d of %s: %w", req.Epoch, cluster, err))
		return
	}
}

// planParam reads ?plan=: the encoding of the answer's plans. delta (the
// default, and what is stored) lists each interval's changes only; dense,
// for people, lists every job's slots in every interval; none leaves the
// intervals out.
func planParam(r *http.Request) (string, error) {
	switch p := r.URL.Query().Get("plan"); p {
	case "", planDelta:
		return planDelta, nil
	case planDense, planNone:
		return p, nil
	default:
		return "", &apiError{status: http.StatusBadRequest, detail: "bad query parameters",
			fields: []FieldProblem{{Field: "plan", Message: fmt.Sprintf("must be delta, dense or none, got %q", p)}}}
	}
}

// bodyPlan combines the query's encoding (enc, from planParam) with the
// body's plan member: the body's counts when the query names none, and the
// two must agree when both do (a 400 otherwise, as for a bad query). A
// body naming an unknown encoding is refused by validation (422) before
// this is called.
func bodyPlan(r *http.Request, enc, body string) (string, error) {
	switch {
	case body == "":
		return enc, nil
	case !r.URL.Query().Has("plan"):
		return body, nil
	case body != enc:
		return "", &apiError{status: http.StatusBadRequest, detail: "bad query parameters",
			fields: []FieldProblem{{Field: "plan", Message: fmt.Sprintf("the query asks %s, the body %s", enc, body)}}}
	}
	return enc, nil
}

// checkPlan validates a body's plan member.
func checkPlan(plan string) []solver.FieldError {
	switch plan {
	case "", planDelta, planDense, planNone:
		return nil
	}
	return []solver.FieldError{{Field: "plan", Message: fmt.Sprintf("must be delta, dense or none, got %q", plan)}}
}

// explainParam reads ?explain: a boolean (present without a value means
// true), asking for the speculation advice's per-attempt detail.
func explainParam(r *http.Request) (bool, error) {
	q := r.URL.Query()
	if !q.Has("explain") {
		return false, nil
	}
	switch v := q.Get("explain"); v {
	case "", "true", "1":
		return true, nil
	case "false", "0":
		return false, nil
	default:
		return false, &apiError{status: http.StatusBadRequest, detail: "bad query parameters",
			fields: []FieldProblem{{Field: "explain", Message: fmt.Sprintf("must be true or false, got %q", v)}}}
	}
}

// canonicalRequest is the form of an epoch body that is stored and hashed:
// the decoded request encoded again (compact, members in the wire type's
// order, numbers in Go's shortest form), without "cluster" (the path names
// it). So a retry that reformats the body, or a line of the epochs.jsonl
// export posted back to its cluster, is an idempotent replay; and the body
// is decoded once, not again into a generic form to sort it.
func canonicalRequest(wire *EpochRequest) ([]byte, error) {
	c := *wire
	c.Cluster = ""
	c.Plan = "" // presentation, not the request: see EpochRequest.Plan
	out, err := gojson.Marshal(&c)
	if err != nil {
		return nil, fmt.Errorf("canonicalising a decoded body: %w", err)
	}
	return out, nil
}

// decodeEpochRequest decodes, converts and validates an epoch body: every
// caller error (400 or 422) comes out of here, before any store call. The
// request comes back as epoch.Checked, so deciding it (once, or again on a
// state conflict) does not validate it again. It returns the wire form
// too, for canonicalRequest.
//
// explain (the query parameter) is the body's explain member set: part of
// the request as stored and hashed, so a retry must ask alike.
func decodeEpochRequest(body []byte, cluster string, explain bool, limits epoch.Limits) (epoch.Checked, *EpochRequest, error) {
	var wire EpochRequest
	maxJobs, maxNodes, maxTasks := limits.Counts()
	bounds := map[string]int{"jobs": maxJobs, "nodes": maxNodes, "tasks": maxTasks, "completed_tasks": maxTasks}
	if err := decodeStrictLimited(body, &wire, bounds); err != nil {
		return epoch.Checked{}, nil, err
	}
	// A decoder reads an absent or null epoch as 0: a body that says 0
	// (once per cluster) is asked again.
	hasEpoch := wire.Epoch != 0
	if !hasEpoch {
		var probe struct {
			Epoch *int64 `json:"epoch"`
		}
		if err := gojson.Unmarshal(body, &probe); err != nil {
			return epoch.Checked{}, nil, fmt.Errorf("decoding the epoch number of a body that decoded: %w", err)
		}
		hasEpoch = probe.Epoch != nil
	}
	if explain {
		wire.Explain = true
	}
	var fields []solver.FieldError
	if !hasEpoch {
		fields = append(fields, solver.FieldError{Field: "epoch", Message: "required: an integer >= 0"})
	}
	if wire.Cluster != "" && wire.Cluster != cluster {
		fields = append(fields, solver.FieldError{Field: "cluster", Message: fmt.Sprintf("%q differs from the path's cluster %q", wire.Cluster, cluster)})
	}
	fields = append(fields, checkPlan(wire.Plan)...)
	checked, fes := epoch.Check(wire.Domain(), limits)
	fields = append(fields, fes...)
	if len(fields) > 0 {
		return epoch.Checked{}, &wire, &solver.ValidationError{Problems: fields}
	}
	return checked, &wire, nil
}

// decide runs the epoch pipeline with every phase's solve timed, and
// converts the decision to the wire form (without its decision id).
func (s *Server) decide(cancel <-chan struct{}, cluster string, checked epoch.Checked, prev epoch.ClusterState) (*EpochResponse, epoch.ClusterState, error) {
	req := checked.Request()
	// Decide calls the policies one after the other, so the timings arrive
	// in call order; attributeTimes tells which phase each one solved.
	var timings []time.Duration
	d := epoch.Decider{Lookup: func(name string) (solver.Solver, bool) {
		pol, ok := s.cfg.Policies(name)
		if !ok {
			return nil, false
		}
		return timedSolver{Solver: pol, cancel: cancel, record: func(d time.Duration) { timings = append(timings, d) }}, true
	}}
	dec, next, err := d.DecideChecked(checked, prev)
	if err != nil {
		return nil, prev, fmt.Errorf("deciding epoch %d of %s: %w", req.Epoch, cluster, err)
	}
	resp := newEpochResponse(cluster, dec, attributeTimes(dec, timings))
	var finite error
	resp.eachPhase(func(ph *SolveResponse) { finite = cmp.Or(finite, checkFinite(ph)) })
	if finite != nil {
		return nil, prev, finite
	}
	return resp, next, nil
}

// attributeTimes assigns the policy calls' wall times, in call order, to
// the phases they solved. Decide calls a policy exactly for a phase (in
// pd_dhsa a pool's phase, pools by name, map before reduce) that has jobs
// and a budget of at least one slot, so the same walk over the decision
// finds the calls. Should the counts ever disagree, no time is reported
// rather than a wrong one.
func attributeTimes(dec epoch.Decision, timings []time.Duration) SolveTimes {
	called := func(res *solver.Result, budget int) bool {
		return res != nil && len(res.Allocations) > 0 && budget > 0
	}
	var out SolveTimes
	next := 0
	take := func() time.Duration {
		next++
		if next <= len(timings) {
			return timings[next-1]
		}
		return 0
	}
	if dec.PoolPhases != nil {
		out.Pools = make(map[string]PoolTimes, len(dec.PoolPhases))
		for _, name := range slices.Sorted(maps.Keys(dec.PoolPhases)) {
			ph, pb := dec.PoolPhases[name], dec.Budgets.Pools[name]
			var pt PoolTimes
			if called(ph.Map, pb.Map) {
				pt.Map = take()
				out.Map += pt.Map
			}
			if called(ph.Reduce, pb.Reduce) {
				pt.Reduce = take()
				out.Reduce += pt.Reduce
			}
			out.Pools[name] = pt
		}
	} else {
		if called(dec.Phases.Map, dec.Budgets.Map) {
			out.Map = take()
		}
		if called(dec.Phases.Reduce, dec.Budgets.Reduce) {
			out.Reduce = take()
		}
	}
	if next != len(timings) {
		return SolveTimes{}
	}
	return out
}

// timedSolver measures a policy's wall time; the clock stays at the edge,
// out of the pure epoch and solver packages.
type timedSolver struct {
	solver.Solver
	// cancel is the request's: a solve past its deadline stops.
	cancel <-chan struct{}
	record func(time.Duration)
}

func (t timedSolver) Solve(p solver.Problem) (solver.Result, error) {
	p.Options.Cancel = t.cancel
	start := time.Now()
	res, err := t.Solver.Solve(p)
	t.record(time.Since(start))
	return res, err
}

// replayOrConflict answers a stored (cluster, epoch): its decision again
// when the request is the same, 409 otherwise. The stored decision's plans
// are delta-encoded; another encoding is rebuilt from them.
func (s *Server) replayOrConflict(w http.ResponseWriter, r *http.Request, rec store.Record, hash, enc string) {
	if rec.RequestHash != hash {
		s.problem(w, r, &apiError{status: http.StatusConflict, detail: fmt.Sprintf("epoch %d is already stored with a different request", rec.Epoch)})
		return
	}
	w.Header().Set("Idempotent-Replay", "true")
	if enc == planDelta {
		s.writeRaw(w, r, http.StatusOK, "application/json", rec.Decision)
		return
	}
	var resp EpochResponse
	if err := json.Unmarshal(rec.Decision, &resp); err != nil {
		s.problem(w, r, fmt.Errorf("decoding stored decision of epoch %d: %w", rec.Epoch, err))
		return
	}
	s.writeJSON(w, r, http.StatusOK, "application/json", resp.withPlans(enc))
}

func (s *Server) observeEpoch(jobs int, resp *EpochResponse) {
	s.metrics.epochJobs.Observe(float64(jobs))
	for _, ph := range []struct {
		name string
		res  *SolveResponse
	}{{"map", &resp.Phases.Map}, {"reduce", &resp.Phases.Reduce}} {
		if len(ph.res.Allocations) > 0 {
			s.metrics.solveSeconds.WithLabelValues(ph.res.Policy, ph.name).Observe(float64(ph.res.SolveMicros) / 1e6)
		}
	}
}

// storeAllocations flattens a decision into the per-job, per-phase rows the
// store indexes for job_id queries; phases a job takes no part in are left
// out.
func storeAllocations(resp *EpochResponse) []store.Allocation {
	out := make([]store.Allocation, 0, 2*len(resp.Allocations))
	for _, a := range resp.Allocations {
		if a.MapReason != string(epoch.ReasonNone) {
			out = append(out, store.Allocation{JobID: a.ID, Phase: "map", Slots: a.Map, Reason: a.MapReason})
		}
		if a.ReduceReason != string(epoch.ReasonNone) {
			out = append(out, store.Allocation{JobID: a.ID, Phase: "reduce", Slots: a.Reduce, Reason: a.ReduceReason})
		}
	}
	return out
}

// listEpochs godoc
//
//	@Summary	List a cluster's stored epochs, newest first
//	@ID		listEpochs
//	@Description The stored epochs of a cluster, newest first, cursor-paged; from and to bound the epoch numbers, job_id keeps the epochs that name a job.
//	@Tags		epochs
//	@Produce	json
//	@Param		cluster	path		string	true	"cluster name"
//	@Param		from	query		integer	false	"lowest epoch, inclusive"
//	@Param		to		query		integer	false	"highest epoch, inclusive"
//	@Param		limit	query		integer	false	"page size, 1..1000 (default 100)"
//	@Param		cursor	query		string	false	"next_cursor of the previous page"
//	@Param		job_id	query		string	false	"only epochs allocating to this job"
//	@Success	200		{object}	EpochPage
//	@Failure	400		{object}	Problem
//	@Failure	401		{object}	Problem
//	@Failure	404		{object}	Problem
//	@Failure	429		{object}	Problem
//	@Security	BearerAuth
//	@Router		/v1/clusters/{cluster}/epochs [get]
func (s *Server) listEpochs(w http.ResponseWriter, r *http.Request) {
	cluster, err := s.authorizeCluster(r)
	if err != nil {
		s.problem(w, r, err)
		return
	}
	q, err := parseQuery(r)
	if err != nil {
		s.problem(w, r, err)
		return
	}
	recs, next, err := s.store.ListEpochs(r.Context(), cluster, q)
	if err != nil {
		s.problem(w, r, fmt.Errorf("listing epochs of %s: %w", cluster, err))
		return
	}
	page := EpochPage{Epochs: make([]StoredEpoch, len(recs))}
	for i, rec := range recs {
		page.Epochs[i] = storedEpoch(rec)
	}
	if next != nil {
		page.NextCursor = strconv.FormatInt(*next, 10)
	}
	s.writeJSON(w, r, http.StatusOK, "application/json", page)
}

// ExportWriteTimeout is the default of Config.ExportWriteTimeout: how long
// one line of the epochs.jsonl export may take to reach a slow reader
// before the stream is cut (issue 16, item 3).
const ExportWriteTimeout = 30 * time.Second

// DefaultPageSize is the page size of GET .../epochs without limit.
const DefaultPageSize = 100

// MaxPageSize is the largest page GET .../epochs returns.
const MaxPageSize = 1000

func parseQuery(r *http.Request) (store.Query, error) {
	v := r.URL.Query()
	q := store.Query{Limit: DefaultPageSize, JobID: v.Get("job_id")}
	var fields []FieldProblem
	if !solver.PrintableID(q.JobID) {
		fields = append(fields, FieldProblem{Field: "job_id", Message: fmt.Sprintf("must be valid UTF-8 without control characters, got %q", q.JobID)})
	}
	num := func(name string) *int64 {
		s := v.Get(name)
		if s == "" {
			return nil
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			fields = append(fields, FieldProblem{Field: name, Message: fmt.Sprintf("must be an integer, got %q", s)})
			return nil
		}
		if n < 0 {
			// Epoch numbers are never negative; a bound near int64's end
			// would wrap in the store's arithmetic and select nothing.
			fields = append(fields, FieldProblem{Field: name, Message: fmt.Sprintf("must be >= 0, got %d", n)})
			return nil
		}
		return &n
	}
	q.From, q.To, q.Before = num("from"), num("to"), num("cursor")
	if l := num("limit"); l != nil {
		if *l < 1 || *l > MaxPageSize {
			fields = append(fields, FieldProblem{Field: "limit", Message: fmt.Sprintf("must be between 1 and %d", MaxPageSize)})
		} else {
			q.Limit = int(*l)
		}
	}
	if len(fields) > 0 {
		return q, &apiError{status: http.StatusBadRequest, detail: "bad query parameters", fields: fields}
	}
	return q, nil
}

func storedEpoch(rec store.Record) StoredEpoch {
	return StoredEpoch{
		Cluster: rec.Cluster, Epoch: rec.Epoch, DecisionID: rec.DecisionID,
		CreatedAt: rec.CreatedAt.UTC(), Request: rec.Request, Decision: rec.Decision,
	}
}

// getEpoch godoc
//
//	@Summary	One stored epoch: the request and its decision
//	@ID		getEpoch
//	@Description One stored epoch: the request as stored and the decision as answered.
//	@Tags		epochs
//	@Produce	json
//	@Param		cluster	path		string	true	"cluster name"
//	@Param		epoch	path		integer	true	"epoch number"
//	@Success	200		{object}	StoredEpoch
//	@Failure	401		{object}	Problem
//	@Failure	404		{object}	Problem
//	@Failure	429		{object}	Problem
//	@Security	BearerAuth
//	@Router		/v1/clusters/{cluster}/epochs/{epoch} [get]
func (s *Server) getEpoch(w http.ResponseWriter, r *http.Request) {
	cluster, err := s.authorizeCluster(r)
	if err != nil {
		s.problem(w, r, err)
		return
	}
	n, err := strconv.ParseInt(chi.URLParam(r, "epoch"), 10, 64)
	if err != nil {
		s.problem(w, r, errNotFound)
		return
	}
	rec, err := s.store.GetEpoch(r.Context(), cluster, n)
	if err != nil {
		s.problem(w, r, fmt.Errorf("reading epoch %d of %s: %w", n, cluster, err))
		return
	}
	s.writeJSON(w, r, http.StatusOK, "application/json", storedEpoch(rec))
}

// exportEpochs godoc
//
//	@Summary		Export a cluster's epoch log as JSON Lines
//	@ID			exportEpochs
//	@Description	One request body per line, oldest first, each with "cluster" added; the format `flexd replay` reads. Streamed.
//	@Tags			epochs
//	@Produce		application/jsonl
//	@Param			cluster	path		string	true	"cluster name"
//	@Param			from	query		integer	false	"lowest epoch, inclusive"
//	@Param			to		query		integer	false	"highest epoch, inclusive"
//	@Success		200		{string}	string	"one EpochRequest per line"
//	@Failure		400		{object}	Problem
//	@Failure		401		{object}	Problem
//	@Failure		404		{object}	Problem
//	@Failure		429		{object}	Problem
//	@Security		BearerAuth
//	@Router			/v1/clusters/{cluster}/epochs.jsonl [get]
func (s *Server) exportEpochs(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	cluster, err := s.authorizeCluster(r)
	if err != nil {
		s.problem(w, r, err)
		return
	}
	q, err := parseQuery(r)
	if err != nil {
		s.problem(w, r, err)
		return
	}
	// The header goes out with the first line, so a store that fails
	// before any line still gets a proper problem response.
	wrote := false
	rc := http.NewResponseController(w)
	err = s.store.StreamEpochs(ctx, cluster, q.From, q.To, func(rec store.Record) error {
		line, err := withCluster(rec.Request, cluster)
		if err != nil {
			return fmt.Errorf("epoch %d: %w", rec.Epoch, err)
		}
		if !wrote {
			w.Header().Set("Content-Type", "application/jsonl")
			w.WriteHeader(http.StatusOK)
			wrote = true
		}
		// The export is exempt from the request timeout (it may be long),
		// but each line must leave within ExportWriteTimeout: a reader that
		// stops reading would otherwise pin the stream's memory for ever.
		if err := rc.SetWriteDeadline(time.Now().Add(s.cfg.ExportWriteTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return errClientGone
		}
		if _, err := w.Write(append(line, '\n')); err != nil {
			return errClientGone
		}
		// Flush each line so a reader sees progress and memory stays flat.
		if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return errClientGone
		}
		return nil
	})
	switch {
	case err == nil && !wrote:
		w.Header().Set("Content-Type", "application/jsonl")
		w.WriteHeader(http.StatusOK)
	case errors.Is(err, errClientGone):
		// Abort: net/http closes the connection rather than flush the
		// rest of the response to a reader that stopped reading.
		panic(http.ErrAbortHandler)
	case err != nil && !wrote:
		s.problem(w, r, fmt.Errorf("exporting epochs of %s: %w", cluster, err))
	case err != nil:
		// The status is sent; all that is left is to cut the stream short
		// (the client sees a truncated last line) and log it.
		s.log.ErrorContext(ctx, "exporting epochs", "request_id", requestIDFrom(ctx), "cluster", cluster, "error", err)
	}
}

// errTimedOutBefore refuses an epoch whose same body already ran out of
// time (issue 16, item 7): 422, since only another request can succeed.
var errTimedOutBefore = &apiError{status: http.StatusUnprocessableEntity,
	detail: "this epoch, with this very body, could not be decided within the server's request timeout before; it would not be now",
	fields: []FieldProblem{{Field: "policy", Message: "too slow for this epoch within the request timeout: choose a faster policy (flex) or a lower effort"}}}

// timedOutSet remembers (cluster, epoch, body hash) keys of decisions that
// ran out of time; it holds at most timedOutCap keys and is emptied when
// full, which bounds memory whatever callers send.
type timedOutSet struct {
	mu   sync.Mutex
	keys map[string]bool
}

// timedOutCap bounds timedOutSet.
const timedOutCap = 4096

func (t *timedOutSet) has(key string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.keys[key]
}

func (t *timedOutSet) add(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.keys == nil || len(t.keys) >= timedOutCap {
		t.keys = map[string]bool{}
	}
	t.keys[key] = true
}

// errClientGone stops an export whose client stopped reading.
var errClientGone = errors.New("client went away")

// withCluster returns the stored request object with "cluster" as its
// first member, unless it already has one.
func withCluster(req json.RawMessage, cluster string) ([]byte, error) {
	var probe struct {
		Cluster *string `json:"cluster"`
	}
	if err := json.Unmarshal(req, &probe); err != nil {
		return nil, fmt.Errorf("decoding stored request: %w", err)
	}
	if probe.Cluster != nil {
		return req, nil
	}
	trimmed := bytes.TrimSpace(req)
	if len(trimmed) < 2 || trimmed[0] != '{' {
		return nil, errors.New("stored request is not a JSON object")
	}
	name, err := json.Marshal(cluster)
	if err != nil {
		return nil, fmt.Errorf("encoding cluster name: %w", err)
	}
	out := make([]byte, 0, len(trimmed)+len(name)+12)
	out = append(out, `{"cluster":`...)
	out = append(out, name...)
	rest := bytes.TrimSpace(trimmed[1:])
	if len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, rest...), nil
}
