package chart

import (
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Timeline is the task attempts of a task-level run, node by node: each
// node a band of lanes (its slots), each attempt a bar in its lane from
// start to end.
type Timeline struct {
	Title string
	// Rows are the nodes, top to bottom, with their lane counts.
	Rows []TimelineRow
	// Spans are the attempts.
	Spans []TimelineSpan
}

// TimelineRow is one node.
type TimelineRow struct {
	Label string
	Lanes int
}

// SpanKind classifies an attempt for its colour.
type SpanKind int

// The kinds of attempts.
const (
	// Original attempts that finished their task.
	OriginalWon SpanKind = iota
	// Original attempts killed (a backup finished first, or their node
	// went down).
	OriginalKilled
	// Backups that finished first.
	BackupWon
	// Backups killed.
	BackupKilled
)

// TimelineSpan is one attempt.
type TimelineSpan struct {
	Row, Lane  int
	Start, End float64
	Kind       SpanKind
}

var spanColors = map[SpanKind]color.Color{
	OriginalWon:    color.RGBA{0xba, 0xb0, 0xac, 0xff}, // grey
	OriginalKilled: color.RGBA{0x4e, 0x79, 0xa7, 0xff}, // blue
	BackupWon:      color.RGBA{0x59, 0xa1, 0x4f, 0xff}, // green
	BackupKilled:   color.RGBA{0xe1, 0x57, 0x59, 0xff}, // red
}

var spanNames = map[SpanKind]string{
	OriginalWon:    "attempt (finished)",
	OriginalKilled: "original, killed",
	BackupWon:      "backup, won",
	BackupKilled:   "backup, killed",
}

// WriteTimeline draws tl to path, a .png or .svg file.
func WriteTimeline(path string, tl Timeline) error {
	return writeFile(path, func(w io.Writer, format string) error { return RenderTimeline(w, format, tl) })
}

// RenderTimeline is WriteTimeline to a writer, in format "png" or "svg".
// The image grows with the lanes, so that every slot keeps a visible bar.
func RenderTimeline(w io.Writer, format string, tl Timeline) error {
	if len(tl.Spans) == 0 || len(tl.Rows) == 0 {
		return fmt.Errorf("%w: no attempts to draw", ErrNoData)
	}
	// Lane y positions: the first row at the top.
	offset := make([]int, len(tl.Rows))
	total := 0
	for i := len(tl.Rows) - 1; i >= 0; i-- {
		offset[i] = total
		total += tl.Rows[i].Lanes + 1 // a blank lane between nodes
	}
	f := newFigure(tl.Title, "time (s)", "node (one line per slot)")
	end := 0.0
	seen := map[SpanKind]bool{}
	for _, kind := range []SpanKind{OriginalWon, OriginalKilled, BackupWon, BackupKilled} {
		var first *plotter.Polygon
		for _, s := range tl.Spans {
			if s.Kind != kind || s.Row < 0 || s.Row >= len(tl.Rows) {
				continue
			}
			y := float64(offset[s.Row] + tl.Rows[s.Row].Lanes - 1 - s.Lane)
			poly, err := plotter.NewPolygon(plotter.XYs{
				{X: s.Start, Y: y + 0.1}, {X: s.End, Y: y + 0.1}, {X: s.End, Y: y + 0.9}, {X: s.Start, Y: y + 0.9}})
			if err != nil {
				return fmt.Errorf("chart: an attempt's bar: %w", err)
			}
			poly.Color = spanColors[kind]
			poly.LineStyle.Color, poly.LineStyle.Width = color.White, vg.Points(0.2)
			f.p.Add(poly)
			end = math.Max(end, s.End)
			if first == nil {
				first = poly
			}
		}
		if first != nil && !seen[kind] {
			seen[kind] = true
			f.add(spanNames[kind], first)
		}
	}
	var ticks []plot.Tick
	for i, r := range tl.Rows {
		ticks = append(ticks, plot.Tick{Value: float64(offset[i]) + float64(r.Lanes)/2, Label: r.Label})
	}
	f.p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	f.p.X.Tick.Marker = niceTicks{}
	f.p.X.Min, f.p.X.Max = 0, math.Max(end, 1e-9)
	f.p.Y.Min, f.p.Y.Max = 0, float64(total)
	size := Size{Width: DefaultWidth, Height: vg.Length(math.Max(float64(DefaultHeight), float64(total)*float64(vg.Points(5))))}
	return f.render(w, format, size)
}
