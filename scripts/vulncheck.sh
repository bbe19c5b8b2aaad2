#!/usr/bin/env bash
# scripts/vulncheck.sh [GOVULNCHECK ARGS...] — govulncheck against the Go
# vulnerability database, offline: the database comes from the Go module
# proxy, not from vuln.go.dev.
#
#   scripts/vulncheck.sh                      # the module's packages (default ./...)
#   scripts/vulncheck.sh -mode binary FILE    # a built binary (test/image does this)
#
# golang.org/x/vulndb@latest is downloaded with `go mod download` (the proxy
# refuses @master; @latest is the newest commit). The module holds the OSV
# entries as a flat directory, data/osv/GO-*.json, without the v1 index/
# files a served database has; govulncheck reads such a directory as a
# file:// database and builds the index in memory (golang.org/x/vuln
# v1.9.0, internal/client/client.go, newLocalClient). govulncheck fails
# (exit 3, which `go run` reports as 1) when the code calls a vulnerable
# function; in binary mode on a stripped binary (-ldflags=-s, as the image's)
# it cannot see symbols and fails on any vulnerability of a package the
# binary holds. Imported but uncalled vulnerabilities are listed, not fatal.
set -euo pipefail
# Pinned, so that a new release cannot change what CI reports.
GOVULNCHECK_VERSION=v1.9.0
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"

json="$(go mod download -json golang.org/x/vulndb@latest)"
dir="$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p' <<<"$json")"
version="$(sed -n 's/^[[:space:]]*"Version": "\(.*\)",$/\1/p' <<<"$json")"
if [[ -z "$dir" || ! -d "$dir/data/osv" ]]; then
  echo "vulncheck.sh: golang.org/x/vulndb@latest has no data/osv directory:" >&2
  echo "$json" >&2
  exit 1
fi
(($#)) || set -- ./...
echo "vulncheck.sh: govulncheck $GOVULNCHECK_VERSION, database golang.org/x/vulndb $version, $(go env GOVERSION)" >&2
exec go run "golang.org/x/vuln/cmd/govulncheck@$GOVULNCHECK_VERSION" -db "file://$dir/data/osv" "$@"
