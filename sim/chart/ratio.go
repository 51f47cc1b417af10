package chart

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/sim"
)

// RatioOptions tune a ratio chart.
type RatioOptions struct {
	// Title replaces the default title.
	Title string
	// Metric selects one metric of a sweep whose rows hold several; empty
	// means the rows must hold one metric only. A study's chart (no sweep)
	// ignores it and draws every metric.
	Metric penalty.Metric
	// Size is the chart's size (zero: the defaults).
	Size Size
}

// ErrNoData marks rows with nothing to draw (none, or every ratio
// undefined because OPT was never positive).
var ErrNoData = errors.New("chart: no ratio to draw")

// WriteRatioChart draws a study's rows (sim.RunStudy, sim.RunSweep) to
// path, a .png or .svg file.
//
// Rows of a sweep (Row.Sweep "slack" or "small") give FLEX Figure 5a or
// 5b: x is the swept share in percent, one colour per policy, the average
// ratio to OPT solid and the worst dashed. Rows of a single study give
// Figure 5c: per metric, a bar per policy for the average ratio and a
// triangle for the worst; the y axis turns logarithmic when the ratios
// span more than a factor of 10, as tardiness ratios do. Undefined ratios
// (NaN: no instance with a positive OPT) are left out, and a metric with
// none at all is left off the chart.
func WriteRatioChart(path string, rows []sim.Row, opts RatioOptions) error {
	return writeFile(path, func(w io.Writer, format string) error {
		return RenderRatioChart(w, format, rows, opts)
	})
}

// RenderRatioChart is WriteRatioChart to a writer, in format "png" or
// "svg".
func RenderRatioChart(w io.Writer, format string, rows []sim.Row, opts RatioOptions) error {
	if len(rows) == 0 {
		return ErrNoData
	}
	var f *figure
	var err error
	if rows[0].Sweep != "" {
		f, err = sweepFigure(rows, opts)
	} else {
		f, err = studyFigure(rows, opts)
	}
	if err != nil {
		return err
	}
	return f.render(w, format, opts.Size)
}

// policies lists the rows' policies in order of first appearance.
func policies(rows []sim.Row) []string {
	var out []string
	for _, r := range rows {
		if !slices.Contains(out, r.Policy) {
			out = append(out, r.Policy)
		}
	}
	return out
}

func sweepFigure(rows []sim.Row, opts RatioOptions) (*figure, error) {
	sweep := rows[0].Sweep
	var metrics []penalty.Metric
	for _, r := range rows {
		if r.Sweep != sweep {
			return nil, fmt.Errorf("chart: rows mix sweeps %q and %q", sweep, r.Sweep)
		}
		if !slices.Contains(metrics, r.Metric) {
			metrics = append(metrics, r.Metric)
		}
	}
	metric := opts.Metric
	switch {
	case metric == "" && len(metrics) > 1:
		return nil, fmt.Errorf("chart: the sweep's rows hold %d metrics (%v); choose one", len(metrics), metrics)
	case metric == "":
		metric = metrics[0]
	case !slices.Contains(metrics, metric):
		return nil, fmt.Errorf("chart: the sweep's rows hold no metric %q (they hold %v)", metric, metrics)
	}
	xlabel, fig := "slack (%)", "5a"
	if sweep == "small" {
		xlabel, fig = "small jobs (%)", "5b"
	}
	title := opts.Title
	if title == "" {
		title = fmt.Sprintf("FLEX Fig. %s: %s, ratio to optimal", fig, metric)
	}
	f := newFigure(title, xlabel, "ratio to optimal")
	f.p.Add(plotter.NewGrid())
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, pol := range policies(rows) {
		var avg, worst plotter.XYs
		for _, r := range rows {
			if r.Policy != pol || r.Metric != metric || math.IsNaN(r.Avg) {
				continue
			}
			avg = append(avg, plotter.XY{X: 100 * r.Value, Y: r.Avg})
			worst = append(worst, plotter.XY{X: 100 * r.Value, Y: r.Worst})
			lo, hi = math.Min(lo, r.Avg), math.Max(hi, r.Worst)
		}
		if len(avg) == 0 {
			continue
		}
		col := policyColor(pol, i)
		for _, s := range []struct {
			xys    plotter.XYs
			label  string
			dashed bool
		}{{avg, pol + " avg", false}, {worst, pol + " worst", true}} {
			l, pts, err := plotter.NewLinePoints(s.xys)
			if err != nil {
				return nil, fmt.Errorf("chart: %s: %w", s.label, err)
			}
			l.Color, l.Width = col, vg.Points(2)
			pts.Color, pts.Shape, pts.Radius = col, draw.CircleGlyph{}, vg.Points(2.5)
			if s.dashed {
				l.Dashes = []vg.Length{vg.Points(6), vg.Points(4)}
				pts.Shape = draw.TriangleGlyph{}
			}
			f.p.Add(l, pts)
			f.add(s.label, l, pts)
		}
	}
	if math.IsInf(lo, 1) {
		return nil, ErrNoData
	}
	// Keep 1 (optimal) in view, with a little room above the worst line
	// so it does not run along the frame.
	f.p.Y.Min = math.Min(1, lo) - 0.02*(hi-math.Min(1, lo))
	f.p.Y.Max = hi + 0.08*(hi-math.Min(1, lo)) + 0.01
	f.p.X.Min, f.p.X.Max = 0, 100
	f.p.X.Tick.Marker, f.p.Y.Tick.Marker = niceTicks{}, niceTicks{}
	return f, nil
}

