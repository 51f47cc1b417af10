#!/usr/bin/env bash
# lint-openapi.sh lints api/openapi.yaml with Spectral (spectral:oas) and
# Redocly (recommended), the versions pinned in api/lint/package-lock.json,
# installed with npm ci under api/lint/node_modules (ignored by git). The
# rulesets in api/lint say what is deliberately different. Fails on any
# error or warning.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root/api/lint"
if ! command -v npm >/dev/null 2>&1; then
	echo "lint-openapi.sh: npm is needed (apt-get install -y npm)" >&2
	exit 1
fi
if [ ! -x node_modules/.bin/spectral ] || [ ! -x node_modules/.bin/redocly ]; then
	npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >/dev/null
fi
node_modules/.bin/spectral lint ../openapi.yaml --ruleset .spectral.yaml --fail-severity=warn
# Redocly prints a notice about Node.js versions; only its verdict matters.
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
	node_modules/.bin/redocly lint ../openapi.yaml --config redocly.yaml --max-problems=50
