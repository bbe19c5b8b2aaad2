// Package sessiongen generates realistic, reproducible agent histories and
// jobs: user turns, assistant turns with thinking, text and tool calls, tool
// results and base64 images, with a configurable mix of the damage the
// hygiene rules repair. The same seed and Config always give the same bytes.
// It feeds the whole-chain property tests and the bench harness.
//
// Every tool result carries a marker in its text that says what the
// generator meant by it, so tests can check what the rules kept:
//
//	"ok:<n>"     the real result of a well-formed call in a turn that did not fail
//	"late:<n>"   the same, but displaced (after a later user turn)
//	"dup:<n>"    a second result for a call that already has one
//	"orphan:<n>" a result whose call does not exist
//	"fail:<n>"   the result of a call in a failed (error) assistant turn
//	"bad:<n>"    the result of a malformed call (no arguments or a bad name)
//	"idless:<n>" a legacy result without an id, beside a call whose id is ""
//
// Beside histories it writes provider request bodies (bodies.go): Bodies
// gives one body of each request format as a named SDK or client writes it
// (BodyVariants: the Anthropic SDK, vercel/ai, strands, google-genai,
// Vertex snake_case, ADK, LiteLLM, the Mistral SDK, ...), with the shapes
// the survey of docs/real-shapes.md ("Request bodies per format") found,
// and lists the parts each holds (Part) so the round-trip and cross-format
// properties of package wire can follow them.
//
// May import: internal/transcript.
package sessiongen

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// Damage sets how often each kind of damage occurs (probabilities in [0,1]
// per opportunity: per tool call, per turn, or per history).
type Damage struct {
	MissingResult    float64 // per call: no result at all
	DisplacedResult  float64 // per call: result comes after the next user turn
	DuplicateResult  float64 // per call: a second result
	OrphanResult     float64 // per turn: a result for an unknown call
	BadID            float64 // per call: id with characters providers reject, or 50+ chars
	RepeatedID       float64 // per call: reuses an earlier call's id
	MalformedCall    float64 // per call: no arguments, or an invalid name
	UnsignedThinking float64 // per thinking block: signature missing or blank
	BlankText        float64 // per turn: an extra blank text block
	FailedTurn       float64 // per assistant turn: stopReason error (possibly empty)
	SilentReply      float64 // per assistant turn: a NO_REPLY turn
	ConsecutiveUsers float64 // per user turn: a second user turn right after
	AssistantFirst   float64 // per history: starts with an assistant turn
	Details          float64 // per result: carries a details object
	// PartialUsage (per assistant turn: a usage without totalTokens, which
	// the usage rule completes, spec §3.14) is 1 in Realistic and Heavy,
	// where it draws no random number: their histories are the ones the
	// generator wrote before it had the knob, when every usage lacked it.
	// Off, every usage is whole, as pi-ai writes it, so a history without
	// damage is one no rule changes.
	PartialUsage float64

	// The damage of issue 16. Each is off (0) in Realistic and Heavy, and
	// draws no random number while off, so the histories those mixes give
	// for a seed do not change; Issue16 turns them on.
	InvalidText   float64 // per text block: a lone surrogate or bytes that are not UTF-8
	PaddedID      float64 // per real result: its id padded with a white space JavaScript's trim removes
	EmptyIDCall   float64 // per tool turn: a call with id "" and an id-less result beside the real ones
	LengthEmptied float64 // per user turn: a "length" turn whose only call has id "" (emptied by §3.5)
	ServerTools   float64 // per tool turn: Anthropic server-tool blocks, paired, unanswered or orphaned

	// BlankStringTurn (per user turn: an assistant turn whose content is
	// a blank string, then the answer as a second assistant turn) is off in
	// every mix, drawing no random number, so no mix's histories change;
	// issue 11's per-rule text property turns it on.
	BlankStringTurn float64
}

// Issue16 is Heavy with the damage of issue 16 on.
func Issue16() Damage {
	d := Heavy()
	d.InvalidText, d.PaddedID, d.EmptyIDCall, d.LengthEmptied, d.ServerTools = 0.2, 0.3, 0.2, 0.1, 0.3
	return d
}

// Invalid-text tokens: the generator writes them into text and replaces
// them in the encoded history with bytes encoding/json cannot produce.
const (
	loneSurrogateToken = "@@lone-surrogate@@"
	invalidUTF8Token   = "@@invalid-utf8@@"
)

