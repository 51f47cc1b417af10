package shim

import (
	"testing"

	"github.com/flexd/flexd/httpapi"
)

// allocate answers a request the way a trivial scheduler would: each job
// gets slots in the phase it is in.
func allocate(req httpapi.EpochRequest, cluster string, mapSlots, reduceSlots int) httpapi.EpochResponse {
	resp := httpapi.EpochResponse{Cluster: cluster, Epoch: req.Epoch}
	for _, j := range req.Jobs {
		a := httpapi.EpochAllocation{ID: j.ID}
		if j.Map != nil && j.Map.Work > 0 {
			a.Map = mapSlots
		}
		if j.Reduce != nil && j.Reduce.Work > 0 {
			a.Reduce = reduceSlots
		}
		resp.Allocations = append(resp.Allocations, a)
	}
	return resp
}

func TestClusterEvolves(t *testing.T) {
	cases := []struct {
		name         string
		cfg          Config
		mapS, redS   int
		epochs       int
		wantFinished bool
		wantJobs     int // exact job count after, -1: any
	}{
		{"starved jobs never finish", Config{Seed: 1, Jobs: 5}, 0, 0, 50, false, 5},
		{"served jobs finish", Config{Seed: 1, Jobs: 5}, 4, 2, 400, true, -1},
		{"replace keeps the count", Config{Seed: 2, Jobs: 20, Replace: true, StaggerProgress: true}, 3, 2, 300, true, 20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cl := New(c.cfg)
			for range c.epochs {
				req := cl.Request()
				if again := cl.Request(); again.Epoch != req.Epoch || len(again.Jobs) != len(req.Jobs) {
					t.Fatalf("Request is not repeatable before Apply")
				}
				for _, j := range req.Jobs {
					if j.Map != nil && (j.Map.Work <= 0 || j.Map.Min > j.Map.Max) {
						t.Fatalf("epoch %d job %s: bad map phase %+v", req.Epoch, j.ID, *j.Map)
					}
					if j.Map != nil && j.Reduce.Work != 0 {
						t.Fatalf("epoch %d job %s: reduce has work before the maps are done", req.Epoch, j.ID)
					}
				}
				if err := cl.Apply(allocate(req, cl.Name(), c.mapS, c.redS)); err != nil {
					t.Fatalf("Apply: %v", err)
				}
			}
			if got := cl.Finished > 0; got != c.wantFinished {
				t.Errorf("finished %d jobs, want finished=%v", cl.Finished, c.wantFinished)
			}
			if c.wantJobs >= 0 && cl.Jobs() != c.wantJobs {
				t.Errorf("%d jobs, want %d", cl.Jobs(), c.wantJobs)
			}
			if cl.Epoch() != int64(c.epochs)+1 {
				t.Errorf("next epoch %d, want %d", cl.Epoch(), c.epochs+1)
			}
		})
	}
}

func TestApplyRejectsForeignDecisions(t *testing.T) {
	cases := map[string]func(*httpapi.EpochResponse){
		"wrong epoch":   func(r *httpapi.EpochResponse) { r.Epoch++ },
		"wrong cluster": func(r *httpapi.EpochResponse) { r.Cluster = "other" },
		"unknown job":   func(r *httpapi.EpochResponse) { r.Allocations[0].ID = "ghost" },
		"negative":      func(r *httpapi.EpochResponse) { r.Allocations[0].Map = -1 },
	}
	for name, edit := range cases {
		t.Run(name, func(t *testing.T) {
			cl := New(Config{Seed: 3, Jobs: 3})
			resp := allocate(cl.Request(), cl.Name(), 1, 1)
			edit(&resp)
			if err := cl.Apply(resp); err == nil {
				t.Errorf("Apply accepted a decision with %s", name)
			}
		})
	}
}
