package stages

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// tinyPNG is an 8x8 grey PNG in base64, as Go 1.26's image/png wrote it:
// the bytes are fixed here, since Go 1.27's encoder writes the same image
// differently and the golden outputs carry them. The test checks they
// are still that image.
func tinyPNG(t *testing.T) string {
	const b64 = "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAAAAADhZOFXAAAAEklEQVR4nGJigAIKGYAAAAD//wLQABEmOnSlAAAAAElFTkSuQmCC"
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if g, ok := img.(*image.Gray); !ok || g.Bounds() != image.Rect(0, 0, 8, 8) || !bytes.Equal(g.Pix, make([]byte, 64)) {
		t.Fatalf("tinyPNG is not an 8x8 black grey image: %T %v", img, img.Bounds())
	}
	return b64
}

// outcome runs the whole chain with the given context window and contract
// mode, and returns what the job became: the dead letter's code and
// sentence, or the messages and the report.
func outcome(t *testing.T, tg transcript.Target, messages string, contextWindow int, mode settings.ContractMode) []byte {
	t.Helper()
	tr, err := transcript.FromMessages([]byte(messages), transcript.Target(tg))
	if err != nil {
		t.Fatal(err)
	}
	env := &stage.Env{Policy: policy.Resolve(tg), Report: stage.NewReport(), InputMessages: len(tr.Messages),
		Settings: stage.Settings{Images: settings.Images{MaxDimensionPx: 1200, MaxBytes: 5 << 20, MaxInputPixels: 25_000_000,
			MaxBase64Bytes: 64 << 20, MaxFrames: 64}, Request: settings.Request{ContextWindowTokens: new(contextWindow)}, ContractMode: mode}}
	var skip stage.Skipper
	for _, s := range Default(imgs) {
		if skip.Skip(&s, tr, env) {
			continue
		}
		err := s.Apply(context.Background(), tr, env)
		var rej *stage.Reject
		if errors.As(err, &rej) {
			return indent(t, []byte(fmt.Sprintf(`{"code":%q,"stage":%q,"error":%s}`, rej.Code, s.Name, transcript.JSONString(rej.Msg))))
		}
		if err != nil {
			t.Fatalf("stage %s: %v", s.Name, err)
		}
	}
	report, _ := json.Marshal(env.Report)
	if len(tr.ToolNames) > 0 {
		names, _ := json.Marshal(tr.ToolNames)
		return indent(t, []byte(fmt.Sprintf(`{"messages":%s,"tool_names":%s,"report":%s}`, tr.MessagesJSON(), names, report)))
	}
	return indent(t, []byte(fmt.Sprintf(`{"messages":%s,"report":%s}`, tr.MessagesJSON(), report)))
}

// TestGoldenSendable: the cases of issue 16 through the whole chain,
// compared with testdata/golden/sendable-<case>.json (go test -update
// rewrites them).
func TestGoldenSendable(t *testing.T) {
	img := `{"type":"image","data":"` + tinyPNG(t) + `","mimeType":"image/png"}`
	bedrock := transcript.Target{Provider: "amazon-bedrock", API: "bedrock-converse-stream", Model: "anthropic.claude-sonnet-4-5"}
	oneImageEach := make([]string, 150)
	for i := range oneImageEach {
		oneImageEach[i] = `{"role":"user","content":[` + img + `]}`
	}
	cases := []struct {
		name          string
		target        transcript.Target
		messages      string
		contextWindow int
		mode          settings.ContractMode
	}{
		{"emptied", anthropicOpus, `[{"role":"toolResult","toolCallId":"ghost","toolName":"read","content":[{"type":"text","text":"orphan"}]},` +
			`{"role":"assistant","content":[],"stopReason":"error"}]`, 0, ""},
		{"no-user-turn", transcript.Target{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"},
			`[{"role":"assistant","content":[{"type":"text","text":"hello?"}],"stopReason":"stop"}]`, 0, ""},
		// issue 29: a history with turns but no user turn is ready on every
		// target (the bootstrap turn first); one with nothing a provider is
		// sent is still a dead letter
		{"nothing-sent", transcript.Target{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"},
			`[{"role":"bashExecution","command":"ls","output":"a.go","exitCode":0,"cancelled":false,"truncated":false,"excludeFromContext":true,"timestamp":1776000000000}]`, 0, ""},
		{"bedrock-25-images-in-one-message", bedrock, `[{"role":"user","content":[` + strings.Repeat(img+",", 24) + img + `]}]`, 0, ""},
		{"anthropic-150-images-1m-context", anthropicOpus, `[` + strings.Join(oneImageEach, ",") + `]`, 1_000_000, ""},
		{"anthropic-150-images-200k-context", anthropicOpus, `[` + strings.Join(oneImageEach, ",") + `]`, 200_000, ""},
		// issue 21: names Anthropic refuses are renamed, not a dead letter;
		// mcp.fs.read's readable form is taken by mcp_fs_read, so it gets a
		// hash suffix
		{"tool-name-renamed", anthropicOpus, `[{"role":"user","content":"hi"},` +
			`{"role":"assistant","content":[{"type":"toolCall","id":"toolu_01XFDUDYJgAACzvnptvVoYEL","name":"mcp.fs.read","arguments":{}},` +
			`{"type":"toolCall","id":"toolu_01Wq8bT3uKpJ4mR6nZsE2vHc","name":"mcp_fs_read","arguments":{}},` +
			`{"type":"toolCall","id":"toolu_01Lk5cN9aQyF7dX2rTbG8wUe","name":"github:create_issue","arguments":{}}],"stopReason":"toolUse"},` +
			`{"role":"toolResult","toolCallId":"toolu_01XFDUDYJgAACzvnptvVoYEL","toolName":"mcp.fs.read","content":[{"type":"text","text":"ok"}]},` +
			`{"role":"toolResult","toolCallId":"toolu_01Wq8bT3uKpJ4mR6nZsE2vHc","toolName":"mcp_fs_read","content":[{"type":"text","text":"ok"}]},` +
			`{"role":"toolResult","toolCallId":"toolu_01Lk5cN9aQyF7dX2rTbG8wUe","toolName":"github:create_issue","content":[{"type":"text","text":"#21"}]}]`, 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := outcome(t, tc.target, tc.messages, tc.contextWindow, tc.mode)
			name := "sendable-" + tc.name + ".json"
			if *update {
				writeGolden(t, name, got)
				return
			}
			want, err := os.ReadFile(filepath.Join("testdata", "golden", name))
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("output differs from %s (inspect, then go test -update ./internal/stages)\n%s", name, firstDiff(got, want))
			}
		})
	}
}
