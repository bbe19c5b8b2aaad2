# hygiene worker image: built with Go and libvips-dev on Debian 12, run on
# Debian 12 slim with only the libvips runtime, as a non-root user.
# The same steps as the CI install (scripts/test.sh): apt-get install
# libvips-dev, go mod download, go build.
# Without registries, scripts/image.sh builds the same image (Containerfile)
# from Debian packages; keep the two in step (runtime packages, user, env,
# entrypoint).
#
#   docker build -t hygiene-worker:0.1.0 .
#   docker run --rm hygiene-worker:0.1.0 config print

FROM golang:1.27-bookworm AS build
# go.mod pins the patched toolchain (go1.27.3); the golang image says
# GOTOOLCHAIN=local, which would ignore it. The module proxy serves it.
ENV GOTOOLCHAIN=auto
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libvips-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY cmd ./cmd
COPY internal ./internal
# GOEXPERIMENT=simd: the codec's vector string scan (simd/archsimd, AVX2,
# chosen at run time; the scalar scan on a CPU without it).
RUN CGO_ENABLED=1 GOEXPERIMENT=simd go build -trimpath -buildvcs=false -ldflags="-s -w" -o /out/worker ./cmd/worker

FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libvips42 ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/worker /usr/local/bin/worker
COPY configs/worker.yaml /etc/hygiene/worker.yaml
# glibc keeps one malloc arena per thread by default; libvips threads would
# grow the resident set without bound.
# (docker run: add -e HYGIENE_METRICS_LISTEN=0.0.0.0:9464 to reach /metrics.)
ENV MALLOC_ARENA_MAX=2
USER 65532:65532
EXPOSE 9464
ENTRYPOINT ["/usr/local/bin/worker"]
CMD ["run", "--config", "/etc/hygiene/worker.yaml"]
