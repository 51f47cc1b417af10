// Package tests holds flexd's end-to-end tests: a real HTTP server around
// httpapi on a real PostgreSQL (store/postgres on a store/pgtest schema),
// driven by the fake shim in tests/shim and checked against
// api/openapi.yaml. Run them with `bash scripts/test.sh -count=1 ./tests/...`.
package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/flexd/flexd/client"
	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/store"
	"github.com/flexd/flexd/store/pgtest"
	"github.com/flexd/flexd/store/postgres"
	"github.com/flexd/flexd/tests/shim"
)

// e2eEpochs is how many successive epochs each cluster posts.
const e2eEpochs = 100

// reasons are the allocation reasons api.md allows in an epoch decision.
var reasons = []string{"min", "max", "priority", "partial", "demand", "normalized", "none"}

// posted is what the shim sent for one epoch and what flexd answered.
type posted struct {
	body   []byte
	answer []byte
	dec    httpapi.EpochResponse
}

// e2eCluster is one cluster's shim, token and record of the run.
type e2eCluster struct {
	name  string
	token string
	shim  *shim.Cluster
	log   map[int64]posted
}

// TestEndToEndPostgres is the acceptance scenario: two clusters'
// shims post 100 successive epochs each through a real server on
// PostgreSQL, every exchange validated against api/openapi.yaml; then
// history, export, idempotency, conflicts and access control are checked,
// and all of it again after flexd restarts on the same database.
func TestEndToEndPostgres(t *testing.T) {
	pool := pgtest.NewPool(t)
	router := specRouter(t)
	ctx := t.Context()

	clusters := []*e2eCluster{
		{name: "alpha", token: "tok-alpha", shim: shim.New(shim.Config{
			Cluster: "alpha", Seed: 1, Jobs: 8, MaxJobs: 16, ArrivalRate: 0.3,
			MapSlots: 40, ReduceSlots: 20, Policy: "flex", Objective: "avg_response_time",
		})},
		{name: "bravo", token: "tok-bravo", shim: shim.New(shim.Config{
			Cluster: "bravo", Seed: 2, Jobs: 12, MaxJobs: 20, ArrivalRate: 0.4,
			MapSlots: 60, ReduceSlots: 30, Policy: "flex", Objective: "avg_response_time",
			RatioMode: "pi_dhsa", StaggerProgress: true,
		})},
	}
	st := postgres.New(pool)
	for _, c := range clusters {
		c.log = map[int64]posted{}
		if err := st.CreateToken(ctx, store.Token{Hash: httpapi.HashToken(c.token), Cluster: c.name}); err != nil {
			t.Fatalf("creating token of %s: %v", c.name, err)
		}
	}
	a, b := clusters[0], clusters[1]

	srv := startFlexd(t, pool, router)
	for range e2eEpochs {
		for _, c := range clusters {
			postNext(t, srv, c)
		}
	}
	for _, c := range clusters {
		// The workload must really have evolved, or the scenario proves
		// little: jobs finished and arrived, both phases got slots.
		var mapSlots, reduceSlots int
		for _, p := range c.log {
			for _, al := range p.dec.Allocations {
				mapSlots += al.Map
				reduceSlots += al.Reduce
			}
		}
		if c.shim.Finished == 0 || c.shim.Arrived == 0 || mapSlots == 0 || reduceSlots == 0 {
			t.Errorf("%s: workload did not evolve: %d finished, %d arrived, %d map and %d reduce slot-epochs",
				c.name, c.shim.Finished, c.shim.Arrived, mapSlots, reduceSlots)
		}
	}

	t.Run("retry is an idempotent replay", func(t *testing.T) {
		for _, e := range []int64{1, 37, e2eEpochs} {
			want := a.log[e]
			// The client's retrying call: the same bytes again.
			got, err := srv.api.DecideEpochRetrying(ctx, "alpha", nil, want.body, client.Retry{}, client.BearerToken(a.token))
			if err != nil {
				t.Fatal(err)
			}
			if got.StatusCode() != http.StatusOK || got.Attempts != 1 || !got.Replay() {
				t.Errorf("epoch %d retry: status %d after %d attempts, replay %v; want a 200 replay at once", e, got.StatusCode(), got.Attempts, got.Replay())
			}
			if !jsonEqual(t, got.Body, want.answer) {
				t.Errorf("epoch %d retry answered a different decision:\n%s\nfirst:\n%s", e, got.Body, want.answer)
			}
			if got.JSON200 == nil || got.JSON200.DecisionId != want.dec.DecisionID {
				t.Errorf("epoch %d retry: the generated client decoded %+v, want decision %s", e, got.JSON200, want.dec.DecisionID)
			}
		}
	})

	t.Run("changed body for a stored epoch is 409", func(t *testing.T) {
		var req map[string]any
		if err := json.Unmarshal(a.log[50].body, &req); err != nil {
			t.Fatal(err)
		}
		req["now"] = req["now"].(float64) + 1
		body, _ := json.Marshal(req)
		srv.decideEpoch("alpha", a.token, body).want(t, http.StatusConflict, "changed body")
	})

	t.Run("access control", func(t *testing.T) {
		getEpoch := func(token string) answer {
			return srv.got(srv.api.GetEpoch(ctx, "alpha", 1, client.BearerToken(token)))
		}
		listEpochs := func(token string) answer {
			return srv.got(srv.api.ListEpochs(ctx, "alpha", nil, client.BearerToken(token)))
		}
		cases := []struct {
			name   string
			call   func() answer
			status int
		}{
			{"B reads A's epoch", func() answer { return getEpoch(b.token) }, http.StatusNotFound},
			{"B lists A", func() answer { return listEpochs(b.token) }, http.StatusNotFound},
			{"B exports A", func() answer {
				return srv.got(srv.api.ExportEpochs(ctx, "alpha", nil, client.BearerToken(b.token)))
			}, http.StatusNotFound},
			{"B posts to A", func() answer { return srv.decideEpoch("alpha", b.token, a.log[1].body) }, http.StatusNotFound},
			{"no token reads", func() answer { return getEpoch("") }, http.StatusUnauthorized},
			{"no token posts", func() answer { return srv.decideEpoch("alpha", "", a.log[1].body) }, http.StatusUnauthorized},
			{"unknown token", func() answer { return listEpochs("tok-nobody") }, http.StatusUnauthorized},
			{"A reads A", func() answer { return getEpoch(a.token) }, http.StatusOK},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				c.call().want(t, c.status, c.name)
			})
		}
	})

	checkHistory(t, srv, clusters, e2eEpochs)

	// Restart: the first server goes away; a new one on a new pool to the
	// same database and schema must still have everything.
	srv.http.Close()
	pool2 := reopen(t, pool)
	pool.Close()
	srv2 := startFlexd(t, pool2, router)
	t.Run("after restart", func(t *testing.T) {
		checkHistory(t, srv2, clusters, e2eEpochs)
		last := a.log[e2eEpochs]
		got := srv2.got(srv2.api.GetEpoch(ctx, "alpha", e2eEpochs, client.BearerToken(a.token))).want(t, http.StatusOK, "latest epoch")
		var one httpapi.StoredEpoch
		got.decode(t, &one)
		if !jsonEqual(t, one.Decision, last.answer) {
			t.Errorf("latest epoch's decision changed across the restart")
		}
		replay := srv2.decideEpoch("alpha", a.token, last.body).want(t, http.StatusOK, "replay after restart")
		if replay.header.Get("Idempotent-Replay") != "true" || !jsonEqual(t, replay.body, last.answer) {
			t.Errorf("replay after restart: header %q, same decision %v", replay.header.Get("Idempotent-Replay"), jsonEqual(t, replay.body, last.answer))
		}
		// The next epoch continues from the stored cluster state: were it
		// lost, the save's epoch guard would refuse it.
		for _, c := range clusters {
			postNext(t, srv2, c)
		}
		st, err := postgres.New(pool2).LatestState(ctx, "bravo")
		if err != nil || !st.Found || st.Epoch != e2eEpochs+1 {
			t.Errorf("bravo's state after the next epoch: %+v, %v", st, err)
		}
	})
	if n1, n2 := srv.valid.checked.Load(), srv2.valid.checked.Load(); n1 < 2*e2eEpochs || n2 == 0 {
		t.Errorf("only %d and %d exchanges were validated against api/openapi.yaml", n1, n2)
	}
}

