package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	gojson "github.com/goccy/go-json"

	"github.com/flexd/flexd/sim"
	"github.com/flexd/flexd/solver"
	"github.com/flexd/flexd/solver/mps"
)

// marshalAnswer is the reference: the SolveResponse Solve builds, checked
// and marshalled as writeJSON does.
func marshalAnswer(res solver.Result, explain bool, elapsed time.Duration, enc string) ([]byte, error) {
	resp := newSolveResponse(res, explain, elapsed, enc)
	if err := checkFinite(&resp); err != nil {
		return nil, err
	}
	return json.Marshal(resp)
}

// checkAnswer compares appendSolveAnswer with the reference, bytes and
// errors.
func checkAnswer(t *testing.T, name string, res solver.Result, explain bool, enc string) {
	t.Helper()
	want, werr := marshalAnswer(res, explain, 1234*time.Microsecond, enc)
	got, gerr := appendSolveAnswer([]byte("prefix"), res, explain, 1234*time.Microsecond, enc)
	if (werr == nil) != (gerr == nil) || (werr != nil && !reflect.DeepEqual(werr, gerr)) {
		t.Fatalf("%s: error %v, want %v", name, gerr, werr)
	}
	if werr != nil {
		return
	}
	if !bytes.HasPrefix(got, []byte("prefix")) {
		t.Fatalf("%s: the buffer's prefix was overwritten", name)
	}
	// The epoch answer's form, its plan written only when encoded
	// (Plan.src), encodes to the same bytes with either encoder.
	lazy := newSolveResponseLazy(res, explain, 1234*time.Microsecond, enc)
	for name, marshal := range map[string]func(any) ([]byte, error){"encoding/json": json.Marshal, "goccy/go-json": gojson.Marshal} {
		if b, err := marshal(lazy); err != nil || !bytes.Equal(b, want) {
			t.Fatalf("%s: the unwritten plan through %s: %v\n got %.300s\nwant %.300s", name, name, err, b, want)
		}
	}
	if got = got[len("prefix"):]; !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("%s: bytes differ at %d:\n got %.200s\nwant %.200s", name, i, got[max(0, i-40):], want[max(0, i-40):])
	}
}

// oddIDs are ids encoding/json escapes or sorts in surprising ways.
// Validate refuses control characters and invalid UTF-8, which
// TestAppendSolveAnswerEdges's results hold.
var oddIDs = []string{"a<b", "x&y", "q\"uote", "back\\slash", "é-accent", "\u2028line", "Z", "a", "ab", "_", "10", "9", "emoji😀"}

// TestAppendSolveAnswerMatchesMarshal: the answer /v1/solve writes
// straight from the result is byte for byte json.Marshal of the
// SolveResponse, for every policy, plan encoding and explain, on FLEX 4.1
// problems of several sizes, with plain and odd job ids (escaped, non-ASCII,
// invalid UTF-8, sorting differently by bytes than by rank).
func TestAppendSolveAnswerMatchesMarshal(t *testing.T) {
	for _, policy := range []string{"flex", "fair", "fifo"} {
		for _, jobs := range []int{1, 2, 7, 40, 200} {
			for seed := range 3 {
				p := sim.GenerateInstance(sim.Workload{Jobs: jobs, Slots: 10 * jobs, Small: 0.8, Slack: 0.75}, uint64(seed+1), 0)
				if seed == 1 {
					for i := range p.Jobs {
						p.Jobs[i].ID = fmt.Sprintf("%s%d", oddIDs[i%len(oddIDs)], jobs-i)
					}
				}
				if seed == 2 {
					p.Slots = max(1, jobs/2) // minima normalized
				}
				p.Options.Explain = true
				s, _ := solver.ByName(policy)
				res, err := s.Solve(p)
				if err != nil {
					t.Fatal(err)
				}
				for _, enc := range []string{planDelta, planDense, planNone} {
					for _, explain := range []bool{false, true} {
						checkAnswer(t, fmt.Sprintf("%s/J=%d/seed=%d/%s/explain=%v", policy, jobs, seed, enc, explain), res, explain, enc)
					}
				}
			}
		}
	}
}

