#!/usr/bin/env bash
# scripts/deps.sh [test|image] — installs the system packages hygiene needs
# when they are missing (Debian/Ubuntu, through apt; sudo when not root).
#   always: libvips-dev (the image stage is cgo over libvips)
#   image:  podman, buildah, mmdebstrap, runc, skopeo (scripts/image.sh builds
#           and runs the container image with them, from Debian packages)
#   test:   the image tools, libvips-tools (vipsthumbnail, the image baseline), kcat, zstd,
#           GNU time (peak RSS of the baselines in the benchmarks),
#           Java 17 and Maven (the real Apache Kafka broker of the
#           integration suite)
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
((${#need[@]})) || exit 0
echo "deps.sh: installing ${need[*]}" >&2
SUDO=""
[[ $(id -u) -eq 0 ]] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
