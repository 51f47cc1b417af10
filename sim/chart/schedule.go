package chart

import (
	"cmp"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/flexd/flexd/solver"
)

// Schedule is a solver plan to draw, with the names behind its indexes.
type Schedule struct {
	// Title is the chart's title.
	Title string
	// Jobs names the plan's jobs, indexed like Plan.Completions.
	Jobs []string
	// Plan is the malleable schedule (mps.Plan).
	Plan solver.Plan
	// Slots, when positive, draws the phase's slots as a dashed line.
	Slots int
	// XLabel labels the time axis (default: time from the epoch's start).
	XLabel string
}

// ScheduleOf is the schedule of a solver result: job ids from its
// allocations, which list the problem's jobs in the plan's order.
func ScheduleOf(title string, res solver.Result, slots int) Schedule {
	jobs := make([]string, len(res.Allocations))
	for k, a := range res.Allocations {
		jobs[k] = a.ID
	}
	return Schedule{Title: title, Jobs: jobs, Plan: res.Plan, Slots: slots}
}

// ScheduleOptions tune a schedule chart.
type ScheduleOptions struct {
	// Top is how many jobs get their own colour and legend entry (default
	// DefaultTop); the rest are stacked together as "other".
	Top int
	// Size is the chart's size (zero: the defaults).
	Size Size
}

// DefaultTop is the number of jobs named in a schedule chart's legend: as
// many as the palette tells apart.
const DefaultTop = 9

// WriteScheduleChart draws FLEX Figure 4's picture of a plan to path, a
// .png or .svg file: the slots of each job over time as stacked steps, x
// in seconds from the plan's start. The Top jobs with the most
// slot-seconds are drawn and named individually, the others summed as
// "other"; the stack puts the job finishing first at the bottom, the order
// in which MPS hands out slots.
func WriteScheduleChart(path string, s Schedule, opts ScheduleOptions) error {
	return writeFile(path, func(w io.Writer, format string) error {
		return RenderScheduleChart(w, format, s, opts)
	})
}

// series is one band of the stack: some jobs' summed slots per interval.
type series struct {
	name  string
	color color.Color
	slots []int // per interval
}

// RenderScheduleChart is WriteScheduleChart to a writer, in format "png"
// or "svg".
func RenderScheduleChart(w io.Writer, format string, s Schedule, opts ScheduleOptions) error {
	n := len(s.Plan.Completions)
	if len(s.Plan.Intervals) == 0 || n == 0 {
		return fmt.Errorf("%w: the plan has no intervals", ErrNoData)
	}
	if len(s.Jobs) != n {
		return fmt.Errorf("chart: %d job names for a plan of %d jobs", len(s.Jobs), n)
	}
	top := cmp.Or(opts.Top, DefaultTop)
	if top < 1 {
		return fmt.Errorf("chart: top = %d, want >= 1", top)
	}
	// Dense slots per interval and job, and each job's slot-seconds.
	iv := len(s.Plan.Intervals)
	dense := make([][]int, n)
	for j := range dense {
		dense[j] = make([]int, iv)
	}
	area := make([]float64, n)
	s.Plan.Each(func(k int, start, end float64, slots []int) {
		for j, x := range slots {
			dense[j][k] = x
			area[j] += float64(x) * (end - start)
		}
	})
	order := make([]int, n)
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(area[b], area[a]) })
	named := slices.Clone(order[:min(top, n)])
	// A job that never holds a slot has no band to show.
	named = slices.DeleteFunc(named, func(j int) bool { return area[j] == 0 })
	slices.SortStableFunc(named, func(a, b int) int {
		return cmp.Or(cmp.Compare(s.Plan.Completions[a], s.Plan.Completions[b]), cmp.Compare(a, b))
	})
	var bands []series
	for i, j := range named {
		bands = append(bands, series{name: s.Jobs[j], color: palette[i%len(palette)], slots: dense[j]})
	}
	if rest := order[min(top, n):]; len(rest) > 0 {
		other := series{name: fmt.Sprintf("other (%d jobs)", len(rest)), color: grey, slots: make([]int, iv)}
		for _, j := range rest {
			for k, x := range dense[j] {
				other.slots[k] += x
			}
		}
		if slices.Max(other.slots) > 0 {
			bands = append(bands, other)
		}
	}

	t0 := s.Plan.Intervals[0].Start
	f := newFigure(s.Title, cmp.Or(s.XLabel, "time from the epoch's start (s)"), "slots")
	lower := make([]int, iv)
	peak := 0
	var thumbs []*plotter.Polygon
	for _, b := range bands {
		var ring plotter.XYs
		upper := make([]int, iv)
		for k, in := range s.Plan.Intervals {
			upper[k] = lower[k] + b.slots[k]
			peak = max(peak, upper[k])
			ring = append(ring, plotter.XY{X: in.Start - t0, Y: float64(upper[k])}, plotter.XY{X: in.End - t0, Y: float64(upper[k])})
		}
		for k := iv - 1; k >= 0; k-- {
			in := s.Plan.Intervals[k]
			ring = append(ring, plotter.XY{X: in.End - t0, Y: float64(lower[k])}, plotter.XY{X: in.Start - t0, Y: float64(lower[k])})
		}
		poly, err := plotter.NewPolygon(ring)
		if err != nil {
			return fmt.Errorf("chart: band %s: %w", b.name, err)
		}
		// A thin white edge keeps neighbouring bands of similar colour apart.
		poly.Color = b.color
		poly.LineStyle.Color, poly.LineStyle.Width = color.White, vg.Points(0.5)
		f.p.Add(poly)
		thumbs = append(thumbs, poly)
		lower = upper
	}
	end := s.Plan.Intervals[iv-1].End - t0
	if s.Slots > 0 {
		l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: float64(s.Slots)}, {X: end, Y: float64(s.Slots)}})
		if err != nil {
			return fmt.Errorf("chart: slots line: %w", err)
		}
		l.Color, l.Width, l.Dashes = color.Black, vg.Points(1.5), []vg.Length{vg.Points(6), vg.Points(4)}
		f.p.Add(l)
		f.add(fmt.Sprintf("slots (%d)", s.Slots), l)
		peak = max(peak, s.Slots)
	}
	// The legend lists the stack top down, as it is drawn.
	for i := len(bands) - 1; i >= 0; i-- {
		f.add(bands[i].name, thumbs[i])
	}
	f.p.X.Min, f.p.X.Max = 0, math.Max(end, 1e-9)
	f.p.Y.Min, f.p.Y.Max = 0, math.Ceil(float64(max(peak, 1))*1.08)
	f.p.X.Tick.Marker, f.p.Y.Tick.Marker = niceTicks{}, niceTicks{}
	return f.render(w, format, opts.Size)
}
