#!/usr/bin/env bash
# scripts/test.sh — the whole test suite, from a fresh Debian machine with Go.
#
# Installs what the tests need when it is missing (libvips-dev and the tools
# the tests call, through apt; the Go modules; Java 17 for the broker),
# starts a real Apache Kafka broker on 127.0.0.1 (scripts/kafka.sh) unless
# HYGIENE_KAFKA_BROKERS already names one, and a 3-node cluster (scripts/kafka.sh
# cluster 3) unless KAFKA_CLUSTER_BROKERS names one, then runs gofmt, go vet,
# staticcheck, govulncheck offline (scripts/vulncheck.sh), builds the container image
# from Debian packages (scripts/image.sh, both variants), and runs
# go test -race over the module (test/image runs the image with podman), the
# Helm chart checks (helm/chartest) and the provider SDK conformance checks of
# the request bodies (test/wiresdk), the example clients' tests
# (scripts/clients.sh: clients/python with pytest, clients/typescript with
# node's test runner, against a worker with its embedded broker), and the
# codec and golden tests again with GOEXPERIMENT=simd (the vector scan the
# image is built with).
# Extra arguments go to both go test runs (e.g. -run TestX, -short).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { echo "test.sh: $*" >&2; }

scripts/deps.sh test
# go.mod names the patched toolchain; the Go distribution's go.env says
# GOTOOLCHAIN=local, which would ignore it. The module proxy serves it.
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"

log "downloading Go modules"
go mod download
(cd helm/chartest && go mod download)
(cd test/wiresdk && go mod download)

unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [[ -n "$unformatted" ]]; then
  log "gofmt would change:"; echo "$unformatted" >&2; exit 1
fi
go vet ./...
(cd helm/chartest && go vet ./...)
(cd test/wiresdk && go vet ./...)
# staticcheck, pinned, over the module and both test modules.
staticcheck="honnef.co/go/tools/cmd/staticcheck@v0.8.2"
log "staticcheck ($staticcheck)"
go run "$staticcheck" ./...
(cd helm/chartest && go run "$staticcheck" ./...)
(cd test/wiresdk && go run "$staticcheck" ./...)
log "govulncheck against golang.org/x/vulndb from the module proxy"
scripts/vulncheck.sh ./...
(cd helm/chartest && ../../scripts/vulncheck.sh ./...)
(cd test/wiresdk && ../../scripts/vulncheck.sh ./...)

# The container image, both variants, for test/image (part of ./... below).
log "building the container image (scripts/image.sh)"
full="$(scripts/image.sh build)"
trimmed="$(scripts/image.sh build --trimmed)"
CONTAINERS_CONF="${CONTAINERS_CONF:-$(scripts/image.sh conf)}"
export WORKER_IMAGE_ARCHIVES="$full:$trimmed" CONTAINERS_CONF

started_kafka=""
if [[ -z "${HYGIENE_KAFKA_BROKERS:-}" ]]; then
  # Stop the broker at exit only if this run started it.
  scripts/kafka.sh status >/dev/null 2>&1 || started_kafka=1
  log "starting a real Apache Kafka broker (scripts/kafka.sh)"
  HYGIENE_KAFKA_BROKERS="$(scripts/kafka.sh start)"
  export HYGIENE_KAFKA_BROKERS
fi
log "Kafka for the integration tests: $HYGIENE_KAFKA_BROKERS"

# The cluster faults of test/integration (TestClusterFaults) run on a 3-node KRaft cluster
# (KAFKA_CLUSTER_BROKERS: not a HYGIENE_ variable, which the worker would refuse as no setting) with
# small heaps (scripts/kafka.sh cluster 3), beside the single broker.
started_cluster=""
if [[ -z "${KAFKA_CLUSTER_BROKERS:-}" ]]; then
  cluster_status="$(scripts/kafka.sh status 2>/dev/null || true)"
  grep -q '^node 1 running' <<<"$cluster_status" || started_cluster=1
  log "starting a 3-node Apache Kafka cluster (scripts/kafka.sh cluster 3)"
  KAFKA_CLUSTER_BROKERS="$(scripts/kafka.sh cluster 3)"
  export KAFKA_CLUSTER_BROKERS
fi
stop_started() {
  [[ -z "$started_kafka" ]] || scripts/kafka.sh stop broker >/dev/null 2>&1 || true
  [[ -z "$started_cluster" ]] || scripts/kafka.sh stop cluster >/dev/null 2>&1 || true
}
trap stop_started EXIT
log "Kafka cluster for the cluster faults: $KAFKA_CLUSTER_BROKERS"

# No well-formed tool call (or its result) of the examples is dropped for
# their own targets (internal/audit; the generated corpus, every target, is
# TestAuditGeneratedCorpus in cmd/worker).
log "worker audit examples/ --fail-on-drop"
go run ./cmd/worker audit examples/ examples/*.json --fail-on-drop

go test -race -timeout 45m "$@" ./...
# Allocation bounds, without the race detector, whose instrumentation
# changes allocation counts (the tests skip themselves under -race).
log "allocation bounds without the race detector"
go test -timeout 10m -run '^TestProcessSmallJobAllocs$' "$@" ./internal/pipeline
# The same packages' tests with the vector string scan the image is built
# with (GOEXPERIMENT=simd: internal/transcript/jsontape/run_simd.go): the
# codec's own tests compare the two scans, and the golden files of the
# chain, the wire formats and the pipeline must come out byte for byte.
log "GOEXPERIMENT=simd: the codec and the golden tests on the vector scan"
GOEXPERIMENT=simd go test -race -timeout 20m "$@" ./internal/transcript/... ./internal/stages ./internal/wire/... ./internal/pipeline
# The Python and TypeScript clients against a worker with its embedded broker.
log "the example clients (scripts/clients.sh)"
scripts/clients.sh
(cd helm/chartest && go test -timeout 20m "$@" ./...)
(cd test/wiresdk && go test -timeout 20m "$@" ./...)
