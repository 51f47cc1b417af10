package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"time"

	swaggerfiles "github.com/swaggo/files/v2"

	"github.com/flexd/flexd/api"
	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/store"
)

// Health is the body of /healthz and /readyz.
type Health struct {
	// Status is ok (healthz), ready, degraded (answering, but history is
	// being spooled locally), not_ready or shutting_down.
	Status string `json:"status" example:"ready" enums:"ok,ready,degraded,not_ready,shutting_down" validate:"required"`
	// Checks names each dependency's state (readyz only).
	Checks map[string]string `json:"checks,omitempty"`
}

// healthz godoc
//
//	@Summary	Liveness: the process is up
//	@ID		health
//	@Description The process is up and serving; nothing else is checked (no store call). For a load balancer's liveness probe.
//	@Tags		operations
//	@Produce	json
//	@Success	200	{object}	Health
//	@Router		/healthz [get]
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	s.writeJSON(w, r, http.StatusOK, "application/json", Health{Status: "ok"})
}

// readyTimeout bounds the readiness checks so a hung database cannot hang
// the probe.
const readyTimeout = 2 * time.Second

// readyz godoc
//
//	@Summary		Readiness: store reachable and migrations applied
//	@ID			ready
//	@Description	200 with status ready or degraded (history spooled locally while the database is away); 503 with not_ready or shutting_down.
//	@Tags			operations
//	@Produce		json
//	@Success		200	{object}	Health
//	@Failure		503	{object}	Health
//	@Router			/readyz [get]
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if s.shuttingDown.Load() || s.draining.Load() {
		s.writeJSON(w, r, http.StatusServiceUnavailable, "application/json", Health{Status: "shutting_down"})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	h := Health{Status: "ready", Checks: map[string]string{}}
	degraded := false
	if s.spooling() {
		degraded = true
		h.Checks["spool"] = "degraded: history is being spooled locally"
		if sr, ok := s.cfg.Store.(SpoolReporter); ok {
			n, age := sr.SpoolDepth()
			h.Checks["spool"] = fmt.Sprintf("degraded: %d epochs spooled locally, the oldest %s ago", n, age.Round(time.Second))
		}
	}
	if err := s.store.Ping(ctx); err != nil {
		s.log.WarnContext(ctx, "readiness: store ping failed", "request_id", requestIDFrom(ctx), "error", err)
		h.Checks["store"] = "unreachable"
		if !degraded {
			h.Status = "not_ready"
		}
	} else {
		h.Checks["store"] = "ok"
	}
	if mc := s.cfg.Migrations; mc != nil {
		applied, err := mc.Applied(ctx)
		switch {
		case err != nil:
			s.log.WarnContext(ctx, "readiness: checking migrations failed", "request_id", requestIDFrom(ctx), "error", err)
			h.Checks["migrations"] = "unknown"
			if !degraded {
				h.Status = "not_ready"
			}
		case !applied:
			h.Checks["migrations"] = "pending"
			h.Status = "not_ready"
		default:
			h.Checks["migrations"] = "ok"
		}
	}
	if h.Status == "ready" && degraded {
		h.Status = "degraded"
	}
	status := http.StatusOK
	if h.Status == "not_ready" {
		status = http.StatusServiceUnavailable
	}
	s.writeJSON(w, r, status, "application/json", h)
}

// ClusterList is the body of GET /v1/clusters.
type ClusterList struct {
	// Clusters are every cluster with a saved epoch, by name.
	Clusters []ClusterSummary `json:"clusters" validate:"required"`
}

// ClusterSummary is one cluster of GET /v1/clusters.
type ClusterSummary struct {
	Name string `json:"name" example:"c1" validate:"required"`
	// LastEpoch is the cluster's latest saved epoch.
	LastEpoch int64 `json:"last_epoch" example:"42" validate:"required"`
	// UpdatedAt is when that epoch was saved (RFC 3339, UTC).
	UpdatedAt time.Time `json:"updated_at" example:"2026-01-02T15:04:05Z" validate:"required"`
}

// ClusterLister is implemented by stores that can list their clusters
// (store/memory, store/postgres, store/resilient); GET /v1/clusters needs it.
type ClusterLister interface {
	ListClusters(ctx context.Context) ([]store.ClusterInfo, error)
}

// errAdminOnly refuses an admin-only operation to a cluster token.
var errAdminOnly = &apiError{status: http.StatusForbidden, detail: "this operation needs an admin token; a cluster token sees only its own cluster"}

