package tasksim

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// Formats lists the output formats of the comparisons.
func Formats() []string { return []string{"table", "json"} }

// WriteESAMR writes the ESAMR comparison: a Markdown table, or JSON.
func WriteESAMR(w io.Writer, format string, rows []ESAMRRow) error {
	if format == "json" {
		return writeJSON(w, rows)
	}
	fmt.Fprintln(w, "| detector | job | map TTE error at half (s) | reduce TTE error at half (s) | map / reduce over the life (s) | max weight error M1 / R1 / R3 | flagged | precision / recall | response with backups (s) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		flagged := strings.Join(r.Flagged, " ")
		if len(r.Flagged) > 8 {
			flagged = fmt.Sprintf("%d tasks", len(r.Flagged))
		}
		fmt.Fprintf(w, "| %s | %s | %.2f | %.2f | %.2f / %.2f | %.3f / %.3f / %.3f | %s | %.2f / %.2f | %.0f |\n",
			r.Detector, r.Job, r.MapHalf, r.ReduceHalf, r.MapLife, r.ReduceLife, r.M1, r.R1, r.R3, flagged, r.Precision, r.Recall, r.Response)
	}
	return nil
}

// WriteESPLASH writes the ESPLASH comparison: a Markdown table, or JSON.
func WriteESPLASH(w io.Writer, format string, rows []ESPLASHRow) error {
	if format == "json" {
		return writeJSON(w, rows)
	}
	fmt.Fprintln(w, "| scenario | detector | makespan (s) | increased makespan (s) | mean response (s) | backups created / succeeded / killed | killed backups' run time (s) | backups on slower nodes | backups by level |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		var levels []string
		for _, l := range slices.Sorted(maps.Keys(r.ByLevel)) {
			levels = append(levels, fmt.Sprintf("L%d: %.1f", l, r.ByLevel[l]))
		}
		fmt.Fprintf(w, "| %s | %s | %.0f | %.0f | %.0f | %.1f / %.1f / %.1f | %.0f | %.1f | %s |\n",
			r.Scenario, r.Detector, r.Makespan, r.Increased, r.MeanResponse, r.Created, r.Succeeded, r.Killed, r.Wasted, r.PlacedSlower, strings.Join(levels, ", "))
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	return nil
}

// WriteFLEX42 writes the task-level estimation study: a Markdown table,
// or JSON.
func WriteFLEX42(w io.Writer, format string, rows []FLEX42Row) error {
	if format == "json" {
		return writeJSON(w, rows)
	}
	fmt.Fprintln(w, "| task-time CV | slack | FLEX oracle (s) | FLEX extrapolate (s) | FLEX extrapolate_elapsed (s) | FAIR (s) | extrapolate vs oracle | elapsed vs oracle | gain kept (extrapolate) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %.1f | %.2f | %.0f | %.0f | %.0f | %.0f | %+.1f%% | %+.1f%% | %.0f%% |\n",
			r.TaskCV, r.Slack, r.Oracle, r.Extra, r.Elapsed, r.Fair, 100*(r.Extra/r.Oracle-1), 100*(r.Elapsed/r.Oracle-1), 100*r.Kept)
	}
	return nil
}

// WriteSEPB writes SEPB's sweep: a Markdown table, or JSON.
func WriteSEPB(w io.Writer, format string, rows []SEPBRow) error {
	if format == "json" {
		return writeJSON(w, rows)
	}
	det := "LATE"
	if len(rows) > 0 && rows[0].Detector != "late" {
		det = rows[0].Detector
	}
	fmt.Fprintf(w, "| jobs | jobs_checked | makespan (s) | speedup over %s | backups created / killed | killed backups' run time (s) | attempts killed as slow | jobs slower than with %s alone (first seed) |\n", det, det)
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		checked := fmt.Sprintf("%.1f", r.JobsChecked)
		if r.JobsChecked < 0 {
			checked = "off (" + det + ")"
		}
		fmt.Fprintf(w, "| %d | %s | %.0f | %+.1f%% | %.1f / %.1f | %.0f | %.1f | %s |\n",
			r.Jobs, checked, r.Makespan, 100*r.Speedup, r.Backups, r.Killed, r.Wasted, r.KilledSlow, strings.Join(r.Slower, " "))
	}
	return nil
}

// WritePreschedule writes the PreScheduling comparison: a Markdown table,
// or JSON.
func WritePreschedule(w io.Writer, format string, rows []PrescheduleRow) error {
	if format == "json" {
		return writeJSON(w, rows)
	}
	fmt.Fprintln(w, "| workload | PreScheduling | data locality | mean response (s) | makespan (s) | UnbalancedDegree | UnfairnessDegree | maps prescheduled |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		on := "off"
		if r.Preschedule {
			on = "on"
		}
		fmt.Fprintf(w, "| %s | %s | %.1f%% | %.0f | %.0f | %.2f | %.2f | %.1f |\n",
			r.Workload, on, 100*r.Locality, r.MeanResponse, r.Makespan, r.Unbalanced, r.Unfairness, r.Prescheduled)
	}
	return nil
}
