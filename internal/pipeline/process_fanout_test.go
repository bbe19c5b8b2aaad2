package pipeline

import (
	"bytes"
	"context"
	"reflect"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/fanout"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// tagFirstBlocks is a test rule: it edits the first block of every third
// message, so the encode writes re-encoded messages between untouched ones.
var tagFirstBlocks = stage.Stage{Name: "tag_first_blocks", Apply: func(_ context.Context, t *transcript.Transcript, _ *stage.Env) error {
	for i, m := range t.Messages {
		if blocks, _ := m.Blocks(); i%3 == 0 && len(blocks) > 0 && blocks[0].IsObject() {
			blocks[0].Set("tagged", []byte("true"))
		}
	}
	return nil
}}

// TestProcessFanoutMatchesSequential runs generated jobs, and broken copies
// of them, through a processor whose fanout splits every job's decode and
// encode (thresholds of one byte and one message) and through one without
// a fanout: every outcome, payload bytes and report included, is the same.
func TestProcessFanoutMatchesSequential(t *testing.T) {
	cfg := config.Default()
	stages := []stage.Stage{tagUsers, tagFirstBlocks}
	seq := NewProcessor(cfg.Limits, ResolverFor(cfg), Deps{Stages: stages})
	chk := NewProcessor(cfg.Limits, ResolverFor(cfg), Deps{Stages: stages, Fanout: fanout.New(5, 1).WithMinBytes(1)})
	split := 0
	for seed := range uint64(40) {
		tg := transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}
		_, job := sessiongen.New(sessiongen.Config{Seed: seed, Messages: 30 + int(seed)*7, ToolCallDensity: 0.5,
			Damage: sessiongen.Heavy(), Target: tg}).Job(0)
		broken := [][]byte{job, job[:len(job)*2/3], bytes.Replace(job, []byte(`"role":"assistant"`), []byte(`"role":"assistant`), 1),
			bytes.Replace(job, []byte(`},{"role"`), []byte(`},,{"role"`), 3)}
		for _, value := range broken {
			want, err := seq.Process(context.Background(), transport.Record{Value: value})
			if err != nil {
				t.Fatal(err)
			}
			got, err := chk.Process(context.Background(), transport.Record{Value: value})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d: chunked outcome differs:\n got %+v\nwant %+v", seed, got, want)
			}
			if got.Ready && len(got.Report.Stages.Of("tag_users")) > 0 {
				split++
			}
		}
	}
	if split == 0 {
		t.Fatal("no job reached the rules: the test checks only errors")
	}
}
