// Package client is flexd's Go client, generated from api/openapi.yaml by
// oapi-codegen (pinned by go.mod's tool directive; configuration in
// oapi-codegen.yaml) into flexd.gen.go, which nobody edits by hand.
//
// The generated Client has one method per operation, named after its
// operationId (DecideEpoch, ListEpochs, GetEpoch, ExportEpochs, Solve,
// ListMetrics, PlanSlotConfig, Health, Ready, GetOpenAPI);
// ClientWithResponses decodes the answers (DecideEpochWithResponse and so
// on). The hand-written part, flexd.go, adds only what the generated one
// makes awkward: the bearer token on every request (WithToken) and an
// epoch POST retried with the very same body (Epochs.Decide).
//
// Regenerate with `go generate ./...` (the spec first, then this client);
// TestClientIsFresh and scripts/check-client.sh fail on a stale client.
package client

//go:generate go tool oapi-codegen -config oapi-codegen.yaml -o flexd.gen.go ../api/openapi.yaml
