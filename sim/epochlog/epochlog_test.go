package epochlog_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/sim/epochlog"
	"github.com/flexd/flexd/sim/epochlog/epochlogtest"
	"github.com/flexd/flexd/solver"
)

// line is a minimal valid epoch line of cluster c.
func line(c string, ep int) string {
	return `{"cluster":"` + c + `","epoch":` + itoa(ep) + `,"now":` + itoa(10*ep) +
		`,"epoch_length":10,"slots":{"map":4,"reduce":2},"jobs":[{"id":"j","submitted":0,"map":{"min":0,"max":4,"work":100}}]}`
}

func itoa(n int) string { return strconv.Itoa(n) }

func generated(t *testing.T, n int) []epochlog.Entry {
	t.Helper()
	b, err := epochlogtest.Log(n, "c1")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := epochlog.Read(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("Read of a generated log: %v", err)
	}
	return entries
}

func TestRead(t *testing.T) {
	for name, tc := range map[string]struct {
		log       string
		wantN     int
		wantLine  int
		wantOrder bool
		wantErr   string
	}{
		"consecutive epochs":             {log: line("c1", 1) + "\n" + line("c1", 2) + "\n", wantN: 2},
		"no final newline, CRLF, blanks": {log: line("c1", 3) + "\r\n\n  \n" + line("c1", 4), wantN: 2},
		"clusters interleaved":           {log: line("a", 1) + "\n" + line("b", 7) + "\n" + line("a", 2) + "\n" + line("b", 8) + "\n", wantN: 4},
		"an empty log":                   {log: "", wantN: 0},
		"malformed JSON": {
			log: line("c1", 1) + "\n" + `{"epoch": 2, "now": ` + "\n", wantLine: 2, wantErr: "not an epoch request",
		},
		"an unknown field, as the server refuses it": {
			log: line("c1", 1) + "\n" + strings.Replace(line("c1", 2), `"now"`, `"shard":1,"now"`, 1), wantLine: 2, wantErr: `unknown field "shard"`,
		},
		"trailing data": {log: line("c1", 1) + " {}", wantLine: 1, wantErr: "data after the JSON object"},
		"an invalid request": {
			log: strings.Replace(line("c1", 1), `"map":4`, `"map":0`, 1), wantLine: 1, wantErr: "slots.map",
		},
		"a gap of one": {
			log: line("c1", 1) + "\n" + line("c1", 2) + "\n" + line("c1", 4) + "\n", wantLine: 3, wantOrder: true,
			wantErr: `line 3: epochs out of order: cluster "c1": epoch 4 after epoch 2 (line 2): epoch 3 is missing`,
		},
		"a gap of several": {
			log: line("c1", 1) + "\n" + line("c1", 5) + "\n", wantLine: 2, wantOrder: true, wantErr: "epochs 2 to 4 are missing",
		},
		"a decreasing epoch": {
			log: line("c1", 2) + "\n" + line("c1", 3) + "\n" + line("c1", 1) + "\n", wantLine: 3, wantOrder: true,
			wantErr: "epoch 1 after epoch 3 (line 2): epochs must increase",
		},
		"a repeated epoch": {
			log: line("c1", 2) + "\n" + line("c1", 2) + "\n", wantLine: 2, wantOrder: true, wantErr: "epoch 2 repeats line 1's",
		},
		"order is per cluster": {
			log: line("a", 1) + "\n" + line("b", 1) + "\n" + line("a", 3) + "\n", wantLine: 3, wantOrder: true, wantErr: `cluster "a"`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			entries, err := epochlog.Read(strings.NewReader(tc.log))
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Read: %v", err)
				}
				if len(entries) != tc.wantN {
					t.Fatalf("%d entries, want %d", len(entries), tc.wantN)
				}
				return
			}
			var le *epochlog.LineError
			if !errors.As(err, &le) || le.Line != tc.wantLine {
				t.Fatalf("err = %v, want a LineError on line %d", err, tc.wantLine)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("err = %q, want it to contain %q", err, tc.wantErr)
			}
			if got := errors.Is(err, epochlog.ErrOrder); got != tc.wantOrder {
				t.Errorf("errors.Is(err, ErrOrder) = %v, want %v", got, tc.wantOrder)
			}
			if entries != nil {
				t.Errorf("Read returned %d entries with its error", len(entries))
			}
		})
	}
}

