// Package chart draws flexd's figures with gonum.org/v1/plot: the ratio
// charts of FLEX (Wolf et al., Middleware 2010) Figure 5 from a study's or
// a sweep's rows, and the schedule picture of Figure 4 (slots per job over
// time) from a solver plan.
//
// Output is PNG or SVG, chosen by the file name's extension. A chart is
// rendered in memory and moved into place only when whole, so a failed
// call never leaves half a file behind. Drawing depends on its input only:
// the same rows give the same bytes.
package chart

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ErrFormat marks an output path whose extension is neither .png nor .svg.
var ErrFormat = errors.New("chart: unsupported file type (want .png or .svg)")

// Format returns the output format of path ("png" or "svg") or an error
// wrapping ErrFormat, so callers can check a --plot flag before any work.
func Format(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".png", ".svg":
		return ext[1:], nil
	default:
		return "", fmt.Errorf("%w: %q", ErrFormat, path)
	}
}

// Size is a chart's size; the zero value means DefaultWidth by
// DefaultHeight.
type Size struct {
	Width, Height vg.Length
}

// The default chart size: wide enough for a legend beside the plot.
const (
	DefaultWidth  = 9 * vg.Inch
	DefaultHeight = 5 * vg.Inch
)

func (s Size) orDefault() Size {
	if s.Width <= 0 {
		s.Width = DefaultWidth
	}
	if s.Height <= 0 {
		s.Height = DefaultHeight
	}
	return s
}

// margin keeps the title off the top edge of the image.
const margin = 6 * vg.Millimeter / 2

// figure is a plot with its legend drawn beside it, on the right, where it
// cannot hide data (stacked areas fill the whole data area).
type figure struct {
	p      *plot.Plot
	legend plot.Legend
	// legendNames are the legend's texts, which plot.Legend keeps private,
	// to size the legend column.
	legendNames []string
}

func newFigure(title, xlabel, ylabel string) *figure {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(14)
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.X.Label.TextStyle.Font.Size = vg.Points(12)
	p.Y.Label.TextStyle.Font.Size = vg.Points(12)
	leg := plot.NewLegend()
	leg.Top, leg.Left = true, true
	leg.TextStyle.Font.Size = vg.Points(11)
	leg.Padding = vg.Points(3)
	return &figure{p: p, legend: leg}
}

// render draws the figure in format ("png" or "svg") to w.
func (f *figure) render(w io.Writer, format string, size Size) error {
	size = size.orDefault()
	c, err := draw.NewFormattedCanvas(size.Width, size.Height, format)
	if err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	dc := draw.New(c)
	// The plot paints only its own part; the legend column needs a
	// background too, or it is transparent in SVG.
	dc.FillPolygon(color.White, []vg.Point{
		{X: 0, Y: 0}, {X: size.Width, Y: 0}, {X: size.Width, Y: size.Height}, {X: 0, Y: size.Height}})
	// The legend column is as wide as its longest entry.
	legendW := vg.Length(0)
	em := f.legend.TextStyle.Rectangle("M").Max.X
	for _, name := range f.legendNames {
		if tw := f.legend.TextStyle.Width(name); tw > legendW {
			legendW = tw
		}
	}
	if legendW > 0 {
		legendW += f.legend.ThumbnailWidth + 5*em
	}
	f.p.Draw(draw.Crop(dc, 0, -legendW, 0, -margin))
	if legendW > 0 {
		// Start the legend level with the top of the data area, below the
		// title.
		top := margin + f.p.Title.TextStyle.Height(f.p.Title.Text) + f.p.Title.Padding + em
		f.legend.Draw(draw.Crop(dc, size.Width-legendW+em, 0, 0, -top))
	}
	if _, err := c.WriteTo(w); err != nil {
		return fmt.Errorf("chart: encoding %s: %w", format, err)
	}
	return nil
}

// add puts an entry in the legend.
func (f *figure) add(name string, thumbs ...plot.Thumbnailer) {
	f.legend.Add(name, thumbs...)
	f.legendNames = append(f.legendNames, name)
}

// writeFile renders with draw into memory and then replaces path with the
// result through a temporary file in the same directory, so that readers
// never see a partial chart.
func writeFile(path string, draw func(w io.Writer, format string) error) error {
	format, err := Format(path)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := draw(&buf, format); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("chart: writing %s: %w", path, err)
	}
	_, werr := tmp.Write(buf.Bytes())
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("chart: writing %s: %w", path, err)
	}
	// CreateTemp makes the file 0600; a chart is for sharing.
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("chart: writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("chart: writing %s: %w", path, err)
	}
	return nil
}

// palette is Tableau 10: distinct hues that survive greyscale printing
// better than plotutil's defaults.
var palette = []color.RGBA{
	{0x4e, 0x79, 0xa7, 0xff}, // blue
	{0xf2, 0x8e, 0x2b, 0xff}, // orange
	{0x59, 0xa1, 0x4f, 0xff}, // green
	{0xe1, 0x57, 0x59, 0xff}, // red
	{0x76, 0xb7, 0xb2, 0xff}, // teal
	{0xed, 0xc9, 0x48, 0xff}, // yellow
	{0xb0, 0x7a, 0xa1, 0xff}, // purple
	{0xff, 0x9d, 0xa7, 0xff}, // pink
	{0x9c, 0x75, 0x5f, 0xff}, // brown
	{0x4b, 0x4b, 0x8f, 0xff}, // indigo
}

// grey is the colour of "other" and of reference lines.
var grey = color.RGBA{0xba, 0xb0, 0xac, 0xff}

// policyColor gives the paper's policies fixed colours, so that FLEX is
// the same blue in every chart, and other names the rest in order.
func policyColor(name string, i int) color.Color {
	switch name {
	case "flex":
		return palette[0]
	case "fair":
		return palette[1]
	case "fifo":
		return palette[2]
	case "optimal":
		return palette[3]
	}
	return palette[(4+i)%len(palette)]
}
