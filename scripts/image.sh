#!/usr/bin/env bash
# scripts/image.sh build [--trimmed] [--refresh] | test [ARCHIVE...] | conf
#
# Builds the worker's OCI image from Debian packages alone (no registry but
# Debian's), and tests it. State lives in .image/ in the repository root
# (ignored by git); the images go to podman's storage and to OCI archives:
#
#   build            .image/hygiene-worker.oci.tar          (Debian 12 essential + libvips42 + ca-certificates)
#   build --trimmed  .image/hygiene-worker-trimmed.oci.tar  (only the files `ldd worker` lists, the CA
#                                                            bundle and a passwd entry for 65532)
#   test [ARCHIVE...] runs test/image (a Go test) against the archives given,
#                    or against every .image/*.oci.tar
#   conf             prints the path of the containers.conf that build and test use
#
# build: mmdebstrap makes the root filesystem (variant essential, debian-slim
# path excludes, the merged-/usr hook; without it usrmerge pulls in perl);
# podman imports it as the base; `go build` (cgo) makes the binary on this
# host; `podman build --format oci -f Containerfile` adds it and
# configs/worker.yaml; `podman save --format oci-archive` writes the archive.
# The root filesystem is cached in .image/rootfs/, keyed on everything that
# goes into it (suite, mirrors, packages, excludes, mmdebstrap version), so a
# second build takes seconds; --refresh makes it again (new Debian updates).
# The binary links this host's glibc and libvips, so the host must run the
# image's Debian release.
#
# The machine settings podman needs here go in .image/containers.conf, passed
# through CONTAINERS_CONF (a CONTAINERS_CONF already set is used instead):
#   runtime = "runc"        crun fails with "cgroups in hybrid mode not supported"
#   default_ulimits         no CAP_SYS_RESOURCE: podman's default nofile=1048576
#                           fails with "setrlimit RLIMIT_NOFILE: Operation not permitted"
#   cgroup_manager = "cgroupfs", events_logger = "file"   no systemd needed
#
# Environment:
#   IMAGE_SUITE     Debian suite of the image (default bookworm, as the Dockerfile)
#   IMAGE_MIRROR    Debian mirror (default http://deb.debian.org/debian)
#   IMAGE_SECURITY  Debian security mirror (default http://deb.debian.org/debian-security)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE="$ROOT/.image"
SUITE="${IMAGE_SUITE:-bookworm}"
MIRROR="${IMAGE_MIRROR:-http://deb.debian.org/debian}"
SECURITY="${IMAGE_SECURITY:-http://deb.debian.org/debian-security}"
PACKAGES="libvips42,ca-certificates"
# debian-slim's path excludes (debuerreotype's slimify list): no manuals,
# info pages, translations or docs, but the copyright files stay.
SLIM_EXCLUDES=(
  'path-exclude=/usr/share/doc/*'
  'path-include=/usr/share/doc/*/copyright'
  'path-exclude=/usr/share/info/*'
  'path-exclude=/usr/share/linda/*'
  'path-exclude=/usr/share/lintian/overrides/*'
  'path-exclude=/usr/share/locale/*'
  'path-exclude=/usr/share/man/*'
  'path-exclude=/usr/share/groff/*'
)
VERSION="$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$ROOT/helm/hygiene-worker/Chart.yaml")"
IMAGE="localhost/hygiene-worker:$VERSION"

log() { echo "image.sh: $*" >&2; }
die() { log "$*"; exit 1; }

# conf writes the containers.conf of this machine and exports CONTAINERS_CONF.
conf() {
  if [[ -n "${CONTAINERS_CONF:-}" && "$CONTAINERS_CONF" != "$STATE/containers.conf" ]]; then
    return
  fi
  mkdir -p "$STATE"
  cat >"$STATE/containers.conf" <<'EOF'
# Written by scripts/image.sh; passed to podman through CONTAINERS_CONF.
[containers]
# No CAP_SYS_RESOURCE: podman's default of 1048576 open files fails.
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]

[engine]
# crun fails with "cgroups in hybrid mode not supported".
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
  export CONTAINERS_CONF="$STATE/containers.conf"
}

