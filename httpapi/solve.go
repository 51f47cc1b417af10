package httpapi

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"net/http"
	"slices"
	"time"

	gojson "github.com/goccy/go-json"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver"
)

// SolveRequest is the body of POST /v1/solve: one phase problem.
type SolveRequest struct {
	// Slots is S, the slots to share: >= 1.
	Slots int `json:"slots" example:"100" validate:"required"`
	// Now is the start of the epoch, seconds on the caller's clock.
	Now float64 `json:"now" example:"0"`
	// Objective is a metric name (GET /v1/metrics); default avg_response_time.
	Objective string `json:"objective,omitempty" example:"avg_response_time"`
	// Policy is flex (default), fair (J <= 20,000), fifo or optimal (J <= 10).
	Policy string `json:"policy,omitempty" example:"flex" enums:"flex,fair,fifo,optimal"`
	// FairVariant selects Hadoop's fair share for policy fair: mrv1 (default) or yarn.
	FairVariant string `json:"fair_variant,omitempty" enums:"mrv1,yarn"`
	// Explain asks for every candidate order and its value.
	Explain bool `json:"explain,omitempty"`
	// Effort scales FLEX's search: 1 (default) answers a J = 200 problem
	// in tens of milliseconds; n multiplies that search by n (at most 16);
	// 0 is the fastest answer, the best candidate order without local search.
	Effort *int       `json:"effort,omitempty" example:"1" minimum:"0" maximum:"16"`
	Jobs   []SolveJob `json:"jobs" validate:"required"`
	// Plan is the encoding of the answer's plan, as the query parameter
	// plan: delta (default: each interval lists only the jobs whose slots
	// changed, O(J) entries for FLEX), dense (every job holding slots in
	// every interval, for people) or none (no intervals, for callers that
	// enforce only the allocations).
	Plan string `json:"plan,omitempty" example:"delta" enums:"delta,dense,none"`
}

// SolveJob is one job of a phase problem.
type SolveJob struct {
	ID string `json:"id" example:"j1" validate:"required"`
	// Min and Max bound the job's slots: min >= 0, max >= 1.
	Min int `json:"min" example:"2"`
	Max int `json:"max" example:"100" validate:"required"`
	// Demand, when > 0, is the remaining demand in slots (pending plus
	// running tasks); max is clamped to it.
	Demand int `json:"demand,omitempty" example:"0"`
	// Work is the remaining work in slot-seconds: > 0 and finite.
	Work float64 `json:"work" example:"350.5" validate:"required"`
	// Submitted is the arrival time, seconds on the caller's clock.
	Submitted float64 `json:"submitted" example:"0"`
	// Weight is >= 0 and finite; default 1.
	Weight *float64 `json:"weight,omitempty" example:"0.7"`
	// Deadline is seconds on the caller's clock; needed by the deadline metrics.
	Deadline *float64 `json:"deadline,omitempty" example:"12.5"`
	// TotalWork is the job's whole work, slot-seconds, for stretch; default work.
	TotalWork float64   `json:"total_work,omitempty" example:"350.5"`
	SLA       []SLAStep `json:"sla,omitempty"`
	// Objective overrides the problem's metric for this job (same aggregate).
	Objective string `json:"objective,omitempty" example:"tardy_jobs"`
}

// SLAStep is one SLA step: completing after deadline costs penalty.
type SLAStep struct {
	Deadline float64 `json:"deadline" example:"5" validate:"required"`
	Penalty  float64 `json:"penalty" example:"0.2" validate:"required"`
}

// SolveResponse is the answer to POST /v1/solve, and each phase of an
// epoch decision.
type SolveResponse struct {
	Policy    string         `json:"policy" example:"flex" validate:"required"`
	Objective ObjectiveValue `json:"objective" validate:"required"`
	// Allocations are the first interval, in request order.
	Allocations []Allocation `json:"allocations" validate:"required"`
	Plan        Plan         `json:"plan" validate:"required"`
	Ordering    Ordering     `json:"ordering" validate:"required"`
	// NormalizedMinima is true when the minima exceeded the slots and were scaled down.
	NormalizedMinima bool `json:"normalized_minima" validate:"required"`
	// Explain appears only when asked for.
	Explain *Explain `json:"explain,omitempty"`
	// SolveMicros is the solver's wall time in microseconds.
	SolveMicros int64 `json:"solve_micros" example:"180" validate:"required"`
}

