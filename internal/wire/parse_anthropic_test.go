package wire

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// anthropicCachedBody is a prompt-caching request as the Anthropic SDK's
// examples send it: a long system text block with a cache_control
// breakpoint, a second one without, and the last tool with its own.
const anthropicCachedBody = `{"model":"claude-opus-4-6","max_tokens":1024,` +
	`"system":[{"type":"text","text":"You are an AI assistant tasked with analyzing legal documents."},` +
	`{"type":"text","text":"Here is the full text of a complex legal agreement: ...","cache_control":{"type":"ephemeral"}}],` +
	`"tools":[{"name":"get_weather","description":"Get the current weather in a given location","input_schema":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}},` +
	`{"name":"get_time","description":"Get the current time in a given time zone","input_schema":{"type":"object","properties":{"timezone":{"type":"string"}},"required":["timezone"]},"cache_control":{"type":"ephemeral","ttl":"1h"}}],` +
	`"messages":[{"role":"user","content":[{"type":"text","text":"What are the key terms and conditions in this agreement?"}]}]}`

// TestAnthropicSystemCacheControl: Anthropic → Anthropic keeps the
// cache_control breakpoints of the system blocks and tools (the body comes
// back the same); for any other format they are dropped and counted.
// Issue 29 item 7: on 0988e1e they were dropped for Anthropic too, so a
// prompt-caching setup lost its breakpoint.
func TestAnthropicSystemCacheControl(t *testing.T) {
	tg := transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}
	got := roundTrip(t, AnthropicMessages, []byte(anthropicCachedBody), tg)
	want := strings.Replace(anthropicCachedBody, `"model":"claude-opus-4-6","max_tokens":1024,`, "", 1)
	if !semanticallyEqual(t, got, []byte(want)) {
		t.Errorf("round trip differs\n got %s\nwant %s", got, want)
	}
	for _, target := range []Format{BedrockConverse, OpenAIChat, GeminiContents} {
		p, err := Parse(AnthropicMessages, []byte(anthropicCachedBody), tg, target)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]int{LossToolCacheControl: 2}; !maps.Equal(p.Dropped, want) {
			t.Errorf("for %s: dropped %v, want %v", target, p.Dropped, want)
		}
		tools, _ := json.Marshal(p.Tools)
		if strings.Contains(string(p.System)+string(tools), "cache_control") {
			t.Errorf("for %s: cache_control kept: %s %s", target, p.System, tools)
		}
	}
}
