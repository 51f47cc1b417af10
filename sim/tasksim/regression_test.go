package tasksim_test

import (
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/flexd/flexd/sim/tasksim"
)

// The directions of estimate-and-advice.md sections 3.5 and 4.5 that the
// simulator shows at seed 1 (docs/speculation.md has the figures and the
// directions it does not show). Figures never appear here, only
// comparisons.

// TestESAMRLocks: ESAMR's TimeToEnd error is below LATE's in both phases
// of both measured jobs, and ESAMR flags exactly the injected stragglers.
func TestESAMRLocks(t *testing.T) {
	rows, err := tasksim.CompareESAMR(1, []string{"late", "esamr"}, "")
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]map[string]tasksim.ESAMRRow{}
	for _, r := range rows {
		if by[r.Job] == nil {
			by[r.Job] = map[string]tasksim.ESAMRRow{}
		}
		by[r.Job][r.Detector] = r
	}
	if len(by) != 2 {
		t.Fatalf("measured jobs %v, want WordCount and Sort", rows)
	}
	for job, d := range by {
		e, l := d["esamr"], d["late"]
		if e.MapN == 0 || e.ReduceN == 0 {
			t.Errorf("%s: ESAMR measured %d maps and %d reduces", job, e.MapN, e.ReduceN)
		}
		if !(e.MapHalf < l.MapHalf) || !(e.ReduceHalf < l.ReduceHalf) {
			t.Errorf("%s: ESAMR's TimeToEnd errors %.2f / %.2f s are not below LATE's %.2f / %.2f s",
				job, e.MapHalf, e.ReduceHalf, l.MapHalf, l.ReduceHalf)
		}
		if want := []string{"map/40", "map/41", "reduce/0"}; !slices.Equal(e.Flagged, want) {
			t.Errorf("%s: ESAMR flagged %v, want exactly the injected %v", job, e.Flagged, want)
		}
	}
}

// TestESPLASHLocks: without a straggler ESPLASH launches fewer backups
// than YARN's speculator and wastes at most half its killed-backup time;
// with a slowed node (level 1 or level 4) and with a node slowed then down
// it loses less makespan than both baselines; and no ESPLASH backup ever
// lands on a slowed node or below its original's level. At seed 1 (section
// 4.5's lock) and on the mean of seeds 1 to 5.
func TestESPLASHLocks(t *testing.T) {
	for _, seeds := range [][]uint64{{1}, {1, 2, 3, 4, 5}} {
		rows, err := tasksim.CompareESPLASH(seeds, []string{"none", "yarn_default", "esplash"}, false)
		if err != nil {
			t.Fatal(err)
		}
		get := func(sc, d string) tasksim.ESPLASHRow {
			for _, r := range rows {
				if r.Scenario == sc && r.Detector == d {
					return r
				}
			}
			t.Fatalf("no row for %s, %s", sc, d)
			return tasksim.ESPLASHRow{}
		}
		y, e := get(tasksim.NoStraggler, "yarn_default"), get(tasksim.NoStraggler, "esplash")
		if !(e.Created < y.Created) || !(e.Wasted <= y.Wasted/2) || y.Created == 0 {
			t.Errorf("seeds %v, no straggler: ESPLASH %v backups and %v s wasted, YARN %v and %v s", seeds, e.Created, e.Wasted, y.Created, y.Wasted)
		}
		for _, sc := range []string{tasksim.SlowLevel1, tasksim.SlowLevel4, tasksim.SlowThenDown} {
			n, y, e := get(sc, "none"), get(sc, "yarn_default"), get(sc, "esplash")
			if !(e.Increased < n.Increased) || !(e.Increased < y.Increased) {
				t.Errorf("seeds %v, %s: ESPLASH lost %.0f s of makespan, none %.0f, YARN %.0f", seeds, sc, e.Increased, n.Increased, y.Increased)
			}
		}
		for _, sc := range tasksim.ESPLASHScenarios() {
			if r := get(sc, "esplash"); r.PlacedSlower != 0 {
				t.Errorf("seeds %v, %s: %v ESPLASH backups on a slowed or slower node", seeds, sc, r.PlacedSlower)
			}
		}
	}
}