// ObjectiveValue is the objective recomputed from the plan.
type ObjectiveValue struct {
	Metric    string  `json:"metric" example:"avg_response_time" validate:"required"`
	Aggregate string  `json:"aggregate" example:"sum" enums:"sum,max" validate:"required"`
	Value     float64 `json:"value" example:"812.4" validate:"required"`
	// Mean is value / J for sums and value for max.
	Mean float64 `json:"mean" example:"81.24" validate:"required"`
}

// Allocation is one job's slots now and why. In an epoch's phases a job
// may also have reason no_budget: its phase (or pd_dhsa pool phase) got 0
// slots this epoch; /v1/solve never answers it.
type Allocation struct {
	ID     string `json:"id" example:"j1" validate:"required"`
	Slots  int    `json:"slots" example:"12" validate:"required"`
	Reason string `json:"reason" example:"priority" enums:"min,max,priority,partial,demand,normalized,no_budget" validate:"required"`
}

// Plan is the malleable schedule: every interval and each job's projected
// completion time.
type Plan struct {
	// Encoding is "dense" (each interval's slots lists every job holding
	// slots), "delta" (each interval's slots lists only the jobs whose
	// count changed, 0 meaning released) or "none" (no intervals). Answers
	// are delta-encoded unless the request asks otherwise (plan, in the
	// query or the body); /v1/solve answers delta even to plan=dense when
	// a dense plan would be too large (more than MaxDensePlanEntries
	// entries).
	Encoding    string             `json:"encoding" example:"delta" enums:"dense,delta,none" validate:"required"`
	Intervals   []Interval         `json:"intervals" validate:"required"`
	Completions map[string]float64 `json:"completions" validate:"required"`

	// src, when set, is the solver plan this one stands for, not written
	// out yet: Intervals and Completions are empty, and MarshalJSON writes
	// the plan from src without a map per interval (the epoch answer's
	// path, hundreds of times a second). Materialized fills them.
	src *planSource
}

// planSource is a plan yet to be written: the solver's plan and the job
// ids its indexes name.
type planSource struct {
	pl  *solver.Plan
	ids []string
}

// lazyPlan stands for newPlan(*pl, ids, enc), made only if read (Plan.src).
func lazyPlan(pl *solver.Plan, ids []string, enc string) Plan {
	return Plan{Encoding: enc, src: &planSource{pl: pl, ids: ids}}
}

// Materialized returns p with its intervals and completions filled in: p
// itself unless it came from the epoch answer's path, which leaves them
// to be written straight from the solver's plan when it is encoded.
func (p Plan) Materialized() Plan {
	if p.src == nil {
		return p
	}
	return newPlan(*p.src.pl, p.src.ids, p.Encoding)
}

// Equal reports whether p and q are the same plan (their materialized
// forms): go-cmp, which calls a type's Equal method, then compares answers
// by what their plans say, not by how far they have been written.
func (p Plan) Equal(q Plan) bool {
	p, q = p.Materialized(), q.Materialized()
	return p.Encoding == q.Encoding && maps.Equal(p.Completions, q.Completions) &&
		slices.EqualFunc(p.Intervals, q.Intervals, func(a, b Interval) bool {
			return a.Start == b.Start && a.End == b.End && maps.Equal(a.Slots, b.Slots)
		})
}

// plainPlan is Plan without its methods, to encode a materialized one.
type plainPlan Plan