// postNext posts the shim's next epoch, checks the decision is sane and
// applies it to the shim.
func postNext(t *testing.T, srv *flexd, c *e2eCluster) {
	t.Helper()
	req := c.shim.Request()
	body, err := json.Marshal(req)
	if err != nil {
		t.Fatalf("encoding epoch %d of %s: %v", req.Epoch, c.name, err)
	}
	ans := srv.decideEpoch(c.name, c.token, body)
	ans.want(t, http.StatusOK, fmt.Sprintf("%s epoch %d", c.name, req.Epoch))
	if h := ans.header.Get("Idempotent-Replay"); h != "" {
		t.Errorf("%s epoch %d: first post has Idempotent-Replay %q", c.name, req.Epoch, h)
	}
	var dec httpapi.EpochResponse
	ans.decode(t, &dec)
	checkDecision(t, req, dec)
	if err := c.shim.Apply(dec); err != nil {
		t.Fatalf("%s epoch %d: applying the decision: %v", c.name, req.Epoch, err)
	}
	c.log[req.Epoch] = posted{body: body, answer: ans.body, dec: dec}
}

// checkDecision checks what the schema cannot: one allocation per job in
// request order, each with allowed reasons, within the budgets.
func checkDecision(t *testing.T, req httpapi.EpochRequest, dec httpapi.EpochResponse) {
	t.Helper()
	if len(dec.Allocations) != len(req.Jobs) {
		t.Fatalf("epoch %d: %d allocations for %d jobs", req.Epoch, len(dec.Allocations), len(req.Jobs))
	}
	var mapSum, redSum int
	for i, al := range dec.Allocations {
		if al.ID != req.Jobs[i].ID {
			t.Errorf("epoch %d: allocation %d is %q, want %q (request order)", req.Epoch, i, al.ID, req.Jobs[i].ID)
		}
		if !slices.Contains(reasons, al.MapReason) || !slices.Contains(reasons, al.ReduceReason) {
			t.Errorf("epoch %d: job %s reasons %q/%q", req.Epoch, al.ID, al.MapReason, al.ReduceReason)
		}
		mapSum += al.Map
		redSum += al.Reduce
	}
	if mapSum > dec.Budgets.Map || redSum > dec.Budgets.Reduce {
		t.Errorf("epoch %d: allocated %d map, %d reduce over budgets %+v", req.Epoch, mapSum, redSum, dec.Budgets)
	}
	if dec.DecisionID == "" {
		t.Errorf("epoch %d: no decision id", req.Epoch)
	}
}

