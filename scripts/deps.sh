#!/usr/bin/env bash
# scripts/deps.sh [test|image|clients] — installs the system packages hygiene
# needs when they are missing (Debian/Ubuntu, through apt; sudo when not root).
#   always: libvips-dev (the image stage is cgo over libvips)
#   image:  podman, buildah, mmdebstrap, runc, skopeo (scripts/image.sh builds
#           and runs the container image with them, from Debian packages)
#   test:   the image tools, libvips-tools (vipsthumbnail, the image baseline), kcat, zstd,
#           GNU time (peak RSS of the baselines in the benchmarks),
#           Java 17 and Maven (the real Apache Kafka broker of the
#           integration suite), and what clients installs
#   clients: Python 3 with venv and Node.js with npm (apt, when missing), then
#           the example clients' pinned packages: clients/python/.venv from
#           requirements.txt (pip), clients/typescript/node_modules from
#           package-lock.json (npm ci)
set -euo pipefail
need=()
dpkg -s libvips-dev >/dev/null 2>&1 || need+=(libvips-dev)
if [[ "${1:-}" == "test" || "${1:-}" == "image" ]]; then
  for tool in podman buildah mmdebstrap runc skopeo; do
    command -v "$tool" >/dev/null 2>&1 || [[ -x /usr/sbin/$tool ]] || need+=("$tool")
  done
fi
if [[ "${1:-}" == "test" ]]; then
  command -v vipsthumbnail >/dev/null 2>&1 || need+=(libvips-tools)
  command -v kcat >/dev/null 2>&1 || need+=(kcat)
  command -v zstd >/dev/null 2>&1 || need+=(zstd)
  [[ -x /usr/bin/time ]] || need+=(time)
  command -v java >/dev/null 2>&1 || need+=(openjdk-17-jre-headless)
  command -v mvn >/dev/null 2>&1 || need+=(maven)
fi
clients=""
if [[ "${1:-}" == "test" || "${1:-}" == "clients" ]]; then
  clients=1
  python3 -m venv --help >/dev/null 2>&1 || need+=(python3-venv)
  command -v npm >/dev/null 2>&1 || need+=(nodejs npm)
fi
if ((${#need[@]})); then
  echo "deps.sh: installing ${need[*]}" >&2
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
[[ -n "$clients" ]] || exit 0
cd "$(dirname "${BASH_SOURCE[0]}")/.."
py=clients/python
# A venv of its own, so the pins do not touch the system's Python; made
# again when requirements.txt changed since.
if [[ ! -x $py/.venv/bin/python || $py/requirements.txt -nt $py/.venv/.installed ]]; then
  echo "deps.sh: installing the Python client's packages ($py/requirements.txt)" >&2
  python3 -m venv "$py/.venv"
  "$py/.venv/bin/pip" install -q --disable-pip-version-check -r "$py/requirements.txt"
  touch "$py/.venv/.installed"
fi
ts=clients/typescript
if [[ ! -d $ts/node_modules || $ts/package-lock.json -nt $ts/node_modules/.package-lock.json ]]; then
  echo "deps.sh: installing the TypeScript client's packages ($ts/package-lock.json)" >&2
  (cd "$ts" && npm ci --no-audit --no-fund --loglevel=error)
fi