func TestReadKeepsLineNumbers(t *testing.T) {
	entries, err := epochlog.Read(strings.NewReader("\n" + line("c1", 1) + "\n\n" + line("c1", 2) + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if entries[0].Line != 2 || entries[1].Line != 4 || entries[1].Cluster != "c1" || entries[1].Request.Epoch != 2 {
		t.Errorf("entries = %+v, want lines 2 and 4 of cluster c1", entries)
	}
}

func TestReplay(t *testing.T) {
	entries := generated(t, 20)
	rep, err := epochlog.Replay(entries, epochlog.Options{Policies: []string{"flex", "fair", "fifo"}})
	if err != nil {
		t.Fatalf("Replay: %v", err)
	}
	if want := []string{epochlog.Logged, "flex", "fair", "fifo"}; strings.Join(rep.Policies, ",") != strings.Join(want, ",") {
		t.Fatalf("policies = %v, want %v", rep.Policies, want)
	}
	if len(rep.Epochs) != 20 || len(rep.Last) != 4 {
		t.Fatalf("%d epochs and %d last decisions, want 20 and 4", len(rep.Epochs), len(rep.Last))
	}
	byPolicy := map[string]epochlog.Summary{}
	for _, s := range rep.Summary {
		byPolicy[s.Policy] = s
	}
	// The log was made by flex, so flex re-decides it exactly.
	if s := byPolicy["flex"]; s.DifferingEpochs != 0 || s.AbsSlotDiff != 0 || s.Largest != nil {
		t.Errorf("flex summary = %+v, want no difference from the logged policy", s)
	}
	fair := byPolicy["fair"]
	if fair.DifferingEpochs == 0 || fair.Largest == nil {
		t.Fatalf("fair summary = %+v, want differences", fair)
	}
	// The summary agrees with the epochs it sums up.
	var differing, abs, largest int
	for _, er := range rep.Epochs {
		d := er.Decisions[2]
		if d.Differs {
			differing++
		}
		abs += d.AbsDiff
		for k, a := range d.Allocations {
			b := er.Decisions[0].Allocations[k]
			largest = max(largest, a.Map-b.Map, b.Map-a.Map, a.Reduce-b.Reduce, b.Reduce-a.Reduce)
		}
	}
	if fair.DifferingEpochs != differing || fair.AbsSlotDiff != abs || max(fair.Largest.Slots, -fair.Largest.Slots) != largest {
		t.Errorf("fair summary = %+v (largest %+v), want %d differing epochs, %d slots, largest %d",
			fair, *fair.Largest, differing, abs, largest)
	}
	l := fair.Largest
	er := rep.Epochs[l.Line-1]
	k := 0
	for er.Decisions[0].Allocations[k].ID != l.Job {
		k++
	}
	got, logged := er.Decisions[2].Allocations[k].Map, er.Decisions[0].Allocations[k].Map
	if l.Phase == "reduce" {
		got, logged = er.Decisions[2].Allocations[k].Reduce, er.Decisions[0].Allocations[k].Reduce
	}
	if er.Epoch != l.Epoch || got-logged != l.Slots || logged != l.Logged {
		t.Errorf("largest = %+v, but epoch %d has %s %s %d under fair and %d logged", *l, er.Epoch, l.Job, l.Phase, got, logged)
	}
	// Flex minimises the logged objective, so fair's mean is no better.
	if *fair.MeanMapObjective <= *byPolicy["flex"].MeanMapObjective {
		t.Errorf("fair mean map objective %v <= flex's %v", *fair.MeanMapObjective, *byPolicy["flex"].MeanMapObjective)
	}
}

func TestReplayObjectiveOverride(t *testing.T) {
	entries := generated(t, 8)
	plain, err := epochlog.Replay(entries, epochlog.Options{Policies: []string{"flex"}})
	if err != nil {
		t.Fatal(err)
	}
	over, err := epochlog.Replay(entries, epochlog.Options{Policies: []string{"flex"}, Objective: penalty.MaxStretch})
	if err != nil {
		t.Fatal(err)
	}
	if over.Objective != string(penalty.MaxStretch) {
		t.Errorf("objective = %q", over.Objective)
	}
	if *over.Summary[0].MeanMapObjective == *plain.Summary[0].MeanMapObjective {
		t.Errorf("the override left the mean objective at %v", *plain.Summary[0].MeanMapObjective)
	}
	// The entries are shared: overriding must not have changed them.
	if entries[0].Request.Objective != penalty.AvgResponseTime {
		t.Errorf("Replay changed the entries' objective to %q", entries[0].Request.Objective)
	}
}

func TestReplayErrors(t *testing.T) {
	entries := generated(t, 3)
	for name, tc := range map[string]struct {
		opts       epochlog.Options
		wantOpts   bool
		wantInvald bool
		wantErr    string
	}{
		"unknown policy":    {opts: epochlog.Options{Policies: []string{"lottery"}}, wantOpts: true, wantErr: `unknown policy "lottery"`},
		"policy twice":      {opts: epochlog.Options{Policies: []string{"fair", "fair"}}, wantOpts: true, wantErr: "named twice"},
		"unknown objective": {opts: epochlog.Options{Objective: "speed"}, wantOpts: true, wantErr: `unknown objective "speed"`},
		"objective needs deadlines the log lacks": {
			opts: epochlog.Options{Policies: []string{"fair"}, Objective: penalty.AvgTardiness}, wantInvald: true, wantErr: "line 1: epoch 1 under logged",
		},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := epochlog.Replay(entries, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
			}
			if got := errors.Is(err, epochlog.ErrOptions); got != tc.wantOpts {
				t.Errorf("errors.Is(err, ErrOptions) = %v, want %v", got, tc.wantOpts)
			}
			var ve *solver.ValidationError
			if got := errors.As(err, &ve); got != tc.wantInvald {
				t.Errorf("errors.As(err, *solver.ValidationError) = %v, want %v", got, tc.wantInvald)
			}
		})
	}
}

