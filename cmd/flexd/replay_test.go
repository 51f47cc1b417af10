package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/sim/epochlog"
	"github.com/flexd/flexd/sim/epochlog/epochlogtest"
	"github.com/flexd/flexd/store/memory"
)

// runFlexd runs the root command with args and returns stdout and the error.
func runFlexd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRootCmd()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

// httpDo sends one request to the test server and returns the body.
func httpDo(t *testing.T, method, url, body string) []byte {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %d %s (%v)", method, url, res.StatusCode, b, err)
	}
	return b
}

// TestReplayAgainstServer is the acceptance check of `flexd replay`: an
// epoch log exported by a running flexd replays end to end; under flex the
// re-decided allocations equal the stored decisions, under fair they
// differ and the report says where and by how much.
func TestReplayAgainstServer(t *testing.T) {
	srv, err := httpapi.New(httpapi.Config{
		Store: memory.New(memory.Config{}), RateLimit: -1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	const epochs = 20
	reqs, err := epochlogtest.Requests(epochs, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reqs {
		body, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		httpDo(t, http.MethodPost, ts.URL+"/v1/clusters/c1/epochs", string(body))
	}
	logPath := filepath.Join(t.TempDir(), "c1.jsonl")
	if err := os.WriteFile(logPath, httpDo(t, http.MethodGet, ts.URL+"/v1/clusters/c1/epochs.jsonl", ""), 0o644); err != nil {
		t.Fatal(err)
	}
	// The stored decisions, epoch by epoch.
	stored := map[int64][]httpapi.EpochAllocation{}
	for n := int64(1); n <= epochs; n++ {
		var se httpapi.StoredEpoch
		if err := json.Unmarshal(httpDo(t, http.MethodGet, fmt.Sprintf("%s/v1/clusters/c1/epochs/%d", ts.URL, n), ""), &se); err != nil {
			t.Fatal(err)
		}
		var dec httpapi.EpochResponse
		if err := json.Unmarshal(se.Decision, &dec); err != nil {
			t.Fatalf("epoch %d decision: %v", n, err)
		}
		stored[n] = dec.Allocations
	}

	out, err := runFlexd(t, "replay", "--log", logPath, "--policies", "flex,fair", "--format", "json", "--quiet")
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	var rep epochlog.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("decoding the report: %v\n%s", err, out)
	}
	if len(rep.Epochs) != epochs {
		t.Fatalf("the report has %d epochs, want %d", len(rep.Epochs), epochs)
	}
	fairDiffs := 0
	for _, er := range rep.Epochs {
		want := stored[er.Epoch]
		if er.Cluster != "c1" {
			t.Errorf("epoch %d: cluster %q, want c1", er.Epoch, er.Cluster)
		}
		for p, pol := range rep.Policies {
			got := er.Decisions[p].Allocations
			if len(got) != len(want) {
				t.Fatalf("epoch %d under %s: %d allocations, stored %d", er.Epoch, pol, len(got), len(want))
			}
			same := true
			for k, a := range got {
				w := want[k]
				if a.ID != w.ID || a.Map != w.Map || a.Reduce != w.Reduce {
					same = false
					if pol != "fair" {
						t.Errorf("epoch %d under %s: %s = %d/%d, stored %s = %d/%d", er.Epoch, pol, a.ID, a.Map, a.Reduce, w.ID, w.Map, w.Reduce)
					}
				}
			}
			if pol == "fair" && !same {
				fairDiffs++
			}
		}
	}
	fair := rep.Summary[2]
	if fair.Policy != "fair" || fair.DifferingEpochs != fairDiffs || fairDiffs == 0 {
		t.Fatalf("fair summary = %+v, want %d (> 0) differing epochs", fair, fairDiffs)
	}
	// The largest difference is where the report says, against the
	// stored decision.
	l := fair.Largest
	for _, a := range stored[l.Epoch] {
		if a.ID != l.Job {
			continue
		}
		got := map[string]int{"map": a.Map, "reduce": a.Reduce}[l.Phase]
		if got != l.Logged {
			t.Errorf("largest = %+v, but the stored decision gave %s %d %s slots", *l, l.Job, got, l.Phase)
		}
	}
	if flex := rep.Summary[1]; flex.DifferingEpochs != 0 || flex.AbsSlotDiff != 0 {
		t.Errorf("flex summary = %+v, want no difference", flex)
	}

	// The table says the same in words.
	table, err := runFlexd(t, "replay", "--log", logPath, "--policies", "flex,fair", "--quiet")
	if err != nil {
		t.Fatalf("replay (table): %v", err)
	}
	where := fmt.Sprintf("%+d %s slots for %s in epoch %d of c1", l.Slots, l.Phase, l.Job, l.Epoch)
	if !strings.Contains(table, where) {
		t.Errorf("the table does not say %q:\n%s", where, table)
	}
}

func TestReplayBadInput(t *testing.T) {
	dir := t.TempDir()
	good, err := epochlogtest.Log(4, "c1")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(good), "\n")
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	goodLog := write("good.jsonl", string(good))
	for name, tc := range map[string]struct {
		args    []string
		wantErr string
	}{
		"no --log":        {args: []string{"replay"}, wantErr: "--log FILE is required"},
		"unreadable file": {args: []string{"replay", "--log", filepath.Join(dir, "absent.jsonl")}, wantErr: "no such file"},
		"malformed line": {
			args:    []string{"replay", "--log", write("bad.jsonl", lines[0]+lines[1]+"{\"epoch\": 3,\n")},
			wantErr: "line 3: not an epoch request",
		},
		"gap": {
			args:    []string{"replay", "--log", write("gap.jsonl", lines[0]+lines[1]+lines[3])},
			wantErr: `line 3: epochs out of order: cluster "c1": epoch 4 after epoch 2 (line 2): epoch 3 is missing`,
		},
		"decreasing epoch": {
			args:    []string{"replay", "--log", write("down.jsonl", lines[0]+lines[1]+lines[2]+lines[1])},
			wantErr: "line 4: epochs out of order: cluster \"c1\": epoch 2 after epoch 3 (line 3): epochs must increase",
		},
		"empty log":         {args: []string{"replay", "--log", write("empty.jsonl", "")}, wantErr: "no epochs"},
		"unknown policy":    {args: []string{"replay", "--log", goodLog, "--policies", "lottery"}, wantErr: `unknown policy "lottery"`},
		"unknown objective": {args: []string{"replay", "--log", goodLog, "--objective", "speed"}, wantErr: `unknown metric "speed"`},
		"objective the log cannot score": {
			args: []string{"replay", "--log", goodLog, "--objective", "avg_tardiness"}, wantErr: "line 1: epoch 1 under logged",
		},
		"bad format":    {args: []string{"replay", "--log", goodLog, "--format", "xml"}, wantErr: `--format "xml"`},
		"bad plot type": {args: []string{"replay", "--log", goodLog, "--plot", filepath.Join(dir, "x.pdf")}, wantErr: "--plot"},
	} {
		t.Run(name, func(t *testing.T) {
			out, err := runFlexd(t, append(tc.args, "--quiet")...)
			var ue usageError
			if !errors.As(err, &ue) {
				t.Fatalf("err = %v, want a usageError (exit status 2)", err)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("err = %q, want it to contain %q", err, tc.wantErr)
			}
			if out != "" {
				t.Errorf("a failed replay wrote %q", out)
			}
		})
	}
	t.Run("a plot that cannot be written leaves stdout empty", func(t *testing.T) {
		out, err := runFlexd(t, "replay", "--log", goodLog, "--quiet", "--plot", filepath.Join(dir, "no", "such", "dir.png"))
		if err == nil || out != "" {
			t.Fatalf("err = %v, stdout %q; want an error and nothing written", err, out)
		}
	})
}

func TestReplayPlot(t *testing.T) {
	dir := t.TempDir()
	good, err := epochlogtest.Log(12, "c1")
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "c1.jsonl")
	if err := os.WriteFile(logPath, good, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct{ file, magic string }{
		"png": {"last.png", "\x89PNG"},
		"svg": {"last.svg", "<?xml"},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, tc.file)
			out, err := runFlexd(t, "replay", "--log", logPath, "--policies", "fair,flex", "--quiet", "--plot", path)
			if err != nil || !strings.Contains(out, "summary") {
				t.Fatalf("replay --plot: %v\n%s", err, out)
			}
			b, err := os.ReadFile(path)
			if err != nil || !bytes.HasPrefix(b, []byte(tc.magic)) {
				t.Fatalf("%s: %v, starts %q", path, err, b[:min(8, len(b))])
			}
			if name == "svg" && !strings.Contains(string(b), "epoch 12: map slots per job under fair") {
				t.Errorf("the chart is not the last epoch under the first policy")
			}
		})
	}
}

