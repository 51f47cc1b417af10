package tasksim

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/flexd/flexd/estimate"
)

// ESAMRRow is one detector's figures on one measured job of the ESAMR
// scenario (section 3.5).
type ESAMRRow struct {
	Detector string `json:"detector"`
	Job      string `json:"job"`
	// MapHalf and ReduceHalf are the mean TimeToEnd errors, seconds, at
	// the first epoch past half of each attempt's duration; MapLife and
	// ReduceLife over each attempt's life; N the attempts measured.
	MapHalf    float64 `json:"map_tte_error_half"`
	ReduceHalf float64 `json:"reduce_tte_error_half"`
	MapLife    float64 `json:"map_tte_error_life"`
	ReduceLife float64 `json:"reduce_tte_error_life"`
	MapN       int     `json:"map_measured"`
	ReduceN    int     `json:"reduce_measured"`
	// Flagged are the tasks advised a backup ("map/7", 0-based), against
	// the injected stragglers: precision and recall.
	Flagged   []string `json:"flagged"`
	Precision float64  `json:"precision"`
	Recall    float64  `json:"recall"`
	// M1, R1 and R3 are the largest stage-weight errors over the nodes.
	M1 float64 `json:"max_m1_error"`
	R1 float64 `json:"max_r1_error"`
	R3 float64 `json:"max_r3_error"`
	// Response is the job's response time, seconds, in the run where the
	// shim launched the advised backups.
	Response float64 `json:"response_with_backups"`
}

