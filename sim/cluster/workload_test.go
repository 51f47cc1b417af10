package cluster

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flexd/flexd/sim"
	"github.com/flexd/flexd/sim/swim"
)

func TestPoissonArrivals(t *testing.T) {
	a := PoissonArrivals(20001, 30, 7, 0)
	if a[0] != 0 || !cmp.Equal(a, PoissonArrivals(20001, 30, 7, 0)) {
		t.Fatal("arrivals do not start at 0 or are not reproducible")
	}
	if mean := a[len(a)-1] / float64(len(a)-1); math.Abs(mean-30) > 1 {
		t.Errorf("mean gap %.2f, want about 30", mean)
	}
	for _, x := range PoissonArrivals(5, 0, 7, 0) {
		if x != 0 {
			t.Fatal("lambda 0 must submit every job at 0")
		}
	}
}

func TestGenerateWorkloads(t *testing.T) {
	t44 := GenerateTable44(Table44{})
	if len(t44) != 8 || t44[7].Arrival != 14 || t44[0].MapTasks != 80 || t44[0].ReduceTasks != 2 || t44[0].ShuffleBytes != 20*GiB {
		t.Errorf("table44: %+v", t44[0])
	}
	mixed, err := GenerateMixed(Mixed{Jobs: 10, MapHeavy: 0.7, Lambda: 5}, 1)
	if err != nil {
		t.Fatal(err)
	}
	heavy := 0
	for _, j := range mixed {
		if j.MapWork > j.ReduceWork+j.ShuffleBytes/(64<<20) {
			heavy++
		}
	}
	if heavy != 7 {
		t.Errorf("mixed: %d map-heavy jobs, want 7", heavy)
	}
	if mixed[9].Arrival <= 0 {
		t.Errorf("mixed with lambda 5: the last job arrives at %g, want later than 0", mixed[9].Arrival)
	}
	batch, err := GenerateMixed(Mixed{Jobs: 10, MapHeavy: 0.7}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range batch {
		if j.Arrival != 0 {
			t.Errorf("mixed with lambda 0 (batch submission): job %s arrives at %g, want 0", j.ID, j.Arrival)
		}
	}
	w := sim.DefaultWorkload()
	fj, err := GenerateFLEX41(FLEX41{Workload: w, Lambda: 60}, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := sim.GenerateInstance(w, 1, 0)
	total := 0.0
	for i, j := range fj {
		total += j.MapWork + j.ReduceWork
		if j.Min != p.Jobs[i].Min || j.Deadline != j.Arrival+60*p.Jobs[i].Deadline {
			t.Errorf("flex41 job %d: min %d, deadline %g do not follow the instance", i, j.Min, j.Deadline)
		}
	}
	if math.Abs(total-60*sim.WorkPerSlot*float64(w.Slots)) > 1e-6 {
		t.Errorf("flex41 total work %g, want %g", total, 60*sim.WorkPerSlot*float64(w.Slots))
	}
}

func TestFromSWIMKeepsTheConversionsReduceWork(t *testing.T) {
	c := swim.DefaultConversion()
	tj := []swim.Job{
		{Line: 1, Name: "a", Submit: 100, MapTasks: 2, MapWork: 16, ReduceTasks: 1, ReduceWork: 3, ShuffleBytes: 8 << 20},
		{Line: 2, Name: "b", Submit: 300, MapTasks: 1, MapWork: 1},
	}
	got := FromSWIM(tj, c, 0, 10)
	want := []Job{
		{ID: "a@1", MapWork: 16, MapTasks: 2, ReduceTasks: 1, ReduceWork: 1, ShuffleBytes: 8 << 20},
		{ID: "b@2", Arrival: 20, MapWork: 1, MapTasks: 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