// MarshalJSON writes p as encoding/json writes its materialized form:
// straight from the solver's plan (appendPlan: keys in encoding/json's
// map order, no map built) when p has not been materialized.
func (p Plan) MarshalJSON() ([]byte, error) {
	if p.src == nil {
		return gojson.Marshal(plainPlan(p))
	}
	byID, rank := idOrder(p.src.ids)
	b := make([]byte, 0, 256+64*len(p.src.pl.Intervals)+32*len(p.src.ids))
	return appendPlan(b, p.src.pl, p.src.ids, byID, rank, p.Encoding), nil
}

// Interval is one piece of a plan: from start to end (seconds) the jobs
// hold these slots.
type Interval struct {
	Start float64        `json:"start" example:"0" validate:"required"`
	End   float64        `json:"end" example:"3.2" validate:"required"`
	Slots map[string]int `json:"slots" validate:"required"`
}

// Ordering is the priority order that won. Scheme names it
// ("generic_rap", "srpt", ...); a merged pd_dhsa epoch phase spanning
// several pools says "per_pool" (each pool's order is in pool_phases).
type Ordering struct {
	Scheme string   `json:"scheme" example:"generic_rap" validate:"required"`
	Jobs   []string `json:"jobs" validate:"required"`
}

// Explain lists what the solver tried.
type Explain struct {
	Candidates []Candidate `json:"candidates" validate:"required"`
	// FairShares is Hadoop's fair share per job, for policy fair.
	FairShares map[string]float64 `json:"fair_shares,omitempty"`
}

// Candidate is one order tried and its objective value.
type Candidate struct {
	Scheme string  `json:"scheme" example:"srpt" validate:"required"`
	Value  float64 `json:"value" example:"815" validate:"required"`
}

// MaxDensePlanEntries is the most (interval, job) entries a dense plan may
// hold: past it a /v1/solve answer asked to be dense is delta-encoded
// instead (its encoding says so), since a dense plan of J jobs can hold
// O(J^2) entries.
const MaxDensePlanEntries = 1_000_000

// SolveOptions are the request's choices that are not part of the problem.
type SolveOptions struct {
	// Policy is the policy's registry name (default flex).
	Policy string
	// Plan is the answer's plan encoding: delta (default, also when
	// empty), dense or none.
	Plan string
}

// DecodeSolveRequest decodes and converts a /v1/solve body. Errors are
// caller errors for a 4xx (use ErrorStatus and ProblemFor to render them).
func DecodeSolveRequest(body []byte) (solver.Problem, SolveOptions, error) {
	var req SolveRequest
	// The job list stops at the solver's limit while it is read.
	if err := decodeStrictLimited(body, &req, map[string]int{"jobs": solver.MaxJobs}); err != nil {
		return solver.Problem{}, SolveOptions{}, err
	}
	return req.Problem()
}

// Problem converts the wire request to the solver's problem, checking the
// names the solver would otherwise fail on (policy, fair_variant).
func (req *SolveRequest) Problem() (solver.Problem, SolveOptions, error) {
	opts := SolveOptions{Policy: req.Policy, Plan: req.Plan}
	if opts.Policy == "" {
		opts.Policy = "flex"
	}
	fields := checkPlan(req.Plan)
	if _, ok := solver.ByName(opts.Policy); !ok {
		fields = append(fields, solver.FieldError{Field: "policy", Message: fmt.Sprintf("unknown policy %q; one of %v", req.Policy, solver.Names())})
	}
	switch req.FairVariant {
	case "", "mrv1", "yarn":
	default:
		fields = append(fields, solver.FieldError{Field: "fair_variant", Message: fmt.Sprintf("unknown fair variant %q; mrv1 or yarn", req.FairVariant)})
	}
	p := solver.Problem{
		Slots:   req.Slots,
		Now:     req.Now,
		Metric:  penalty.Metric(req.Objective),
		Jobs:    make([]solver.Job, len(req.Jobs)),
		Options: solver.Options{Explain: req.Explain, FairVariant: req.FairVariant},
	}
	if eff, err := solver.EffortOption(req.Effort); err != nil {
		fields = append(fields, solver.FieldError{Field: "effort", Message: err.Error()})
	} else {
		p.Options.Effort = eff
	}
	for i, j := range req.Jobs {
		p.Jobs[i] = j.job()
	}
	if err := solver.Validate(p); err != nil {
		var ve *solver.ValidationError
		if !errors.As(err, &ve) {
			return p, opts, fmt.Errorf("validating problem: %w", err)
		}
		fields = append(fields, ve.Problems...)
	}
	if len(fields) > 0 {
		return p, opts, &solver.ValidationError{Problems: fields}
	}
	return p, opts, nil
}

