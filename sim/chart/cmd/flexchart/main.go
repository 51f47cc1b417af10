// Command flexchart draws package chart's figures from files, for the
// examples under docs/ (docs/charts.md lists the commands that made them):
//
//	flexd simulate study --sweep slack --format json --quiet | flexchart ratio -out fig5a.png
//	flexchart schedule -in examples/solve.json -out schedule.png
//
// ratio reads `flexd simulate study --format json` rows (a study or a
// sweep) from -in or stdin; schedule reads a POST /v1/solve request, solves
// it with its policy (flex by default) exactly as the server does, and
// draws the plan. Exit status 2 means bad input or flags.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/sim"
	"github.com/flexd/flexd/sim/chart"
	"github.com/flexd/flexd/solver"
)

// usage marks errors that are the caller's fault (exit status 2).
type usage struct{ error }

func main() {
	err := run(os.Args[1:], os.Stdin)
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "flexchart:", err)
	var u usage
	if errors.As(err, &u) {
		os.Exit(2)
	}
	os.Exit(1)
}

func run(args []string, stdin io.Reader) error {
	if len(args) == 0 {
		return usage{errors.New("want a subcommand: ratio or schedule")}
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	in := fs.String("in", "", "input file (ratio: default stdin)")
	out := fs.String("out", "", "output chart, .png or .svg (required)")
	title := fs.String("title", "", "chart title (default: the figure's)")
	metric := fs.String("metric", "", "ratio: the metric of a sweep holding several")
	top := fs.Int("top", chart.DefaultTop, "schedule: jobs named in the legend; the rest are \"other\"")
	if err := fs.Parse(args[1:]); err != nil {
		return usage{err}
	}
	if *out == "" {
		return usage{errors.New("-out FILE is required")}
	}
	if _, err := chart.Format(*out); err != nil {
		return usage{err}
	}
	var r io.Reader = stdin
	if *in != "" {
		f, err := os.Open(*in)
		if err != nil {
			return usage{err}
		}
		defer f.Close()
		r = f
	}
	body, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("reading the input: %w", err)
	}
	switch args[0] {
	case "ratio":
		rows, err := decodeRows(body)
		if err != nil {
			return usage{err}
		}
		return chart.WriteRatioChart(*out, rows, chart.RatioOptions{Title: *title, Metric: penalty.Metric(*metric)})
	case "schedule":
		if *in == "" {
			return usage{errors.New("schedule: -in SOLVE.json is required")}
		}
		p, opts, err := httpapi.DecodeSolveRequest(body)
		if err != nil {
			return usage{fmt.Errorf("%s: %w", *in, err)}
		}
		pol, _ := solver.ByName(opts.Policy) // DecodeSolveRequest checked the name
		res, err := pol.Solve(p)
		if err != nil {
			return fmt.Errorf("%s: solving with %s: %w", *in, opts.Policy, err)
		}
		t := *title
		if t == "" {
			t = fmt.Sprintf("%s plan of %s: slots per job (%s)", opts.Policy, *in, res.Metric)
		}
		return chart.WriteScheduleChart(*out, chart.ScheduleOf(t, res, p.Slots), chart.ScheduleOptions{Top: *top})
	}
	return usage{fmt.Errorf("unknown subcommand %q: want ratio or schedule", args[0])}
}

// row is sim.Row's JSON form (sim.Row.MarshalJSON): null ratios are NaN.
type row struct {
	Sweep         string   `json:"sweep"`
	Value         float64  `json:"value"`
	Metric        string   `json:"metric"`
	Policy        string   `json:"policy"`
	Instances     int      `json:"instances"`
	Skipped       int      `json:"skipped"`
	Avg           *float64 `json:"avg"`
	Worst         *float64 `json:"worst"`
	WorstInstance int      `json:"worst_instance"`
}

func decodeRows(body []byte) ([]sim.Row, error) {
	var in []row
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("not `flexd simulate study --format json` rows: %w", err)
	}
	out := make([]sim.Row, len(in))
	for i, r := range in {
		out[i] = sim.Row{Sweep: r.Sweep, Value: r.Value, Metric: penalty.Metric(r.Metric), Policy: r.Policy,
			Instances: r.Instances, Skipped: r.Skipped, Avg: math.NaN(), Worst: math.NaN(), WorstInstance: r.WorstInstance}
		if r.Avg != nil && r.Worst != nil {
			out[i].Avg, out[i].Worst = *r.Avg, *r.Worst
		}
	}
	return out, nil
}