// jsSpaces are the characters JavaScript's String.prototype.trim removes
// (ECMAScript WhiteSpace and LineTerminator), U+FEFF among them.
var jsSpaces = []string{"\\t", "\\n", "\\u000b", "\\f", "\\r", " ", "\\u00a0", "\\ufeff", "\\u1680", "\\u2000", "\\u2001",
	"\\u2002", "\\u2003", "\\u2004", "\\u2005", "\\u2006", "\\u2007", "\\u2008", "\\u2009", "\\u200a", "\\u2028", "\\u2029",
	"\\u202f", "\\u205f", "\\u3000"}

// Realistic is a damage mix seen in real archives: mostly clean, every
// defect present now and then.
func Realistic() Damage {
	return Damage{MissingResult: 0.03, DisplacedResult: 0.02, DuplicateResult: 0.02, OrphanResult: 0.02,
		BadID: 0.05, RepeatedID: 0.02, MalformedCall: 0.02, UnsignedThinking: 0.05, BlankText: 0.05,
		FailedTurn: 0.03, SilentReply: 0.02, ConsecutiveUsers: 0.05, AssistantFirst: 0.1, Details: 0.3, PartialUsage: 1}
}

// Heavy is every defect often: for property tests.
func Heavy() Damage {
	return Damage{MissingResult: 0.2, DisplacedResult: 0.15, DuplicateResult: 0.15, OrphanResult: 0.15,
		BadID: 0.3, RepeatedID: 0.15, MalformedCall: 0.1, UnsignedThinking: 0.3, BlankText: 0.3,
		FailedTurn: 0.15, SilentReply: 0.1, ConsecutiveUsers: 0.2, AssistantFirst: 0.5, Details: 0.5, PartialUsage: 1}
}

// Config shapes the generated histories.
type Config struct {
	Seed            uint64
	Messages        int     // approximate messages per history
	ToolCallDensity float64 // chance that an assistant turn calls tools
	MaxCallsPerTurn int
	TextChars       int // typical size of a text block
	ToolResultChars int // typical size of a tool result
	Images          int // images per history (in user turns and tool results)
	ImageWidth      int // generated image size (JPEG); 0 = 640
	ImageHeight     int // 0 = 480
	Damage          Damage
	Target          transcript.Target
	Tenants         int     // distinct tenants in jobs (>= 1)
	KeySkew         float64 // Zipf exponent over sessions (0 = uniform; > 1 = a few hot keys)
	Sessions        int     // distinct sessions in jobs (>= 1)
	// RealLengthIDs gives the well-formed tool-call ids, the Responses-style
	// bad ids, the server-tool ids and the orphans' ids the lengths and
	// alphabets of real ones (docs/real-shapes.md: toolu_01 + 22 base62,
	// call_ + 24 base62, call_<24>|fc_<50 hex>, srvtoolu_01 + 22). They are
	// derived from the random numbers the short ids use, so a seed's history
	// is the same with or without it but for those ids.
	RealLengthIDs bool
	// ToolOutput is the share of tool results whose text is what real tools
	// print (a file read, a build's or a test run's output, a listing, a
	// JSON reply: source lines with brackets, quotes, tabs and newlines)
	// instead of prose. At 0 no random number is drawn for it, so a seed's
	// history is the same as without the field.
	ToolOutput float64
}

// Generator produces histories and jobs from a Config.
type Generator struct {
	cfg   Config
	rng   *rand.Rand
	zipf  *rand.Zipf
	n     int // marker counter
	calls int
	image []byte // base64 of the generated image (made once)
}

// New returns a generator; fields of cfg left zero get sensible defaults.
func New(cfg Config) *Generator {
	if cfg.Messages <= 0 {
		cfg.Messages = 40
	}
	if cfg.MaxCallsPerTurn <= 0 {
		cfg.MaxCallsPerTurn = 3
	}
	if cfg.TextChars <= 0 {
		cfg.TextChars = 200
	}
	if cfg.ToolResultChars <= 0 {
		cfg.ToolResultChars = 1000
	}
	if cfg.Tenants <= 0 {
		cfg.Tenants = 1
	}
	if cfg.Sessions <= 0 {
		cfg.Sessions = 1
	}
	if cfg.Target == (transcript.Target{}) {
		cfg.Target = transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}
	}
	g := &Generator{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))}
	if cfg.KeySkew > 1 && cfg.Sessions > 1 {
		g.zipf = rand.NewZipf(g.rng, cfg.KeySkew, 1, uint64(cfg.Sessions-1))
	}
	return g
}