// checkHistory checks that the paged history and the JSONL export of every
// cluster hold exactly the epochs posted, with their decisions and reasons.
func checkHistory(t *testing.T, srv *flexd, clusters []*e2eCluster, n int64) {
	t.Helper()
	for _, c := range clusters {
		t.Run("history "+c.name, func(t *testing.T) {
			var got []int64
			// Pages through the generated client's typed parameters and
			// decoded answers.
			params := &client.ListEpochsParams{Limit: ptr(30)}
			for pages := 0; ; pages++ {
				if pages > int(n) {
					t.Fatalf("history of %s does not end", c.name)
				}
				res, err := srv.api.ListEpochsWithResponse(t.Context(), c.name, params, client.BearerToken(c.token))
				if err != nil {
					t.Fatalf("history page: %v", err)
				}
				if res.StatusCode() != http.StatusOK || res.JSON200 == nil {
					t.Fatalf("history page: status %d, body %.300s", res.StatusCode(), res.Body)
				}
				page := res.JSON200
				for _, se := range page.Epochs {
					e := int64(se.Epoch)
					got = append(got, e)
					p, ok := c.log[e]
					if !ok {
						t.Errorf("history has epoch %d that was never posted", e)
						continue
					}
					if se.Cluster != c.name || se.DecisionId != p.dec.DecisionID {
						t.Errorf("epoch %d: cluster %q decision %q, want %q %q", e, se.Cluster, se.DecisionId, c.name, p.dec.DecisionID)
					}
					request, _ := json.Marshal(se.Request)
					decision, _ := json.Marshal(se.Decision)
					if !jsonEqual(t, request, p.body) || !jsonEqual(t, decision, p.answer) {
						t.Errorf("epoch %d: stored request or decision differs from what was exchanged", e)
					}
					var dec client.EpochResponse
					if err := json.Unmarshal(decision, &dec); err != nil {
						t.Fatalf("epoch %d: decoding stored decision: %v", e, err)
					}
					for _, al := range dec.Allocations {
						if al.MapReason == "" || al.ReduceReason == "" {
							t.Errorf("epoch %d: job %s has no reason in history", e, al.Id)
						}
					}
				}
				if page.NextCursor == nil || *page.NextCursor == "" {
					break
				}
				params.Cursor = page.NextCursor
			}
			want := make([]int64, 0, n)
			for e := n; e >= 1; e-- {
				want = append(want, e)
			}
			if !slices.Equal(got, want) {
				t.Errorf("history of %s lists %d epochs %v..., want %d newest first", c.name, len(got), got[:min(5, len(got))], n)
			}

			export := srv.got(srv.api.ExportEpochs(t.Context(), c.name, nil, client.BearerToken(c.token))).want(t, http.StatusOK, "export")
			lines := jsonLines(export.body)
			if int64(len(lines)) != n {
				t.Fatalf("export of %s has %d lines, want %d", c.name, len(lines), n)
			}
			for i, line := range lines {
				var wire httpapi.EpochRequest
				if err := json.Unmarshal(line, &wire); err != nil {
					t.Fatalf("export line %d: %v", i+1, err)
				}
				if wire.Cluster != c.name || wire.Epoch != int64(i+1) {
					t.Errorf("export line %d: cluster %q epoch %d", i+1, wire.Cluster, wire.Epoch)
					continue
				}
				var m map[string]any
				if err := json.Unmarshal(line, &m); err != nil {
					t.Fatal(err)
				}
				delete(m, "cluster")
				stripped, _ := json.Marshal(m)
				if !jsonEqual(t, stripped, c.log[wire.Epoch].body) {
					t.Errorf("export line %d differs from the posted body", i+1)
				}
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// reopen opens a second pool on the same database and schema as pool, as a
// restarted flexd would.
func reopen(t *testing.T, pool *pgxpool.Pool) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(pgtest.URL(t))
	if err != nil {
		t.Fatalf("parsing %s: %v", pgtest.EnvURL, err)
	}
	schema, ok := pool.Config().ConnConfig.RuntimeParams["search_path"]
	if !ok || schema == "" {
		t.Fatalf("the test pool has no search_path to reopen")
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	cfg.MaxConns = 4
	p, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatalf("reopening the database: %v", err)
	}
	t.Cleanup(p.Close)
	return p
}
