package cluster

import (
	"fmt"
	"runtime"
	"sync"
)

// Variant is one labelled configuration of a side-by-side comparison.
type Variant struct {
	Label  string
	Config Config
}

// Result is one variant's report.
type Result struct {
	Variant Variant
	Report  Report
}

// RunAll simulates jobs under every variant, on up to workers goroutines
// (<= 0: GOMAXPROCS), and returns the results in the variants' order, so
// the output does not depend on the number of cores. progress, when set,
// is called (from any goroutine, serialised) with the jobs completed over
// all runs and the total, len(variants) * len(jobs). The first error (in
// variant order) wins.
func RunAll(variants []Variant, jobs []Job, workers int, progress func(done, total int)) ([]Result, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	out := make([]Result, len(variants))
	errs := make([]error, len(variants))
	var mu sync.Mutex
	done, total := 0, len(variants)*len(jobs)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(variants)) {
		wg.Go(func() {
			for i := range next {
				cfg := variants[i].Config
				if progress != nil {
					cfg.Progress = func(int) {
						mu.Lock()
						done++
						progress(done, total)
						mu.Unlock()
					}
				}
				rep, err := Run(cfg, jobs)
				if err != nil {
					errs[i] = fmt.Errorf("%s: %w", variants[i].Label, err)
				}
				out[i] = Result{Variant: variants[i], Report: rep}
			}
		})
	}
	for i := range variants {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// StaticSplits returns the static variants of base for every split of its
// total slots (MapSlots + ReduceSlots) into at least one slot per phase, in
// steps of step map slots (<= 0: 1), each labelled "prefix m/r".
func StaticSplits(base Config, step int, prefix string) []Variant {
	total := base.MapSlots + base.ReduceSlots
	step = max(step, 1)
	var out []Variant
	for m := step; m < total; m += step {
		c := base
		c.Ratio, c.OMO = "static", OMOConfig{}
		c.MapSlots, c.ReduceSlots = m, total-m
		out = append(out, Variant{Label: fmt.Sprintf("%s%d/%d", prefix, m, total-m), Config: c})
	}
	return out
}

// PoolStaticSplits is StaticSplits for PD-DHSA's baseline: every split in
// steps of step map slots (<= 0: 1), each run as pd_dhsa with both
// borrowing percentages 0, so the pools of the jobs share each phase's
// fixed slots max-min fairly and no slot changes phase. That is the Hadoop
// fair scheduler on a static split with the same pools, the baseline
// DynamicMR measures PD-DHSA against (Appendix B and Table 2: DHSA is
// disabled by setting the percentages to zero). Labels are "prefix m/r".
func PoolStaticSplits(base Config, step int, prefix string) []Variant {
	zero := 0.0
	out := StaticSplits(base, step, prefix)
	for i := range out {
		out[i].Config.Ratio = "pd_dhsa"
		out[i].Config.BorrowMap, out[i].Config.BorrowReduce = &zero, &zero
	}
	return out
}

// Best returns the result with the least makespan (ties: the earlier one).
func Best(rs []Result) Result {
	best := rs[0]
	for _, r := range rs[1:] {
		if r.Report.Makespan < best.Report.Makespan {
			best = r
		}
	}
	return best
}

// OnSplit is a dynamic ratio mode run on the configured slots of a static
// split: r's configuration with its ratio mode set to mode and DHSA's
// borrowing back at its defaults, labelled label. DynamicMR measures DHSA
// against Hadoop "under the optimized map/reduce slot configuration",
// found by enumerating every split (001, "Performance Improvement for
// DynamicMR"; Appendix C: a static split is only as good as its tuning),
// so both run on the same configured map and reduce slots and differ only
// in what DHSA lends. With r the best of StaticSplits (for pi_dhsa) or of
// PoolStaticSplits (for pd_dhsa), that is DHSA on its baseline's best
// configuration.
func OnSplit(r Result, mode, label string) Variant {
	c := r.Variant.Config
	c.Ratio, c.BorrowMap, c.BorrowReduce = mode, nil, nil
	return Variant{Label: label, Config: c}
}
