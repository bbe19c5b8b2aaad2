package sessiongen

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// RealConfig configures the realistic mode (RealShapes): histories with the
// shapes that real pi and OpenClaw session files carry, as docs/real-shapes.md
// records them, with the id lengths and alphabets, signature sizes, leftover
// fields (partialJson, details, textSignature, thoughtSignature), usage and
// stand-in turns of the runtime that wrote each turn. It holds no damage: every
// history is one a runtime could have written, and every tool call has complete
// arguments and exactly one result right after its turn.
//
// The tool results carry the same "ok:<n>" markers as the damaged mixes, so a
// test can follow each call and its result through the chain.
type RealConfig struct {
	Seed   uint64
	Target transcript.Target // the runtime's own provider/API (default anthropic/anthropic-messages)
	Turns  int               // user turns (default 6)
	// Foreign puts turns of other providers before the target's (model
	// switches): their ids, signatures and leftovers are those of the
	// provider that wrote them, as a real session keeps them.
	Foreign bool
	// StandIns adds the turns no model wrote: a gateway-injected notice, a
	// delivery mirror after an answer, a run of failed turns retried by the
	// user, a NO_REPLY answer to a heartbeat.
	StandIns bool
	// ExtraRoles adds bashExecution and custom messages between turns.
	ExtraRoles bool
	// MirrorLast ends the history with OpenClaw's delivery mirror of the
	// final answer (a cron run that delivered its answer to a channel), so
	// the last assistant entry is a stand-in, not the model's.
	MirrorLast bool
}

// RealShapes returns a generator of realistic histories (see RealConfig).
// The same config always gives the same bytes.
func RealShapes(cfg RealConfig) *Real {
	if cfg.Turns <= 0 {
		cfg.Turns = 6
	}
	if cfg.Target == (transcript.Target{}) {
		cfg.Target = transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-5"}
	}
	return &Real{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5851f42d4c957f2d))}
}

// Real generates realistic histories and session files; see RealShapes.
type Real struct {
	cfg RealConfig
	rng *rand.Rand
	n   int   // marker counter
	ts  int64 // clock (ms)
	seq int   // per-history counter for Gemini-style ids
}

