package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/store/memory"
)

// TestRun drives a real httpapi server on a memory store and a server that
// fails, bounded by --max-epochs so the runs end on count, not time.
func TestRun(t *testing.T) {
	srv, err := httpapi.New(httpapi.Config{
		Store: memory.New(memory.Config{}), RateLimit: -1,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	good := httptest.NewServer(srv)
	defer good.Close()
	conflict := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" {
			return
		}
		w.WriteHeader(http.StatusConflict)
	}))
	defer conflict.Close()

	cases := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  []string
		// notOut must not appear in the output.
		notOut []string
	}{
		{"ok, open", []string{"--url", good.URL, "--clusters", "3", "--jobs", "20", "--max-epochs", "30", "--open", "--duration", "1m"},
			0, []string{"epochs ok       30", "errors          0"}, nil},
		{"ok, cadence", []string{"--url", good.URL, "--clusters", "4", "--jobs", "5", "--max-epochs", "8", "--interval", "10ms", "--duration", "1m"},
			0, []string{"epochs ok       8"}, nil},
		{"conflicts fail the run", []string{"--url", conflict.URL, "--clusters", "2", "--jobs", "5", "--open", "--duration", "1m"},
			1, []string{"errors          2  409:2"}, nil},
		{"allowed errors", []string{"--url", conflict.URL, "--clusters", "2", "--jobs", "5", "--open", "--duration", "1m", "--allow-errors"},
			0, []string{"409:2"}, nil},
		// The run ends on count long before the warm-up does: every epoch
		// is the warm-up's, none the measured window's.
		{"warm-up counted apart", []string{"--url", good.URL, "--clusters", "2", "--jobs", "5", "--max-epochs", "6", "--open", "--warmup", "1m", "--duration", "1m"},
			0, []string{"epochs ok       0", "epochs sent     0", "warm-up         ", "epochs ok 6  errors 0"}, nil},
		{"no warm-up line without one", []string{"--url", good.URL, "--clusters", "1", "--jobs", "5", "--max-epochs", "2", "--open", "--duration", "1m"},
			0, []string{"epochs ok       2"}, []string{"warm-up"}},
		{"negative warm-up refused", []string{"--url", good.URL, "--warmup", "-1s"}, 2, nil, nil},
		{"unbounded duration refused", []string{"--url", good.URL, "--duration", "0s"}, 2, nil, nil},
		{"nothing listening", []string{"--url", "http://127.0.0.1:1", "--duration", "1s"}, 2, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(context.Background(), c.args, &out, &errOut)
			if code != c.wantCode {
				t.Fatalf("exit %d, want %d; stdout %s; stderr %s", code, c.wantCode, out.String(), errOut.String())
			}
			for _, w := range c.wantOut {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
			for _, w := range c.notOut {
				if strings.Contains(out.String(), w) {
					t.Errorf("output has %q:\n%s", w, out.String())
				}
			}
		})
	}
}

func TestPercentile(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	samples := make([]time.Duration, 100)
	for i := range samples {
		samples[i] = ms(i + 1)
	}
	cases := []struct {
		p    float64
		want time.Duration
	}{{50, ms(50)}, {90, ms(90)}, {99, ms(99)}, {100, ms(100)}, {0, ms(1)}}
	for _, c := range cases {
		if got := percentile(samples, c.p); got != c.want {
			t.Errorf("p%v = %v, want %v", c.p, got, c.want)
		}
	}
	if got := percentile([]time.Duration{ms(7)}, 99); got != ms(7) {
		t.Errorf("p99 of one sample = %v", got)
	}
}

// TestReadDecision: the fast reader decodes what encoding/json decodes,
// falls back to it on escapes, and refuses what is not one JSON object.
func TestReadDecision(t *testing.T) {
	plain := `{"cluster":"c1","epoch":3,"phases":{"map":{"plan":{"intervals":[{"start":0,"slots":{"a":1}}]}}},` +
		`"allocations":[{"id":"a","map":1,"reduce":0,"map_reason":"min","reduce_reason":"none"}],"fairness":0.5,"why":["x"]}`
	escaped := strings.Replace(plain, `"why":["x"]`, `"why":["\u003cstatic\u003e"]`, 1)
	escapedKey := strings.Replace(plain, `"cluster"`, `"\u0063luster"`, 1)
	for name, body := range map[string]string{"plain": plain, "escaped value": escaped, "escaped key": escapedKey} {
		got, err := readDecision([]byte(body))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var want appliedDecision
		if err := json.Unmarshal([]byte(body), &want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: (-encoding/json +readDecision):\n%s", name, diff)
		}
	}
	for _, bad := range []string{plain + "{}", plain[:len(plain)-1], `[]`, ``, strings.Replace(plain, `"map":1`, `"map":"1"`, 1)} {
		if _, err := readDecision([]byte(bad)); err == nil {
			t.Errorf("readDecision took %.60q", bad)
		}
	}
}
