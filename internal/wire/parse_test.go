package wire

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// roundTrip parses body of format f as written by src and renders it back
// in f for the target tg.
func roundTrip(t testing.TB, f Format, body []byte, tg transcript.Target) []byte {
	t.Helper()
	parsed, err := Parse(f, body, tg, f)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	tr, err := transcript.FromMessages(parsed.Messages, tg)
	if err != nil {
		t.Fatalf("parsed messages do not decode: %v\n%s", err, firstLines(string(parsed.Messages), 20))
	}
	for kind, n := range parsed.Dropped {
		t.Errorf("a valid %s body lost %d %s in its own format", f, n, kind)
	}
	return Render(nil, f, policy.Resolve(tg), tr.Messages, Request{System: parsed.System, Tools: parsed.Tools})
}

// semanticallyEqual reports whether two bodies hold the same JSON values
// (member order and spacing aside).
func semanticallyEqual(t testing.TB, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("%v: %s", err, a)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return reflect.DeepEqual(va, vb)
}

// TestParseRoundTripGolden: every golden body B of format F gives
// render_F(parse_F(B)) = B.
func TestParseRoundTripGolden(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden bodies: %v", err)
	}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var g struct {
				Format  Format          `json:"request_format"`
				Request json.RawMessage `json:"request"`
			}
			if err := json.Unmarshal(raw, &g); err != nil {
				t.Fatal(err)
			}
			tg, err := policy.ParseTarget(goldenTargets[name])
			if err != nil {
				t.Fatal(err)
			}
			got := roundTrip(t, g.Format, g.Request, transcript.Target(tg))
			if !semanticallyEqual(t, got, g.Request) {
				t.Fatalf("round trip differs\ngot:  %s\nwant: %s", firstDiff(got, g.Request), "")
			}
		})
	}
}

// firstDiff shows where two compact bodies first differ.
func firstDiff(a, b []byte) string {
	var ia, ib any
	_ = json.Unmarshal(a, &ia)
	_ = json.Unmarshal(b, &ib)
	ca, _ := json.Marshal(ia)
	cb, _ := json.Marshal(ib)
	i := 0
	for i < len(ca) && i < len(cb) && ca[i] == cb[i] {
		i++
	}
	lo := max(i-300, 0)
	return "\n got: " + string(ca[lo:min(i+300, len(ca))]) + "\nwant: " + string(cb[lo:min(i+300, len(cb))])
}

// parseTargets are the target of each format's feature body under
// testdata/parse (the Chat body uses reasoning_content, so DeepSeek).
var parseTargets = map[Format]string{
	AnthropicMessages: "anthropic/anthropic-messages/claude-opus-4-6",
	OpenAIResponses:   "openai/openai-responses/gpt-5",
	GeminiContents:    "google/google-generative-ai/gemini-2.5-pro",
	BedrockConverse:   "amazon-bedrock/bedrock-converse-stream/anthropic.claude-sonnet-4-20250514-v1:0",
	OpenAIChat:        "deepseek/openai-completions/deepseek-chat",
	MistralChat:       "mistral/mistral-conversations/mistral-large-latest",
}

// featureBody reads testdata/parse/<f>.json: a body of f with every member
// the format keeps beyond the model (cache_control, citations, reasoning
// items, item ids, thought signatures, signed and redacted thinking).
func featureBody(t testing.TB, f Format) ([]byte, transcript.Target) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "parse", string(f)+".json"))
	if err != nil {
		t.Fatal(err)
	}
	tg, err := policy.ParseTarget(parseTargets[f])
	if err != nil {
		t.Fatal(err)
	}
	return raw, transcript.Target(tg)
}

// TestParseRoundTripFeatures: each format's feature body round-trips in
// its own format, what only that format carries included.
func TestParseRoundTripFeatures(t *testing.T) {
	for _, f := range Formats {
		t.Run(string(f), func(t *testing.T) {
			body, tg := featureBody(t, f)
			got := roundTrip(t, f, body, tg)
			if !semanticallyEqual(t, got, body) {
				t.Fatalf("round trip differs%s", firstDiff(got, body))
			}
		})
	}
}

// TestParseDropsForOtherFormats: what only the input format carries is
// dropped and counted when the target is another format, kept for its own.
func TestParseDropsForOtherFormats(t *testing.T) {
	want := map[Format]map[string]int{
		AnthropicMessages: {LossCacheControl: 2, LossCitations: 1, LossSignedThinking: 2},
		OpenAIResponses:   {LossReasoning: 1, LossItemID: 2},
		GeminiContents:    {LossGeminiThought: 1, LossTextSignature: 1},
		BedrockConverse:   {LossSignedThinking: 2},
		OpenAIChat:        {},
		MistralChat:       {},
	}
	for _, f := range Formats {
		body, tg := featureBody(t, f)
		for _, target := range Formats {
			parsed, err := Parse(f, body, tg, target)
			if err != nil {
				t.Fatal(err)
			}
			expect := map[string]int{}
			for kind, n := range want[f] {
				if !Carries(target, kind) {
					expect[kind] = n
				}
			}
			if !reflect.DeepEqual(parsed.Dropped, expect) {
				t.Errorf("%s for %s: dropped %v, want %v", f, target, parsed.Dropped, expect)
			}
			if _, err := transcript.FromMessages(parsed.Messages, tg); err != nil {
				t.Errorf("%s for %s: %v", f, target, err)
			}
		}
	}
}

// TestParseRefusesBadBodies: a body that is not an object, or whose history
// member is missing or not an array, is an error naming the member.
func TestParseRefusesBadBodies(t *testing.T) {
	cases := []struct {
		f    Format
		body string
		want string
	}{
		{AnthropicMessages, `[]`, "request"},
		{AnthropicMessages, `{"system":"s"}`, "request.messages is missing"},
		{OpenAIChat, `{"messages":{}}`, "request.messages must be an array"},
		{OpenAIResponses, `{"instructions":"s"}`, "request.input is missing"},
		{GeminiContents, `{"contents":[7]}`, "request.contents[0] must be an object"},
		{BedrockConverse, `{"messages":"x"}`, "request.messages must be an array"},
		{Format("acme"), `{}`, "not one of the six formats"},
	}
	for _, c := range cases {
		_, err := Parse(c.f, []byte(c.body), transcript.Target{}, c.f)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: error %v, want %q", c.f, c.body, err, c.want)
		}
	}
}