func TestWriteReport(t *testing.T) {
	rep, err := epochlog.Replay(generated(t, 5), epochlog.Options{Policies: []string{"fair"}})
	if err != nil {
		t.Fatal(err)
	}
	for name, check := range map[string]func(t *testing.T, out string){
		"table": func(t *testing.T, out string) {
			for _, w := range []string{"allocations (map/reduce slots", "cluster  epoch  job", "objective values", "summary (against logged)", "fair "} {
				if !strings.Contains(out, w) {
					t.Errorf("the table lacks %q:\n%s", w, out)
				}
			}
		},
		"csv": func(t *testing.T, out string) {
			blocks := strings.SplitN(out, "\n\n", 3)
			if len(blocks) != 3 {
				t.Fatalf("want three blank-line separated tables:\n%s", out)
			}
			gaps, err := csv.NewReader(strings.NewReader(blocks[2])).ReadAll()
			if err != nil || len(gaps) != 1 || gaps[0][0] != "gap_cluster" {
				t.Errorf("gaps table = %v (%v), want its header alone", gaps, err)
			}
			detail, err := csv.NewReader(strings.NewReader(blocks[0])).ReadAll()
			if err != nil {
				t.Fatalf("detail table: %v", err)
			}
			var jobs int
			for _, er := range rep.Epochs {
				jobs += len(er.Decisions[0].Allocations)
			}
			if len(detail) != 1+2*jobs || detail[0][0] != "cluster" {
				t.Errorf("detail has %d rows (header %v), want 1 + 2*%d", len(detail), detail[0], jobs)
			}
			summary, err := csv.NewReader(strings.NewReader(blocks[1])).ReadAll()
			if err != nil {
				t.Fatalf("summary table: %v", err)
			}
			if len(summary) != 3 || summary[2][0] != "fair" {
				t.Errorf("summary = %v, want a header and rows logged, fair", summary)
			}
		},
		"json": func(t *testing.T, out string) {
			var back epochlog.Report
			if err := json.Unmarshal([]byte(out), &back); err != nil {
				t.Fatalf("decoding: %v", err)
			}
			if len(back.Epochs) != 5 || len(back.Summary) != 2 || back.Summary[1].DifferingEpochs != rep.Summary[1].DifferingEpochs {
				t.Errorf("decoded %d epochs and summary %+v", len(back.Epochs), back.Summary)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			var a, b bytes.Buffer
			if err := epochlog.WriteReport(&a, name, rep); err != nil {
				t.Fatal(err)
			}
			if err := epochlog.WriteReport(&b, name, rep); err != nil || a.String() != b.String() {
				t.Errorf("a second write differs (err %v)", err)
			}
			check(t, a.String())
		})
	}
	if err := epochlog.WriteReport(&bytes.Buffer{}, "xml", rep); err == nil {
		t.Error("format xml accepted")
	}
}