var words = strings.Fields(`the build failed because the linker could not find symbol main in package worker so we
retry with verbose flags read the log again check the config compare the output with yesterday's run and fix
the failing test before merging 日本語のテキスト 한국어 텍스트 emoji 😀 quotes "and" back\slashes`)

func (g *Generator) text(n int) string {
	var sb strings.Builder
	for sb.Len() < n {
		sb.WriteString(words[g.rng.IntN(len(words))])
		sb.WriteByte(' ')
	}
	return g.damaged(strings.TrimSpace(sb.String()))
}

// resultText is a tool result's text of about n characters: what a tool
// prints (toolOutput) for a share Config.ToolOutput of results, else prose.
func (g *Generator) resultText(n int) string {
	if g.chance(g.cfg.ToolOutput) {
		return g.toolOutput(n)
	}
	return g.text(n)
}

// toolOutputLines are the shapes of the lines toolOutput writes, each %s a
// word and each %d a number: Go and TypeScript source as a file read
// returns it, a listing, test and build output, a stack frame, JSON.
var toolOutputLines = []string{
	"func (s *Server) %s(ctx context.Context, req *%sRequest) (*%sResponse, error) {",
	"\tif err := json.Unmarshal(body, &req); err != nil {",
	"\t\treturn nil, fmt.Errorf(\"decode %s: %%w\", err)",
	"\tfor i, item := range items[%d:] {",
	"export const %s = [%d, %d, %d] as const;",
	"  \"%s\": [\"%s\", \"%s\"],",
	"{\"id\": %d, \"name\": \"%s\", \"tags\": [\"%s\"], \"ok\": true}",
	"-rw-r--r--  1 dev  staff  %d Nov 30 10:%d %s.go",
	"ok  \tgithub.com/acme/%s/internal/%s\t0.%ds",
	"--- FAIL: Test%s (0.%ds)",
	"    at %s (/app/src/%s.ts:%d:%d)",
	"[%d/%d] Compiling %s v0.%d.0",
	"def %s(self, items: list[str]) -> dict[str, int]:",
	"✓ %s renders without errors (%dms)",
}

// toolOutput is tool output of about n characters: lines of
// toolOutputLines, joined by newlines, damaged as g.text's prose is.
func (g *Generator) toolOutput(n int) string {
	var sb strings.Builder
	for sb.Len() < n {
		line := toolOutputLines[g.rng.IntN(len(toolOutputLines))]
		for {
			i := strings.IndexByte(line, '%')
			if i < 0 || i+1 >= len(line) {
				break
			}
			sb.WriteString(line[:i])
			switch line[i+1] {
			case 's':
				sb.WriteString(words[g.rng.IntN(len(words))])
			case 'd':
				sb.WriteString(strconv.Itoa(g.rng.IntN(1000)))
			default: // %%
				sb.WriteByte('%')
			}
			line = line[i+2:]
		}
		sb.WriteString(line)
		sb.WriteByte('\n')
	}
	return g.damaged(strings.TrimSpace(sb.String()))
}

// damaged is text s with, by chance (Damage.InvalidText), a lone surrogate
// or invalid UTF-8 appended.
func (g *Generator) damaged(s string) string {
	if g.chance(g.cfg.Damage.InvalidText) {
		s += []string{loneSurrogateToken, invalidUTF8Token}[g.rng.IntN(2)]
	}
	return s
}

func (g *Generator) chance(p float64) bool { return p > 0 && g.rng.Float64() < p }

func (g *Generator) marker(kind string) string {
	g.n++
	return fmt.Sprintf("%s:%d", kind, g.n)
}