func (j *SolveJob) job() solver.Job {
	out := solver.Job{
		ID: j.ID, Min: j.Min, Max: j.Max, Demand: j.Demand,
		Work: j.Work, Submitted: j.Submitted, TotalWork: j.TotalWork,
		Weight: 1,
		Metric: penalty.Metric(j.Objective),
	}
	if j.Weight != nil {
		out.Weight = *j.Weight
	}
	if j.Deadline != nil {
		out.Deadline, out.HasDeadline = *j.Deadline, true
	}
	if len(j.SLA) > 0 {
		out.SLA = make([]penalty.Step, len(j.SLA))
		for k, s := range j.SLA {
			out.SLA[k] = penalty.Step{Deadline: s.Deadline, Penalty: s.Penalty}
		}
	}
	return out
}

// Solve runs the named policy on p and converts its result, timing the
// solve. It is what POST /v1/solve and `flexd solve` both call.
func Solve(p solver.Problem, opts SolveOptions) (SolveResponse, error) {
	return solveWith(solver.ByName, p, opts)
}

// solveWith is Solve with the policy registry given (Config.Policies).
func solveWith(lookup func(string) (solver.Solver, bool), p solver.Problem, opts SolveOptions) (SolveResponse, error) {
	res, elapsed, err := solveRun(lookup, p, opts)
	if err != nil {
		return SolveResponse{}, err
	}
	resp := newSolveResponse(res, p.Options.Explain, elapsed, planOf(opts))
	if err := checkFinite(&resp); err != nil {
		return SolveResponse{}, err
	}
	return resp, nil
}

// solveRun runs the named policy on p, timing the solve.
func solveRun(lookup func(string) (solver.Solver, bool), p solver.Problem, opts SolveOptions) (solver.Result, time.Duration, error) {
	pol, ok := lookup(opts.Policy)
	if !ok {
		return solver.Result{}, 0, &solver.ValidationError{Problems: []solver.FieldError{{Field: "policy", Message: fmt.Sprintf("unknown policy %q", opts.Policy)}}}
	}
	start := time.Now()
	res, err := pol.Solve(p)
	elapsed := time.Since(start)
	if err != nil {
		return solver.Result{}, 0, fmt.Errorf("policy %s: %w", pol.Name(), err)
	}
	return res, elapsed, nil
}

// planOf is the plan encoding opts ask for, delta when they name none.
func planOf(opts SolveOptions) string {
	if opts.Plan == "" {
		return planDelta
	}
	return opts.Plan
}

// NewSolveResponse converts a solver result to the wire form, its plan in
// the default encoding (delta). A result's allocations are in its
// problem's job order, so they name the jobs its plan and order index.
// explain says whether the caller asked for the candidates; elapsed is the
// solve's wall time.
func NewSolveResponse(res solver.Result, explain bool, elapsed time.Duration) SolveResponse {
	return newSolveResponse(res, explain, elapsed, planDelta)
}

// Plan encodings a response can be asked for (the plan query parameter
// and body member); delta is the default everywhere.
const (
	planDense = "dense"
	planDelta = "delta"
	planNone  = "none"
)

func newSolveResponse(res solver.Result, explain bool, elapsed time.Duration, enc string) SolveResponse {
	resp := newSolveResponseLazy(res, explain, elapsed, enc)
	resp.Plan = resp.Plan.Materialized()
	return resp
}

