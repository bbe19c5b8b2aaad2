package wire

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// goldenTargets are the chain's golden outputs (internal/stages/testdata/golden,
// one per target of that test) that this package renders, with their targets.
var goldenTargets = map[string]string{
	"openai-completions":          "openai/openai-completions/gpt-4.1",
	"openai-responses":            "openai/openai-responses/gpt-5",
	"openai-codex-responses":      "openai-codex/openai-codex-responses/gpt-5-codex",
	"anthropic-opus-4":            "anthropic/anthropic-messages/claude-opus-4-6",
	"anthropic-claude-3-7":        "anthropic/anthropic-messages/claude-3-7-sonnet-20250219",
	"anthropic-vertex":            "anthropic-vertex/anthropic-messages/claude-sonnet-4",
	"amazon-bedrock":              "amazon-bedrock/bedrock-converse-stream/anthropic.claude-3-7-sonnet-20250219-v1:0",
	"google":                      "google/google-generative-ai/gemini-2.5-pro",
	"google-gemini-cli":           "google-gemini-cli/google-gemini-cli/gemini-2.5-pro",
	"mistral":                     "mistral/mistral-conversations/mistral-large-latest",
	"openrouter-gemini":           "openrouter/openai-completions/google/gemini-2.5-pro",
	"openrouter-claude":           "openrouter/openai-completions/anthropic/claude-sonnet-4",
	"github-copilot-claude":       "github-copilot/openai-completions/claude-sonnet-4",
	"github-copilot-gpt":          "github-copilot/openai-completions/gpt-4.1",
	"minimax-anthropic":           "minimax/anthropic-messages/MiniMax-M2",
	"minimax-openai":              "minimax/openai-completions/MiniMax-M2",
	"kimi-coding":                 "kimi-coding/anthropic-messages/kimi-k2",
	"moonshot-completions":        "moonshot/openai-completions/kimi-k2",
	"xai-responses":               "xai/openai-responses/grok-4",
	"fallback-openai-completions": "vllm/openai-completions/gemma-3",
	"fallback-google":             "custom-gemini/google-generative-ai/gemini-2.5-flash",
	"fallback-anthropic":          "custom-claude/anthropic-messages/claude-opus-4-6",
	"fallback-bedrock":            "my-bedrock-proxy/bedrock-converse-stream/claude-3-5-sonnet",
	"fallback-azure-responses":    "azure-openai/azure-openai-responses/gpt-5",
	"fallback-mistral-model":      "together/openai-completions/mistralai/Mixtral-8x7B",
	"fallback-unknown":            "acme-llm/acme-chat/acme-1",
}

// testRequest is the system prompt and tool every golden body carries.
var testRequest = Request{
	System: json.RawMessage(`"You are a careful coding agent."`),
	Tools:  []transcript.Tool{{Name: "read", Description: "Read a file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
}

// goldenInput reads the chain's golden output for name and returns its
// sanitized messages and target.
func goldenInput(t testing.TB, name string) (*transcript.Transcript, policy.Policy) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "stages", "testdata", "golden", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Messages json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	tg, err := policy.ParseTarget(goldenTargets[name])
	if err != nil {
		t.Fatal(err)
	}
	tr, err := transcript.FromMessages(golden.Messages, transcript.Target(tg))
	if err != nil {
		t.Fatal(err)
	}
	return tr, policy.Resolve(tg)
}

// TestGoldenBodies renders every golden chain output for its target and
// compares with testdata/<target>.json (go test -update rewrites; review
// the diff).
func TestGoldenBodies(t *testing.T) {
	formats := map[Format]bool{}
	for name := range goldenTargets {
		t.Run(name, func(t *testing.T) {
			tr, p := goldenInput(t, name)
			f := FormatFor(p)
			formats[f] = true
			body := Render(nil, f, p, tr.Messages, testRequest)
			if !json.Valid(body) {
				t.Fatalf("invalid JSON: %s", body)
			}
			if again := Render(nil, f, p, tr.Messages, testRequest); !bytes.Equal(body, again) {
				t.Fatal("two renders of the same transcript differ")
			}
			golden(t, filepath.Join("testdata", name+".json"), []byte(`{"request_format":"`+string(f)+`","request":`+string(body)+`}`))
		})
	}
	for _, f := range Formats {
		if !formats[f] {
			t.Errorf("no golden transcript renders as %s", f)
		}
	}
}

// TestImageBytesCopied checks that the base64 of every image in the input
// appears unchanged in every format's body.
func TestImageBytesCopied(t *testing.T) {
	tr, p := goldenInput(t, "anthropic-opus-4")
	var images [][]byte
	for _, m := range tr.Messages {
		blocks, _ := m.Blocks()
		for _, b := range blocks {
			if b.Type() == transcript.BlockImage {
				data, _ := b.Get("data")
				images = append(images, stringBody(data))
			}
		}
	}
	if len(images) == 0 {
		t.Fatal("the golden transcript has no image")
	}
	for _, f := range Formats {
		body := Render(nil, f, p, tr.Messages, Request{})
		for _, img := range images {
			if !bytes.Contains(body, img) {
				t.Errorf("%s: image base64 not copied as it was", f)
			}
		}
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
