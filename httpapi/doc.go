// Package httpapi is flexd's HTTP edge: the chi router, the handlers, the
// wire request and response types of docs/api.md (snake_case, kept apart
// from the domain types and converted explicitly), RFC 9457 problem+json
// errors, bearer-token access, per-token rate limits, body and time limits,
// structured access logs and Prometheus metrics.
//
// Nothing here knows how a schedule is computed or how history is stored:
// the epoch pipeline sits behind Decider and the history behind Store, both
// defined here where they are consumed, and wired in cmd/flexd. The solve
// path (DecodeSolveRequest, Solve, NewSolveResponse) is exported so that
// `flexd solve` prints exactly the JSON POST /v1/solve answers.
//
// The swag annotations on the handlers are the source of api/openapi.yaml
// (see package api).
//
//	@title						flexd API
//	@version					1.0
//	@description				FLEX slot-allocation oracle for MapReduce cluster schedulers (docs/api.md).
//	@BasePath					/
//	@tag.name					epochs
//	@tag.description			The shim's call once per epoch, and the history of each cluster's epochs.
//	@tag.name					solve
//	@tag.description			One phase problem, stateless, and the metric menu.
//	@tag.name					plan
//	@tag.description			FRESH's static map/reduce slot split for a batch.
//	@tag.name					operations
//	@tag.description			Probes and this description; no token needed.
//	@securityDefinitions.apikey	BearerAuth
//	@in							header
//	@name						Authorization
//	@description				The token as printed by flexd token create.
package httpapi
