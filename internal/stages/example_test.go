package stages_test

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/hygiene-dev/hygiene/internal/images"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// Default is the whole rule chain: run each stage in order over one
// transcript with the job's policy and settings, then read what changed in
// the report. Here an assistant turn's tool call has no result (the
// session was cut off), and the chain adds the missing result, as
// Anthropic requires.
func ExampleDefault() {
	imgs, err := images.NewProcessor(images.Config{Workers: 1})
	if err != nil {
		panic(err)
	}
	defer imgs.Close()
	target := transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}
	tr, err := transcript.FromMessages([]byte(`[
		{"role":"user","content":"Read a.txt"},
		{"role":"assistant","content":[{"type":"toolCall","id":"toolu_01XFDUDzCKPzKXmYSn5Eoyzi","name":"read","arguments":{"path":"a.txt"}}],"stopReason":"toolUse"},
		{"role":"user","content":"Go on"}
	]`), target)
	if err != nil {
		panic(err)
	}
	env := &stage.Env{
		Policy:        policy.Resolve(target),
		Settings:      stage.Settings{Images: settings.Images{MaxDimensionPx: 1200, MaxBytes: 5 << 20, MaxInputPixels: 25_000_000, MaxBase64Bytes: 64 << 20, MaxFrames: 64}},
		Report:        stage.NewReport(),
		InputMessages: len(tr.Messages),
	}
	if err := stage.Run(context.Background(), stages.Default(imgs), tr, env); err != nil {
		panic(err) // a *stage.Reject would be the job's dead letter
	}
	for _, m := range tr.Messages {
		fmt.Println(m.Role())
	}
	fmt.Println("changed by:", slices.Sorted(maps.Keys(env.Report.Stages.Map())))
	fmt.Println("tool_result_pairing:", env.Report.Stages.Of("tool_result_pairing"))
	// Output:
	// user
	// assistant
	// toolResult
	// user
	// changed by: [model_snapshot strip_details tool_result_pairing usage]
	// tool_result_pairing: map[synthetic:1]
}