// CompareESAMR runs the ESAMR scenario once per detector: without backups
// (so every detector watches the same run) for the errors and the flagged
// tasks, and with backups for the response times. basis is esamr's and
// late's comparison basis (empty: the default).
func CompareESAMR(seed uint64, detectors []string, basis string) ([]ESAMRRow, error) {
	var rows []ESAMRRow
	for _, d := range detectors {
		watch, err := Run(ESAMRConfig(d, false, seed, basis))
		if err != nil {
			return nil, fmt.Errorf("%s without backups: %w", d, err)
		}
		act, err := Run(ESAMRConfig(d, true, seed, basis))
		if err != nil {
			return nil, fmt.Errorf("%s with backups: %w", d, err)
		}
		for _, j := range ESAMRConfig(d, false, seed, basis).Jobs {
			if !j.Measure {
				continue
			}
			tte := watch.TTE[j.ID]
			row := ESAMRRow{Detector: d, Job: j.ID, MapHalf: tte.MapHalf, ReduceHalf: tte.ReduceHalf,
				MapLife: tte.MapLife, ReduceLife: tte.ReduceLife, MapN: tte.MapN, ReduceN: tte.ReduceN, Flagged: []string{}}
			injected := map[string]bool{}
			for _, s := range j.Straggle {
				injected[fmt.Sprintf("%s/%d", s.Phase, s.Index)] = true
			}
			hits := 0
			prefix := j.ID + "/"
			for _, f := range watch.Flagged {
				if len(f) > len(prefix) && f[:len(prefix)] == prefix {
					key := f[len(prefix):]
					row.Flagged = append(row.Flagged, key)
					if injected[key] {
						hits++
					}
				}
			}
			if len(row.Flagged) > 0 {
				row.Precision = float64(hits) / float64(len(row.Flagged))
			}
			row.Recall = float64(hits) / float64(len(injected))
			for _, we := range watch.Weights[j.ID] {
				row.M1, row.R1, row.R3 = max(row.M1, we.M1), max(row.R1, we.R1), max(row.R3, we.R3)
			}
			for _, o := range act.Jobs {
				if o.ID == j.ID {
					row.Response = o.Completion - o.Arrival
				}
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// ESPLASHRow is one detector's figures in one ESPLASH scenario (section
// 4.5), averaged over the seeds run.
type ESPLASHRow struct {
	Scenario string  `json:"scenario"`
	Detector string  `json:"detector"`
	Makespan float64 `json:"makespan"`
	// Increased is the makespan less the same detector's without a
	// straggler (same seed).
	Increased float64 `json:"increased_makespan"`
	// MeanResponse averages the jobs' response times.
	MeanResponse float64 `json:"mean_response"`
	Created      float64 `json:"backups_created"`
	Succeeded    float64 `json:"backups_succeeded"`
	Killed       float64 `json:"backups_killed"`
	// Wasted is the run time of killed backups, seconds.
	Wasted float64 `json:"killed_backup_seconds"`
	// PlacedSlower counts backups placed on a slowed node or on a node of
	// a lower level than their original's.
	PlacedSlower float64 `json:"backups_on_slower_nodes"`
	// ByLevel counts backups by the level of their node.
	ByLevel map[int]float64 `json:"backups_by_level"`
	// Seeds is the number of seeds averaged.
	Seeds int `json:"seeds"`
}

// CompareESPLASH runs every ESPLASH scenario with every detector, once
// per seed, and averages. dynamic leaves the nodes' levels for flexd to
// classify instead of sending them configured.
func CompareESPLASH(seeds []uint64, detectors []string, dynamic bool) ([]ESPLASHRow, error) {
	if len(seeds) == 0 {
		return nil, fmt.Errorf("tasksim: no seeds")
	}
	var rows []ESPLASHRow
	base := map[string]map[uint64]float64{}
	for _, sc := range ESPLASHScenarios() {
		for _, d := range detectors {
			row := ESPLASHRow{Scenario: sc, Detector: d, ByLevel: map[int]float64{}, Seeds: len(seeds)}
			k := 1 / float64(len(seeds))
			for _, seed := range seeds {
				cfg, err := esplashConfig(sc, d, seed, !dynamic)
				if err != nil {
					return nil, err
				}
				rep, err := Run(cfg)
				if err != nil {
					return nil, fmt.Errorf("%s, %s, seed %d: %w", sc, d, seed, err)
				}
				if sc == NoStraggler {
					if base[d] == nil {
						base[d] = map[uint64]float64{}
					}
					base[d][seed] = rep.Makespan
				}
				s := rep.Speculation
				row.Makespan += k * rep.Makespan
				row.Increased += k * (rep.Makespan - base[d][seed])
				row.MeanResponse += k * rep.MeanResponse
				row.Created += k * float64(s.Created)
				row.Succeeded += k * float64(s.Succeeded)
				row.Killed += k * float64(s.Killed)
				row.Wasted += k * s.WastedSeconds
				row.PlacedSlower += k * float64(s.PlacedSlower)
				for l, n := range s.ByLevel {
					row.ByLevel[l] += k * float64(n)
				}
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// DefaultDetectors are each scenario's detectors: the papers' baselines
// and the paper's own.
func DefaultDetectors(scenario string) []string {
	switch scenario {
	case ScenarioESAMR:
		return []string{string(estimate.Late), string(estimate.ESAMR)}
	case ScenarioSEPB:
		return []string{string(estimate.Late)}
	}
	return []string{string(estimate.DetectorNone), string(estimate.YARNDefault), string(estimate.ESPLASH)}
}

// validDetector reports whether d names a detector.
func validDetector(d string) bool {
	return slices.Contains([]string{string(estimate.DetectorNone), string(estimate.Late), string(estimate.YARNDefault),
		string(estimate.ESAMR), string(estimate.ESPLASH)}, d)
}

// CheckDetectors refuses unknown detector names.
func CheckDetectors(ds []string) error {
	for _, d := range ds {
		if !validDetector(d) {
			return fmt.Errorf("unknown detector %q; one of none, late, yarn_default, esamr, esplash", d)
		}
	}
	return nil
}

// FLEX42Row is one cell of the FLEX 4.2 estimation study at task level:
// mean response times of FLEX told the true work, FLEX on flexd's
// extrapolation, and FAIR.
type FLEX42Row struct {
	Slack  float64 `json:"slack"`
	TaskCV float64 `json:"task_cv"`
	Oracle float64 `json:"flex_oracle"`
	Extra  float64 `json:"flex_extrapolate"`
	// Elapsed is FLEX on extrapolate_elapsed.
	Elapsed float64 `json:"flex_extrapolate_elapsed"`
	Fair    float64 `json:"fair"`
	// Kept is the share of FLEX(oracle)'s gain over FAIR that
	// FLEX(extrapolate) keeps.
	Kept float64 `json:"gain_kept"`
}

// CompareFLEX42 runs the FLEX 4.2 workload at task level for every slack
// and task-time CV (sigma 1, seed seed).
func CompareFLEX42(seed uint64, slacks, cvs []float64) ([]FLEX42Row, error) {
	var rows []FLEX42Row
	for _, cv := range cvs {
		for _, slack := range slacks {
			row := FLEX42Row{Slack: slack, TaskCV: cv}
			for _, c := range []struct {
				policy          string
				oracle, elapsed bool
				out             *float64
			}{{"flex", true, false, &row.Oracle}, {"flex", false, false, &row.Extra}, {"flex", false, true, &row.Elapsed},
				{"fair", true, false, &row.Fair}} {
				cfg, err := FLEX42Config(c.policy, c.oracle, slack, 1, cv, seed)
				if err != nil {
					return nil, err
				}
				cfg.Elapsed = c.elapsed
				rep, err := Run(cfg)
				if err != nil {
					return nil, fmt.Errorf("flex42, slack %v, CV %v, %s: %w", slack, cv, c.policy, err)
				}
				*c.out = rep.MeanResponse
			}
			if gain := row.Fair - row.Oracle; gain != 0 {
				row.Kept = (row.Fair - row.Extra) / gain
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// SEPBRow is one cell of section 5.5's sweep, averaged over seeds.
type SEPBRow struct {
	// Detector is the detector SEPB wraps (late in the paper).
	Detector    string  `json:"detector"`
	Jobs        int     `json:"jobs"`
	JobsChecked float64 `json:"jobs_checked"`
	Makespan    float64 `json:"makespan"`
	// Speedup is the makespan with SEPB off (the detector alone, the
	// first setting run) over this one's, less 1.
	Speedup float64 `json:"speedup"`
	Backups float64 `json:"backups_created"`
	Killed  float64 `json:"backups_killed"`
	Wasted  float64 `json:"killed_backup_seconds"`
	// KilledSlow counts attempts SEPB's heuristic killed.
	KilledSlow float64 `json:"attempts_killed_slow"`
	// Slower lists, at the first seed, the jobs that finish later than
	// with SEPB off (the paper's Fig. 6(b)).
	Slower []string `json:"slower_jobs_seed1"`
	Seeds  int      `json:"seeds"`
}

// CompareSEPB sweeps jobs_checked for each job count, over the seeds, the
// runs varied by opt (see SEPBConfig); the first setting is the base the
// others are compared with (pass -1, SEPB off, first).
func CompareSEPB(opt SEPBOptions, jobCounts []int, checked []float64, seeds []uint64) ([]SEPBRow, error) {
	var rows []SEPBRow
	for _, n := range jobCounts {
		base := map[uint64]Report{}
		for _, p := range checked {
			// A negative jobs_checked is SEPB off: plain LATE, the base.
			row := SEPBRow{Jobs: n, JobsChecked: p, Seeds: len(seeds), Slower: []string{}, Detector: cmp.Or(opt.Detector, string(estimate.Late))}
			k := 1 / float64(len(seeds))
			for _, seed := range seeds {
				cfg, err := SEPBConfig(n, p, seed, opt)
				if err != nil {
					return nil, err
				}
				rep, err := Run(cfg)
				if err != nil {
					return nil, fmt.Errorf("sepb, %d jobs, jobs_checked %v, seed %d: %w", n, p, seed, err)
				}
				if _, ok := base[seed]; !ok {
					base[seed] = rep
				}
				s := rep.Speculation
				row.Makespan += k * rep.Makespan
				row.Speedup += k * (base[seed].Makespan/rep.Makespan - 1)
				row.Backups += k * float64(s.Created)
				row.Killed += k * float64(s.Killed)
				row.Wasted += k * s.WastedSeconds
				row.KilledSlow += k * float64(s.KilledSlow)
				if seed == seeds[0] {
					for i, o := range rep.Jobs {
						if b := base[seed].Jobs[i]; o.Completion > b.Completion+1e-9 {
							row.Slower = append(row.Slower, o.ID)
						}
					}
				}
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// PrescheduleRow is one workload with or without Slot PreScheduling,
// averaged over seeds.
type PrescheduleRow struct {
	Workload     string  `json:"workload"`
	Preschedule  bool    `json:"preschedule"`
	Locality     float64 `json:"locality"`
	MeanResponse float64 `json:"mean_response"`
	Makespan     float64 `json:"makespan"`
	Unbalanced   float64 `json:"unbalanced_degree"`
	Unfairness   float64 `json:"unfairness_degree"`
	Prescheduled float64 `json:"prescheduled_maps"`
	Seeds        int     `json:"seeds"`
}

// ComparePreschedule runs every workload without and with PreScheduling.
func ComparePreschedule(seeds []uint64) ([]PrescheduleRow, error) {
	var rows []PrescheduleRow
	for _, wl := range PrescheduleWorkloads() {
		for _, pre := range []bool{false, true} {
			row := PrescheduleRow{Workload: wl, Preschedule: pre, Seeds: len(seeds)}
			k := 1 / float64(len(seeds))
			for _, seed := range seeds {
				cfg, err := PrescheduleConfig(wl, pre, seed)
				if err != nil {
					return nil, err
				}
				rep, err := Run(cfg)
				if err != nil {
					return nil, fmt.Errorf("preschedule %s (%v), seed %d: %w", wl, pre, seed, err)
				}
				row.Locality += k * rep.Locality
				row.MeanResponse += k * rep.MeanResponse
				row.Makespan += k * rep.Makespan
				row.Unbalanced += k * rep.UnbalancedDegree
				row.Unfairness += k * rep.UnfairnessDegree
				row.Prescheduled += k * float64(rep.Prescheduled)
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}