# rootfs makes (or reuses) the root filesystem tarball and prints its path.
rootfs() {
  local refresh="$1"
  local -a opts=(--variant=essential "--include=$PACKAGES"
    --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr
    '--aptopt=Acquire::Languages "none"')
  local e
  for e in "${SLIM_EXCLUDES[@]}"; do opts+=("--dpkgopt=$e"); done
  local -a sources=("deb $MIRROR $SUITE main" "deb $MIRROR $SUITE-updates main"
    "deb $SECURITY $SUITE-security main")
  local key
  key="$(printf '%s\n' "$(mmdebstrap --version)" "$SUITE" "${opts[@]}" "${sources[@]}" | sha256sum | cut -c1-16)"
  local tar="$STATE/rootfs/$SUITE-$key.tar"
  if [[ -s "$tar" && -z "$refresh" ]]; then
    log "root filesystem cached: $tar"
  else
    mkdir -p "$STATE/rootfs"
    rm -f "$STATE/rootfs/"*.tar
    log "making the root filesystem with mmdebstrap ($SUITE, $PACKAGES)"
    local part="$STATE/rootfs/part-$key.tar"
    if ! mmdebstrap "${opts[@]}" "$SUITE" "$part" "${sources[@]}" >"$STATE/mmdebstrap.log" 2>&1; then
      tail -n 30 "$STATE/mmdebstrap.log" >&2
      die "mmdebstrap failed (log: $STATE/mmdebstrap.log)"
    fi
    mv "$part" "$tar"
  fi
  echo "$tar"
}

# import makes the podman image NAME from the tarball TAR unless it exists.
import() {
  local tar="$1" name="$2"
  if podman image exists "$name"; then
    return
  fi
  log "importing $tar as $name"
  podman import --quiet "$tar" "$name" >/dev/null
}

# binary builds the worker on this host into DIR/worker, with the Dockerfile's
# flags and its GOEXPERIMENT=simd (the vector string scan of
# internal/transcript/jsontape; on a CPU without AVX2 it runs the scalar one).
binary() {
  local dir="$1"
  export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
  log "building the worker (go build, cgo)"
  (cd "$ROOT" && CGO_ENABLED=1 GOEXPERIMENT=simd go build -trimpath -buildvcs=false -ldflags="-s -w" -o "$dir/worker" ./cmd/worker)
  cp "$ROOT/configs/worker.yaml" "$dir/worker.yaml"
}

# trimmed_base makes the base of the trimmed variant from the full image
# FULL: libvips.so.42 and the files `ldd` lists for the worker and for it
# (each symlink on the way and its target), the merged-/usr links, the CA
# bundle, /tmp, and a passwd and group entry for 65532. It is imported as
# NAME.
trimmed_base() {
  local full="$1" name="$2"
  podman image rm --force "$name" >/dev/null 2>&1 || true
  log "making the trimmed base from the libraries ldd lists"
  # shellcheck disable=SC2016 # the script runs in the container's shell
  podman run --rm --network none --user 0 --entrypoint /bin/sh "$full" -ec '
    keep() { # the file, each symlink on its way, their directories
      p="$1"
      while :; do
        d=$(readlink -f "$(dirname "$p")"); p="$d/$(basename "$p")"
        echo "$p"
        while [ "$d" != / ]; do echo "$d"; d=$(dirname "$d"); done
        [ -L "$p" ] || break
        t=$(readlink "$p"); case "$t" in /*) p="$t" ;; *) p="$(dirname "$p")/$t" ;; esac
      done
    }
    {
      for l in /bin /sbin /lib /lib64; do [ -L "$l" ] && echo "$l"; done
      # libvips is loaded at the first image (internal/images/lazyvips),
      # so it and its libraries are kept beside those of the binary
      vips=$(ls /usr/lib/*/libvips.so.42)
      keep "$vips"
      ldd /usr/local/bin/worker "$vips" | awk "/=>/ {print \$3; next} /^\t\// {print \$1}" | while read -r f; do
        [ -e "$f" ] || { echo "ldd: missing $f" >&2; exit 1; }
        keep "$f"
      done
      keep /etc/ssl/certs/ca-certificates.crt
    } | sort -u >/tmp/keep
    mkdir -p /tmp/root/tmp /tmp/root/etc && chmod 1777 /tmp/root/tmp
    while read -r p; do
      if [ -d "$p" ] && [ ! -L "$p" ]; then mkdir -p "/tmp/root$p"; else cp -a "$p" "/tmp/root$p"; fi
    done </tmp/keep
    printf "root:x:0:0:root:/root:/usr/sbin/nologin\nnonroot:x:65532:65532:nonroot:/nonexistent:/usr/sbin/nologin\n" >/tmp/root/etc/passwd
    printf "root:x:0:\nnonroot:x:65532:\n" >/tmp/root/etc/group
    tar -C /tmp/root -cf - .
  ' | podman import --quiet - "$name" >/dev/null
}