// newSolveResponseLazy is newSolveResponse with the plan left to be
// written when the answer is encoded (Plan.src).
func newSolveResponseLazy(res solver.Result, explain bool, elapsed time.Duration, enc string) SolveResponse {
	ids := make([]string, len(res.Allocations))
	for i, a := range res.Allocations {
		ids[i] = a.ID
	}
	resp := SolveResponse{
		Policy: res.Policy,
		Objective: ObjectiveValue{
			Metric: string(res.Metric), Aggregate: string(res.Aggregate),
			Value: res.Value, Mean: res.Mean,
		},
		Allocations:      make([]Allocation, len(res.Allocations)),
		NormalizedMinima: res.NormalizedMinima,
		Ordering:         Ordering{Scheme: res.Scheme, Jobs: make([]string, 0, len(res.Order))},
		SolveMicros:      elapsed.Microseconds(),
		Plan:             lazyPlan(&res.Plan, ids, enc),
	}
	for i, a := range res.Allocations {
		resp.Allocations[i] = Allocation{ID: a.ID, Slots: a.Slots, Reason: string(a.Reason)}
	}
	for _, k := range res.Order {
		if k >= 0 && k < len(ids) {
			resp.Ordering.Jobs = append(resp.Ordering.Jobs, ids[k])
		}
	}
	if explain {
		ex := &Explain{Candidates: make([]Candidate, len(res.Candidates))}
		for i, c := range res.Candidates {
			ex.Candidates[i] = Candidate{Scheme: c.Scheme, Value: c.Value}
		}
		if len(res.FairShares) > 0 {
			ex.FairShares = make(map[string]float64, len(res.FairShares))
			for i, f := range res.FairShares {
				if i < len(ids) {
					ex.FairShares[ids[i]] = f
				}
			}
		}
		resp.Explain = ex
	}
	return resp
}

// planEncoding is the encoding a plan is answered in when enc is asked
// for: dense only while that stays under MaxDensePlanEntries entries,
// delta otherwise.
func planEncoding(pl *solver.Plan, enc string) string {
	if enc != planDense {
		return enc
	}
	dense := 0
	pl.Each(func(_ int, _, _ float64, slots []int) {
		for _, s := range slots {
			if s != 0 {
				dense++
			}
		}
	})
	if dense > MaxDensePlanEntries {
		return planDelta
	}
	return enc
}

// newPlan writes a solver plan (delta-encoded) in encoding enc; dense
// only while that stays under MaxDensePlanEntries, as deltas otherwise.
func newPlan(pl solver.Plan, ids []string, enc string) Plan {
	out := Plan{Encoding: enc, Completions: make(map[string]float64, len(pl.Completions))}
	for i, c := range pl.Completions {
		if i < len(ids) {
			out.Completions[ids[i]] = c
		}
	}
	if enc == planNone {
		out.Intervals = []Interval{}
		return out
	}
	out.Encoding = planEncoding(&pl, enc)
	out.Intervals = make([]Interval, len(pl.Intervals))
	if out.Encoding == planDelta {
		for k, iv := range pl.Intervals {
			m := make(map[string]int, len(iv.Changes))
			for _, c := range iv.Changes {
				if c.Job >= 0 && c.Job < len(ids) {
					m[ids[c.Job]] = c.Slots
				}
			}
			out.Intervals[k] = Interval{Start: iv.Start, End: iv.End, Slots: m}
		}
		return out
	}
	pl.Each(func(k int, start, end float64, slots []int) {
		m := make(map[string]int)
		for i, s := range slots {
			if s != 0 && i < len(ids) {
				m[ids[i]] = s
			}
		}
		out.Intervals[k] = Interval{Start: start, End: end, Slots: m}
	})
	return out
}

