package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/flexd/flexd/client"
	"github.com/flexd/flexd/store"
	"github.com/flexd/flexd/store/pgtest"
	"github.com/flexd/flexd/store/postgres"
	// The test builds and runs the flexd binary; importing what it is made
	// of ties go test's result cache to their sources too.
	_ "github.com/flexd/flexd/httpapi"
	_ "github.com/flexd/flexd/store/resilient"
	_ "github.com/flexd/flexd/store/spool"
)

// privatePG is a PostgreSQL server of the test's own, started with
// scripts/pg-start.sh, that the test can stop and start again with pg_ctl
// as an outage would, without stopping the server other tests share.
type privatePG struct {
	t   *testing.T
	dir string
	url string
}

// startPrivatePG starts the server in a directory under the system's
// temporary directory (not t.TempDir: run as root, the server runs as the
// postgres user, which must be able to reach it). The test runs only where
// the PostgreSQL tests do (pgtest.URL skips it elsewhere, fails it in CI).
func startPrivatePG(t *testing.T) *privatePG {
	t.Helper()
	pgtest.URL(t)
	dir, err := os.MkdirTemp("", "flexd-fault-pg-")
	if err != nil {
		t.Fatal(err)
	}
	p := &privatePG{t: t, dir: dir}
	t.Cleanup(func() {
		p.script("--stop")
		os.RemoveAll(dir)
	})
	// Durable settings: the test counts what the database holds after
	// it was stopped under load.
	start := exec.Command("bash", "../scripts/pg-start.sh", dir, "flexd")
	start.Env = append(os.Environ(), "PG_DURABLE=1")
	out, err := start.Output()
	if err != nil {
		t.Fatalf("starting a private PostgreSQL: %v\n%s", err, exitStderr(err))
	}
	p.url = strings.TrimSpace(string(out))
	return p
}

// script runs scripts/pg-start.sh with a command (--pause, --resume,
// --stop) on the server's directory.
func (p *privatePG) script(command string) {
	if out, err := exec.Command("bash", "../scripts/pg-start.sh", command, p.dir).CombinedOutput(); err != nil {
		p.t.Errorf("pg-start.sh %s: %v\n%s", command, err, out)
	}
}

func exitStderr(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// flexdProc is flexd serve as a child process.
type flexdProc struct {
	cmd  *exec.Cmd
	base string
}

func startFlexdProc(t *testing.T, bin, addr, dbURL, spoolDir string) *flexdProc {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--addr", addr, "--database-url", dbURL, "--spool-dir", spoolDir,
		"--rate-limit", "0", "--request-timeout", "10s")
	cmd.Stderr = &testLogWriter{t: t}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &flexdProc{cmd: cmd, base: "http://" + addr}
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		p.cmd.Wait()
	})
	waitFor(t, 30*time.Second, "flexd to answer /healthz", func() bool {
		res, err := http.Get(p.base + "/healthz")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	})
	return p
}

// testLogWriter keeps a child's log out of the test output unless it fails.
type testLogWriter struct {
	t  *testing.T
	mu sync.Mutex
	b  strings.Builder
}

func (w *testLogWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.b.Len() < 1<<20 {
		w.b.Write(p)
	}
	return len(p), nil
}

// waitFor polls cond until it holds or the deadline passes: a condition,
// never a fixed sleep, decides when the test goes on.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", limit, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// faultEpoch is epoch e of a small cluster whose jobs evolve with e, so
// decisions differ from epoch to epoch.
func faultEpoch(e int) string {
	return fmt.Sprintf(`{"epoch": %d, "now": %d, "epoch_length": 0.1, "slots": {"map": 10, "reduce": 4}, "jobs": [
		{"id": "a", "submitted": 0, "map": {"min": 1, "max": 8, "work": %d, "pending": 8}},
		{"id": "b", "submitted": 1, "map": {"min": 1, "max": 6, "work": %d, "pending": 6}, "reduce": {"min": 1, "max": 2, "work": 20, "started": true}}]}`,
		e, e, 400-e, 100+3*e)
}

type answered struct {
	status     int
	decisionID string
	replay     bool
	body       string
}

// postEpoch posts one epoch through the generated client (one attempt:
// the test counts what each post gets).
func postEpoch(t *testing.T, base, cluster string, e int) answered {
	t.Helper()
	c, err := client.NewClientWithResponses(base)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.DecideEpochWithBodyWithResponse(t.Context(), cluster, nil, "application/json", strings.NewReader(faultEpoch(e)))
	if err != nil {
		t.Fatalf("posting epoch %d of %s: %v", e, cluster, err)
	}
	a := answered{status: res.StatusCode(), body: string(res.Body), replay: res.HTTPResponse.Header.Get("Idempotent-Replay") == "true"}
	if res.JSON200 != nil {
		a.decisionID = res.JSON200.DecisionId
	}
	return a
}

// readyStatus is /readyz's status, through the generated client.
func readyStatus(t *testing.T, base string) string {
	t.Helper()
	c, err := client.NewClientWithResponses(base)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.ReadyWithResponse(t.Context())
	if err != nil {
		return "unreachable"
	}
	switch {
	case res.JSON200 != nil:
		return string(res.JSON200.Status)
	case res.JSON503 != nil:
		return string(res.JSON503.Status)
	}
	return fmt.Sprintf("status %d", res.StatusCode())
}