// TestReplaySimulate re-runs a logged workload in the closed loop under
// each policy: one row per policy, and every job of the log that shows its
// map phase runs to completion (the simulator's report covers them all).
func TestReplaySimulate(t *testing.T) {
	dir := t.TempDir()
	good, err := epochlogtest.Log(12, "c1")
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "c1.jsonl")
	if err := os.WriteFile(logPath, good, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runFlexd(t, "replay", "--log", logPath, "--policies", "flex,fair,fifo", "--quiet", "--simulate", "--format", "csv")
	if err != nil {
		t.Fatalf("replay --simulate: %v\n%s", err, out)
	}
	// The closed-loop table follows its header line "label,...".
	_, table, ok := strings.Cut(out, "label,policy,")
	if !ok {
		t.Fatalf("no closed-loop table in:\n%s", out)
	}
	lines := strings.Split(strings.TrimSpace(table), "\n")[1:]
	if len(lines) != 3 {
		t.Fatalf("want one closed-loop row per policy, got %d:\n%s", len(lines), table)
	}
	mean := map[string]float64{}
	for _, line := range lines {
		cols := strings.Split(line, ",")
		v, err := strconv.ParseFloat(cols[7], 64)
		if err != nil {
			t.Fatalf("mean response of %q: %v", line, err)
		}
		mean[cols[0]] = v
	}
	// FLEX optimises response time: it must beat both baselines here.
	if !(mean["flex"] < mean["fair"] && mean["flex"] < mean["fifo"]) {
		t.Errorf("mean response flex %v, fair %v, fifo %v: want flex lowest", mean["flex"], mean["fair"], mean["fifo"])
	}
	if _, err := runFlexd(t, "replay", "--log", logPath, "--simulate", "--epoch", "-1", "--quiet"); err == nil {
		t.Error("--epoch -1 was accepted")
	}
}