// reencode returns p in encoding enc (dense, delta or none). A delta plan
// becomes dense by replaying its changes; none drops the intervals. It is
// how a stored (delta) decision is answered to a caller who asked for
// another encoding.
func (p Plan) reencode(enc string) Plan {
	if enc == p.Encoding {
		return p
	}
	p = p.Materialized()
	switch {
	case enc == planNone:
		return Plan{Encoding: planNone, Intervals: []Interval{}, Completions: p.Completions}
	case enc == planDense && p.Encoding == planDelta:
		out := Plan{Encoding: planDense, Intervals: make([]Interval, len(p.Intervals)), Completions: p.Completions}
		cur := map[string]int{}
		for k, iv := range p.Intervals {
			for id, n := range iv.Slots {
				if n == 0 {
					delete(cur, id)
				} else {
					cur[id] = n
				}
			}
			out.Intervals[k] = Interval{Start: iv.Start, End: iv.End, Slots: maps.Clone(cur)}
		}
		return out
	case enc == planDelta && p.Encoding == planDense:
		out := Plan{Encoding: planDelta, Intervals: make([]Interval, len(p.Intervals)), Completions: p.Completions}
		prev := map[string]int{}
		for k, iv := range p.Intervals {
			m := map[string]int{}
			for id, n := range iv.Slots {
				if prev[id] != n {
					m[id] = n
				}
			}
			for id := range prev {
				if _, ok := iv.Slots[id]; !ok {
					m[id] = 0
				}
			}
			out.Intervals[k] = Interval{Start: iv.Start, End: iv.End, Slots: m}
			prev = iv.Slots
		}
		return out
	}
	return p // none cannot be expanded back; answer what there is
}

// nonFinite reports the numbers JSON cannot carry.
func nonFinite(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }

// overflowError is the 422 naming field when a result overflowed float64
// (nil when field is empty): checkFinite's and checkFiniteResult's answer.
func overflowError(field string) error {
	if field == "" {
		return nil
	}
	return &solver.ValidationError{Problems: []solver.FieldError{{
		Field:   field,
		Message: "the numbers overflow float64 (the result is infinite); scale work, times or weights down",
	}}}
}

// checkFinite rejects results JSON cannot carry. Inputs are finite, but
// huge ones (work near 1e308) can overflow a sum to +Inf; that is the
// request's doing, so it answers 422 rather than failing to encode.
func checkFinite(r *SolveResponse) error {
	field := ""
	switch {
	case nonFinite(r.Objective.Value) || nonFinite(r.Objective.Mean):
		field = "objective"
	case r.Plan.src != nil:
		// What the materialized plan would hold: the intervals it writes
		// and the completions of the jobs it names.
		pl := r.Plan.src.pl
		if r.Plan.Encoding != planNone {
			for _, iv := range pl.Intervals {
				if nonFinite(iv.Start) || nonFinite(iv.End) {
					field = "jobs"
					break
				}
			}
		}
		for i, c := range pl.Completions {
			if i < len(r.Plan.src.ids) && nonFinite(c) {
				field = "jobs"
			}
		}
	default:
		for _, iv := range r.Plan.Intervals {
			if nonFinite(iv.Start) || nonFinite(iv.End) {
				field = "jobs"
				break
			}
		}
		for _, c := range r.Plan.Completions {
			if nonFinite(c) {
				field = "jobs"
			}
		}
		if r.Explain != nil {
			for _, c := range r.Explain.Candidates {
				if nonFinite(c.Value) {
					field = "objective"
				}
			}
			for _, f := range r.Explain.FairShares {
				if nonFinite(f) {
					field = "jobs"
				}
			}
		}
	}
	return overflowError(field)
}

// ErrorStatus returns the HTTP status an error from DecodeSolveRequest or
// Solve maps to, so `flexd solve` can tell caller errors (4xx) from bugs.
func ErrorStatus(err error) int { return toAPIError(err).status }

// ProblemFor renders err as the problem+json body the server would send
// (without instance and request id).
func ProblemFor(err error) Problem {
	ae := toAPIError(err)
	detail := ae.detail
	return Problem{Type: "about:blank", Title: http.StatusText(ae.status), Status: ae.status, Detail: detail, Errors: ae.fields}
}

// SolveJSON answers one /v1/solve body exactly as the server would: the
// status and the value to encode (a SolveResponse or a Problem).
func SolveJSON(body []byte) (status int, resp any) {
	return SolveJSONEffort(body, nil)
}

