// Package image tests the worker's container image as shipped: the OCI
// archives scripts/image.sh writes, loaded into podman and run.
//
// For each archive (WORKER_IMAGE_ARCHIVES, colon-separated; without it the
// test runs `scripts/image.sh build` and `build --trimmed` itself) it checks
// the image configuration (user 65532, MALLOC_ARENA_MAX=2, entrypoint), that
// the dynamic loader finds every library the binary links, and runs, inside
// the image, `version`, `config validate` of the shipped configuration,
// `sanitize` of every file of examples/ (byte-identical to the same binary
// run on the host), `run --produce examples` to completion on the
// container's own loopback, and `run` on the host network with a read-only
// root filesystem and a tmpfs /tmp, as the Helm chart runs it: the process
// is uid 65532, / is mounted read-only, a job produced from the host comes
// back ready, and SIGTERM stops it with exit status 0. Last, govulncheck
// scans the image's binary (-mode binary, scripts/vulncheck.sh).
//
// Without podman the test is skipped with the reason, unless CI=true: then
// it fails, because CI must test the image. podman reads the
// containers.conf of scripts/image.sh (CONTAINERS_CONF, if set, wins).
//
// Its tests import what they test.
//
// May import: no package of this module.
package image