func studyFigure(rows []sim.Row, opts RatioOptions) (*figure, error) {
	var metrics []penalty.Metric
	for _, r := range rows {
		if r.Sweep != "" {
			return nil, errors.New("chart: rows mix a sweep with a study")
		}
		if !math.IsNaN(r.Avg) && !slices.Contains(metrics, r.Metric) {
			metrics = append(metrics, r.Metric)
		}
	}
	if len(metrics) == 0 {
		return nil, ErrNoData
	}
	title := opts.Title
	if title == "" {
		title = "FLEX Fig. 5c: ratio to optimal per metric (bars: average, triangles: worst)"
	}
	f := newFigure(title, "", "ratio to optimal")
	pols := policies(rows)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		if !math.IsNaN(r.Avg) {
			lo, hi = math.Min(lo, r.Avg), math.Max(hi, r.Worst)
		}
	}
	logY := hi/lo > 10
	base := 0.0
	if logY {
		f.p.Y.Scale, f.p.Y.Tick.Marker = plot.LogScale{}, ratioLogTicks{}
		base = lo * 0.8
		f.p.Y.Min, f.p.Y.Max = base, hi*1.5
		f.p.Y.Label.Text = "ratio to optimal (log scale)"
	} else {
		f.p.Y.Min, f.p.Y.Max = 0, hi*1.08
	}
	f.p.Add(&plotter.Grid{Vertical: draw.LineStyle{}, Horizontal: plotter.NewGrid().Horizontal})
	const group = 0.8
	width := group / float64(len(pols))
	names := make([]string, len(metrics))
	for m, metric := range metrics {
		names[m] = string(metric)
	}
	var worstThumb *plotter.Scatter
	for k, pol := range pols {
		col := policyColor(pol, k)
		var worst plotter.XYs
		var bar *plotter.Polygon
		for m, metric := range metrics {
			i := slices.IndexFunc(rows, func(r sim.Row) bool { return r.Metric == metric && r.Policy == pol })
			if i < 0 || math.IsNaN(rows[i].Avg) {
				continue
			}
			x0 := float64(m) - group/2 + float64(k)*width
			x1 := x0 + width*0.9
			poly, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: base}, {X: x1, Y: base}, {X: x1, Y: rows[i].Avg}, {X: x0, Y: rows[i].Avg}})
			if err != nil {
				return nil, fmt.Errorf("chart: %s bar: %w", pol, err)
			}
			poly.Color, poly.LineStyle.Width = col, 0
			f.p.Add(poly)
			bar = poly
			worst = append(worst, plotter.XY{X: (x0 + x1) / 2, Y: rows[i].Worst})
		}
		if bar == nil {
			continue
		}
		sc, err := plotter.NewScatter(worst)
		if err != nil {
			return nil, fmt.Errorf("chart: %s worst: %w", pol, err)
		}
		sc.Color, sc.Shape, sc.Radius = col, draw.TriangleGlyph{}, vg.Points(3.5)
		f.p.Add(sc)
		f.add(pol, bar)
		if worstThumb == nil {
			thumb := *sc
			thumb.Color = color.Gray{Y: 0x55}
			worstThumb = &thumb
		}
	}
	if worstThumb != nil {
		f.add("worst", worstThumb)
	}
	f.p.NominalX(names...)
	f.p.X.Min, f.p.X.Max = -0.6, float64(len(metrics))-0.4
	f.p.X.Tick.Label.Rotation = math.Pi / 4
	f.p.X.Tick.Label.XAlign = draw.XRight
	f.p.X.Tick.Label.YAlign = draw.YTop
	return f, nil
}

// ratioLogTicks labels 1, 2, 5, 10, 20, 50, ...: plot.LogTicks labels
// only powers of ten, too few for ratios that mostly sit between 1 and 10.
type ratioLogTicks struct{}

func (ratioLogTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for p := math.Floor(math.Log10(lo)); math.Pow(10, p) <= hi; p++ {
		dec := math.Pow(10, p)
		for i := 1; i < 10; i++ {
			v := float64(i) * dec
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if i == 1 || i == 2 || i == 5 {
				t.Label = fmt.Sprintf("%g", v)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// niceTicks labels a linear axis at multiples of 1, 2 or 5 times a power
// of ten, about six labels per axis: gonum's default ticker often labels
// ratio axes at 1.2, 2.0, 2.8, leaving 1 (optimal) without a label.
type niceTicks struct{}

func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: fmt.Sprintf("%g", lo)}}
	}
	raw := (hi - lo) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	// As many decimals as the step has, so 0.1 * 3 prints as 0.3.
	decimals := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	var ticks []plot.Tick
	for k := math.Ceil(lo / step); k*step <= hi+step*1e-9; k++ {
		v := k * step
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', decimals, 64)})
		// One unlabelled minor tick halfway to the next label.
		if mid := v + step/2; mid <= hi {
			ticks = append(ticks, plot.Tick{Value: mid})
		}
	}
	return ticks
}
