#!/usr/bin/env bash
# scripts/clients.sh — the example clients' tests (clients/python,
# clients/typescript) against a real worker with its embedded broker.
#
# Installs the clients' packages when missing (scripts/deps.sh clients),
# builds the worker, starts `worker run` with no brokers configured (its
# embedded Kafka broker on CLIENTS_BROKER, default 127.0.0.1:29092, out of the
# way of a broker on 9092; every HYGIENE_ variable of the caller unset, so the
# suite's HYGIENE_KAFKA_BROKERS does not point it elsewhere), waits for its
# /readyz, runs pytest and the TypeScript tests against it, and stops it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"

log() { echo "clients.sh: $*" >&2; }

scripts/deps.sh clients
broker="${CLIENTS_BROKER:-127.0.0.1:29092}"
metrics="${CLIENTS_METRICS:-127.0.0.1:29464}"
tmp="$(mktemp -d)"
go build -o "$tmp/worker" ./cmd/worker
unset_hygiene=()
while IFS= read -r name; do unset_hygiene+=(-u "$name"); done < <(env | grep -o '^HYGIENE_[A-Za-z0-9_]*' || true)
env "${unset_hygiene[@]}" HYGIENE_KAFKA_EMBEDDED_LISTEN="$broker" HYGIENE_METRICS_LISTEN="$metrics" \
  "$tmp/worker" run >"$tmp/worker.log" 2>&1 &
worker=$!
stop() {
  kill -TERM "$worker" 2>/dev/null && wait "$worker" 2>/dev/null || true
  rm -rf "$tmp"
}
trap stop EXIT
for _ in $(seq 1 300); do
  curl -fsS "http://$metrics/readyz" >/dev/null 2>&1 && break
  kill -0 "$worker" 2>/dev/null || { log "the worker exited:"; cat "$tmp/worker.log" >&2; exit 1; }
  sleep 0.1
done
curl -fsS "http://$metrics/readyz" >/dev/null || { log "the worker is not ready:"; cat "$tmp/worker.log" >&2; exit 1; }
log "worker ready, embedded broker on $broker"

export HYGIENE_BOOTSTRAP="$broker"
log "clients/python (pytest)"
(cd clients/python && .venv/bin/python -m pytest -q -p no:cacheprovider)
log "clients/typescript (npm test)"
(cd clients/typescript && npm test --silent)