// RealAPIs lists one target per API family that RealShapes writes natively,
// for tests and goldens that want one realistic session of each API.
var RealAPIs = []transcript.Target{
	{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-5"},
	{Provider: "amazon-bedrock", API: "bedrock-converse-stream", Model: "us.anthropic.claude-opus-4-6-v1"},
	{Provider: "openai", API: "openai-responses", Model: "gpt-5.2"},
	{Provider: "openai-codex", API: "openai-codex-responses", Model: "gpt-5.4"},
	{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"},
	{Provider: "google", API: "google-generative-ai", Model: "gemini-3-pro-preview"},
	{Provider: "mistral", API: "mistral-conversations", Model: "mistral-large-latest"},
}

// shape is how one runtime/provider writes its turns.
type shape struct {
	t         transcript.Target
	callID    func(r *Real, name string, i int, resp string) string
	thinking  func(r *Real, resp string) map[string]any // nil: no thinking block
	textSig   bool                                      // Responses: textSignature msg_<50 hex>
	partial   bool                                      // partialJson left on finished calls
	thoughtOn bool                                      // Gemini: thoughtSignature on calls, trailing empty text
	respID    func(r *Real) string
	negCost   bool // OpenRouter auto: costs are minus the token counts
	reasoning bool // Gemini: usage.reasoning
}

const (
	base62Chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	hexChars    = "0123456789abcdef"
	base36Chars = "abcdefghijklmnopqrstuvwxyz0123456789"
)

func (r *Real) pick(alphabet string, n int) string { return pick(r.rng, alphabet, n) }

// pick returns n characters of alphabet drawn from rng.
func pick(rng *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

func (r *Real) b64(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.rng.Uint32())
	}
	return base64.StdEncoding.EncodeToString(b)
}

// shapeFor returns how the runtime writes turns for target t.
func shapeFor(t transcript.Target) shape {
	s := shape{t: t}
	anthropicThinking := func(r *Real, _ string) map[string]any {
		// Anthropic signatures: base64 starting "E", 200 to 2,800 characters.
		sig := "E" + r.b64(150 + r.rng.IntN(1900))[1:]
		return map[string]any{"type": "thinking", "thinking": r.sentence(60 + r.rng.IntN(400)), "thinkingSignature": sig}
	}
	switch t.API {
	case "anthropic-messages":
		s.callID = func(r *Real, _ string, _ int, _ string) string { return "toolu_01" + r.pick(base62Chars, 22) }
		s.thinking = anthropicThinking
		s.respID = func(r *Real) string { return "msg_01" + r.pick(base62Chars, 22) }
		if t.Provider == "minimax" {
			s.callID = func(r *Real, _ string, i int, resp string) string {
				return "call_function_" + resp[:12] + fmt.Sprintf("_%d", i+1)
			}
			s.thinking = func(r *Real, _ string) map[string]any {
				return map[string]any{"type": "thinking", "thinking": r.sentence(80), "thinkingSignature": r.pick(hexChars, 64)}
			}
			s.respID = func(r *Real) string { return r.pick(hexChars, 32) }
		}
	case "bedrock-converse-stream":
		s.callID = func(r *Real, _ string, _ int, _ string) string { return "tooluse_" + r.pick(base62Chars, 22) }
		s.thinking = anthropicThinking
	case "openai-responses", "openai-codex-responses", "azure-openai-responses":
		s.callID = func(r *Real, _ string, _ int, resp string) string {
			return "call_" + r.pick(base62Chars, 24) + "|fc_" + resp + r.pick(hexChars, 34)
		}
		s.thinking = func(r *Real, resp string) map[string]any {
			item := fmt.Sprintf(`{"id":"rs_%s%s","type":"reasoning","encrypted_content":"gAAAAA%s","summary":[]}`,
				resp, r.pick(hexChars, 34), strings.NewReplacer("+", "-", "/", "_").Replace(r.b64(1100+r.rng.IntN(700))))
			return map[string]any{"type": "thinking", "thinking": "", "thinkingSignature": item}
		}
		s.textSig, s.partial = true, true
		s.respID = func(r *Real) string { return "" } // set from the response prefix
	case "google-generative-ai", "google-gemini-cli", "google-vertex":
		s.callID = func(r *Real, name string, _ int, _ string) string {
			r.seq++
			return fmt.Sprintf("%s_%d_%d", name, r.ts+int64(r.rng.IntN(900)), r.seq)
		}
		s.thinking = func(r *Real, _ string) map[string]any {
			return map[string]any{"type": "thinking", "thinking": r.sentence(120), "thinkingSignature": r.b64(300 + r.rng.IntN(1200))}
		}
		s.thoughtOn, s.reasoning = true, true
	case "mistral-conversations":
		s.callID = func(r *Real, _ string, _ int, _ string) string { return r.pick(base62Chars, 9) }
	default: // openai-completions and the Chat-like rest
		s.callID = func(r *Real, _ string, _ int, _ string) string { return "call_" + r.pick(base62Chars, 24) }
		s.respID = func(r *Real) string { return "chatcmpl-" + r.pick(base62Chars, 29) }
		switch t.Provider {
		case "openrouter":
			s.callID = func(r *Real, _ string, _ int, _ string) string { return "chatcmpl-tool-" + r.pick(hexChars, 32) }
			s.thinking = func(r *Real, _ string) map[string]any {
				return map[string]any{"type": "thinking", "thinking": r.sentence(100), "thinkingSignature": "reasoning"}
			}
			s.negCost = true
			s.respID = nil
		case "minimax":
			s.callID = func(r *Real, _ string, i int, resp string) string {
				return "call_function_" + resp[:12] + fmt.Sprintf("_%d", i+1)
			}
			s.thinking = func(r *Real, _ string) map[string]any {
				return map[string]any{"type": "thinking", "thinking": r.sentence(80)}
			}
			s.respID = func(r *Real) string { return r.pick(hexChars, 32) }
		case "vllm", "together", "moonshot":
			s.callID = func(r *Real, _ string, _ int, _ string) string { return "call_" + r.pick(hexChars, 24) }
			s.respID = func(r *Real) string { return "chatcmpl-" + r.pick(hexChars, 16) }
		}
	}
	return s
}

// foreignShapes are the runtimes a session may have used before switching to
// the target, in the order a history visits them.
var foreignShapes = []transcript.Target{
	{Provider: "openai-codex", API: "openai-codex-responses", Model: "gpt-5.4"},
	{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-5"},
	{Provider: "google", API: "google-generative-ai", Model: "gemini-3-pro-preview"},
	{Provider: "openrouter", API: "openai-completions", Model: "stepfun/step-3.5-flash:free"},
	{Provider: "minimax", API: "anthropic-messages", Model: "MiniMax-M2.7"},
	{Provider: "amazon-bedrock", API: "bedrock-converse-stream", Model: "us.anthropic.claude-opus-4-6-v1"},
}

var realWords = strings.Fields(`the build passed after the linker flag change so the worker now reads the session
directory in order and writes one request per file the cache hit rate went up and the tests are green again
check the logs for the retry count compare with yesterday and report back 日本語 한국어 émoji 😀`)

func (r *Real) sentence(n int) string {
	var sb strings.Builder
	for sb.Len() < n {
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(realWords[r.rng.IntN(len(realWords))])
	}
	return sb.String()
}

func (r *Real) tick() int64 { r.ts += int64(300 + r.rng.IntN(9000)); return r.ts }

// usage returns a usage object as pi-ai writes it.
func (r *Real) usage(s shape, zero bool) map[string]any {
	if zero {
		return map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
			"cost": map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
	}
	in, out, cr, cw := 3+r.rng.IntN(4000), 40+r.rng.IntN(900), r.rng.IntN(20000), r.rng.IntN(3000)
	cost := map[string]any{"input": float64(in) * 3e-6, "output": float64(out) * 1.5e-5, "cacheRead": float64(cr) * 3e-7,
		"cacheWrite": float64(cw) * 3.75e-6}
	cost["total"] = cost["input"].(float64) + cost["output"].(float64) + cost["cacheRead"].(float64) + cost["cacheWrite"].(float64)
	if s.negCost {
		cost = map[string]any{"input": -in, "output": -out, "cacheRead": 0, "cacheWrite": 0, "total": -(in + out)}
		cr, cw = 0, 0
	}
	u := map[string]any{"input": in, "output": out, "cacheRead": cr, "cacheWrite": cw, "totalTokens": in + out + cr + cw, "cost": cost}
	if s.reasoning {
		u["reasoning"] = r.rng.IntN(out)
	}
	return u
}

func (r *Real) assistant(s shape, content []any, stop string, zero bool, resp string, ts int64) map[string]any {
	m := map[string]any{"role": "assistant", "content": content, "api": s.t.API, "provider": s.t.Provider, "model": s.t.Model,
		"usage": r.usage(s, zero), "stopReason": stop, "timestamp": ts}
	switch {
	case strings.Contains(s.t.API, "responses"):
		m["responseId"] = "resp_" + resp + r.pick(hexChars, 34)
	case s.respID != nil:
		m["responseId"] = s.respID(r)
	}
	return m
}

var realTools = []string{"read", "exec", "web_search", "write", "memory_get"}

func (r *Real) arguments(name string) map[string]any {
	switch name {
	case "exec":
		return map[string]any{"command": "cd ~/work && " + r.sentence(20), "timeout": 30 + r.rng.IntN(150)}
	case "web_search":
		return map[string]any{"query": r.sentence(25), "count": 5}
	case "write":
		return map[string]any{"path": "notes/" + r.pick(base36Chars, 6) + ".md", "content": r.sentence(60)}
	case "memory_get":
		return map[string]any{"path": fmt.Sprintf("memory/2026-04-%02d.md", 1+r.rng.IntN(28))}
	}
	return map[string]any{"path": "/home/user/.openclaw/workspace/" + r.pick(base36Chars, 8) + ".md"}
}

// details returns a result's details object, or nil (about half carry one).
func (r *Real) details(name string) map[string]any {
	if r.rng.IntN(2) == 0 {
		return nil
	}
	switch name {
	case "exec":
		return map[string]any{"status": "completed", "exitCode": r.rng.IntN(3), "durationMs": r.rng.IntN(5000),
			"aggregated": r.sentence(30), "cwd": "/home/user/.openclaw/workspace"}
	case "read":
		return map[string]any{"status": "error", "tool": "read", "error": "ENOENT: no such file or directory"}
	}
	return map[string]any{"status": "completed", "tookMs": r.rng.IntN(2000)}
}

func (r *Real) result(id, name string) map[string]any {
	r.n++
	m := map[string]any{"role": "toolResult", "toolCallId": id, "toolName": name,
		"content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("ok:%d %s", r.n, r.sentence(80))}},
		"isError": false, "timestamp": r.tick()}
	if d := r.details(name); d != nil {
		m["details"] = d
	}
	return m
}

// toolTurn returns one assistant turn with calls, then its results.
func (r *Real) toolTurn(s shape) []map[string]any {
	at := r.tick()
	resp := r.pick(hexChars, 16) // the response's shared id prefix (Responses), or a MiniMax call stem
	var blocks []any
	if s.thinking != nil && r.rng.IntN(4) != 0 {
		blocks = append(blocks, s.thinking(r, resp))
	}
	if r.rng.IntN(2) == 0 {
		tb := map[string]any{"type": "text", "text": r.sentence(40)}
		if s.textSig {
			tb["textSignature"] = "msg_" + resp + r.pick(hexChars, 34)
		}
		blocks = append(blocks, tb)
	}
	stem := r.pick(base36Chars, 12)
	var results []map[string]any
	for i := range 1 + r.rng.IntN(3) {
		name := realTools[r.rng.IntN(len(realTools))]
		stemOrResp := resp
		if strings.HasPrefix(s.t.Provider, "minimax") {
			stemOrResp = stem
		}
		id := s.callID(r, name, i, stemOrResp)
		args := r.arguments(name)
		call := map[string]any{"type": "toolCall", "id": id, "name": name, "arguments": args}
		if s.partial {
			raw, _ := transcript.Marshal(args)
			call["partialJson"] = string(raw)
		}
		if s.thoughtOn {
			call["thoughtSignature"] = r.b64(40 + r.rng.IntN(600))
		}
		blocks = append(blocks, call)
		results = append(results, r.result(id, name))
	}
	if s.thoughtOn {
		blocks = append(blocks, map[string]any{"type": "text", "text": ""})
	}
	return append([]map[string]any{r.assistant(s, blocks, "toolUse", false, resp, at)}, results...)
}

// answer returns the assistant's final text answer of a user turn.
func (r *Real) answer(s shape) map[string]any {
	resp := r.pick(hexChars, 16)
	var blocks []any
	if s.thinking != nil && r.rng.IntN(2) == 0 {
		blocks = append(blocks, s.thinking(r, resp))
	}
	tb := map[string]any{"type": "text", "text": r.sentence(60 + r.rng.IntN(200))}
	if s.textSig {
		tb["textSignature"] = "msg_" + resp + r.pick(hexChars, 34)
	}
	blocks = append(blocks, tb)
	return r.assistant(s, blocks, "stop", false, resp, r.tick())
}

func (r *Real) user(text string) map[string]any {
	return map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text}}, "timestamp": r.tick()}
}