// History returns one generated message array (JSON).
func (g *Generator) History() []byte {
	var msgs []string
	add := func(v any) {
		b, err := transcript.Marshal(v)
		if err != nil {
			panic(err) // only plain maps and strings are marshalled
		}
		msgs = append(msgs, string(b))
	}
	ts := int64(1776000000000)
	tick := func() int64 { ts += int64(1000 + g.rng.IntN(5000)); return ts }
	d := g.cfg.Damage
	imagesLeft := g.cfg.Images
	var ids []string
	var pending []string // displaced results waiting for the next user turn
	if g.chance(d.AssistantFirst) {
		add(g.assistant([]any{map[string]any{"type": "text", "text": "Hello! " + g.text(40)}}, "stop", tick()))
	}
	for len(msgs) < g.cfg.Messages {
		userContent := []any{map[string]any{"type": "text", "text": g.text(g.cfg.TextChars)}}
		if imagesLeft > 0 && g.rng.IntN(3) == 0 {
			userContent = append(userContent, g.imageBlock())
			imagesLeft--
		}
		if g.chance(d.BlankText) {
			userContent = append(userContent, map[string]any{"type": "text", "text": "  "})
		}
		add(map[string]any{"role": "user", "content": userContent, "timestamp": tick()})
		msgs = append(msgs, pending...)
		pending = nil
		if g.chance(d.LengthEmptied) {
			add(g.assistant([]any{g.thinking(), map[string]any{"type": "toolCall", "id": "", "name": "read", "arguments": map[string]any{}}}, "length", tick()))
			add(map[string]any{"role": "user", "content": g.text(20), "timestamp": tick()})
		}
		if g.chance(d.ConsecutiveUsers) {
			add(map[string]any{"role": "user", "content": g.text(40), "timestamp": tick()})
		}
		if g.chance(d.BlankStringTurn) {
			blank := g.assistant(nil, "stop", tick())
			blank["content"] = "   "
			add(blank)
			add(g.assistant([]any{map[string]any{"type": "text", "text": g.text(g.cfg.TextChars)}}, "stop", tick()))
			continue
		}
		if g.chance(d.SilentReply) {
			add(g.assistant([]any{map[string]any{"type": "text", "text": "NO_REPLY"}}, "stop", tick()))
			continue
		}
		// A tool loop: assistant with calls, results, until a final answer.
		for loops := 0; g.rng.Float64() < g.cfg.ToolCallDensity && loops < 4; loops++ {
			failed := g.chance(d.FailedTurn)
			blocks := []any{g.thinking()}
			if g.chance(d.BlankText) {
				blocks = append(blocks, map[string]any{"type": "text", "text": ""})
			}
			blocks = append(blocks, map[string]any{"type": "text", "text": g.text(g.cfg.TextChars / 2)})
			if g.chance(d.ServerTools) {
				blocks = append(blocks, g.serverToolBlocks()...)
			}
			type call struct {
				id, name string
				ok       bool
			}
			var calls []call
			emptyID := g.chance(d.EmptyIDCall)
			if emptyID {
				blocks = append(blocks, map[string]any{"type": "toolUse", "id": "", "name": "read", "input": map[string]any{}})
			}
			for range 1 + g.rng.IntN(g.cfg.MaxCallsPerTurn) {
				id := g.callID(&ids)
				name := []string{"read", "exec", "edit", "web_search", "screenshot"}[g.rng.IntN(5)]
				tc := map[string]any{"type": "toolCall", "id": id, "name": name, "arguments": map[string]any{"path": "src/" + g.text(8) + ".go"}}
				ok := true
				if g.chance(d.MalformedCall) {
					ok = false
					if g.rng.IntN(2) == 0 {
						delete(tc, "arguments")
					} else {
						tc["name"] = "bad name!"
					}
				}
				blocks = append(blocks, tc)
				calls = append(calls, call{id, name, ok})
			}
			stop := "toolUse"
			if failed {
				stop = "error"
			}
			add(g.assistant(blocks, stop, tick()))
			if emptyID {
				msgs = append(msgs, g.result("", "", "read", "idless", false, tick()))
			}
			for _, c := range calls {
				kind := "ok"
				switch {
				case failed:
					kind = "fail"
				case !c.ok:
					kind = "bad"
				}
				if kind == "ok" && g.chance(d.MissingResult) {
					continue
				}
				pad := "" // the call's results all carry it, so none is an exact match the others lose to
				if kind == "ok" && g.chance(d.PaddedID) {
					pad = jsSpaces[g.rng.IntN(len(jsSpaces))]
				}
				res := g.result(c.id, pad, c.name, kind, imagesLeft > 0 && c.name == "screenshot", tick())
				if kind == "ok" && g.chance(d.DisplacedResult) {
					pending = append(pending, g.result(c.id, pad, c.name, "late", false, tick()))
					continue
				}
				if c.name == "screenshot" && imagesLeft > 0 {
					imagesLeft--
				}
				msgs = append(msgs, res)
				if g.chance(d.DuplicateResult) {
					msgs = append(msgs, g.result(c.id, pad, c.name, "dup", false, tick()))
				}
			}
			if g.chance(d.OrphanResult) {
				msgs = append(msgs, g.result(g.orphanID(g.rng.IntN(1000)), "", "read", "orphan", false, tick()))
			}
		}
		if g.chance(d.FailedTurn) {
			add(g.assistant([]any{}, "error", tick()))
			continue
		}
		add(g.assistant([]any{g.thinking(), map[string]any{"type": "text", "text": g.text(g.cfg.TextChars)}}, "stop", tick()))
	}
	msgs = append(msgs, pending...)
	out := []byte("[" + strings.Join(msgs, ",") + "]")
	if d.InvalidText > 0 {
		out = bytes.ReplaceAll(out, []byte(loneSurrogateToken), []byte(`\ud83d`))
		out = bytes.ReplaceAll(out, []byte(invalidUTF8Token), []byte("\xff\xfe"))
	}
	return out
}