// TestFLEX42EstimateKeepsGain: issue 11's acceptance at task level: at
// task-time CV 0.3, FLEX on flexd's extrapolated work keeps at least 80%
// of FLEX(oracle)'s gain over FAIR in every cell of the slack sweep, on
// the mean of seeds 1 to 6 (single seeds range from 71% to 109%:
// docs/estimation.md).
func TestFLEX42EstimateKeepsGain(t *testing.T) {
	seeds := []uint64{1, 2, 3, 4, 5, 6}
	slacks := []float64{0.15, 0.35, 0.55, 0.75, 0.95}
	runs := make([][]tasksim.FLEX42Row, len(seeds))
	errs := make([]error, len(seeds))
	var wg sync.WaitGroup
	for i, seed := range seeds {
		wg.Go(func() { runs[i], errs[i] = tasksim.CompareFLEX42(seed, slacks, []float64{0.3}) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for k, slack := range slacks {
		var oracle, extra, fair float64
		for _, rows := range runs {
			oracle += rows[k].Oracle
			extra += rows[k].Extra
			fair += rows[k].Fair
		}
		if kept := (fair - extra) / (fair - oracle); !(oracle < fair) || !(kept >= 0.8) {
			t.Errorf("slack %.2f, summed over seeds 1-6: FLEX oracle %.0f s, extrapolate %.0f s, FAIR %.0f s: %.0f%% of the gain kept",
				slack, oracle, extra, fair, 100*kept)
		}
	}
}

// TestSEPBLocks: SEPB at jobs_checked 0.8 launches fewer backups than
// LATE alone and wastes less in killed backups, for 5, 10 and 20 jobs at
// seed 1 (section 5.5's other direction, a makespan no longer than LATE's,
// does not hold here: docs/speculation.md).
func TestSEPBLocks(t *testing.T) {
	rows, err := tasksim.CompareSEPB(tasksim.SEPBOptions{}, []int{5, 10, 20}, []float64{-1, 0.8}, []uint64{1})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(rows); i += 2 {
		late, sepb := rows[i], rows[i+1]
		if !(sepb.Backups < late.Backups) || !(sepb.Wasted < late.Wasted) {
			t.Errorf("%d jobs: SEPB %v backups, %.0f s wasted; LATE %v, %.0f s", late.Jobs, sepb.Backups, sepb.Wasted, late.Backups, late.Wasted)
		}
	}
}

// TestSEPBMildStragglers: with stragglers 1.5 times slower instead of 3
// (most of LATE's backups then lose), section 5.5's lock holds at seed 1:
// for 5 and 10 jobs, SEPB at jobs_checked 0.8 takes no longer than LATE
// alone, with fewer backups; and with the specification's 3 it does not
// (docs/speculation.md), which the test also checks, so that it fails if
// the straggler factor stops reaching the run.
func TestSEPBMildStragglers(t *testing.T) {
	for _, c := range []struct {
		factor float64
		holds  bool
	}{{1.5, true}, {3, false}} {
		rows, err := tasksim.CompareSEPB(tasksim.SEPBOptions{StragglerFactor: c.factor}, []int{5, 10}, []float64{-1, 0.8}, []uint64{1})
		if err != nil {
			t.Fatal(err)
		}
		holds := true
		for i := 0; i < len(rows); i += 2 {
			late, sepb := rows[i], rows[i+1]
			holds = holds && sepb.Makespan <= late.Makespan && sepb.Backups < late.Backups
		}
		if holds != c.holds {
			t.Errorf("stragglers %v times slower: lock holds %v, want %v (%+v)", c.factor, holds, c.holds, rows)
		}
	}
}

// TestPrescheduleLocks: section 6.5's locks at seed 1: data locality with
// Slot PreScheduling at least as high as without for every Sort size, and
// UnfairnessDegree no higher for J1-J10; and PreScheduling does start
// maps somewhere.
func TestPrescheduleLocks(t *testing.T) {
	rows, err := tasksim.ComparePreschedule([]uint64{1})
	if err != nil {
		t.Fatal(err)
	}
	started := 0.0
	for i := 0; i < len(rows); i += 2 {
		off, on := rows[i], rows[i+1]
		started += on.Prescheduled
		if off.Workload == "j1-j10" {
			if on.Unfairness > off.Unfairness {
				t.Errorf("J1-J10: UnfairnessDegree %.2f with PreScheduling, %.2f without", on.Unfairness, off.Unfairness)
			}
			continue
		}
		if on.Locality < off.Locality {
			t.Errorf("%s: locality %.3f with PreScheduling, %.3f without", off.Workload, on.Locality, off.Locality)
		}
	}
	if started == 0 {
		t.Error("PreScheduling started no map in any workload")
	}
}

// TestDegree is Appendix E's measure on a hand-made timeline: loads (2, 0)
// for 10 s then (1, 1) for 10 s give 2 then 0, so 20 / 20 = 1.
func TestDegree(t *testing.T) {
	got := tasksim.Degree([]tasksim.Step{{Duration: 10, Loads: []float64{2, 0}}, {Duration: 10, Loads: []float64{1, 1}}})
	if got != 1 {
		t.Errorf("degree %v, want 1", got)
	}
}
