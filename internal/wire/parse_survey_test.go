package wire

import (
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// TestParseSurveyShapes: shapes of the request-body survey
// (docs/real-shapes.md) that issue 29 did not name, each read into the
// model for its own format: what the messages and the system prompt must
// hold, and what must not be counted as dropped. Each failed at 0988e1e.
func TestParseSurveyShapes(t *testing.T) {
	cases := []struct {
		name     string
		f        Format
		body     string
		want     []string // substrings of the messages (or, with system:, of the system prompt)
		notDrops []string // loss kinds that must not be counted
	}{
		{"ADK and strands: systemInstruction and tools under config, the system a string", GeminiContents,
			`{"model":"gemini-2.5-flash","contents":[{"parts":[{"text":"hi"}],"role":"user"},{"parts":[{"functionCall":{"args":{"data_one":"RRRR"},"name":"update_fc"}}],"role":"model"},{"parts":[{"functionResponse":{"name":"update_fc","response":{}}}],"role":"user"}],` +
				`"config":{"systemInstruction":"You are an agent. Your name is root_agent.","tools":[{"functionDeclarations":[{"description":"Hello","name":"update_fc","parameters":{"type":"object","properties":{"data_one":{"type":"string"}}}}]}]}}`,
			[]string{`"name":"update_fc","arguments":{"data_one":"RRRR"}`, "system:You are an agent.", "tool:update_fc"}, nil},
		{"vercel/ai: Bedrock redactedReasoning is redacted thinking", BedrockConverse,
			`{"messages":[{"role":"user","content":[{"text":"Explain your reasoning"}]},{"role":"assistant","content":[{"reasoningContent":{"redactedReasoning":{"data":"EmwKAhgBEgy3va3pzix"}}},{"text":"Done."}]},{"role":"user","content":[{"text":"Thanks"}]}]}`,
			[]string{`"type":"redacted_thinking"`, `EmwKAhgBEgy3va3pzix`}, []string{LossUnknown}},
		{"strands: a guardContent text is the user's text", BedrockConverse,
			`{"messages":[{"role":"user","content":[{"text":"First message"}]},{"role":"assistant","content":[{"text":"First response"}]},{"role":"user","content":[{"guardContent":{"text":{"text":"what is the standard deduction?"}}},{"guardContent":{"image":{"format":"png","source":{"bytes":"iVBORw0KGgo="}}}}]}]}`,
			[]string{`"text":"what is the standard deduction?"`, `"data":"iVBORw0KGgo="`}, []string{LossGuardContent, LossUnknown}},
	}
	src := transcript.Target{Provider: "google", API: "google-generative-ai", Model: "gemini-2.5-flash"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse(c.f, []byte(c.body), src, c.f)
			if err != nil {
				t.Fatal(err)
			}
			var tools []string
			for _, tool := range p.Tools {
				tools = append(tools, "tool:"+tool.Name)
			}
			for _, w := range c.want {
				var in, what string
				switch {
				case strings.HasPrefix(w, "system:"):
					in, what = string(p.System), strings.TrimPrefix(w, "system:")
				case strings.HasPrefix(w, "tool:"):
					in, what = strings.Join(tools, " "), w
				default:
					in, what = string(p.Messages), w
				}
				if !strings.Contains(in, what) {
					t.Errorf("%s missing\nmessages %s\nsystem %s\ntools %v", w, p.Messages, p.System, tools)
				}
			}
			for _, k := range c.notDrops {
				if p.Dropped[k] > 0 {
					t.Errorf("%s counted as dropped: %v", k, p.Dropped)
				}
			}
		})
	}
}
