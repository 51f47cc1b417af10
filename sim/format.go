package sim

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"
)

// Formats lists the output formats WriteRows knows.
func Formats() []string { return []string{"table", "csv", "json"} }

// WriteRows writes rows in format "table" (aligned plain text), "csv"
// (with a header) or "json" (an array of objects; a ratio with no instance
// is null, since JSON has no NaN).
func WriteRows(w io.Writer, format string, rows []Row) error {
	switch format {
	case "table", "":
		return writeTable(w, rows)
	case "csv":
		return writeCSV(w, rows)
	case "json":
		return writeJSON(w, rows)
	}
	return fmt.Errorf("unknown format %q (want table, csv or json)", format)
}

func sweepOf(rows []Row) string {
	if len(rows) > 0 {
		return rows[0].Sweep
	}
	return ""
}

// ratio formats a ratio with 4 decimals, "-" when no instance counted.
func ratio(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return strconv.FormatFloat(x, 'f', 4, 64)
}

func writeTable(w io.Writer, rows []Row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	sweep := sweepOf(rows)
	if sweep != "" {
		fmt.Fprintf(tw, "%s\t", sweep)
	}
	fmt.Fprint(tw, "metric\tpolicy\tavg\tworst\tn\tskipped\n")
	for _, r := range rows {
		if sweep != "" {
			fmt.Fprintf(tw, "%g\t", r.Value)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\n", r.Metric, r.Policy, ratio(r.Avg), ratio(r.Worst), r.Instances, r.Skipped)
	}
	return tw.Flush()
}

func writeCSV(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	head := []string{"metric", "policy", "avg", "worst", "instances", "skipped", "worst_instance"}
	sweep := sweepOf(rows)
	if sweep != "" {
		head = append([]string{sweep}, head...)
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	num := func(x float64) string {
		if math.IsNaN(x) {
			return ""
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	for _, r := range rows {
		rec := []string{string(r.Metric), r.Policy, num(r.Avg), num(r.Worst),
			strconv.Itoa(r.Instances), strconv.Itoa(r.Skipped), strconv.Itoa(r.WorstInstance)}
		if sweep != "" {
			rec = append([]string{num(r.Value)}, rec...)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// jsonRow is Row with nullable ratios.
type jsonRow struct {
	Sweep         string   `json:"sweep,omitempty"`
	Value         *float64 `json:"value,omitempty"`
	Metric        string   `json:"metric"`
	Policy        string   `json:"policy"`
	Instances     int      `json:"instances"`
	Skipped       int      `json:"skipped"`
	Avg           *float64 `json:"avg"`
	Worst         *float64 `json:"worst"`
	WorstInstance int      `json:"worst_instance"`
}

// MarshalJSON writes a Row with null ratios when no instance counted
// (JSON has no NaN) and no sweep fields outside a sweep.
func (r Row) MarshalJSON() ([]byte, error) {
	out := jsonRow{Sweep: r.Sweep, Metric: string(r.Metric), Policy: r.Policy,
		Instances: r.Instances, Skipped: r.Skipped, WorstInstance: r.WorstInstance}
	if r.Sweep != "" {
		out.Value = &r.Value
	}
	if !math.IsNaN(r.Avg) {
		out.Avg, out.Worst = &r.Avg, &r.Worst
	}
	return json.Marshal(out)
}

func writeJSON(w io.Writer, rows []Row) error {
	if rows == nil {
		rows = []Row{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rows)
}