// TestSpoolThroughOutage is issue 12's fault test on a real PostgreSQL:
// two clusters post 10 epochs a second each; the database is stopped
// (pg_ctl stop -m fast: every connection cut) for 10 seconds; flexd keeps
// answering 200, spooling; it is killed with SIGKILL 5 seconds into the
// outage and restarted while the database is still away, and goes on
// answering from the spool (the retry of a spooled epoch is an idempotent
// replay); when the database is back the spool drains, every epoch answered
// 200 is stored exactly once with the decision that was answered, and the
// decisions are those a cluster gets without an outage.
func TestSpoolThroughOutage(t *testing.T) {
	pg := startPrivatePG(t)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, pg.url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	u, err := url.Parse(pg.url)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("connect_timeout", "2")
	u.RawQuery = q.Encode()

	bin := filepath.Join(t.TempDir(), "flexd")
	build := exec.Command("go", "build", "-o", bin, "./cmd/flexd")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building flexd: %v\n%s", err, out)
	}
	spoolDir := filepath.Join(t.TempDir(), "spool")
	addr := freeAddr(t)
	fl := startFlexdProc(t, bin, addr, u.String(), spoolDir)

	clusters := []string{"c1", "c2"}
	answers := map[string]map[int]answered{"c1": {}, "c2": {}}
	// Each cluster posts at a shim's cadence, 10 epochs a second (the
	// ticker shapes the load; no assertion waits on it).
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	post := func(base string, from, to int) {
		for e := from; e <= to; e++ {
			<-tick.C
			for _, c := range clusters {
				a := postEpoch(t, base, c, e)
				if a.status != http.StatusOK {
					t.Fatalf("epoch %d of %s: %d %s", e, c, a.status, a.body)
				}
				answers[c][e] = a
			}
		}
	}
	post(fl.base, 1, 10)
	if s := readyStatus(t, fl.base); s != "ready" {
		t.Fatalf("readyz %q before the outage", s)
	}

	pg.script("--pause")
	outage := time.Now()
	post(fl.base, 11, 60)
	if s := readyStatus(t, fl.base); s != "degraded" {
		t.Errorf("readyz %q during the outage, want degraded", s)
	}

	// SIGKILL mid-outage: nothing but the fsynced spool survives.
	if err := fl.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	fl.cmd.Wait()
	fl = startFlexdProc(t, bin, addr, u.String(), spoolDir)
	for _, c := range clusters {
		a := postEpoch(t, fl.base, c, 60)
		if a.status != http.StatusOK || !a.replay || a.decisionID != answers[c][60].decisionID {
			t.Errorf("retry of spooled epoch 60 of %s after the restart: %d, replay %v, decision %s (answered %s)",
				c, a.status, a.replay, a.decisionID, answers[c][60].decisionID)
		}
	}
	post(fl.base, 61, 110)

	pg.script("--resume")
	restored := time.Now()
	waitFor(t, 60*time.Second, "the spool to drain", func() bool { return readyStatus(t, fl.base) == "ready" })
	drainedIn := time.Since(restored)
	drained := metricValue(t, fl.base, "flexd_spool_drained_total")
	if drained != 2*100 {
		t.Errorf("the restarted flexd drained %v records, want the 200 answered during the outage", drained)
	}
	t.Logf("outage %.1f s (flexd killed and restarted in it), %d epochs answered in all, %v spooled and drained, %.2f s after the database was back",
		restored.Sub(outage).Seconds(), 2*120, drained, drainedIn.Seconds())
	post(fl.base, 111, 120)

	// The outage changed no decision: a cluster posting the same epochs
	// with the database up gets the same answers.
	for e := 1; e <= 120; e++ {
		ref := postEpoch(t, fl.base, "ref", e)
		if ref.status != http.StatusOK {
			t.Fatalf("reference epoch %d: %d %s", e, ref.status, ref.body)
		}
		if got, want := comparable(t, answers["c1"][e].body), comparable(t, ref.body); got != want {
			t.Errorf("epoch %d answered during the run differs from the same epoch without an outage:\n%s\n%s", e, got, want)
			break
		}
	}

	stored := postgres.New(pool)
	for _, c := range clusters {
		var epochs []int
		err := stored.StreamEpochs(ctx, c, nil, nil, func(r store.Record) error {
			epochs = append(epochs, int(r.Epoch))
			if want := answers[c][int(r.Epoch)].decisionID; r.DecisionID != want {
				t.Errorf("%s epoch %d stored with decision %s, answered %s", c, r.Epoch, r.DecisionID, want)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := fmt.Sprint(epochs), fmt.Sprint(seq(1, 120)); got != want {
			t.Errorf("%s: stored epochs %s, want each of %s once", c, got, want)
		}
	}
	if entries, _ := os.ReadDir(spoolDir); len(entries) == 0 {
		t.Errorf("spool directory %s is empty: was the spool used?", spoolDir)
	}
}

func seq(from, to int) []int {
	var out []int
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

// metricValue reads one unlabelled sample from /metrics.
func metricValue(t *testing.T, base, name string) float64 {
	t.Helper()
	res, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			var f float64
			if _, err := fmt.Sscan(v, &f); err == nil {
				return f
			}
		}
	}
	t.Fatalf("/metrics has no %s", name)
	return 0
}

// comparable is an epoch answer without what differs between two answers
// of the same decision: the cluster, the decision id and the solve times.
func comparable(t *testing.T, body string) string {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("answer %q: %v", body, err)
	}
	delete(v, "cluster")
	delete(v, "decision_id")
	if phases, ok := v["phases"].(map[string]any); ok {
		for _, ph := range phases {
			if m, ok := ph.(map[string]any); ok {
				delete(m, "solve_micros")
			}
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
