package turns

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// chain is every stage of this package in spec §4 order.
func chain() []stage.Stage {
	return []stage.Stage{
		InterSessionMarker(),        // 1
		AssistantReplay(),           // 2
		ThoughtSignatures(),         // 3 (image pass)
		BlankBlocks(),               // 3
		ReplayInvalidSignatures(),   // 4
		CompactionStaleSignatures(), // 5
		InvalidSignatures(),         // 6
		DropReasoningFromHistory(),  // 7
		DropThinkingBlocks(),        // 8
		Usage(),                     // 14
		GoogleBootstrap(),           // 15 (and 18)
		ModelSnapshot(),             // 17
		GeminiTurns(),               // turn validation
		AnthropicTurns(),            // turn validation
		ProviderTurns(),             // last
	}
}

// providerRows is one target per row of spec §2.2 and §2.3.
var providerRows = []transcript.Target{
	{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"},
	{Provider: "openai", API: "openai-responses", Model: "gpt-5"},
	{Provider: "openai-codex", API: "openai-codex-responses", Model: "gpt-5-codex"},
	{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"},
	{Provider: "anthropic", API: "anthropic-messages", Model: "claude-3-7-sonnet-latest"},
	{Provider: "anthropic-vertex", API: "", Model: "claude-sonnet-4-5@20250929"},
	{Provider: "amazon-bedrock", API: "bedrock-converse-stream", Model: "anthropic.claude-3-5-sonnet-20241022-v2:0"},
	{Provider: "amazon-bedrock", API: "bedrock-converse-stream", Model: "amazon.nova-pro-v1:0"},
	{Provider: "google", API: "google-generative-ai", Model: "gemini-2.5-pro"},
	{Provider: "google-gemini-cli", API: "google-gemini-cli", Model: "gemini-3-pro-preview"},
	{Provider: "mistral", API: "openai-completions", Model: "mistral-large-latest"},
	{Provider: "openrouter", API: "openai-completions", Model: "google/gemini-2.5-pro"},
	{Provider: "openrouter", API: "openai-completions", Model: "anthropic/claude-sonnet-4"},
	{Provider: "opencode-go", API: "openai-completions", Model: "glm-4.6"},
	{Provider: "kilocode", API: "openai-completions", Model: "google/gemini-2.5-flash"},
	{Provider: "github-copilot", API: "openai-completions", Model: "claude-sonnet-4"},
	{Provider: "github-copilot", API: "openai-responses", Model: "gpt-5"},
	{Provider: "minimax", API: "anthropic-messages", Model: "MiniMax-M2"},
	{Provider: "minimax", API: "openai-completions", Model: "MiniMax-M2"},
	{Provider: "kimi-coding", API: "anthropic-messages", Model: "kimi-for-coding"},
	{Provider: "xai", API: "openai-completions", Model: "grok-4"},
	{Provider: "fireworks", API: "azure-openai-responses", Model: "gpt-oss-120b"},
	{Provider: "ollama", API: "ollama", Model: "llama3.3"},
	{Provider: "moonshot", API: "openai-completions", Model: "kimi-k2.6"},
	{Provider: "my-gemini-proxy", API: "google-generative-ai", Model: "gemini-2.5-flash"},
	{Provider: "corp", API: "google-gemini-cli", Model: "gemini-2.5-pro"},
	{Provider: "cloudflare-ai-gateway", API: "anthropic-messages", Model: "claude-3-5-haiku-latest"},
	{Provider: "corp-bedrock", API: "bedrock-converse-stream", Model: "us.anthropic.claude-opus-4-1-v1:0"},
	{Provider: "vllm", API: "openai-completions", Model: "meta-llama/Llama-3.3-70B-Instruct"},
	{Provider: "azure-openai", API: "azure-openai-responses", Model: "gpt-4.1"},
	{Provider: "acme", API: "acme-chat", Model: "acme-1"},
	{Provider: "acme", API: "google-vertex", Model: "gemini-2.5-pro"},
}

// gen builds random histories whose tool calls are answered right after
// their assistant (pairing, which runs earlier in the chain, guarantees
// that), with everything the rules of this package repair mixed in.
type gen struct {
	r     *rand.Rand
	b     strings.Builder
	n     int // messages written
	ts    int64
	calls int
}

func (g *gen) msg(format string, args ...any) {
	if g.n > 0 {
		g.b.WriteByte(',')
	}
	g.n++
	g.ts += int64(g.r.IntN(2000))
	fmt.Fprintf(&g.b, format, args...)
}

func (g *gen) pick(options ...string) string { return options[g.r.IntN(len(options))] }

func (g *gen) textBlock() string {
	return g.pick(`{"type":"text","text":"hello"}`, `{"type":"text","text":"  "}`, `{"type":"text","text":""}`,
		`{"type":"text","text":"NO_REPLY"}`, `{"type":"text","text":"x","thought_signature":"msg_1"}`,
		`{"type":"text","text":"y","thoughtSignature":"c2lnbmF0dXJl"}`, `{"type":"text"}`)
}

func (g *gen) thinkingBlock() string {
	return g.pick(`{"type":"thinking","thinking":"t","thinkingSignature":"EqQBCkYIBxgC"}`, `{"type":"thinking","thinking":"t"}`,
		`{"type":"thinking","thinking":"t","signature":"  "}`, `{"type":"redacted_thinking","data":"enc"}`,
		`{"type":"thinking","thinking":"r","thinkingSignature":"{\"id\":\"rs_1\",\"type\":\"reasoning\"}"}`)
}

func (g *gen) usage() string {
	return g.pick(`"usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15}`,
		`"usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0}`, `"usage":{"input":3}`, `"x":0`,
		`"usage":5`, `"usage":{"input":"7"}`)
}

func (g *gen) user() {
	switch g.r.IntN(7) {
	case 0:
		g.msg(`{"role":"user","content":"  ","timestamp":%d}`, g.ts)
	case 1:
		g.msg(`{"role":"user","content":[%s,{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],"timestamp":%d}`, g.textBlock(), g.ts)
	case 2:
		g.msg(`{"role":"user","content":"routed","provenance":{"kind":"inter_session","sourceSessionKey":"s%d","sourceTool":"sessions_send"}}`, g.r.IntN(3))
	case 3:
		g.msg(`{"role":"user","content":[%s,%s]}`, g.textBlock(), g.textBlock())
	case 4:
		g.msg(`{"role":"user","content":[{"type":"video","data":"%s","mimeType":"video/mp4"}]}`, g.pick("AA AA", "bad*", "AAAA"))
	default:
		g.msg(`{"role":"user","content":"question %d","timestamp":%d}`, g.n, g.ts)
	}
}

func (g *gen) assistant() {
	stop := g.pick(`"stop"`, `"stop"`, `"length"`, `"error"`, `"aborted"`)
	switch g.r.IntN(9) {
	case 0: // tool turn, answered right after
		k := 1 + g.r.IntN(3)
		var blocks []string
		if g.r.IntN(2) == 0 {
			blocks = append(blocks, g.thinkingBlock())
		}
		if g.r.IntN(2) == 0 {
			blocks = append(blocks, g.textBlock())
		}
		ids := make([]string, k)
		for i := range ids {
			g.calls++
			ids[i] = fmt.Sprintf("call%d", g.calls)
			blocks = append(blocks, fmt.Sprintf(`{"type":"toolCall","id":"%s","name":"read","arguments":{}}`, ids[i]))
		}
		g.msg(`{"role":"assistant","content":[%s],"stopReason":"toolUse",%s,"timestamp":%d}`, strings.Join(blocks, ","), g.usage(), g.ts)
		for _, id := range ids {
			g.msg(`{"role":"toolResult","toolCallId":"%s","toolName":"%s","content":[%s],"isError":false,"timestamp":%d}`, id, g.pick("read", "read", "read", "write"), g.pick(`{"type":"text","text":"ok"}`, `{"type":"text","text":" "}`, ``), g.ts)
		}
	case 1:
		g.msg(`{"role":"assistant","content":[],"stopReason":%s,%s,"timestamp":%d}`, stop, g.usage(), g.ts)
	case 2:
		g.msg(`{"role":"assistant","content":%s,"stopReason":%s,%s}`, g.pick(`"NO_REPLY"`, `"  "`, `"plain"`, `null`, `{"type":"text","text":"obj"}`), stop, g.usage())
	case 3:
		g.msg(`{"role":"assistant","content":[{"type":"text","text":"mirror"}],"provider":"openclaw","model":"delivery-mirror"}`)
	case 4:
		g.msg(`{"role":"assistant","content":[%s],"stopReason":%s,%s,"providerReplay":{"k":1}}`, g.pick(`{"type":"text","text":" "}`, `{"type":"text","text":"kept"}`, ``), stop, g.usage())
	default:
		var blocks []string
		for i := g.r.IntN(3); i >= 0; i-- {
			if g.r.IntN(2) == 0 {
				blocks = append(blocks, g.thinkingBlock())
			} else {
				blocks = append(blocks, g.textBlock())
			}
		}
		g.msg(`{"role":"assistant","content":[%s],"stopReason":%s,%s,"timestamp":%d}`, strings.Join(blocks, ","), stop, g.usage(), g.ts)
	}
}

func (g *gen) history() string {
	g.b.Reset()
	g.n, g.calls = 0, 0
	g.ts = 1_776_000_000_000
	g.b.WriteByte('[')
	for steps := 1 + g.r.IntN(14); steps > 0; steps-- {
		switch g.r.IntN(10) {
		case 0:
			g.msg(`{"role":"compactionSummary","summary":"s","timestamp":%d}`, g.ts)
		case 1:
			g.msg(`null`)
		case 2, 3, 4:
			g.user()
		default:
			g.assistant()
		}
	}
	g.b.WriteByte(']')
	return g.b.String()
}

// TestChainProperties runs every stage of the package in §4 order over
// seeded random histories for every provider row: the output is the same
// on two runs, a second pass changes nothing, and the provider-acceptance
// facts hold for strict targets.
func TestChainProperties(t *testing.T) {
	perRow := 200
	if testing.Short() {
		perRow = 40
	}
	for ri, target := range providerRows {
		t.Run(target.String(), func(t *testing.T) {
			g := &gen{r: rand.New(rand.NewPCG(uint64(ri), 42))}
			for i := range perRow {
				in := g.history()
				c := stagetest.Case{Target: target, Settings: stage.Settings{Request: settings.Request{ReplayInvalid: i%7 == 0}}}
				if i%2 == 0 {
					c.Settings = stage.Settings{Request: settings.Request{NowMs: new(int64(1_776_000_999_000))}}
				}
				first := c.Apply(t, in, chain()...)
				again := c.Apply(t, in, chain()...)
				if !bytes.Equal(first.JSON, again.JSON) {
					t.Fatalf("not deterministic\n in: %s\n  1: %s\n  2: %s", in, first.JSON, again.JSON)
				}
				second := c.Apply(t, string(first.JSON), chain()...)
				if !bytes.Equal(first.JSON, second.JSON) {
					t.Fatalf("not idempotent\n in: %s\n  1: %s\n  2: %s", in, first.JSON, second.JSON)
				}
				if p := first.Env.Policy; isStrictTarget(p) {
					if err := acceptanceFacts(first.Transcript.Messages); err != nil {
						t.Fatalf("%v\n in: %s\nout: %s", err, in, first.JSON)
					}
				}
				if err := pairingFacts(first.Transcript.Messages); err != nil {
					t.Fatalf("%v\n in: %s\nout: %s", err, in, first.JSON)
				}
			}
		})
	}
}

func isStrictTarget(p policy.Policy) bool {
	return p.ValidateAnthropicTurns || p.ValidateGeminiTurns || p.IsAnthropicFamily() || p.IsGoogleFamily()
}

// acceptanceFacts checks what Anthropic, Bedrock, Gemini and strict
// OpenAI-compatible servers require of the turn shape.
func acceptanceFacts(msgs []*transcript.Message) error {
	prev := ""
	for i, m := range msgs {
		role := m.Role()
		if role == "" {
			continue
		}
		if prev == "" && role == transcript.RoleAssistant {
			return fmt.Errorf("message %d: the first turn is an assistant", i)
		}
		if role == prev && (role == transcript.RoleAssistant || role == transcript.RoleUser) {
			return fmt.Errorf("message %d: two %s turns in a row", i, role)
		}
		prev = role
		switch role {
		case transcript.RoleUser, transcript.RoleToolResult, transcript.RoleAssistant:
		default:
			continue
		}
		if s, ok := m.ContentString(); ok {
			if transcript.IsBlank(s) {
				return fmt.Errorf("message %d: blank string content", i)
			}
			continue
		}
		blocks, ok := m.Blocks()
		if !ok {
			continue
		}
		if len(blocks) == 0 {
			return fmt.Errorf("message %d: empty %s content", i, role)
		}
		for j, b := range blocks {
			if isBlankText(b) {
				return fmt.Errorf("message %d block %d: empty text", i, j)
			}
		}
	}
	return nil
}

// pairingFacts checks that the chain kept pairing intact: each assistant's
// calls are answered by as many results right after it (Gemini: equal
// counts; the call turn follows a user or function-response turn, since no
// two assistants are adjacent), and each result answers a call.
func pairingFacts(msgs []*transcript.Message) error {
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		switch m.Role() {
		case transcript.RoleToolResult:
			return fmt.Errorf("message %d: tool result without a call before it", i)
		case transcript.RoleAssistant:
		default:
			continue
		}
		pending := map[string]bool{}
		for _, b := range m.ToolCalls() {
			id, _ := b.CallID()
			pending[id] = true
		}
		for i+1 < len(msgs) && (msgs[i+1].Role() == transcript.RoleToolResult || msgs[i+1].Role() == "") {
			i++
			if msgs[i].Role() == "" {
				continue
			}
			id, _ := msgs[i].ResultID()
			if !pending[id] {
				return fmt.Errorf("message %d: result %q answers no pending call", i, id)
			}
			delete(pending, id)
		}
		if len(pending) > 0 {
			return fmt.Errorf("message %d: %d calls left unanswered", i, len(pending))
		}
	}
	return nil
}

func FuzzChain(f *testing.F) {
	g := &gen{r: rand.New(rand.NewPCG(7, 7))}
	for range 20 {
		f.Add([]byte(g.history()), uint8(0))
	}
	f.Fuzz(func(t *testing.T, in []byte, pick uint8) {
		stagetest.Case{Target: providerRows[int(pick)%len(providerRows)]}.CheckProperties(t, in, chain()...)
	})
}
