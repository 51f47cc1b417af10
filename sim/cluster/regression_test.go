package cluster

import (
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/flexd/flexd/sim/swim"
)

// These tests lock the directions of the measured results reported for
// issues 3 and 4 (cmd/flexd simulate run), at the same sizes, so a change
// that reverses one fails here. The mixed-workload runs are shared between
// the tests that read them (runMixed is computed once per policy and mix).

func runOne(t *testing.T, cfg Config, jobs []Job) Report {
	t.Helper()
	rep, err := Run(cfg, jobs)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// SWIM Facebook 2009, first 200 jobs, submit times / 10, 30 map + 15
// reduce slots, epoch 10 s, default conversion, shuffle at the
// conversion's reduce rate: FLEX < FAIR < FIFO in mean response time.
func TestSWIMFlexBeatsFairBeatsFIFO(t *testing.T) {
	f, err := os.Open("../testdata/swim/FB-2009_samples_24_times_1hr_0.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tj, err := swim.Read(f, swim.Conversion{})
	if err != nil {
		t.Fatal(err)
	}
	jobs := FromSWIM(tj, swim.Conversion{}, 200, 10)
	mean := map[string]float64{}
	for _, pol := range []string{"flex", "fair", "fifo"} {
		mean[pol] = runOne(t, Config{MapSlots: 30, ReduceSlots: 15, Policy: pol, SlowStart: 0.05,
			Bandwidth: swim.DefaultConversion().ReduceRate}, jobs).MeanResponse
	}
	if !(mean["flex"] < mean["fair"] && mean["fair"] < mean["fifo"]) {
		t.Errorf("mean response flex %.1f, fair %.1f, fifo %.1f: want flex < fair < fifo", mean["flex"], mean["fair"], mean["fifo"])
	}
}

// mixedResults are one policy's makespans on the mixed workload of issue 3
// (20 jobs, lambda 5 s, 2 pools, seed 1, 40 + 40 slots, 50 MiB/s per
// reduce task), as `flexd simulate run --workload mixed --lambda 5
// --ratio static,pi_dhsa,pd_dhsa,fresh --slowstart 0.05,1 --static-sweep 4
// --pool-static-sweep 4` prints them (plus --omo lazy for the DHSA modes).
type mixedResults struct {
	// makespan by "mode/ss=x" or "mode/omo=lazy"; "static" is the 40/40
	// split.
	makespan map[string]float64
	// best is the best static split (steps of 4 map slots) over both
	// slowstarts; static[ss] the best at that slowstart and pool[ss] the
	// best pool-fair static split there (PoolStaticSplits: PD-DHSA with its
	// lending off).
	best         Result
	static, pool map[float64]Result
	// onBest[ss] holds pi_dhsa on static[ss]'s slots and pd_dhsa on
	// pool[ss]'s (OnSplit, --on-best-split), by mode.
	onBest map[float64]map[string]Result
}

var mixedCache = struct {
	sync.Mutex
	m map[string]mixedResults
}{m: map[string]mixedResults{}}

// runMixed is computeMixed, computed once per policy and mix for all the
// tests that read it.
func runMixed(t *testing.T, policy string, mapHeavy float64) mixedResults {
	t.Helper()
	mixedCache.Lock()
	defer mixedCache.Unlock()
	key := fmt.Sprintf("%s %g", policy, mapHeavy)
	if r, ok := mixedCache.m[key]; ok {
		return r
	}
	r := computeMixed(t, policy, mapHeavy)
	mixedCache.m[key] = r
	return r
}

func computeMixed(t *testing.T, policy string, mapHeavy float64) mixedResults {
	t.Helper()
	jobs, err := GenerateMixed(Mixed{Jobs: 20, MapHeavy: mapHeavy, Lambda: 5, Pools: 2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	base := Config{MapSlots: 40, ReduceSlots: 40, Policy: policy, Bandwidth: 50 << 20}
	var vs []Variant
	for _, mode := range []string{"static", "pi_dhsa", "pd_dhsa", "fresh"} {
		for _, ss := range []float64{0.05, 1} {
			c := base
			c.Ratio, c.SlowStart = mode, ss
			vs = append(vs, Variant{Label: fmt.Sprintf("%s/ss=%g", mode, ss), Config: c})
		}
	}
	for _, mode := range []string{"pi_dhsa", "pd_dhsa"} {
		c := base
		c.Ratio, c.OMO = mode, OMOConfig{LazyStart: true}
		vs = append(vs, Variant{Label: mode + "/omo=lazy", Config: c})
	}
	type span struct {
		pool       bool
		ss         float64
		start, end int
	}
	var spans []span
	for _, ss := range []float64{0.05, 1} {
		b := base
		b.SlowStart = ss
		for _, pool := range []bool{false, true} {
			split, name := StaticSplits, "static"
			if pool {
				split, name = PoolStaticSplits, "pool-fair static"
			}
			sw := split(b, 4, fmt.Sprintf("%s ss=%g ", name, ss))
			spans = append(spans, span{pool, ss, len(vs), len(vs) + len(sw)})
			vs = append(vs, sw...)
		}
	}
	rs, err := RunAll(vs, jobs, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := mixedResults{makespan: map[string]float64{}, static: map[float64]Result{}, pool: map[float64]Result{},
		onBest: map[float64]map[string]Result{}}
	for _, r := range rs[:spans[0].start] {
		out.makespan[r.Variant.Label] = r.Report.Makespan
	}
	var on []Variant
	var all []Result
	for _, sp := range spans {
		best := Best(rs[sp.start:sp.end])
		mode := "pi_dhsa"
		if sp.pool {
			out.pool[sp.ss], mode = best, "pd_dhsa"
		} else {
			out.static[sp.ss] = best
			all = append(all, rs[sp.start:sp.end]...)
		}
		on = append(on, OnSplit(best, mode, mode))
	}
	out.best = Best(all)
	ons, err := RunAll(on, jobs, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range ons {
		ss := r.Variant.Config.SlowStart
		if out.onBest[ss] == nil {
			out.onBest[ss] = map[string]Result{}
		}
		out.onBest[ss][r.Variant.Label] = r
	}
	return out
}

// Issue 3 on the mixed workload (runMixed), under FLEX and FAIR: FRESH
// beats the 50/50 split at either slowstart, and PI-DHSA and PD-DHSA beat
// the best static split of the 80 slots over both slowstarts, except
// PD-DHSA at slowstart 0.05 under FLEX on the map-heavy mix (536.2 s
// against 521.7 at slowstart 0.05 and 520.7 at 1) and both DHSA modes at
// slowstart 0.05 under FAIR on the map-heavy mix (716.5 and 719.6 against
// 524.9). Neither is a DHSA defect.
//
// PD-DHSA's budgets follow Algorithm 2 and the case analysis of 001, and
// over the run they lend the maps more than PI-DHSA's do (28744 against
// 28402 map-slot-seconds of budget at slowstart 0.05). But each pool holds
// half of each phase, so two map-heavy jobs map at once at half speed where
// FLEX over the whole cluster runs one at full speed, and the reduce tasks
// that slowstart 0.05 launched early hold their slots waiting for map
// output twice as long (3230 idle reduce slot-seconds against 1458; with 4
// pools, 7437 and 589 s). That is the price of pool fairness, which the
// static baseline, solved over all jobs at once, does not pay: against the
// pool-fair static split with the same pools PD-DHSA wins at both
// slowstarts (TestPDDHSABeatsPoolFairStaticSplit).
//
// Under FAIR every job maps at once, so every job passes 5% early and
// launches its reduce tasks: the reduce phase's demand (pending + running
// tasks, DynamicMR's definition) stays above its 40 slots while the map
// phase's stays far above its own. That is Algorithm 1's case 2 (and no
// pool has a phase to spare): nothing is borrowed for 646 of the 716 s, so
// DHSA is the configured 40/40 split (723.3 s), while the best static split
// caps the reduce slots early reduce tasks can hold idle. FLEX section 4.2
// saw the same (early reduces keep the reduce slots until their maps end).
// The papers' remedy is OMO's lazy start (dissertation 4.3.2), and with it
// both DHSA modes beat the best static split
// (TestLazyStartLetsDHSABeatStaticSplits). And DHSA on the best split's own
// slots, DynamicMR's comparison, beats it in every cell
// (TestDHSAOnTheBestSplitBeatsIt). docs/phase-budgets.md has the tables.
func TestDynamicSlotsBeatStaticSplits(t *testing.T) {
	type dir struct {
		mode string
		ss   float64
	}
	all := []dir{{"pi_dhsa", 0.05}, {"pi_dhsa", 1}, {"pd_dhsa", 0.05}, {"pd_dhsa", 1}}
	late := []dir{{"pi_dhsa", 1}, {"pd_dhsa", 1}}
	for _, c := range []struct {
		policy, mix string
		share       float64
		dhsa        []dir
	}{
		{"flex", "map-heavy", 0.8, []dir{{"pi_dhsa", 0.05}, {"pi_dhsa", 1}, {"pd_dhsa", 1}}},
		{"flex", "reduce-heavy", 0.2, all},
		{"fair", "map-heavy", 0.8, late},
		{"fair", "reduce-heavy", 0.2, all},
	} {
		t.Run(c.policy+"/"+c.mix, func(t *testing.T) {
			r := runMixed(t, c.policy, c.share)
			for _, d := range c.dhsa {
				if got := r.makespan[fmt.Sprintf("%s/ss=%g", d.mode, d.ss)]; !(got < r.best.Report.Makespan) {
					t.Errorf("%s at slowstart %g: makespan %.1f, want below the best static split (%s) %.1f",
						d.mode, d.ss, got, r.best.Variant.Label, r.best.Report.Makespan)
				}
			}
			for _, ss := range []float64{0.05, 1} {
				fresh, half := r.makespan[fmt.Sprintf("fresh/ss=%g", ss)], r.makespan[fmt.Sprintf("static/ss=%g", ss)]
				if !(fresh < half) {
					t.Errorf("slowstart %g: fresh makespan %.1f, want below the 50/50 split's %.1f", ss, fresh, half)
				}
			}
			if t.Failed() {
				t.Logf("makespans: %v", r.makespan)
			}
		})
	}
}

// PD-DHSA against its own baseline on the mixed workload (runMixed): the
// best pool-fair static split at the same slowstart, that is the same
// pools sharing each phase max-min fairly with no slot changing phase
// (Hadoop's fair scheduler on a static split; DynamicMR disables DHSA by
// setting both borrowing percentages to 0). PD-DHSA wins under FLEX on both
// mixes at both slowstarts, so its loss to the pool-blind static split at
// slowstart 0.05 (TestDynamicSlotsBeatStaticSplits) is the cost of pool
// fairness, not of its lending. Under FAIR at slowstart 0.05 on the
// map-heavy mix it loses here too (719.6 s against 650.2), for the reason
// given there: both phases stay over-loaded, so it never lends.
func TestPDDHSABeatsPoolFairStaticSplit(t *testing.T) {
	for _, c := range []struct {
		policy, mix string
		share       float64
		ss          []float64
	}{
		{"flex", "map-heavy", 0.8, []float64{0.05, 1}},
		{"flex", "reduce-heavy", 0.2, []float64{0.05, 1}},
		{"fair", "map-heavy", 0.8, []float64{1}},
		{"fair", "reduce-heavy", 0.2, []float64{0.05, 1}},
	} {
		t.Run(c.policy+"/"+c.mix, func(t *testing.T) {
			r := runMixed(t, c.policy, c.share)
			for _, ss := range c.ss {
				pool := r.pool[ss]
				if got := r.makespan[fmt.Sprintf("pd_dhsa/ss=%g", ss)]; !(got < pool.Report.Makespan) {
					t.Errorf("pd_dhsa at slowstart %g: makespan %.1f, want below the best pool-fair static split (%s) %.1f",
						ss, got, pool.Variant.Label, pool.Report.Makespan)
				}
			}
		})
	}
}

// DHSA on its baseline's best split (runMixed's onBest): DynamicMR
// compares DHSA with Hadoop "under the optimized map/reduce slot
// configuration", found by enumerating every split, both running on the
// same configured slots (OnSplit). On those slots PI-DHSA beats the best
// static split and PD-DHSA the best pool-fair static split, under FLEX
// and FAIR, on both mixes, at both slowstarts: even on the best-tuned
// split, lending one phase's idle slots to the other lowers the makespan.
// (Over seeds 1-6 and other arrival rates it holds in most runs, not all:
// scripts/dhsa-robustness.sh, docs/phase-budgets.md.) This holds where the 40/40 configuration does not (map-heavy at
// slowstart 0.05, TestDynamicSlotsBeatStaticSplits): its reduce slots are
// the ones early reduce tasks hold idle, and no lending can free them.
func TestDHSAOnTheBestSplitBeatsIt(t *testing.T) {
	for _, c := range []struct {
		policy, mix string
		share       float64
	}{{"flex", "map-heavy", 0.8}, {"flex", "reduce-heavy", 0.2}, {"fair", "map-heavy", 0.8}, {"fair", "reduce-heavy", 0.2}} {
		t.Run(c.policy+"/"+c.mix, func(t *testing.T) {
			r := runMixed(t, c.policy, c.share)
			for _, ss := range []float64{0.05, 1} {
				for mode, base := range map[string]Result{"pi_dhsa": r.static[ss], "pd_dhsa": r.pool[ss]} {
					on := r.onBest[ss][mode]
					if cfg := on.Variant.Config; cfg.MapSlots != base.Variant.Config.MapSlots || cfg.Ratio != mode {
						t.Fatalf("%s at slowstart %g ran as %s on %d map slots, want %s on %s's %d", mode, ss, cfg.Ratio, cfg.MapSlots,
							mode, base.Variant.Label, base.Variant.Config.MapSlots)
					}
					if !(on.Report.Makespan < base.Report.Makespan) {
						t.Errorf("%s on %s at slowstart %g: makespan %.1f, want below the split's own %.1f", mode, base.Variant.Label, ss,
							on.Report.Makespan, base.Report.Makespan)
					}
				}
			}
		})
	}
}

// On the map-heavy mix, where DHSA at slowstart 0.05 cannot beat the best
// static split (TestDynamicSlotsBeatStaticSplits), OMO's lazy start on
// DHSA's fungible slots (the dissertation's remedy for reduce tasks started
// too early, 4.3.2) holds each job's reduce demand at 0 until its shuffle
// would end with its maps, so no reduce slot is held idle and the phase
// lends what it does not use. Both DHSA modes then beat the best static
// split of either slowstart, under FLEX and FAIR. (This mix shuffles
// little, about 6 s per reduce task, so lazy start starts each reduce phase
// as its maps end and the makespans equal slowstart 1's.)
func TestLazyStartLetsDHSABeatStaticSplits(t *testing.T) {
	for _, policy := range []string{"flex", "fair"} {
		t.Run(policy, func(t *testing.T) {
			r := runMixed(t, policy, 0.8)
			for _, mode := range []string{"pi_dhsa", "pd_dhsa"} {
				if got := r.makespan[mode+"/omo=lazy"]; !(got < r.best.Report.Makespan) {
					t.Errorf("%s with lazy start: makespan %.1f, want below the best static split (%s) %.1f",
						mode, got, r.best.Variant.Label, r.best.Report.Makespan)
				}
			}
		})
	}
}

// Issue 3 on the shuffle-heavy Table 4.4 set (8 Terasort jobs, 40 + 40
// slots, 50 MiB/s per reduce task): OMO (FRESH with lazy start and batch
// finish) has a lower makespan than the static split at slowstart 0.05 and
// 1 (the dissertation's Fair-0.05 and Fair-1) and than FRESH at slowstart 1,
// under FLEX and FAIR; under FLEX also than FRESH at slowstart 0.05.
//
// Under FAIR, FRESH at slowstart 0.05 beats OMO (362.5 s against 419.8),
// and lazy start alone does about as well as FRESH (364.8 s). Batch finish
// is Eq. 4.4-4.5 as printed, and as printed t_batch < t_fair holds for
// every job with started reduce tasks and pending maps, so one of them
// always takes the released map slots. Here that starves terasort7 and 8,
// whose reduce phases lazy start still holds: they start them at 155 s
// instead of 100 s, and each of their 2 reduce tasks then needs 204.8 s of
// shuffle and 60 s of computing, so they end at 419.8 s. The dissertation
// names this cost ("a possible delay incurred to other active jobs",
// 4.3.3.1) and measures lazy start as the technique for heavy shuffles,
// batch finish for light ones (4.4.3, Fig. 4.17). So that is not locked.
func TestOMOBeatsSlowstartOnTable44(t *testing.T) {
	jobs := GenerateTable44(Table44{})
	for _, pol := range []string{"flex", "fair"} {
		base := Config{MapSlots: 40, ReduceSlots: 40, Policy: pol, Bandwidth: 50 << 20}
		omoCfg := base
		omoCfg.Ratio, omoCfg.OMO = "fresh", OMOConfig{LazyStart: true, BatchFinish: true}
		omo := runOne(t, omoCfg, jobs).Makespan
		type rival struct {
			mode string
			ss   float64
		}
		rivals := []rival{{"static", 0.05}, {"static", 1}, {"fresh", 1}}
		if pol == "flex" {
			rivals = append(rivals, rival{"fresh", 0.05})
		}
		for _, rv := range rivals {
			c := base
			c.Ratio, c.SlowStart = rv.mode, rv.ss
			if got := runOne(t, c, jobs).Makespan; !(omo < got) {
				t.Errorf("%s: OMO makespan %.1f, want below %s at slowstart %g: %.1f", pol, omo, rv.mode, rv.ss, got)
			}
		}
	}
}

// TestEstimateKeepsFLEXGain locks what FLEX is worth with the work a shim
// can give it (docs/estimation.md): on the FLEX 4.2 workload (10 jobs at
// once, sigma 1) across the slack sweep, FLEX on flexd's estimates from
// task counts and the mean of completed tasks keeps at least 80% of
// FLEX(oracle)'s gain over FAIR in mean response time at task-time CV 0.3
// (D-F7); and at CV 0 extrapolate_elapsed, whose running tasks count their
// time left, equals the oracle within 1% wherever FAIR's minima are at
// least one slot, while extrapolate, counting them whole (D-F1), is within
// 3% there. At 95% slack the minima are 0 and the estimate's minimum of
// one slot per phase without a sample (D-F4) costs up to 7%; with min_one
// runnable, which holds that slot back from a reduce phase until its
// job's maps are done, extrapolate_elapsed is within 1% in every cell.
func TestEstimateKeepsFLEXGain(t *testing.T) {
	jobs, err := GenerateFLEX42(FLEX42{Sigma: 1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, slack := range []float64{0.15, 0.35, 0.55, 0.75, 0.95} {
		base := Config{MapSlots: 40, ReduceSlots: 40, MinShare: 1 - slack, SlowStart: 0.05}
		var vs []Variant
		for _, v := range []struct {
			label, policy, est string
			cv                 float64
		}{
			{"oracle", "flex", Oracle, 0}, {"fair", "fair", Oracle, 0},
			{"cv0.3", "flex", EstimateExtrapolate, 0.3},
			{"cv0", "flex", EstimateExtrapolate, 0}, {"cv0 elapsed", "flex", EstimateExtrapolateElapsed, 0},
			{"cv0 elapsed runnable", "flex", EstimateExtrapolateElapsed, 0},
		} {
			cfg := base
			cfg.Policy, cfg.Estimate, cfg.TaskTimeCV, cfg.EstimateSeed = v.policy, v.est, v.cv, 1
			if strings.HasSuffix(v.label, "runnable") {
				cfg.EstimateMinOne = "runnable"
			}
			vs = append(vs, Variant{Label: v.label, Config: cfg})
		}
		rs, err := RunAll(vs, jobs, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		mean := map[string]float64{}
		for _, r := range rs {
			mean[r.Variant.Label] = r.Report.MeanResponse
		}
		oracle, fair := mean["oracle"], mean["fair"]
		if !(oracle < fair) {
			t.Fatalf("slack %v: FLEX %v not below FAIR %v", slack, oracle, fair)
		}
		if kept := (fair - mean["cv0.3"]) / (fair - oracle); kept < 0.8 {
			t.Errorf("slack %v, CV 0.3: extrapolate keeps %.0f%% of FLEX's gain over FAIR, want >= 80%%", slack, 100*kept)
		}
		elapsedTol, wholeTol := 0.01, 0.03
		if slack == 0.95 {
			elapsedTol, wholeTol = 0.07, 0.07
		}
		if d := mean["cv0 elapsed"]/oracle - 1; math.Abs(d) > elapsedTol {
			t.Errorf("slack %v, CV 0: extrapolate_elapsed %+.1f%% from the oracle, want within %.0f%%", slack, 100*d, 100*elapsedTol)
		}
		if d := mean["cv0 elapsed runnable"]/oracle - 1; math.Abs(d) > 0.01 {
			t.Errorf("slack %v, CV 0: extrapolate_elapsed with min_one runnable %+.1f%% from the oracle, want within 1%%", slack, 100*d)
		}
		if d := mean["cv0"]/oracle - 1; math.Abs(d) > wholeTol {
			t.Errorf("slack %v, CV 0: extrapolate %+.1f%% from the oracle, want within %.0f%%", slack, 100*d, 100*wholeTol)
		}
	}
}

// TestEstimateOnceSampledWithinOnePercent checks D-F7 as section 7.5 of the
// specification words it: at task-time CV 0, FLEX on extrapolated work
// equals FLEX on the true work within 1% "once every job has one completed
// task" (Config.EstimateOnceSampled: a phase's true work until it has a
// sample, the statistics after). A running task counted whole (D-F1)
// over-estimates a phase by up to one task, which flips near-ties in FLEX's
// order on single seeds (up to +2.0%, at 75% slack, seeds 1, 5 and 6), so
// the mean response times are summed over seeds 1 to 8 before they are
// compared, in every cell of the slack sweep.
func TestEstimateOnceSampledWithinOnePercent(t *testing.T) {
	for _, slack := range []float64{0.15, 0.35, 0.55, 0.75, 0.95} {
		var oracle, estimated float64
		for seed := uint64(1); seed <= 8; seed++ {
			jobs, err := GenerateFLEX42(FLEX42{Sigma: 1}, seed)
			if err != nil {
				t.Fatal(err)
			}
			base := Config{MapSlots: 40, ReduceSlots: 40, MinShare: 1 - slack, SlowStart: 0.05, Policy: "flex", EstimateSeed: seed}
			est := base
			est.Estimate, est.EstimateOnceSampled = EstimateExtrapolate, true
			rs, err := RunAll([]Variant{{Label: "oracle", Config: base}, {Label: "extrapolate", Config: est}}, jobs, 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			oracle += rs[0].Report.MeanResponse
			estimated += rs[1].Report.MeanResponse
		}
		if d := estimated/oracle - 1; math.Abs(d) > 0.01 {
			t.Errorf("slack %v, CV 0, seeds 1-8: extrapolate once sampled %+.2f%% from the oracle, want within 1%%", slack, 100*d)
		}
	}
}