// TestAppendSolveAnswerEdges: results no solver returns today but the
// wire form copes with (a job changed twice in one interval, job indexes
// past the allocations, more completions than jobs, numbers encoding/json
// writes in exponent form, a change to a job the plan does not hold, an empty plan) and the infinities checkFinite
// refuses, field for field.
func TestAppendSolveAnswerEdges(t *testing.T) {
	base := func() solver.Result {
		return solver.Result{
			Policy: "flex", Metric: "avg_response_time", Aggregate: "sum", Value: 1e21, Mean: 1e-7,
			Allocations: []solver.Allocation{{ID: "b", Slots: 2, Reason: "min"}, {ID: "a", Slots: 3, Reason: "partial"}, {ID: "c<\x01\xff", Slots: 0, Reason: "min"}},
			Plan: solver.Plan{
				Intervals: []mps.Interval{
					{Start: 0, End: 1.5e-9, Changes: []mps.Change{{Job: 1, Slots: 3}, {Job: 0, Slots: 2}, {Job: 1, Slots: 4}, {Job: 3, Slots: 1}}},
					{Start: 1.5e-9, End: 123456789.125, Changes: nil},
					{Start: 123456789.125, End: -0.0, Changes: []mps.Change{{Job: 0, Slots: 0}, {Job: 2, Slots: 5}}},
				},
				Completions: []float64{3, 2.5e-300, 1e300, 99},
			},
			Scheme: "srpt", Order: []int{2, 9, -1, 0, 1},
			Candidates: []solver.Candidate{{Scheme: "srpt", Value: 0.1}, {Scheme: "x", Value: -1e22}},
			FairShares: []float64{1.5, 2},
		}
	}
	for _, enc := range []string{planDelta, planDense, planNone} {
		for _, explain := range []bool{false, true} {
			name := fmt.Sprintf("%s/explain=%v", enc, explain)
			checkAnswer(t, name, base(), explain, enc)
			empty := base()
			empty.Plan, empty.Order, empty.Candidates, empty.FairShares = solver.Plan{}, nil, nil, nil
			checkAnswer(t, name+"/empty", empty, explain, enc)
			if enc != planDense { // a dense plan replays every change into its job's slot
				wild := base()
				wild.Plan.Intervals[2].Changes = append(wild.Plan.Intervals[2].Changes, mps.Change{Job: 7, Slots: 1}, mps.Change{Job: -1, Slots: 2})
				checkAnswer(t, name+"/wild jobs", wild, explain, enc)
			}
			none := base()
			none.Allocations = nil
			checkAnswer(t, name+"/no jobs", none, explain, enc)
			for k, edit := range []func(*solver.Result){
				func(r *solver.Result) { r.Value = math.Inf(1) },
				func(r *solver.Result) { r.Mean = math.NaN() },
				func(r *solver.Result) { r.Plan.Intervals[1].End = math.Inf(1) },
				func(r *solver.Result) { r.Plan.Completions[2] = math.Inf(1) },
				func(r *solver.Result) { r.Plan.Completions[3] = math.Inf(1) }, // past the jobs: not answered
				func(r *solver.Result) { r.Candidates[1].Value = math.Inf(-1) },
				func(r *solver.Result) { r.FairShares[0] = math.NaN() },
				func(r *solver.Result) { r.Plan.Intervals[0].Start = math.NaN(); r.Candidates[0].Value = math.NaN() },
			} {
				r := base()
				edit(&r)
				checkAnswer(t, fmt.Sprintf("%s/inf %d", name, k), r, explain, enc)
			}
		}
	}
}

// TestAppendJSONFloat: floats as encoding/json writes them, at the
// exponent form's edges.
func TestAppendJSONFloat(t *testing.T) {
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e-6, 9.99999e-7, 1e-7, 1e20, 1e21, 123456789e13, -1e-9, 1e-10, 5e-324, math.MaxFloat64, 1.0 / 3} {
		want, _ := json.Marshal(f)
		if got := appendJSONFloat(nil, f); string(got) != string(want) {
			t.Errorf("appendJSONFloat(%v) = %s, want %s", f, got, want)
		}
	}
	for _, s := range append(oddIDs, "", "plain", strings.Repeat("x", 100), "\x00", "\x7f") {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Errorf("appendJSONString(%q) = %s, want %s", s, got, want)
		}
	}
}
