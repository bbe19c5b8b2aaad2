#!/usr/bin/env bash
# scripts/demo.sh — the main job on its embedded default: installs libvips
# when missing, then runs the worker with an in-memory Kafka broker on
# 127.0.0.1:9092, produces the example jobs of examples/ to it, prints one
# line per ready payload or dead letter, and exits when all are done.
# Extra arguments go to `worker run` (e.g. --config configs/worker.yaml).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/deps.sh
# go.mod names the patched toolchain; the Go distribution's go.env says
# GOTOOLCHAIN=local, which would ignore it. The module proxy serves it.
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
exec go run ./cmd/worker run --produce examples "$@"
