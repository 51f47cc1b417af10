package epochlog

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Formats lists the report formats WriteReport knows.
func Formats() []string { return []string{"table", "csv", "json"} }

// WriteReport writes rep in format "table" (aligned text: allocations,
// objectives, summary, gaps), "csv" (one row per epoch, policy and job;
// then, after a blank line, the summary with its own header, and after
// another the gaps with theirs) or "json" (the Report object). Callers that must not leave half a report behind write
// into a buffer first.
func WriteReport(w io.Writer, format string, rep Report) error {
	switch format {
	case "table", "":
		return writeTable(w, rep)
	case "csv":
		return writeCSV(w, rep)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if rep.Epochs == nil {
			rep.Epochs = []EpochReport{}
		}
		if rep.Gaps == nil {
			rep.Gaps = []Gap{}
		}
		if err := enc.Encode(rep); err != nil {
			return fmt.Errorf("encoding the replay report: %w", err)
		}
		return nil
	}
	return fmt.Errorf("unknown format %q (want table, csv or json)", format)
}

// clusterName shows a line without "cluster" as "-" in text.
func clusterName(c string) string {
	if c == "" {
		return "-"
	}
	return c
}

// num formats an objective value; "-" when the phase had no jobs.
func num(x *float64) string {
	if x == nil {
		return "-"
	}
	return strconv.FormatFloat(*x, 'g', 6, 64)
}

// csvNum formats an objective value in full precision; empty when absent.
func csvNum(x *float64) string {
	if x == nil {
		return ""
	}
	return strconv.FormatFloat(*x, 'g', -1, 64)
}

func writeTable(w io.Writer, rep Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "allocations (map/reduce slots; * differs from %s)\n", Logged)
	fmt.Fprintf(tw, "cluster\tepoch\tjob\t%s\n", strings.Join(rep.Policies, "\t"))
	for _, er := range rep.Epochs {
		if len(er.Decisions) == 0 {
			continue
		}
		for k, a := range er.Decisions[0].Allocations {
			fmt.Fprintf(tw, "%s\t%d\t%s", clusterName(er.Cluster), er.Epoch, a.ID)
			for _, d := range er.Decisions {
				b := d.Allocations[k]
				mark := ""
				if b != a {
					mark = "*"
				}
				fmt.Fprintf(tw, "\t%d/%d%s", b.Map, b.Reduce, mark)
			}
			fmt.Fprintln(tw)
		}
	}
	obj := "logged objectives"
	if rep.Objective != "" {
		obj = rep.Objective
	}
	fmt.Fprintf(tw, "\nobjective values (map / reduce; %s)\n", obj)
	fmt.Fprintf(tw, "cluster\tepoch\t%s\n", strings.Join(rep.Policies, "\t"))
	for _, er := range rep.Epochs {
		fmt.Fprintf(tw, "%s\t%d", clusterName(er.Cluster), er.Epoch)
		for _, d := range er.Decisions {
			fmt.Fprintf(tw, "\t%s / %s", num(d.MapObjective), num(d.ReduceObjective))
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprintf(tw, "\nsummary (against %s)\n", Logged)
	fmt.Fprintln(tw, "policy\tepochs\tdiffering epochs\tabs slot diff\tlargest diff\tmean map objective\tmean reduce objective")
	for _, s := range rep.Summary {
		largest := "-"
		if l := s.Largest; l != nil {
			largest = fmt.Sprintf("%+d %s slots for %s in epoch %d of %s (line %d; %s: %d)",
				l.Slots, l.Phase, l.Job, l.Epoch, clusterName(l.Cluster), l.Line, Logged, l.Logged)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\n", s.Policy, s.Epochs, s.DifferingEpochs, s.AbsSlotDiff,
			largest, num(s.MeanMapObjective), num(s.MeanReduceObjective))
	}
	fmt.Fprintf(tw, "\ngaps: %d, %d epochs missing (each decided after a gap from the state the last logged epoch left, as the server did)\n", len(rep.Gaps), rep.MissingEpochs)
	for _, g := range rep.Gaps {
		fmt.Fprintf(tw, "  %s\n", g)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("writing the replay table: %w", err)
	}
	return nil
}

func writeCSV(w io.Writer, rep Report) error {
	cw := csv.NewWriter(w)
	rows := [][]string{{"cluster", "epoch", "line", "policy", "job", "map", "reduce", "map_diff", "reduce_diff", "map_objective", "reduce_objective"}}
	for _, er := range rep.Epochs {
		for p, d := range er.Decisions {
			for k, a := range d.Allocations {
				b := er.Decisions[0].Allocations[k]
				rows = append(rows, []string{er.Cluster, strconv.FormatInt(er.Epoch, 10), strconv.Itoa(er.Line),
					rep.Policies[p], a.ID, strconv.Itoa(a.Map), strconv.Itoa(a.Reduce),
					strconv.Itoa(a.Map - b.Map), strconv.Itoa(a.Reduce - b.Reduce),
					csvNum(d.MapObjective), csvNum(d.ReduceObjective)})
			}
		}
	}
	if err := cw.WriteAll(rows); err != nil {
		return fmt.Errorf("writing the replay csv: %w", err)
	}
	// The summary is a second table; a blank line separates them.
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("writing the replay csv: %w", err)
	}
	rows = [][]string{{"policy", "epochs", "differing_epochs", "abs_slot_diff", "largest_diff", "largest_cluster",
		"largest_epoch", "largest_line", "largest_job", "largest_phase", "mean_map_objective", "mean_reduce_objective"}}
	for _, s := range rep.Summary {
		row := []string{s.Policy, strconv.Itoa(s.Epochs), strconv.Itoa(s.DifferingEpochs), strconv.Itoa(s.AbsSlotDiff)}
		if l := s.Largest; l != nil {
			row = append(row, strconv.Itoa(l.Slots), l.Cluster, strconv.FormatInt(l.Epoch, 10), strconv.Itoa(l.Line), l.Job, l.Phase)
		} else {
			row = append(row, "", "", "", "", "", "")
		}
		rows = append(rows, append(row, csvNum(s.MeanMapObjective), csvNum(s.MeanReduceObjective)))
	}
	if err := cw.WriteAll(rows); err != nil {
		return fmt.Errorf("writing the replay csv summary: %w", err)
	}
	// The gaps are a third table, after another blank line.
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("writing the replay csv: %w", err)
	}
	rows = [][]string{{"gap_cluster", "after_epoch", "before_epoch", "line", "missing_epochs"}}
	for _, g := range rep.Gaps {
		rows = append(rows, []string{g.Cluster, strconv.FormatInt(g.After, 10), strconv.FormatInt(g.Before, 10),
			strconv.Itoa(g.Line), strconv.FormatInt(g.Missing, 10)})
	}
	if err := cw.WriteAll(rows); err != nil {
		return fmt.Errorf("writing the replay csv gaps: %w", err)
	}
	return nil
}
