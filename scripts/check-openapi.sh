#!/usr/bin/env bash
# check-openapi.sh regenerates api/openapi.yaml from the swag annotations in
# httpapi (swag is pinned by go.mod's tool directive) and fails, showing the
# diff, when the committed file is stale. Run from anywhere in the repo.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cd "$root/api"
go run ./internal/gen -httpapi ../httpapi -out "$tmp/openapi.yaml"
if ! diff -u openapi.yaml "$tmp/openapi.yaml"; then
	echo "api/openapi.yaml is stale: run 'go generate ./api/...' and commit it" >&2
	exit 1
fi
echo "api/openapi.yaml is up to date"
