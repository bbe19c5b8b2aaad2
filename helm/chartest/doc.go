// Package chartest checks the helm/hygiene-worker chart: helm lint and helm
// template (through the helm SDK, the same code paths as the CLI) with
// default values and with every feature on, each rendered manifest decoded
// strictly into its Kubernetes API type so that a misspelt field fails, and
// the rendered worker.yaml loaded by the worker's own strict config loader.
//
// It is its own Go module so that helm and k8s.io/api stay out of the
// worker's go.mod. Run it with: cd helm/chartest && go test ./...
package chartest