// SolveJSONEffort is SolveJSON with a default effort (the API's scale: 0
// the fastest, n times the default search) for requests that set none;
// nil keeps the server's default. A request's own effort wins.
func SolveJSONEffort(body []byte, effort *int) (status int, resp any) {
	p, opts, err := DecodeSolveRequest(body)
	if err == nil && p.Options.Effort == 0 && p.Options.SearchEvaluations == 0 {
		p.Options.Effort, err = solver.EffortOption(effort)
		if err != nil {
			err = &solver.ValidationError{Problems: []solver.FieldError{{Field: "effort", Message: err.Error()}}}
		}
	}
	if err == nil {
		var out SolveResponse
		if out, err = Solve(p, opts); err == nil {
			return http.StatusOK, out
		}
	}
	return ErrorStatus(err), ProblemFor(err)
}

// solve godoc
//
//	@Summary		Solve one phase problem (stateless)
//	@ID			solve
//	@Description	Splits slots among jobs with the chosen policy and returns the allocation now, the whole plan and the objective recomputed from it. The plan is delta-encoded (plan.encoding "delta": each interval lists only the jobs whose slots changed, 0 meaning released); ?plan=dense (or the body's "plan": "dense") lists every job's slots in every interval, for people; ?plan=none leaves the intervals out.
//	@Tags			solve
//	@Accept			json
//	@Produce		json
//	@Param			plan	query		string			false	"plan encoding of the answer (default delta)"	Enums(delta, dense, none)
//	@Param			request	body		SolveRequest	true	"the phase problem"
//	@Success		200		{object}	SolveResponse
//	@Failure		400		{object}	Problem	"malformed JSON, unknown field or wrong type; an unknown plan encoding in the query, or query and body asking different ones"
//	@Failure		401		{object}	Problem
//	@Failure		413		{object}	Problem	"body over the limit"
//	@Failure		415		{object}	Problem	"Content-Type not JSON, or a compressed body"
//	@Failure		422		{object}	Problem	"a rule is broken; every problem listed"
//	@Failure		429		{object}	Problem
//	@Failure		503		{object}	Problem
//	@Security		BearerAuth
//	@Router			/v1/solve [post]
func (s *Server) solve(w http.ResponseWriter, r *http.Request) {
	// An unknown encoding in the query is a 400 before any work.
	if _, err := planParam(r); err != nil {
		s.problem(w, r, err)
		return
	}
	body, err := readBody(r)
	if err != nil {
		s.problem(w, r, err)
		return
	}
	p, opts, err := DecodeSolveRequest(body)
	if err != nil {
		s.problem(w, r, err)
		return
	}
	if opts.Plan, err = solvePlan(r, opts.Plan); err != nil {
		s.problem(w, r, err)
		return
	}
	// A solve past the request's deadline stops (the exhaustive
	// "optimal" checks it) instead of working on for nobody.
	p.Options.Cancel = r.Context().Done()
	res, elapsed, err := solveRun(s.cfg.Policies, p, opts)
	if err != nil {
		s.problem(w, r, err)
		return
	}
	// The answer is written straight from the result (appendSolveAnswer:
	// the bytes json.Marshal writes for Solve's SolveResponse).
	out, err := appendSolveAnswer(make([]byte, 0, answerSizeHint(&res)), res, p.Options.Explain, elapsed, planOf(opts))
	if err != nil {
		s.problem(w, r, err)
		return
	}
	s.metrics.solveSeconds.WithLabelValues(res.Policy, "solve").Observe(float64(elapsed.Microseconds()) / 1e6)
	s.writeRaw(w, r, http.StatusOK, "application/json", out)
}

// solvePlan combines /v1/solve's ?plan= with the body's plan member (body,
// already validated; "" when absent) as bodyPlan does for epochs: the
// query's counts when the body names none, the body's when the query names
// none, and the two must agree when both do.
func solvePlan(r *http.Request, body string) (string, error) {
	q, err := planParam(r)
	if err != nil {
		return "", err
	}
	return bodyPlan(r, q, body)
}
