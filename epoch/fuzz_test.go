package epoch_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flexd/flexd/epoch"
	"github.com/flexd/flexd/solver"
)

// FuzzValidate decodes arbitrary JSON into a Request and runs Validate and
// Decide on it: neither may panic, every problem names a field, Decide
// refuses exactly what Validate refuses (a policy must never find a rule
// Validate missed), and a decision covers every job within each budget.
func FuzzValidate(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*.request.json"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		`{}`,
		`{"Slots":{"Map":1,"Reduce":1},"Jobs":[{"ID":"a","Map":{"Max":1,"Work":1}}]}`,
		`{"Slots":{"Map":1,"Reduce":1},"Jobs":[{"ID":"a","Map":{"Min":-1,"Max":0,"Work":1}},{"ID":"a"}]}`,
		`{"Slots":{"Map":3,"Reduce":2},"Policy":"optimal","Objective":"sla_cost","Jobs":[{"ID":"a","SLA":[{"Deadline":2,"Penalty":1},{"Deadline":1,"Penalty":0}],"Reduce":{"Max":2,"Work":5,"Pending":9223372036854775807,"Running":9223372036854775807}}]}`,
		`{"Slots":{"Map":10000000,"Reduce":1},"Ratio":{"Mode":"fresh","Tau1":2},"OMO":{"LazyStart":true,"EMAAlpha":-1}}`,
		`{"Slots":{"Map":2,"Reduce":1},"Ratio":{"Mode":"pd_dhsa","Pools":[{"Name":"p","Weight":2},{"Name":"default"}]},"Jobs":[{"ID":"a","Pool":"p","Map":{"Max":3,"Work":4,"Pending":3}},{"ID":"b","Map":{"Max":2,"Work":1},"Reduce":{"Max":1,"Work":2,"Pending":1}}]}`,
		`{"Slots":{"Map":1,"Reduce":4},"EpochLength":3,"ReleasedSlots":5,"Ratio":{"Mode":"fresh"},"OMO":{"LazyStart":true,"BatchFinish":true,"Bandwidth":10},"Jobs":[{"ID":"a","Map":{"Max":3,"Work":40,"Pending":3,"Running":1,"OutputBytesPerTask":100},"Reduce":{"Max":2,"Work":9,"Pending":2}},{"ID":"b","Map":{"Max":2,"Work":1,"Pending":5},"Reduce":{"Max":1,"Work":2,"Running":1,"Started":true}}]}`,
		`{"Slots":{"Map":3,"Reduce":3},"Ratio":{"Mode":"pi_dhsa","BorrowMap":0.5,"ReduceSlotWeight":2},"Jobs":[{"ID":"a","Map":{"Max":9,"Work":4}},{"ID":"b","Reduce":{"Min":1,"Max":1,"Work":2}}]}`,
		`{"Slots":{"Map":4,"Reduce":2},"Estimate":{"Work":"extrapolate","MinOne":"always"},"Jobs":[{"ID":"a","Map":{"Max":3,"Tasks":9,"Pending":4,"Running":1,"AvgTaskTime":2}},{"ID":"b","Map":{"Max":2,"Pending":3}},{"ID":"c","Reduce":{"Max":1,"Tasks":3,"Pending":3,"Started":true}}]}`,
		`{"Slots":{"Map":4,"Reduce":2},"Estimate":{"Work":"extrapolate_elapsed","DefaultTaskTime":1e-300},"Jobs":[{"ID":"a","Map":{"Max":3,"Tasks":9,"Pending":4,"Running":5,"AvgTaskTime":1e308,"RunningElapsed":1e308}}]}`,
		`{"Slots":{"Map":5,"Reduce":5},"PhasePolicy":{"Map":"fair","Reduce":"fifo"},"FairVariant":"yarn","Jobs":[{"ID":"x","Weight":0,"ConsumedSlotSeconds":1e308,"Submitted":-1e308,"Map":{"Min":9,"Max":2,"Work":1e-300}}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var req epoch.Request
		if json.Unmarshal(data, &req) != nil {
			return
		}
		fes := epoch.Validate(req, epoch.Limits{})
		for _, fe := range fes {
			if fe.Field == "" || fe.Message == "" {
				t.Errorf("problem without a field or message: %+v", fe)
			}
		}
		dec, _, err := epoch.Decide(req, epoch.ClusterState{})
		var ve *solver.ValidationError
		refused := errors.As(err, &ve)
		switch {
		case len(fes) > 0 && !refused:
			t.Fatalf("Validate found %v but Decide returned %v", fes, err)
		case len(fes) > 0:
			if diff := cmp.Diff(fes, ve.Problems); diff != "" {
				t.Errorf("Decide's problems differ from Validate's (-validate +decide):\n%s", diff)
			}
		case refused:
			t.Fatalf("Validate accepted the request but a policy refused it: %v", ve)
		case err != nil:
			t.Fatalf("a policy failed on a valid request (a 500): %v", err)
		}
		if err != nil {
			return // refused, as Validate said
		}
		if len(dec.Allocations) != len(req.Jobs) {
			t.Fatalf("%d allocations for %d jobs", len(dec.Allocations), len(req.Jobs))
		}
		m, r := 0, 0
		for _, a := range dec.Allocations {
			m += a.Map
			r += a.Reduce
		}
		if m > dec.Budgets.Map || r > dec.Budgets.Reduce {
			t.Errorf("allocated map %d / reduce %d over budgets %d / %d", m, r, dec.Budgets.Map, dec.Budgets.Reduce)
		}
		if dec.Budgets.Map < 0 || dec.Budgets.Reduce < 0 {
			t.Errorf("negative budgets %+v", dec.Budgets)
		}
		// With a reduce-slot weight other than 1, slots change value as
		// they move between phases, and the budgets need not add up.
		if w := req.Ratio.ReduceSlotWeight; (w == 0 || w == 1) && dec.Budgets.Map+dec.Budgets.Reduce > req.Slots.Map+req.Slots.Reduce {
			t.Errorf("budgets %+v exceed the cluster's %+v slots", dec.Budgets, req.Slots)
		}
		if _, err := json.Marshal(dec); err != nil {
			t.Errorf("the decision does not encode: %v", err)
		}
	})
}