func (r *Real) standIn(model, text string) map[string]any {
	return map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": text}},
		"api": "openai-responses", "provider": "openclaw", "model": model, "usage": r.usage(shape{}, true),
		"stopReason": "stop", "timestamp": r.tick()}
}

// messages returns the history as message objects, oldest first. It ends
// with the assistant's final answer (and its delivery mirror with
// MirrorLast).
func (r *Real) messages() []map[string]any {
	r.n, r.seq = 0, 0
	r.ts = 1775000000000 + int64(r.rng.IntN(1e9))
	var out []map[string]any
	own := shapeFor(r.cfg.Target)
	shapes := make([]shape, r.cfg.Turns)
	for i := range shapes {
		shapes[i] = own
	}
	if r.cfg.Foreign {
		// The first half of the turns come from one or two other runtimes.
		k := r.rng.IntN(len(foreignShapes))
		for i := 0; i < r.cfg.Turns/2; i++ {
			f := foreignShapes[(k+i*2/max(1, r.cfg.Turns/2))%len(foreignShapes)]
			if f.API == r.cfg.Target.API && f.Provider == r.cfg.Target.Provider {
				f = foreignShapes[(k+1)%len(foreignShapes)]
			}
			shapes[i] = shapeFor(f)
		}
	}
	if r.cfg.StandIns {
		out = append(out, r.standIn("gateway-injected", "⚠️ Agent failed before reply: the model timed out. Logs: openclaw logs --follow"))
	}
	for i, s := range shapes {
		prompt := r.sentence(40 + r.rng.IntN(160))
		out = append(out, r.user(prompt))
		if r.cfg.StandIns && i == 1 {
			// The provider failed twice; the runtime retried, then the user resent.
			for range 1 + r.rng.IntN(2) {
				m := r.assistant(s, []any{}, "error", true, r.pick(hexChars, 16), r.tick())
				delete(m, "responseId")
				m["errorMessage"] = "429 You exceeded your current quota, please check your plan and billing details."
				out = append(out, m)
			}
			out = append(out, r.user(prompt))
		}
		for loops := r.rng.IntN(4); loops > 0; loops-- {
			out = append(out, r.toolTurn(s)...)
		}
		out = append(out, r.answer(s))
		if r.cfg.StandIns && i == len(shapes)/2 {
			out = append(out, r.standIn("delivery-mirror", fmt.Sprintf("report_%d.png", r.rng.IntN(1e9))))
		}
		if r.cfg.ExtraRoles && i%3 == 1 && i < len(shapes)-1 {
			out = append(out, map[string]any{"role": "bashExecution", "command": "git status --short", "output": " M " + r.pick(base36Chars, 6) + ".go\n",
				"exitCode": 0, "cancelled": false, "truncated": false, "timestamp": r.tick()})
			out = append(out, map[string]any{"role": "custom", "customType": "reminder", "content": r.sentence(40), "display": true, "timestamp": r.tick()})
		}
		if r.cfg.StandIns && i == len(shapes)-2 {
			out = append(out, r.user("Read HEARTBEAT.md if it exists. If nothing needs attention, reply HEARTBEAT_OK."))
			out = append(out, r.assistant(s, []any{map[string]any{"type": "text", "text": "NO_REPLY"}}, "stop", false, r.pick(hexChars, 16), r.tick()))
		}
	}
	if r.cfg.MirrorLast {
		blocks, _ := out[len(out)-1]["content"].([]any)
		text, _ := blocks[len(blocks)-1].(map[string]any)["text"].(string)
		out = append(out, r.standIn("delivery-mirror", text))
	}
	return out
}

// History returns one realistic message array (JSON).
func (r *Real) History() []byte {
	return encodeArray(r.messages())
}

func encodeArray(ms []map[string]any) []byte {
	parts := make([]string, len(ms))
	for i, m := range ms {
		b, err := transcript.Marshal(m)
		if err != nil {
			panic(err) // only maps, strings and numbers are marshalled
		}
		parts[i] = string(b)
	}
	return []byte("[" + strings.Join(parts, ",") + "]")
}