func TestReconstruct(t *testing.T) {
	w := epochlog.Reconstruct(generated(t, 20))
	if len(w.Clusters) != 1 || w.Clusters[0].Name != "c1" || w.Clusters[0].Epochs != 20 || w.Clusters[0].Slots.Map != epochlogtest.MapSlots {
		t.Fatalf("clusters = %+v", w.Clusters)
	}
	if len(w.Jobs) != 7 {
		t.Fatalf("%d jobs, want 7", len(w.Jobs))
	}
	byID := map[string]epochlog.Job{}
	for _, j := range w.Jobs {
		byID[j.ID] = j
	}
	for name, tc := range map[string]struct {
		id   string
		want func(j epochlog.Job) bool
	}{
		"arrival and first sight": {"job_3", func(j epochlog.Job) bool {
			return j.Arrival == 1017 && j.FirstSeen == 1020 && j.FirstEpoch == 3 && j.Weight == 2
		}},
		"map work when first seen": {"job_1", func(j epochlog.Job) bool {
			return j.Map.Seen && j.Map.Epoch == 1 && j.Map.Work == 1200 && j.Map.Tasks == 40 && j.Map.Min == 1 && j.Map.Max == 40
		}},
		"reduce from its own first sighting": {"job_2", func(j epochlog.Job) bool {
			return j.Reduce.Seen && j.Reduce.Epoch > j.Map.Epoch && j.Reduce.Work == 40 && j.Reduce.Max == 2
		}},
		"a map-only job has no reduce": {"job_3", func(j epochlog.Job) bool { return !j.Reduce.Seen && j.Reduce.Work == 0 }},
		"a job that left":              {"job_2", func(j epochlog.Job) bool { return j.LastEpoch < 20 }},
	} {
		t.Run(name, func(t *testing.T) {
			if j, ok := byID[tc.id]; !ok || !tc.want(j) {
				t.Errorf("%s = %+v", tc.id, j)
			}
		})
	}
}

// TestReadAllowingGaps: ReadAllowingGaps accepts what the server accepts
// (gaps), still refuses what it refuses (a repeated or decreasing epoch),
// and Replay's report lists each gap and counts the missing epochs.
func TestReadAllowingGaps(t *testing.T) {
	gappy := line("c1", 1) + "\n" + line("c1", 2) + "\n" + line("c1", 4) + "\n" + line("b", 1) + "\n" + line("c1", 9) + "\n" + line("b", 2) + "\n"
	if _, err := epochlog.Read(strings.NewReader(gappy)); !errors.Is(err, epochlog.ErrGap) || !errors.Is(err, epochlog.ErrOrder) {
		t.Fatalf("Read of a log with gaps = %v, want ErrGap and ErrOrder", err)
	}
	entries, err := epochlog.ReadAllowingGaps(strings.NewReader(gappy))
	if err != nil {
		t.Fatalf("ReadAllowingGaps: %v", err)
	}
	if len(entries) != 6 {
		t.Fatalf("%d entries, want 6", len(entries))
	}
	rep, err := epochlog.Replay(entries, epochlog.Options{Policies: []string{"fair"}})
	if err != nil {
		t.Fatalf("Replay: %v", err)
	}
	want := []epochlog.Gap{
		{Cluster: "c1", After: 2, Before: 4, Line: 3, Missing: 1},
		{Cluster: "c1", After: 4, Before: 9, Line: 5, Missing: 4},
	}
	if diff := cmp.Diff(want, rep.Gaps); diff != "" {
		t.Errorf("gaps (-want +got):\n%s", diff)
	}
	if rep.MissingEpochs != 5 {
		t.Errorf("MissingEpochs = %d, want 5", rep.MissingEpochs)
	}
	if got := rep.Gaps[1].String(); got != `cluster "c1": epochs 5 to 8 missing (4), between epoch 4 and epoch 9 (line 5)` {
		t.Errorf("gap text = %q", got)
	}
	for name, bad := range map[string]string{
		"repeated":   line("c1", 2) + "\n" + line("c1", 2) + "\n",
		"decreasing": line("c1", 3) + "\n" + line("c1", 1) + "\n",
	} {
		_, err := epochlog.ReadAllowingGaps(strings.NewReader(bad))
		if !errors.Is(err, epochlog.ErrOrder) || errors.Is(err, epochlog.ErrGap) {
			t.Errorf("%s: ReadAllowingGaps = %v, want ErrOrder and not ErrGap", name, err)
		}
	}
	// Consecutive logs have no gap, in every format.
	rep, err = epochlog.Replay(generated(t, 3), epochlog.Options{Policies: []string{"fair"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Gaps) != 0 || rep.MissingEpochs != 0 {
		t.Errorf("a consecutive log has gaps %v (%d missing)", rep.Gaps, rep.MissingEpochs)
	}
}
