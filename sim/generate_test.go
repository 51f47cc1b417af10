package sim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flexd/flexd/solver"
)

func TestGenerateInstanceInvariants(t *testing.T) {
	cases := map[string]Workload{
		"base case":          DefaultWorkload(),
		"no small jobs":      {Jobs: 10, Slots: 100, Small: 0, Slack: 0.75},
		"all small jobs":     {Jobs: 10, Slots: 100, Small: 1, Slack: 0.75},
		"no slack":           {Jobs: 10, Slots: 100, Small: 0.8, Slack: 0},
		"full slack":         {Jobs: 10, Slots: 100, Small: 0.8, Slack: 1},
		"more jobs than S":   {Jobs: 12, Slots: 5, Small: 0.5, Slack: 0.5},
		"one job":            {Jobs: 1, Slots: 7, Small: 0.8, Slack: 0.75},
		"many slots":         {Jobs: 8, Slots: 1000, Small: 0.8, Slack: 0.25},
		"rounded small jobs": {Jobs: 3, Slots: 50, Small: 0.5, Slack: 0.9},
	}
	for name, w := range cases {
		t.Run(name, func(t *testing.T) {
			for i := range 50 {
				p := GenerateInstance(w, 7, i)
				if err := solver.Validate(p); err != nil {
					t.Fatalf("instance %d does not validate: %v", i, err)
				}
				if len(p.Jobs) != w.Jobs || p.Slots != w.Slots || p.Now != 0 {
					t.Fatalf("instance %d: %d jobs, %d slots, now %v", i, len(p.Jobs), p.Slots, p.Now)
				}
				total := 0.0
				for _, j := range p.Jobs {
					total += j.Work
					if want := min(w.Slots, int(math.Ceil(j.Work/TaskWork-1e-9))); j.Max != max(want, 1) {
						t.Errorf("instance %d job %s: max %d, want %d for work %v", i, j.ID, j.Max, want, j.Work)
					}
					if j.Min < 1 || j.Min > j.Max {
						t.Errorf("instance %d job %s: min %d outside [1, %d]", i, j.ID, j.Min, j.Max)
					}
					if j.Weight < 0 || j.Weight >= 1 || j.Deadline < 0 || j.Deadline >= WorkPerSlot || !j.HasDeadline {
						t.Errorf("instance %d job %s: weight %v deadline %v (has %v)", i, j.ID, j.Weight, j.Deadline, j.HasDeadline)
					}
					if j.Submitted != 0 || j.TotalWork != j.Work {
						t.Errorf("instance %d job %s: submitted %v total work %v", i, j.ID, j.Submitted, j.TotalWork)
					}
					if len(j.SLA) != SLASteps {
						t.Fatalf("instance %d job %s: %d SLA steps", i, j.ID, len(j.SLA))
					}
					for x := 1; x < len(j.SLA); x++ {
						if j.SLA[x].Deadline <= j.SLA[x-1].Deadline || j.SLA[x].Penalty < j.SLA[x-1].Penalty {
							t.Errorf("instance %d job %s: SLA steps not monotone: %v", i, j.ID, j.SLA)
						}
					}
				}
				if want := WorkPerSlot * float64(w.Slots); math.Abs(total-want) > 1e-9*want {
					t.Errorf("instance %d: total work %v, want %v", i, total, want)
				}
			}
		})
	}
}

// TestGenerateBimodal checks the shares: round(Small*J) jobs small, the
// large ones about LargeFactor times the small ones, and the minima summing
// to (1 - Slack) * S on average.
func TestGenerateBimodal(t *testing.T) {
	cases := map[string]struct {
		w         Workload
		wantSmall int
	}{
		"base case":     {DefaultWorkload(), 8},
		"half":          {Workload{Jobs: 10, Slots: 100, Small: 0.5, Slack: 0.5}, 5},
		"low slack":     {Workload{Jobs: 10, Slots: 200, Small: 0.2, Slack: 0.15}, 2},
		"rounded share": {Workload{Jobs: 9, Slots: 100, Small: 0.8, Slack: 0.75}, 7},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			const n = 400
			minSum, ratioSum := 0.0, 0.0
			for i := range n {
				p := GenerateInstance(c.w, 3, i)
				for _, j := range p.Jobs {
					minSum += float64(j.Min)
				}
				// The same stream, replayed to the end of the work draws.
				work, large := drawWork(rand.New(rand.NewPCG(3, uint64(i))), c.w)
				small, big, nSmall := 0.0, 0.0, 0
				for k, wk := range work {
					if p.Jobs[k].Work != wk {
						t.Fatalf("instance %d job %d: work %v, drawWork says %v", i, k, p.Jobs[k].Work, wk)
					}
					if large[k] {
						big += wk
					} else {
						small += wk
						nSmall++
					}
				}
				if nSmall != c.wantSmall {
					t.Fatalf("instance %d: %d small jobs, want %d", i, nSmall, c.wantSmall)
				}
				if nSmall > 0 && nSmall < c.w.Jobs {
					ratioSum += (big / float64(c.w.Jobs-nSmall)) / (small / float64(nSmall))
				}
			}
			wantMin := (1 - c.w.Slack) * float64(c.w.Slots)
			if got := minSum / n; math.Abs(got-wantMin) > 0.05*wantMin+0.5 {
				t.Errorf("mean sum of minima %v, want about %v", got, wantMin)
			}
			if got := ratioSum / n; math.Abs(got-LargeFactor) > 0.15*LargeFactor {
				t.Errorf("mean large/small work %v, want about %v", got, LargeFactor)
			}
		})
	}
}

func TestGenerateDeterministic(t *testing.T) {
	w := DefaultWorkload()
	a := GenerateStudy(StudyConfig{Workload: w, Instances: 5}, 42)
	b := GenerateStudy(StudyConfig{Workload: w, Instances: 8}, 42)
	if diff := cmp.Diff(a, b[:5]); diff != "" {
		t.Errorf("instance i depends on the instance count (-5 +8):\n%s", diff)
	}
	if diff := cmp.Diff(a[3], GenerateInstance(w, 42, 3)); diff != "" {
		t.Errorf("GenerateStudy and GenerateInstance differ (-study +instance):\n%s", diff)
	}
	c := GenerateStudy(StudyConfig{Workload: w, Instances: 5}, 43)
	if cmp.Equal(a, c) {
		t.Error("seeds 42 and 43 give the same instances")
	}
	if cmp.Equal(a[0], a[1]) {
		t.Error("instances 0 and 1 are equal")
	}
}

func TestWorkloadValidate(t *testing.T) {
	cases := map[string]struct {
		w    Workload
		want bool
	}{
		"default":     {DefaultWorkload(), true},
		"no jobs":     {Workload{Jobs: 0, Slots: 1}, false},
		"no slots":    {Workload{Jobs: 1, Slots: 0}, false},
		"small > 1":   {Workload{Jobs: 1, Slots: 1, Small: 1.5}, false},
		"slack < 0":   {Workload{Jobs: 1, Slots: 1, Slack: -0.1}, false},
		"slack NaN":   {Workload{Jobs: 1, Slots: 1, Slack: math.NaN()}, false},
		"edges valid": {Workload{Jobs: 1, Slots: 1, Small: 1, Slack: 1}, true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if err := c.w.Validate(); (err == nil) != c.want {
				t.Errorf("Validate() = %v, want ok %v", err, c.want)
			}
		})
	}
}
