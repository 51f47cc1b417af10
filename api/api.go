// Package api holds flexd's HTTP contract in machine-readable form:
// openapi.yaml (OpenAPI 3), generated from the swag annotations in package
// httpapi and committed. The server embeds it and serves it at
// /openapi.yaml, where the embedded Swagger UI reads it.
//
// Regenerate with `go generate ./api/...`: swag (pinned with go.mod's tool
// directive) writes Swagger 2.0 into a temporary directory, and
// internal/gen converts it to OpenAPI 3 with kin-openapi's openapi2conv.
// Request examples are examples/*.json; response examples are the golden
// answers of examples/answers, which TestResponseExamples checks against
// a running server. A test fails when the committed file differs from a
// fresh generation, and scripts/check-openapi.sh does the same check for
// CI. The Go client (package client) is generated from this file: `go
// generate ./...` regenerates both, in that order.
package api

import _ "embed" // for the spec below

//go:generate go run ./internal/gen -httpapi ../httpapi -out openapi.yaml

// Spec is the contents of openapi.yaml.
//
//go:embed openapi.yaml
var Spec []byte