// serverToolBlocks returns an Anthropic web search as a turn stores it: a
// server_tool_use and its result, or (damaged) the use alone, or a result
// whose use is not in the turn.
func (g *Generator) serverToolBlocks() []any {
	id := g.serverToolID(g.rng.Uint32())
	use := map[string]any{"type": "server_tool_use", "id": id, "name": "web_search", "input": map[string]any{"query": g.text(20)}}
	result := func(id string) map[string]any {
		return map[string]any{"type": "web_search_tool_result", "tool_use_id": id, "content": []any{map[string]any{
			"type": "web_search_result", "url": fmt.Sprintf("https://example.com/%d", g.rng.IntN(1000)), "title": g.text(20), "encrypted_content": "EqgfCioIARgB"}}}
	}
	switch g.rng.IntN(4) {
	case 0:
		return []any{use}
	case 1:
		return []any{result(g.serverToolID(g.rng.Uint32()))}
	}
	return []any{use, result(id)}
}

// callID returns a fresh id, or a damaged / repeated one.
func (g *Generator) callID(ids *[]string) string {
	d := g.cfg.Damage
	if len(*ids) > 0 && g.chance(d.RepeatedID) {
		return (*ids)[g.rng.IntN(len(*ids))]
	}
	g.calls++
	var id string
	switch {
	case g.chance(d.BadID):
		id = []string{
			g.responsesID(g.calls),
			fmt.Sprintf("edit:%d", g.calls),
			fmt.Sprintf("functions.read:%d", g.calls),
			fmt.Sprintf("call_%s_%d", strings.Repeat("x", 50), g.calls),
			fmt.Sprintf("tool use %d", g.calls),
		}[g.rng.IntN(5)]
	case strings.HasPrefix(g.cfg.Target.API, "openai"):
		id = fmt.Sprintf("call_%08x%d", g.rng.Uint32(), g.calls)
		if g.cfg.RealLengthIDs {
			id = "call_" + derived(id, base62Chars, 24)
		}
	default:
		id = fmt.Sprintf("toolu_01%08x%d", g.rng.Uint32(), g.calls)
		if g.cfg.RealLengthIDs {
			id = "toolu_01" + derived(id, base62Chars, 22)
		}
	}
	*ids = append(*ids, id)
	return id
}

// responsesID is the bad id "call_<n>|fc_<n>": a Responses id in pi-ai's
// stored form, which Chat-like targets reject.
func (g *Generator) responsesID(n int) string {
	id := fmt.Sprintf("call_%d|fc_%d", n, n)
	if g.cfg.RealLengthIDs {
		id = "call_" + derived(id, base62Chars, 24) + "|fc_" + derived(id+"|", hexChars, 50)
	}
	return id
}

func (g *Generator) serverToolID(v uint32) string {
	id := fmt.Sprintf("srvtoolu_01%08x", v)
	if g.cfg.RealLengthIDs {
		id = "srvtoolu_01" + derived(id, base62Chars, 22)
	}
	return id
}

// orphanID is the id of a result whose call does not exist.
func (g *Generator) orphanID(n int) string {
	id := fmt.Sprintf("ghost_%d", n)
	if g.cfg.RealLengthIDs {
		id = "toolu_01" + derived(id, base62Chars, 22)
	}
	return id
}