# containerfile BASE NAME builds Containerfile on BASE with the context in
# .image/context as NAME, and removes the image NAME named before, if any.
containerfile() {
  local base="$1" name="$2" old new
  old="$(podman image inspect --format '{{.Id}}' "$name" 2>/dev/null || true)"
  log "podman build $name"
  podman build --quiet --format oci --build-arg "BASE=$base" -t "$name" -f "$ROOT/Containerfile" "$STATE/context" >/dev/null
  new="$(podman image inspect --format '{{.Id}}' "$name")"
  if [[ -n "$old" && "$old" != "$new" ]]; then
    podman image rm "$old" >/dev/null 2>&1 || true
  fi
}

# build VARIANT REFRESH makes the image of VARIANT (full or trimmed) and
# prints the archive's path.
build() {
  local variant="$1" refresh="$2"
  local host
  # shellcheck disable=SC1091 # the host's release, read in a subshell
  host="$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")" || true
  if [[ "$host" != "$SUITE" ]]; then
    die "this host runs ${host:-an unknown release}, not Debian $SUITE; the binary links the host's glibc and libvips, so build on Debian $SUITE (or set IMAGE_SUITE to the host's release)"
  fi
  "$ROOT/scripts/deps.sh" image >&2
  local tar key ctx="$STATE/context"
  tar="$(rootfs "$refresh")"
  key="$(basename "$tar" .tar)"
  local base="localhost/hygiene-base:$key"
  if [[ -n "$refresh" ]]; then
    podman image rm --force "$base" >/dev/null 2>&1 || true
  fi
  import "$tar" "$base"
  # Bases of older root filesystems are not needed any more.
  podman images --filter reference=localhost/hygiene-base --format '{{.Repository}}:{{.Tag}}' |
    grep -v -e ":$key\$" -e ":$key-trimmed\$" | xargs -r podman image rm --force >/dev/null 2>&1 || true
  rm -rf "$ctx" && mkdir -p "$ctx"
  binary "$ctx"
  containerfile "$base" "$IMAGE"
  local image="$IMAGE" archive="$STATE/hygiene-worker.oci.tar"
  if [[ "$variant" == trimmed ]]; then
    local tbase="localhost/hygiene-base:$key-trimmed"
    trimmed_base "$IMAGE" "$tbase"
    image="$IMAGE-trimmed" archive="$STATE/hygiene-worker-trimmed.oci.tar"
    containerfile "$tbase" "$image"
  fi
  rm -f "$archive"
  podman save --quiet --format oci-archive -o "$archive" "$image"
  log "$image: $(podman image inspect --format '{{.Size}}' "$image" | numfmt --to=si) in storage, archive $archive ($(stat -c %s "$archive" | numfmt --to=si))"
  echo "$archive"
}

cmd="${1:-}"
[[ $# -gt 0 ]] && shift
case "$cmd" in
  build)
    variant=full refresh=""
    for a in "$@"; do
      case "$a" in
        --trimmed) variant=trimmed ;;
        --refresh) refresh=1 ;;
        *) die "build: unknown option $a (options: --trimmed, --refresh)" ;;
      esac
    done
    conf
    build "$variant" "$refresh"
    ;;
  test)
    conf
    cd "$ROOT"
    archives=("$@")
    ((${#archives[@]})) || archives=("$STATE"/*.oci.tar)
    [[ -e "${archives[0]}" ]] || die "no image archive in $STATE; run scripts/image.sh build first"
    export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
    WORKER_IMAGE_ARCHIVES="$(realpath "${archives[@]}" | paste -sd :)" \
      exec go test -count=1 -timeout 20m ./test/image
    ;;
  conf)
    conf
    echo "$CONTAINERS_CONF"
    ;;
  *)
    die "usage: scripts/image.sh build [--trimmed] [--refresh] | test [ARCHIVE...] | conf"
    ;;
esac