// listClusters godoc
//
//	@Summary	List the clusters that have saved epochs (admin tokens only)
//	@ID		listClusters
//	@Description Every cluster with a saved epoch, by name, with its latest epoch and when that was saved. Admin tokens only: a cluster token gets 403 (it knows its own cluster). With PostgreSQL away it is 503.
//	@Tags		epochs
//	@Produce	json
//	@Success	200	{object}	ClusterList
//	@Failure	401	{object}	Problem
//	@Failure	403	{object}	Problem
//	@Failure	429	{object}	Problem
//	@Failure	503	{object}	Problem
//	@Security	BearerAuth
//	@Router		/v1/clusters [get]
func (s *Server) listClusters(w http.ResponseWriter, r *http.Request) {
	if p, ok := r.Context().Value(principalKey{}).(principal); !ok || !p.admin {
		s.problem(w, r, errAdminOnly)
		return
	}
	cl, ok := s.cfg.Store.(ClusterLister)
	if !ok {
		s.problem(w, r, &apiError{status: http.StatusNotImplemented, detail: "this server's store cannot list clusters"})
		return
	}
	infos, err := cl.ListClusters(r.Context())
	if err != nil {
		s.problem(w, r, fmt.Errorf("listing clusters: %w", err))
		return
	}
	out := ClusterList{Clusters: make([]ClusterSummary, len(infos))}
	for i, c := range infos {
		out.Clusters[i] = ClusterSummary{Name: c.Name, LastEpoch: c.LastEpoch, UpdatedAt: c.Updated.UTC()}
	}
	s.writeJSON(w, r, http.StatusOK, "application/json", out)
}

// MetricMenu is the body of GET /v1/metrics.
type MetricMenu struct {
	// Default is the metric used when a request names none.
	Default string       `json:"default" example:"avg_response_time" validate:"required"`
	Metrics []MetricInfo `json:"metrics" validate:"required"`
}

// MetricInfo describes one metric.
type MetricInfo struct {
	Name      string `json:"name" example:"avg_tardiness" validate:"required"`
	Aggregate string `json:"aggregate" example:"sum" enums:"sum,max" validate:"required"`
	// Needs lists the job fields the metric reads: deadline, sla, weight.
	Needs []string `json:"needs" validate:"required"`
	// Convex is true when FLEX solves the metric's RAP exactly.
	Convex bool `json:"convex" example:"true" validate:"required"`
	// Step is true for step penalties (tardy jobs, SLA cost).
	Step bool   `json:"step" example:"false" validate:"required"`
	Doc  string `json:"doc" example:"sum of max(0, C - d), seconds" validate:"required"`
}

// metricMenu godoc
//
//	@Summary	The metric menu
//	@ID		listMetrics
//	@Description Every metric a request may name, with its aggregate, what it needs (deadline, sla, weight) and whether it is convex.
//	@Tags		solve
//	@Produce	json
//	@Success	200	{object}	MetricMenu
//	@Failure	401	{object}	Problem
//	@Failure	429	{object}	Problem
//	@Security	BearerAuth
//	@Router		/v1/metrics [get]
func (s *Server) metricMenu(w http.ResponseWriter, r *http.Request) {
	s.writeJSON(w, r, http.StatusOK, "application/json", newMetricMenu())
}

func newMetricMenu() MetricMenu {
	all := penalty.All()
	out := MetricMenu{Default: string(penalty.AvgResponseTime), Metrics: make([]MetricInfo, len(all))}
	for i, in := range all {
		needs := []string{}
		if in.NeedsDeadline {
			needs = append(needs, "deadline")
		}
		if in.NeedsSLA {
			needs = append(needs, "sla")
		}
		if in.UsesWeight {
			needs = append(needs, "weight")
		}
		out.Metrics[i] = MetricInfo{
			Name: string(in.Name), Aggregate: string(in.Aggregate), Needs: needs,
			Convex: in.Convex, Step: in.Step, Doc: in.Doc,
		}
	}
	return out
}

// openapi godoc
//
//	@Summary	This API's OpenAPI 3 description
//	@ID		getOpenAPI
//	@Description This document, as the server embeds it (the Swagger UI at /swagger/ reads it).
//	@Tags		operations
//	@Produce	application/yaml
//	@Success	200	{object}	map[string]any	"api/openapi.yaml, as YAML"
//	@Router		/openapi.yaml [get]
func (s *Server) openapi(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/yaml")
	if _, err := w.Write(api.Spec); err != nil {
		s.log.DebugContext(r.Context(), "writing openapi.yaml", "request_id", requestIDFrom(r.Context()), "error", err)
	}
}

// swaggerInitializer points the embedded Swagger UI at /openapi.yaml
// instead of the petstore it ships with.
const swaggerInitializer = `window.onload = function() {
  window.ui = SwaggerUIBundle({
    url: "/openapi.yaml",
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: "StandaloneLayout"
  });
};
`

// swaggerUI serves the Swagger UI from files embedded in the binary
// (github.com/swaggo/files/v2): no CDN, so it works offline.
func (s *Server) swaggerUI() http.HandlerFunc {
	files := http.StripPrefix("/swagger/", http.FileServerFS(swaggerfiles.FS))
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/swagger/swagger-initializer.js" {
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			http.ServeContent(w, r, "swagger-initializer.js", time.Time{}, bytes.NewReader([]byte(swaggerInitializer)))
			return
		}
		files.ServeHTTP(w, r)
	}
}

// checkSwaggerFiles fails when the embedded UI lacks its entry point; a
// test calls it so a broken dependency upgrade shows at build time.
func checkSwaggerFiles() error {
	if _, err := fs.Stat(swaggerfiles.FS, "index.html"); err != nil {
		return fmt.Errorf("embedded swagger UI: %w", err)
	}
	return nil
}
