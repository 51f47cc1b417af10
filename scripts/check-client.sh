#!/usr/bin/env bash
# check-client.sh regenerates the Go client (client/flexd.gen.go) from the
# committed api/openapi.yaml with oapi-codegen (pinned by go.mod's tool
# directive, configured by client/oapi-codegen.yaml) and fails, showing the
# diff, when the committed client is stale. Run from anywhere in the repo.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cd "$root/client"
go tool oapi-codegen -config oapi-codegen.yaml -o "$tmp/flexd.gen.go" ../api/openapi.yaml
if ! diff -u flexd.gen.go "$tmp/flexd.gen.go" >"$tmp/diff"; then
	head -n 200 "$tmp/diff"
	echo "client/flexd.gen.go is stale: run 'go generate ./...' and commit it" >&2
	exit 1
fi
echo "client/flexd.gen.go is up to date"
