// Package pipelinetest builds the worker's real Processor for tests of the
// packages around it (HTTP, tracing, integration), so that they test the
// outputs users get rather than a fake's.
//
// May import: internal/config, internal/images, internal/pipeline,
// internal/stages, internal/stages/stage.
package pipelinetest

import (
	"testing"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/images"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/stages"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
)

// Processor is the Processor of cfg with the default rule chain and a
// one-worker image pool released when tb ends; it also returns the chain.
func Processor(tb testing.TB, cfg config.Config) (*pipeline.Processor, []stage.Stage) {
	tb.Helper()
	images.Startup()
	imgs, err := images.NewProcessor(images.Config{Workers: 1})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(imgs.Close)
	chain := stages.Default(imgs)
	return pipeline.NewProcessor(cfg.Limits, pipeline.ResolverFor(cfg), pipeline.Deps{Stages: chain}), chain
}