// derived returns n characters of alphabet determined by s alone (FNV-1a
// then splitmix64), so that real-length ids draw no random number.
func derived(s, alphabet string, n int) string {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	out := make([]byte, n)
	for i := range out {
		h += 0x9e3779b97f4a7c15
		z := (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		out[i] = alphabet[(z^(z>>31))%uint64(len(alphabet))]
	}
	return string(out)
}

func (g *Generator) thinking() map[string]any {
	b := map[string]any{"type": "thinking", "thinking": g.text(g.cfg.TextChars)}
	switch {
	case g.chance(g.cfg.Damage.UnsignedThinking):
		if g.rng.IntN(2) == 0 {
			b["thinkingSignature"] = "  "
		}
	default:
		sig := make([]byte, 48)
		for i := range sig {
			sig[i] = byte(g.rng.Uint32())
		}
		b["thinkingSignature"] = base64.StdEncoding.EncodeToString(sig)
	}
	return b
}

func (g *Generator) assistant(content []any, stop string, ts int64) map[string]any {
	t := g.cfg.Target
	input, output := 1000+g.rng.IntN(5000), 50+g.rng.IntN(500)
	usage := map[string]any{"input": input, "output": output, "cacheRead": 0, "cacheWrite": 0}
	if d := g.cfg.Damage.PartialUsage; d < 1 && !g.chance(d) {
		usage["totalTokens"] = input + output
	}
	if stop == "error" && len(content) == 0 {
		usage = map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}
	}
	return map[string]any{"role": "assistant", "content": content, "api": t.API, "provider": t.Provider, "model": t.Model,
		"usage": usage, "stopReason": stop, "timestamp": ts}
}

// result encodes a tool result for call id; pad (a JSON escape or a space)
// goes on both sides of the id.
func (g *Generator) result(id, pad, name, kind string, withImage bool, ts int64) string {
	content := []any{map[string]any{"type": "text", "text": g.marker(kind) + " " + g.resultText(g.cfg.ToolResultChars)}}
	if withImage {
		content = append(content, g.imageBlock())
	}
	r := map[string]any{"role": "toolResult", "toolCallId": id, "toolName": name, "content": content, "isError": false, "timestamp": ts}
	if g.chance(g.cfg.Damage.Details) {
		r["details"] = map[string]any{"exitCode": 0, "durationMs": g.rng.IntN(5000)}
	}
	if pad != "" {
		r["toolCallId"] = "@@pad@@" + id + "@@pad@@"
	}
	b, err := transcript.Marshal(r)
	if err != nil {
		panic(err)
	}
	if pad != "" {
		b = bytes.ReplaceAll(b, []byte("@@pad@@"), []byte(pad))
	}
	return string(b)
}

func (g *Generator) imageBlock() map[string]any {
	if g.image == nil {
		g.image = []byte(base64.StdEncoding.EncodeToString(Image(g.cfg.ImageWidth, g.cfg.ImageHeight, false)))
	}
	return map[string]any{"type": "image", "data": string(g.image), "mimeType": "image/png"} // the mime lies: it is a JPEG
}

// Image encodes a w x h test picture (a gradient with texture) as JPEG, or
// as PNG with an alpha channel when alpha is set. 0 sizes mean 640 x 480.
func Image(w, h int, alpha bool) []byte {
	if w <= 0 {
		w = 640
	}
	if h <= 0 {
		h = 480
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			a := uint8(255)
			if alpha {
				a = uint8(255 * x / w)
			}
			img.SetNRGBA(x, y, color.NRGBA{R: uint8(255 * x / w), G: uint8(255 * y / h), B: uint8((x ^ y) & 0xff), A: a})
		}
	}
	var buf bytes.Buffer
	if alpha {
		_ = png.Encode(&buf, img)
	} else {
		_ = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85})
	}
	return buf.Bytes()
}

// Job returns job number i: a history wrapped in a job envelope, its tenant
// and session chosen by the configured key skew. The key is tenant/session.
func (g *Generator) Job(i int) (key string, value []byte) {
	session := g.rng.IntN(g.cfg.Sessions)
	if g.zipf != nil {
		session = int(g.zipf.Uint64())
	}
	tenant := fmt.Sprintf("tenant-%d", session%g.cfg.Tenants)
	sid := fmt.Sprintf("agent:main:s%d", session)
	t := g.cfg.Target
	job := fmt.Sprintf(`{"job_id":"job-%d","tenant":%q,"session_id":%q,"target":{"provider":%q,"api":%q,"model":%q},"options":{"now_ms":%d},"messages":%s}`,
		i, tenant, sid, t.Provider, t.API, t.Model, 1776000000000+int64(i), g.History())
	return tenant + "/" + sid, []byte(job)
}