// TestReplayAllowGapsAgainstServer is issue 18's first check: epochs with
// gaps posted to a running flexd (each answered 200), exported and
// replayed. Without --allow-gaps the replay refuses the log (exit 2) and
// names the flag; with it the report names both gaps and counts the
// missing epochs, "logged" and flex reproduce every stored decision (the
// state carried across a gap as the server carries it) and fair differs.
func TestReplayAllowGapsAgainstServer(t *testing.T) {
	srv, err := httpapi.New(httpapi.Config{
		Store: memory.New(memory.Config{}), RateLimit: -1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	reqs, err := epochlogtest.Requests(14, "")
	if err != nil {
		t.Fatal(err)
	}
	skip := map[int64]bool{4: true, 8: true, 9: true, 10: true}
	var posted []int64
	for _, r := range reqs {
		if skip[r.Epoch] {
			continue
		}
		body, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		httpDo(t, http.MethodPost, ts.URL+"/v1/clusters/c1/epochs", string(body))
		posted = append(posted, r.Epoch)
	}
	logPath := filepath.Join(t.TempDir(), "epochs.jsonl")
	if err := os.WriteFile(logPath, httpDo(t, http.MethodGet, ts.URL+"/v1/clusters/c1/epochs.jsonl", ""), 0o644); err != nil {
		t.Fatal(err)
	}
	stored := map[int64][]httpapi.EpochAllocation{}
	for _, n := range posted {
		var se httpapi.StoredEpoch
		if err := json.Unmarshal(httpDo(t, http.MethodGet, fmt.Sprintf("%s/v1/clusters/c1/epochs/%d", ts.URL, n), ""), &se); err != nil {
			t.Fatal(err)
		}
		var dec httpapi.EpochResponse
		if err := json.Unmarshal(se.Decision, &dec); err != nil {
			t.Fatalf("epoch %d decision: %v", n, err)
		}
		stored[n] = dec.Allocations
	}

	_, err = runFlexd(t, "replay", "--log", logPath, "--quiet")
	var ue usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--allow-gaps") || !strings.Contains(err.Error(), "epoch 4 is missing") {
		t.Fatalf("replay without --allow-gaps = %v; want a usage error (exit 2) naming epoch 4 and --allow-gaps", err)
	}

	out, err := runFlexd(t, "replay", "--log", logPath, "--allow-gaps", "--policies", "flex,fair", "--format", "json", "--quiet")
	if err != nil {
		t.Fatalf("replay --allow-gaps: %v", err)
	}
	var rep epochlog.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("decoding the report: %v\n%s", err, out)
	}
	wantGaps := []epochlog.Gap{
		{Cluster: "c1", After: 3, Before: 5, Line: 4, Missing: 1},
		{Cluster: "c1", After: 7, Before: 11, Line: 7, Missing: 3},
	}
	if fmt.Sprint(rep.Gaps) != fmt.Sprint(wantGaps) || rep.MissingEpochs != 4 {
		t.Errorf("gaps = %v (%d missing), want %v (4 missing)", rep.Gaps, rep.MissingEpochs, wantGaps)
	}
	if len(rep.Epochs) != len(posted) {
		t.Fatalf("the report has %d epochs, want %d", len(rep.Epochs), len(posted))
	}
	fairDiffs := 0
	for _, er := range rep.Epochs {
		want := stored[er.Epoch]
		for p, pol := range rep.Policies {
			got := er.Decisions[p].Allocations
			same := len(got) == len(want)
			for k := 0; same && k < len(got); k++ {
				same = got[k].ID == want[k].ID && got[k].Map == want[k].Map && got[k].Reduce == want[k].Reduce
			}
			switch {
			case pol == "fair" && !same:
				fairDiffs++
			case pol != "fair" && !same:
				t.Errorf("epoch %d under %s: %+v, stored %+v", er.Epoch, pol, got, want)
			}
		}
	}
	if fairDiffs == 0 || rep.Summary[2].DifferingEpochs != fairDiffs {
		t.Errorf("fair differs in %d epochs, summary says %d; want the same, above 0", fairDiffs, rep.Summary[2].DifferingEpochs)
	}

	// The table and the csv name the gaps too.
	table, err := runFlexd(t, "replay", "--log", logPath, "--allow-gaps", "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"gaps: 2, 4 epochs missing", `cluster "c1": epoch 4 missing, between epoch 3 and epoch 5 (line 4)`,
		`cluster "c1": epochs 8 to 10 missing (3), between epoch 7 and epoch 11 (line 7)`} {
		if !strings.Contains(table, w) {
			t.Errorf("the table lacks %q:\n%s", w, table)
		}
	}
	csvOut, err := runFlexd(t, "replay", "--log", logPath, "--allow-gaps", "--quiet", "--format", "csv")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(csvOut, "gap_cluster,after_epoch,before_epoch,line,missing_epochs\nc1,3,5,4,1\nc1,7,11,7,3\n") {
		t.Errorf("the csv does not list the gaps:\n%s", csvOut)
	}
}
