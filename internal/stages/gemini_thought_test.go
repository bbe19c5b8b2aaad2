package stages

import (
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

// TestGeminiUnsignedThoughtKept: a Gemini 2.5 body with thought summaries
// (includeThoughts), whose thought part has no signature of its own (the
// step's signature is on its functionCall), sanitized for Gemini, keeps
// the thought part, as docs/formats.md says; for another format it is
// dropped and counted. Issue 29 item 7: on 0988e1e the Gemini renderer
// left it out without a count.
func TestGeminiUnsignedThoughtKept(t *testing.T) {
	const thought = "**Locating the config**\n\nI need to read config.yaml before answering."
	body := `{"contents":[{"role":"user","parts":[{"text":"Is my config valid?"}]},` +
		`{"role":"model","parts":[{"text":"` + strings.ReplaceAll(thought, "\n", `\n`) + `","thought":true},` +
		`{"functionCall":{"name":"read_file","args":{"path":"config.yaml"}},"thoughtSignature":"CiQBcsjafBy0V1mVQwQ3m3nN9n0eS2bB3Zg6b3sJ5m6g7lUo5pcKXgFyyNp8u7Rk1Xr3oQm7k2K6p4c1J1c2b0o8n3h5m9f7w=="}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"read_file","response":{"output":"kafka:\n  brokers: []"}}}]}]}`
	src := transcript.Target{Provider: "google", API: "google-generative-ai", Model: "gemini-2.5-pro"}
	for _, c := range []struct {
		tg   transcript.Target
		kept bool
	}{
		{src, true},
		{formatTargets[wire.AnthropicMessages], false},
	} {
		out, report, rej := sanitizeBody(t, wire.GeminiContents, []byte(body), src, c.tg)
		if rej != nil {
			t.Fatalf("%s: refused: %v", c.tg.API, rej)
		}
		if got := strings.Contains(string(out), "Locating the config"); got != c.kept {
			t.Errorf("%s: thought part in the body: %v, want %v\n%s (report %v)", c.tg.API, got, c.kept, out, report.Stages)
		}
		if c.kept && !strings.Contains(string(out), `"thought":true`) {
			t.Errorf("%s: the thought is not a thought part\n%s", c.tg.API, out)
		}
	}
}
