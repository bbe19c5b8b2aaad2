package sessiongen

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// The request formats Bodies writes, by their request_format names.
const (
	FormatAnthropic = "anthropic-messages"
	FormatBedrock   = "bedrock-converse"
	FormatChat      = "openai-chat-completions"
	FormatResponses = "openai-responses"
	FormatGemini    = "gemini-generate-content"
	FormatMistral   = "mistral-chat"
)

// BodyVariants lists, per request format, the SDKs and clients whose way
// of writing that format Bodies reproduces, as docs/real-shapes.md
// ("Request bodies per format") records them. The first is the format's
// own SDK (or its REST form).
var BodyVariants = map[string][]string{
	FormatAnthropic: {"anthropic-sdk", "vercel-ai", "strands", "beta"},
	FormatBedrock:   {"strands", "vercel-ai", "llama-index"},
	FormatChat:      {"openai-sdk", "vercel-ai", "deepseek", "groq", "gemini-openai", "litellm"},
	FormatResponses: {"openai-sdk", "strands", "openai-agents"},
	FormatGemini:    {"rest", "google-genai", "vertex-snake", "adk", "litellm", "vercel-ai"},
	FormatMistral:   {"mistral-sdk", "vercel-ai", "litellm"},
}

// BodyFormats lists the formats of BodyVariants in a fixed order.
var BodyFormats = []string{FormatAnthropic, FormatBedrock, FormatChat, FormatResponses, FormatGemini, FormatMistral}

// BodyConfig chooses one realistic request body.
type BodyConfig struct {
	Seed    uint64
	Format  string // one of BodyFormats
	Variant string // one of BodyVariants[Format]; "" is the first
	Turns   int    // tool-using exchanges before the last user turn (default 3)
}

// The kinds of the parts a Body lists (Part.Kind). The media kinds are the
// names the report gives a document, an image by URL and a file id.
const (
	PartText         = "text"          // a user, assistant or tool-result text
	PartCallID       = "call_id"       // a tool call's id, where the format has one
	PartImage        = "image"         // an image's base64
	PartDocument     = "document"      // a document's base64, text, URL or S3 URI
	PartImageURL     = "image_url"     // an image given by URL
	PartFileID       = "file_id"       // a document or image given by a provider's file id
	PartSignature    = "signature"     // a thinking or thought signature, a redacted block's data, encrypted reasoning
	PartCacheControl = "cache_control" // Anthropic cache_control: Value is the text of the block that has it
)

// Part is one thing a body holds that the message model carries, named by
// the string that identifies it in any body that carries it: a text, an
// id, a base64 payload, a URL, a file id. Name is a document's file name or
// title when the body gives one (what a placeholder names it by).
type Part struct {
	Kind  string
	Value string
	Name  string
}

// Body is a generated request body and the parts it holds.
type Body struct {
	Format, Variant string
	// Source is who the body was written for (a job's option `source`):
	// the provider, API and model of the variant's own endpoint.
	Source transcript.Target
	JSON   []byte
	Parts  []Part
	// Prefill is set when the body ends with an assistant turn for the
	// model to continue (Mistral prefix: true), which a target without
	// prefill refuses.
	Prefill bool
}

// bodySources are the endpoints each variant writes for; a variant not
// listed writes for its format's own (the "" entry).
var bodySources = map[string]transcript.Target{
	FormatAnthropic:                {Provider: "anthropic", API: "anthropic-messages", Model: "claude-sonnet-4-5-20250929"},
	FormatBedrock:                  {Provider: "amazon-bedrock", API: "bedrock-converse-stream", Model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0"},
	FormatChat:                     {Provider: "openai", API: "openai-completions", Model: "gpt-4.1"},
	FormatChat + "/vercel-ai":      {Provider: "openai", API: "openai-completions", Model: "gpt-4o"},
	FormatChat + "/deepseek":       {Provider: "deepseek", API: "openai-completions", Model: "deepseek-chat"},
	FormatChat + "/groq":           {Provider: "groq", API: "openai-completions", Model: "openai/gpt-oss-120b"},
	FormatChat + "/gemini-openai":  {Provider: "google", API: "openai-completions", Model: "gemini-2.5-flash"},
	FormatChat + "/litellm":        {Provider: "litellm", API: "openai-completions", Model: "gemini/gemini-3-pro-preview"},
	FormatResponses:                {Provider: "openai", API: "openai-responses", Model: "gpt-5"},
	FormatGemini:                   {Provider: "google", API: "google-generative-ai", Model: "gemini-3-pro-preview"},
	FormatGemini + "/vertex-snake": {Provider: "google-vertex", API: "google-vertex", Model: "gemini-2.5-pro"},
	FormatGemini + "/adk":          {Provider: "google", API: "google-generative-ai", Model: "gemini-2.5-flash"},
	FormatMistral:                  {Provider: "mistral", API: "mistral-conversations", Model: "mistral-medium-latest"},
}

// BodySource returns who a body of format and variant is written for.
func BodySource(format, variant string) transcript.Target {
	if t, ok := bodySources[format+"/"+variant]; ok {
		return t
	}
	return bodySources[format]
}

// IsMedia reports whether a part is a document, an image by URL or a file id:
// what a body of any format must carry or name in a placeholder.
func (p Part) IsMedia() bool {
	return p.Kind == PartDocument || p.Kind == PartImageURL || p.Kind == PartFileID
}

// Bodies returns the realistic request body cfg chooses: a conversation of
// cfg.Turns tool-using exchanges and a last user turn, written the way
// cfg.Variant writes cfg.Format, with that SDK's casing, optional members,
// schema dialect, documents and file parts, images by URL and file id,
// cache and signature members and ids of the provider's real shapes and
// lengths (docs/real-shapes.md). The same config always gives the same
// bytes. It panics on a format or variant BodyVariants does not list.
func Bodies(cfg BodyConfig) Body {
	variants, ok := BodyVariants[cfg.Format]
	if !ok {
		panic("sessiongen: no body format " + cfg.Format)
	}
	if cfg.Variant == "" {
		cfg.Variant = variants[0]
	}
	known := false
	for _, v := range variants {
		known = known || v == cfg.Variant
	}
	if !known {
		panic("sessiongen: no variant " + cfg.Variant + " of " + cfg.Format)
	}
	if cfg.Turns <= 0 {
		cfg.Turns = 3
	}
	g := &bodyGen{cfg: cfg, v: cfg.Variant, rng: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x2545f4914f6cdd1d))}
	var body map[string]any
	switch cfg.Format {
	case FormatAnthropic:
		body = g.anthropic()
	case FormatBedrock:
		body = g.bedrock()
	case FormatChat:
		body = g.chat()
	case FormatResponses:
		body = g.responses()
	case FormatGemini:
		body = g.gemini()
	default:
		body = g.mistral()
	}
	raw, err := transcript.Marshal(body)
	if err != nil {
		panic(err) // only maps, slices, strings, numbers and booleans
	}
	return Body{Format: cfg.Format, Variant: cfg.Variant, Source: BodySource(cfg.Format, cfg.Variant), JSON: raw, Parts: g.parts, Prefill: g.prefill}
}

// AllBodies returns one body per format and variant for each seed in
// [1, seeds], in a fixed order.
func AllBodies(seeds int) []Body {
	var out []Body
	for _, f := range BodyFormats {
		for _, v := range BodyVariants[f] {
			for s := 1; s <= seeds; s++ {
				out = append(out, Bodies(BodyConfig{Seed: uint64(s), Format: f, Variant: v}))
			}
		}
	}
	return out
}

type (
	obj = map[string]any
	arr = []any
)

// bodyGen writes one body; parts collects what it holds.
type bodyGen struct {
	cfg     BodyConfig
	v       string
	rng     *rand.Rand
	n       int  // text counter: every text is distinct
	mute    bool // while set, keep lists nothing (unkept)
	prefill bool
	parts   []Part
}

func (g *bodyGen) model() string { return BodySource(g.cfg.Format, g.v).Model }

func (g *bodyGen) keep(kind, value, name string) {
	if !g.mute {
		g.parts = append(g.parts, Part{kind, value, name})
	}
}

// unkept returns f's string without listing it: a shape of the survey that
// the message model does not carry (a provider's or SDK's own member).
func (g *bodyGen) unkept(f func() string) string {
	m := g.mute
	g.mute = true
	defer func() { g.mute = m }()
	return f()
}

// named sets the name of the part listed last (a document's name as this
// body gives it; "" when the body gives none).
func (g *bodyGen) named(name string) { g.parts[len(g.parts)-1].Name = name }

// rekey changes the value of the listed part old to new.
func (g *bodyGen) rekey(old, new string) {
	for i := range g.parts {
		if g.parts[i].Value == old {
			g.parts[i].Value = new
		}
	}
}

func (g *bodyGen) pick(alphabet string, n int) string { return pick(g.rng, alphabet, n) }

// text returns a distinct sentence of about n bytes and keeps it.
func (g *bodyGen) text(n int) string {
	g.n++
	var sb strings.Builder
	fmt.Fprintf(&sb, "(%d)", g.n)
	for sb.Len() < n {
		sb.WriteByte(' ')
		sb.WriteString(realWords[g.rng.IntN(len(realWords))])
	}
	g.keep(PartText, sb.String(), "")
	return sb.String()
}

// bytes64 returns n random bytes, the first two fixed, as base64 (enc).
func (g *bodyGen) bytes64(enc *base64.Encoding, n int, b0, b1 byte) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.rng.Uint32())
	}
	b[0], b[1] = b0, b1|b[1]&0x0f
	return enc.EncodeToString(b)
}

// Ids and signatures of docs/real-shapes.md, "Ids and member lengths in
// bodies".
func (g *bodyGen) anthropicID() string       { return "toolu_01" + g.pick(base62Chars, 22) }
func (g *bodyGen) bedrockID() string         { return "tooluse_" + g.pick(base62Chars, 22) }
func (g *bodyGen) chatID() string            { return "call_" + g.pick(base62Chars, 24) }
func (g *bodyGen) deepseekID() string        { return "call_00_" + g.pick(base62Chars, 24) }
func (g *bodyGen) mistralID() string         { return g.pick(base62Chars, 9) }
func (g *bodyGen) item(prefix string) string { return prefix + g.pick(hexChars, 50) }
func (g *bodyGen) anthropicFileID() string   { return "file_011" + g.pick(base62Chars, 21) }
func (g *bodyGen) openaiFileID() string      { return "file-" + g.pick(base62Chars, 22) }
func (g *bodyGen) geminiFileURI() string {
	return "https://generativelanguage.googleapis.com/v1beta/files/" + g.pick(base36Chars, 12)
}

// uuid is a version-4 UUID (Mistral's file ids).
func (g *bodyGen) uuid() string {
	h := g.pick(hexChars, 32)
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:]
}

// anthropicSig is a thinking signature: base64 starting "Eq", 200-800 chars.
func (g *bodyGen) anthropicSig() string {
	return g.sig(g.bytes64(base64.StdEncoding, 150+g.rng.IntN(450), 0x12, 0xa0))
}

// geminiSig is a thoughtSignature: base64 starting "Co", 56-400 chars.
func (g *bodyGen) geminiSig() string {
	return g.sig(g.bytes64(base64.StdEncoding, 42+g.rng.IntN(258), 0x0a, 0x80))
}

// encrypted is a Responses encrypted_content: a Fernet token, gAAAAA...,
// 1,500-2,500 characters.
func (g *bodyGen) encrypted() string {
	b := g.bytes64(base64.URLEncoding, 1100+g.rng.IntN(700), 0x80, 0)
	return g.sig("gAAAAA" + b[6:])
}

func (g *bodyGen) sig(s string) string { g.keep(PartSignature, s, ""); return s }

// pdf is a one-page PDF document as base64, and its file name.
func (g *bodyGen) pdf() (data, name string) {
	text := g.unkept(func() string { return g.text(40) })
	stream := "BT /F1 12 Tf 72 720 Td (" + text + ") Tj ET"
	pdf := "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n" +
		"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R>>endobj\n" +
		fmt.Sprintf("4 0 obj<</Length %d>>stream\n%s\nendstream endobj\ntrailer<</Root 1 0 R>>\n%%%%EOF\n", len(stream), stream)
	data = base64.StdEncoding.EncodeToString([]byte(pdf))
	name = fmt.Sprintf("report-%s.pdf", g.pick(base36Chars, 6))
	g.keep(PartDocument, data, name)
	return data, name
}

// png is a small PNG picture as base64.
// png is a small PNG picture as base64, stored without compression: its
// bytes do not change with the Go release's deflate (golden files).
func (g *bodyGen) png() string {
	w, h := 6+g.rng.IntN(10), 4+g.rng.IntN(8)
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetNRGBA(x, y, color.NRGBA{R: uint8(255 * x / w), G: uint8(255 * y / h), B: uint8(g.rng.Uint32()), A: 255})
		}
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.NoCompression}).Encode(&buf, img); err != nil {
		panic(err) // writing to memory does not fail
	}
	data := base64.StdEncoding.EncodeToString(buf.Bytes())
	g.keep(PartImage, data, "")
	return data
}

func (g *bodyGen) imageURL() string {
	u := fmt.Sprintf("https://images.example.com/%s/%s.png", g.pick(base36Chars, 4), g.pick(base62Chars, 12))
	g.keep(PartImageURL, u, "")
	return u
}

func (g *bodyGen) docURL() string {
	u := fmt.Sprintf("https://docs.example.com/papers/%s.pdf", g.pick(base36Chars, 10))
	g.keep(PartDocument, u, "")
	return u
}

func (g *bodyGen) fileID(id, name string) string { g.keep(PartFileID, id, name); return id }

// plainDoc is a text/plain document given as its text, and its file name.
func (g *bodyGen) plainDoc() (text, name string) {
	g.n++
	text = fmt.Sprintf("(%d) NOTES\n%s\n", g.n, strings.Repeat(realWords[g.rng.IntN(len(realWords))]+" ", 8))
	name = "notes-" + g.pick(base36Chars, 5) + ".txt"
	g.keep(PartDocument, text, name)
	return text, name
}

// bodyTool is one of the tools the bodies offer, with its arguments.
type bodyTool struct {
	name, description string
	args              func(g *bodyGen) obj
}

var bodyTools = []bodyTool{
	{"read", "Read a file from the workspace", func(g *bodyGen) obj { return obj{"path": "src/" + g.pick(base36Chars, 7) + ".go"} }},
	{"exec", "Run a shell command", func(g *bodyGen) obj {
		return obj{"command": "go test ./" + g.pick(base36Chars, 5) + "/...", "timeout": 60}
	}},
	{"web_search", "Search the web", func(g *bodyGen) obj { return obj{"query": g.pick(base36Chars, 8) + " release notes", "count": 5} }},
}

// jsonSchema is a tool's parameters as JSON Schema.
func jsonSchema(t bodyTool) obj {
	switch t.name {
	case "exec":
		return obj{"type": "object", "properties": obj{"command": obj{"type": "string", "description": "the command"}, "timeout": obj{"type": "integer", "minimum": 1}}, "required": arr{"command"}}
	case "web_search":
		return obj{"type": "object", "properties": obj{"query": obj{"type": "string"}, "count": obj{"type": "integer"}, "site": obj{"type": arr{"string", "null"}}}, "required": arr{"query"}, "additionalProperties": false}
	}
	return obj{"type": "object", "properties": obj{"path": obj{"type": "string", "description": "path in the workspace"}}, "required": arr{"path"}}
}

// openAPISchema is the same as Gemini's OpenAPI subset, upper-case types.
func openAPISchema(t bodyTool, anyOf string) obj {
	switch t.name {
	case "exec":
		return obj{"type": "OBJECT", "properties": obj{"command": obj{"type": "STRING", "description": "the command"}, "timeout": obj{"type": "INTEGER", "format": "int32"}}, "required": arr{"command"}}
	case "web_search":
		return obj{"type": "OBJECT", "properties": obj{"query": obj{"type": "STRING"}, "count": obj{"type": "INTEGER", "nullable": true},
			"site": obj{anyOf: arr{obj{"type": "STRING"}, obj{"type": "NUMBER"}}, "type": "STRING", "enum": arr{"docs", "blog"}}}, "required": arr{"query"}, "property_ordering": arr{"query", "count", "site"}}
	}
	return obj{"type": "OBJECT", "properties": obj{"path": obj{"type": "STRING", "description": "path in the workspace"}}, "required": arr{"path"}}
}

// call is one tool call of a turn: its tool, arguments and result text.
type call struct {
	id     string
	tool   bodyTool
	args   obj
	result string
}

// calls returns the calls of exchange i (one, or two in parallel on odd
// turns), ids from newID.
func (g *bodyGen) calls(i int, newID func() string) []call {
	n := 1 + i%2
	out := make([]call, n)
	for k := range out {
		t := bodyTools[(i+k)%len(bodyTools)]
		id := ""
		if newID != nil {
			id = newID()
			g.keep(PartCallID, id, "")
		}
		out[k] = call{id: id, tool: t, args: t.args(g), result: g.text(50)}
	}
	return out
}

func argString(a obj) string {
	b, err := transcript.Marshal(a)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// ---- Anthropic Messages ----

func (g *bodyGen) anthropic() obj {
	eph := func(ttl string) obj {
		if ttl == "" {
			return obj{"type": "ephemeral"}
		}
		return obj{"type": "ephemeral", "ttl": ttl}
	}
	body := obj{"model": g.model(), "max_tokens": 8192}
	sys := g.text(60)
	switch g.v {
	case "anthropic-sdk":
		body["system"] = arr{obj{"type": "text", "text": sys, "cache_control": eph("5m")}}
		g.keep(PartCacheControl, sys, "")
		body["cache_control"] = eph("")
		body["thinking"] = obj{"type": "enabled", "budget_tokens": 4096}
	case "vercel-ai":
		body["system"] = arr{obj{"type": "text", "text": sys}}
	default:
		body["system"] = sys
	}
	var tools arr
	for i, t := range bodyTools {
		tool := obj{"name": t.name, "description": t.description, "input_schema": jsonSchema(t)}
		if g.v == "anthropic-sdk" && i == len(bodyTools)-1 {
			tool["cache_control"] = eph("")
		}
		tools = append(tools, tool)
	}
	body["tools"] = tools

	var first arr
	switch g.v {
	case "anthropic-sdk":
		data, name := g.pdf()
		first = arr{obj{"type": "document", "source": obj{"type": "base64", "media_type": "application/pdf", "data": data}, "title": name, "context": g.text(30), "citations": obj{"enabled": true}}}
	case "vercel-ai":
		text, name := g.plainDoc()
		first = arr{
			obj{"type": "image", "source": obj{"type": "url", "url": g.imageURL()}},
			obj{"type": "document", "source": obj{"type": "url", "url": g.docURL()}},
			obj{"type": "document", "source": obj{"type": "text", "media_type": "text/plain", "data": text}, "title": name},
			obj{"type": "image", "source": obj{"type": "file", "file_id": g.fileID(g.anthropicFileID(), "")}},
			obj{"type": "document", "source": obj{"type": "file", "file_id": g.fileID(g.anthropicFileID(), "")}},
		}
	case "strands":
		data, name := g.pdf()
		text, tname := g.plainDoc()
		first = arr{
			obj{"type": "document", "source": obj{"type": "base64", "media_type": "application/pdf", "data": data}, "title": name},
			obj{"type": "document", "source": obj{"type": "text", "media_type": "text/plain", "data": text}, "title": tname},
			obj{"type": "image", "source": obj{"type": "base64", "media_type": "image/png", "data": g.png()}},
		}
	case "beta":
		first = arr{obj{"type": "container_upload", "file_id": g.anthropicFileID()}}
	}
	ask := g.text(40)
	askBlock := obj{"type": "text", "text": ask}
	if g.v == "vercel-ai" {
		askBlock["cache_control"] = eph("1h")
		g.keep(PartCacheControl, ask, "")
	}
	msgs := arr{obj{"role": "user", "content": append(first, askBlock)}}
	for i := range g.cfg.Turns {
		calls := g.calls(i, g.anthropicID)
		var content arr
		if g.v != "vercel-ai" || i == 0 {
			content = append(content, obj{"type": "thinking", "thinking": g.text(80), "signature": g.anthropicSig()})
		}
		if g.v == "anthropic-sdk" && i == 1 {
			content = append(content, obj{"type": "redacted_thinking", "data": g.sig(g.bytes64(base64.StdEncoding, 300, 0x12, 0xa0))})
		}
		content = append(content, obj{"type": "text", "text": g.text(50)})
		var results arr
		for _, c := range calls {
			content = append(content, obj{"type": "tool_use", "id": c.id, "name": c.tool.name, "input": c.args})
			res := obj{"type": "tool_result", "tool_use_id": c.id, "content": c.result}
			if g.v != "anthropic-sdk" {
				res["content"] = arr{obj{"type": "text", "text": c.result}}
			}
			results = append(results, res)
		}
		msgs = append(msgs, obj{"role": "assistant", "content": content})
		if g.v == "beta" && i == 0 {
			// a tool search result: tool_reference blocks in place of the text
			last := calls[len(calls)-1]
			g.rekey(last.result, last.id)
			results[len(results)-1] = obj{"type": "tool_result", "tool_use_id": last.id,
				"content": arr{obj{"type": "tool_reference", "tool_name": "read"}, obj{"type": "tool_reference", "tool_name": "exec"}}}
		}
		if g.v == "strands" && i == 0 {
			results = append(results, obj{"type": "text", "text": g.text(30)})
		}
		msgs = append(msgs, obj{"role": "user", "content": results})
		if g.v == "beta" && i == 0 {
			msgs = append(msgs, obj{"role": "system", "content": arr{obj{"type": "text", "text": g.unkept(func() string { return g.text(30) })},
				obj{"type": "tool_addition", "tool": obj{"type": "tool_reference", "name": "web_search"}},
				obj{"type": "tool_removal", "tool": obj{"type": "tool_reference", "name": "exec"}}}})
		}
	}
	msgs = append(msgs, obj{"role": "assistant", "content": arr{obj{"type": "text", "text": g.text(60)}}})
	if g.v == "anthropic-sdk" {
		msgs = append(msgs, obj{"role": "user", "content": g.text(30)})
	} else {
		last := g.text(30)
		block := obj{"type": "text", "text": last}
		if g.v == "strands" {
			block["cache_control"] = eph("")
			g.keep(PartCacheControl, last, "")
		}
		msgs = append(msgs, obj{"role": "user", "content": arr{block}})
	}
	body["messages"] = msgs
	return body
}

// ---- Amazon Bedrock Converse ----

func (g *bodyGen) bedrock() obj {
	cache := obj{"cachePoint": obj{"type": "default"}}
	body := obj{"modelId": g.model(), "inferenceConfig": obj{"maxTokens": 4096}}
	switch g.v {
	case "llama-index":
		body["system"] = arr{obj{"text": g.text(40)}, cache, obj{"text": g.text(40)}}
	case "vercel-ai":
		body["system"] = arr{obj{"text": g.text(60)}, obj{"cachePoint": obj{"type": "default", "ttl": "1h"}}}
	default:
		body["system"] = arr{obj{"text": g.text(60)}, cache}
	}
	var tools arr
	for _, t := range bodyTools {
		tools = append(tools, obj{"toolSpec": obj{"name": t.name, "description": t.description, "inputSchema": obj{"json": jsonSchema(t)}}})
	}
	choice := obj{"auto": obj{}}
	if g.v == "llama-index" {
		tools = append(tools, cache)
		choice = obj{"any": obj{}}
	}
	body["toolConfig"] = obj{"tools": tools, "toolChoice": choice}

	var first arr
	switch g.v {
	case "strands":
		data, name := g.pdf()
		name = strings.TrimSuffix(name, ".pdf") // Bedrock names a document without its extension
		g.named(name)
		bucket := "s3://agent-uploads-" + g.pick(base36Chars, 6)
		img := bucket + "/screens/" + g.pick(base36Chars, 8) + ".png"
		doc := bucket + "/reports/" + g.pick(base36Chars, 8) + ".pdf"
		g.keep(PartImageURL, img, "")
		g.keep(PartDocument, doc, "quarterly")
		first = arr{
			obj{"document": obj{"format": "pdf", "name": name, "source": obj{"bytes": data}}},
			obj{"image": obj{"format": "png", "source": obj{"s3Location": obj{"uri": img, "bucketOwner": g.pick("0123456789", 12)}}}},
			obj{"document": obj{"format": "pdf", "name": "quarterly", "source": obj{"s3Location": obj{"uri": doc}}}},
		}
	case "vercel-ai":
		data, _ := g.pdf()
		g.named("document-1")
		first = arr{obj{"document": obj{"format": "pdf", "name": "document-1", "source": obj{"bytes": data}, "citations": obj{"enabled": true}}},
			obj{"image": obj{"format": "png", "source": obj{"bytes": g.png()}}}}
	default:
		text, _ := g.plainDoc()
		data := base64.StdEncoding.EncodeToString([]byte(text))
		g.rekey(text, data)
		g.named("notes")
		first = arr{obj{"document": obj{"format": "txt", "name": "notes", "source": obj{"bytes": data}}}}
	}
	msgs := arr{obj{"role": "user", "content": append(first, obj{"text": g.text(40)}, cache)}}
	for i := range g.cfg.Turns {
		calls := g.calls(i, g.bedrockID)
		var content arr
		switch {
		case g.v == "llama-index":
			// unsigned: Claude refuses it back, so the chain drops it (not listed)
			content = append(content, obj{"reasoningContent": obj{"reasoningText": obj{"text": g.unkept(func() string { return g.text(60) })}}})
		case g.v == "vercel-ai" && i == 1:
			content = append(content, obj{"reasoningContent": obj{"redactedReasoning": obj{"data": g.sig(g.bytes64(base64.StdEncoding, 200, 0x12, 0xa0))}}})
		default:
			content = append(content, obj{"reasoningContent": obj{"reasoningText": obj{"text": g.text(60), "signature": g.anthropicSig()}}})
		}
		content = append(content, obj{"text": g.text(50)})
		var results arr
		for k, c := range calls {
			content = append(content, obj{"toolUse": obj{"toolUseId": c.id, "name": c.tool.name, "input": c.args}})
			rc := arr{obj{"text": c.result}}
			if g.v == "vercel-ai" && i == 0 && k == 0 {
				data, _ := g.pdf()
				g.named("tool-result")
				rc = append(rc, obj{"document": obj{"format": "pdf", "name": "tool-result", "source": obj{"bytes": data}}})
			}
			results = append(results, obj{"toolResult": obj{"toolUseId": c.id, "content": rc, "status": "success"}})
		}
		msgs = append(msgs, obj{"role": "assistant", "content": content}, obj{"role": "user", "content": results})
	}
	msgs = append(msgs, obj{"role": "assistant", "content": arr{obj{"text": g.text(60)}}})
	var last arr
	if g.v == "strands" { // the guardrail wraps the last user text
		last = arr{obj{"guardContent": obj{"text": obj{"text": g.text(30)}}}}
	} else {
		last = arr{obj{"text": g.text(30)}}
	}
	msgs = append(msgs, obj{"role": "user", "content": last})
	body["messages"] = msgs
	return body
}

// ---- OpenAI Chat Completions and compatible endpoints ----

func (g *bodyGen) chat() obj {
	body := obj{"model": g.model()}
	newID := g.chatID
	if g.v == "deepseek" {
		newID = g.deepseekID
	}
	var tools arr
	for _, t := range bodyTools {
		fn := obj{"name": t.name, "description": t.description, "parameters": jsonSchema(t)}
		if g.v == "openai-sdk" && t.name == "read" {
			fn["strict"] = true
		}
		tools = append(tools, obj{"type": "function", "function": fn})
	}
	body["tools"] = tools
	sysRole := "system"
	if g.v == "openai-sdk" {
		sysRole = "developer"
	}
	msgs := arr{obj{"role": sysRole, "content": g.text(60)}}
	var first arr
	switch g.v {
	case "openai-sdk":
		data, name := g.pdf()
		first = arr{obj{"type": "image_url", "image_url": obj{"url": g.imageURL(), "detail": "high"}},
			obj{"type": "file", "file": obj{"filename": name, "file_data": "data:application/pdf;base64," + data}},
			obj{"type": "file", "file": obj{"file_id": g.fileID(g.openaiFileID(), "")}}}
	case "vercel-ai":
		bp := obj{"type": "ephemeral"}
		first = arr{obj{"type": "image_url", "image_url": obj{"url": "data:image/png;base64," + g.png()}, "prompt_cache_breakpoint": bp},
			obj{"type": "file", "file": obj{"file_id": g.fileID(g.openaiFileID(), "")}, "prompt_cache_breakpoint": bp}}
	default:
		first = arr{obj{"type": "image_url", "image_url": obj{"url": "data:image/png;base64," + g.png()}}}
	}
	msgs = append(msgs, obj{"role": "user", "content": append(first, obj{"type": "text", "text": g.text(40)})})
	for i := range g.cfg.Turns {
		calls := g.calls(i, newID)
		msg := obj{"role": "assistant", "content": nil}
		if i%2 == 1 {
			msg["content"] = g.text(40)
		}
		switch g.v {
		case "deepseek":
			msg["reasoning_content"] = ""
			if i == g.cfg.Turns-1 {
				msg["reasoning_content"] = g.text(60)
			}
		case "groq":
			msg["reasoning"] = g.unkept(func() string { return g.text(60) }) // Groq's own member
		}
		var tcs arr
		for k, c := range calls {
			tc := obj{"id": c.id, "type": "function", "function": obj{"name": c.tool.name, "arguments": argString(c.args)}}
			if k == 0 {
				switch g.v {
				case "gemini-openai":
					tc["extra_content"] = obj{"google": obj{"thought_signature": g.unkept(g.geminiSig)}}
				case "litellm": // the signature folded into the id, and beside it
					s := g.unkept(g.geminiSig)
					calls[k].id = c.id + "__thought__" + s
					g.rekey(c.id, calls[k].id)
					tc["id"] = calls[k].id
					tc["provider_specific_fields"] = obj{"thought_signature": s}
				}
			}
			tcs = append(tcs, tc)
		}
		msg["tool_calls"] = tcs
		if g.v == "litellm" { // LiteLLM's own member
			msg["thinking_blocks"] = arr{obj{"type": "thinking", "thinking": g.unkept(func() string { return g.text(40) }), "signature": g.unkept(g.geminiSig)}}
		}
		msgs = append(msgs, msg)
		for _, c := range calls {
			m := obj{"role": "tool", "tool_call_id": c.id, "content": c.result}
			if g.v == "vercel-ai" {
				m["content"] = arr{obj{"type": "text", "text": c.result}}
			}
			msgs = append(msgs, m)
		}
	}
	msgs = append(msgs, obj{"role": "assistant", "content": g.text(60)}, obj{"role": "user", "content": g.text(30)})
	body["messages"] = msgs
	if g.v == "deepseek" || g.v == "groq" {
		body["reasoning_effort"] = "high"
	}
	return body
}

// ---- OpenAI Responses ----

func (g *bodyGen) responses() obj {
	body := obj{"model": g.model(), "instructions": g.text(60), "store": false, "include": arr{"reasoning.encrypted_content"}}
	var tools arr
	for _, t := range bodyTools {
		tools = append(tools, obj{"type": "function", "name": t.name, "description": t.description, "parameters": jsonSchema(t), "strict": false})
	}
	body["tools"] = tools
	msg := func(role string, content any) obj {
		m := obj{"role": role, "content": content}
		if g.v == "openai-sdk" {
			m["type"] = "message"
		}
		return m
	}
	var input arr
	if g.v == "openai-agents" {
		input = append(input, obj{"type": "compaction", "id": g.item("cmp_"), "encrypted_content": g.encrypted()})
	}
	var first arr
	switch g.v {
	case "openai-sdk":
		data, name := g.pdf()
		first = arr{obj{"type": "input_image", "image_url": g.imageURL(), "detail": "auto"},
			obj{"type": "input_file", "filename": name, "file_data": "data:application/pdf;base64," + data},
			obj{"type": "input_file", "file_id": g.fileID(g.openaiFileID(), "")},
			obj{"type": "input_file", "file_url": g.docURL()}}
	case "strands":
		data, _ := g.pdf()
		g.named("")
		first = arr{obj{"type": "input_file", "file_url": "data:application/pdf;base64," + data}}
	default:
		first = arr{obj{"type": "input_image", "image_url": "data:image/png;base64," + g.png(), "detail": "low"}}
	}
	input = append(input, msg("user", append(first, obj{"type": "input_text", "text": g.text(40)})))
	for i := range g.cfg.Turns {
		calls := g.calls(i, nil)
		if g.v == "openai-sdk" && i == 0 {
			// a reasoning item and the web search it produced, before the calls
			// (the pair is kept or dropped whole: neither is listed)
			input = append(input, obj{"type": "reasoning", "id": g.item("rs_"), "summary": arr{}, "encrypted_content": g.unkept(g.encrypted)},
				obj{"type": "web_search_call", "id": g.item("ws_"), "status": "completed", "action": obj{"type": "search", "query": g.pick(base36Chars, 8)}})
		}
		r := obj{"type": "reasoning", "id": g.item("rs_"), "summary": arr{obj{"type": "summary_text", "text": g.text(60)}}, "encrypted_content": g.encrypted()}
		if g.v == "openai-agents" {
			r["content"] = arr{}
		}
		input = append(input, r)
		if i%2 == 1 {
			m := msg("assistant", arr{obj{"type": "output_text", "text": g.text(40)}})
			if g.v == "openai-sdk" {
				m["id"], m["status"], m["phase"] = g.item("msg_"), "completed", "commentary"
			}
			input = append(input, m)
		}
		for _, c := range calls {
			c.id = g.chatID()
			g.keep(PartCallID, c.id, "")
			fc := obj{"type": "function_call", "call_id": c.id, "name": c.tool.name, "arguments": argString(c.args)}
			if g.v != "strands" {
				fc["id"], fc["status"] = g.item("fc_"), "completed"
			}
			input = append(input, fc)
			out := any(c.result)
			if g.v == "openai-agents" && i == 0 {
				out = arr{obj{"type": "input_text", "text": c.result}}
			}
			input = append(input, obj{"type": "function_call_output", "call_id": c.id, "output": out})
		}
	}
	input = append(input, msg("assistant", arr{obj{"type": "output_text", "text": g.text(60)}}),
		msg("user", arr{obj{"type": "input_text", "text": g.text(30)}}))
	body["input"] = input
	body["reasoning"] = obj{"effort": "medium", "summary": "auto"}
	return body
}

// ---- Gemini generateContent ----

// geminiKeys are the member names of one casing.
type geminiKeys struct {
	system, tools, toolConfig, fnCallingConfig, decls, call, response, inline, file, mime, uri, sig, schemaAnyOf string
	genConfig                                                                                                    obj
}

var (
	camelKeys = geminiKeys{"systemInstruction", "tools", "toolConfig", "functionCallingConfig", "functionDeclarations", "functionCall", "functionResponse", "inlineData", "fileData", "mimeType", "fileUri", "thoughtSignature", "anyOf",
		obj{"generationConfig": obj{"temperature": 1, "thinkingConfig": obj{"includeThoughts": true, "thinkingBudget": -1}}}}
	snakeKeys = geminiKeys{"system_instruction", "tools", "tool_config", "function_calling_config", "function_declarations", "function_call", "function_response", "inline_data", "file_data", "mime_type", "file_uri", "thought_signature", "any_of",
		obj{"generation_config": obj{"temperature": 1, "thinking_config": obj{"include_thoughts": true, "thinking_budget": -1}}}}
)

func (g *bodyGen) gemini() obj {
	k := camelKeys
	switch g.v {
	case "vertex-snake", "adk":
		k = snakeKeys
	case "litellm": // snake parts, camel signature (LiteLLM's mix)
		k = snakeKeys
		k.sig, k.genConfig = "thoughtSignature", camelKeys.genConfig
	}
	body := obj{}
	sys := g.text(60)
	var decls arr
	for _, t := range bodyTools {
		d := obj{"name": t.name, "description": t.description}
		switch g.v {
		case "google-genai":
			d["parameters_json_schema"] = jsonSchema(t) // the declaration is dumped as its pydantic model: snake inside
		case "vercel-ai":
			d["parameters"] = lowerTypes(openAPISchema(t, "anyOf"))
		default:
			d["parameters"] = openAPISchema(t, k.schemaAnyOf)
		}
		decls = append(decls, d)
	}
	tools := arr{obj{k.decls: decls}}
	if g.v == "adk" {
		body["model"] = g.model()
		body["config"] = obj{k.system: sys, "tools": tools}
	} else {
		body[k.system] = obj{"parts": arr{obj{"text": sys}}}
		body["tools"] = tools
		body[k.toolConfig] = obj{k.fnCallingConfig: obj{"mode": "AUTO"}}
		for key, v := range k.genConfig {
			body[key] = v
		}
	}
	withIDs := g.v == "vercel-ai"

	var first arr
	switch g.v {
	case "rest", "vertex-snake", "litellm", "vercel-ai":
		data, _ := g.pdf()
		g.named("") // inlineData has no name
		uri := g.geminiFileURI()
		if g.v == "vertex-snake" {
			uri = "gs://agent-uploads-" + g.pick(base36Chars, 6) + "/" + g.pick(base36Chars, 8) + ".png"
		}
		g.keep(PartImageURL, uri, "")
		first = arr{obj{k.inline: obj{k.mime: "application/pdf", "data": data}}, obj{k.file: obj{k.mime: "image/png", k.uri: uri}}}
	case "google-genai":
		first = arr{obj{k.inline: obj{k.mime: "image/png", "data": g.png()}}}
	}
	contents := arr{obj{"role": "user", "parts": append(first, obj{"text": g.text(40)})}}
	for i := range g.cfg.Turns {
		calls := g.calls(i, nil)
		var parts arr
		if g.v != "adk" {
			parts = append(parts, obj{"text": g.text(60), "thought": true, k.sig: g.geminiSig()})
		}
		parts = append(parts, obj{"text": g.text(40)})
		var results arr
		for j, c := range calls {
			fc := obj{"name": c.tool.name, "args": c.args}
			fr := obj{"name": c.tool.name, "response": obj{"output": c.result}}
			if withIDs {
				id := fmt.Sprintf("function-call-%d", g.n)
				fc["id"], fr["id"] = id, id
				g.keep(PartCallID, id, "")
			}
			part := obj{k.call: fc}
			if j == 0 && g.v != "adk" {
				part[k.sig] = g.geminiSig() // Gemini signs the first call of a step
			}
			parts = append(parts, part)
			if g.v == "vercel-ai" && i == 0 && j == 0 {
				data, _ := g.pdf()
				g.named("")
				fr["parts"] = arr{obj{"inlineData": obj{"mimeType": "application/pdf", "data": data}}}
			}
			results = append(results, obj{k.response: fr})
		}
		contents = append(contents, obj{"role": "model", "parts": parts}, obj{"role": "user", "parts": results})
	}
	contents = append(contents, obj{"role": "model", "parts": arr{obj{"text": g.text(60)}}}, obj{"role": "user", "parts": arr{obj{"text": g.text(30)}}})
	body["contents"] = contents
	return body
}

// lowerTypes returns s with its upper-case OpenAPI types in lower case
// (vercel/ai's Gemini dialect), and without property_ordering.
func lowerTypes(s obj) obj {
	out := obj{}
	for k, v := range s {
		switch {
		case k == "type":
			if t, ok := v.(string); ok {
				v = strings.ToLower(t)
			}
		case k == "property_ordering":
			continue
		}
		switch x := v.(type) {
		case obj:
			v = lowerTypes(x)
		case arr:
			y := make(arr, len(x))
			for i, e := range x {
				if o, ok := e.(obj); ok {
					e = lowerTypes(o)
				}
				y[i] = e
			}
			v = y
		}
		out[k] = v
	}
	return out
}

// ---- Mistral chat ----

func (g *bodyGen) mistral() obj {
	body := obj{"model": g.model()}
	var tools arr
	for _, t := range bodyTools {
		tool := obj{"function": obj{"name": t.name, "description": t.description, "parameters": jsonSchema(t)}}
		if g.v != "mistral-sdk" { // the Python SDK's typed dicts leave "type" out; the API defaults it
			tool["type"] = "function"
		}
		tools = append(tools, tool)
	}
	body["tools"] = tools
	if g.v == "vercel-ai" {
		body["tool_choice"] = "auto"
	}
	var msgs arr
	if g.v == "litellm" {
		msgs = append(msgs, obj{"role": "system", "content": arr{obj{"type": "text", "text": g.text(40)}, obj{"type": "text", "text": g.text(40)}}})
	} else {
		msgs = append(msgs, obj{"role": "system", "content": g.text(60)})
	}
	var first arr
	switch g.v {
	case "mistral-sdk":
		first = arr{obj{"type": "image_url", "image_url": g.imageURL()},
			obj{"type": "document_url", "document_url": g.docURL(), "document_name": "paper.pdf"}}
		g.named("paper.pdf")
		first = append(first, obj{"type": "file", "file_id": g.fileID(g.uuid(), "")})
	case "vercel-ai":
		data, _ := g.pdf()
		g.named("")
		first = arr{obj{"type": "image_url", "image_url": "data:image/png;base64," + g.png()},
			obj{"type": "document_url", "document_url": "data:application/pdf;base64," + data}}
	case "litellm":
		first = arr{obj{"type": "image_url", "image_url": g.imageURL()}}
	}
	msgs = append(msgs, obj{"role": "user", "content": append(first, obj{"type": "text", "text": g.text(40)})})
	for i := range g.cfg.Turns {
		calls := g.calls(i, g.mistralID)
		msg := obj{"role": "assistant"}
		var tcs arr
		for _, c := range calls {
			tcs = append(tcs, obj{"id": c.id, "type": "function", "function": obj{"name": c.tool.name, "arguments": argString(c.args)}})
		}
		msg["tool_calls"] = tcs
		switch g.v {
		case "litellm":
			msg["content"] = ""
		default: // thinking chunks, replayed as received
			thinking := g.unkept(func() string { return g.text(60) })
			msg["content"] = arr{obj{"type": "thinking", "thinking": arr{obj{"type": "text", "text": thinking}}, "closed": true}, obj{"type": "text", "text": g.text(40)}}
		}
		msgs = append(msgs, msg)
		for _, c := range calls {
			m := obj{"role": "tool", "tool_call_id": c.id, "content": c.result}
			if g.v != "vercel-ai" {
				m["name"] = c.tool.name
			}
			msgs = append(msgs, m)
		}
	}
	msgs = append(msgs, obj{"role": "assistant", "content": g.text(60)}, obj{"role": "user", "content": g.text(30)})
	if g.v == "vercel-ai" {
		msgs = append(msgs, obj{"role": "assistant", "content": g.text(20), "prefix": true})
		g.prefill = true
	}
	body["messages"] = msgs
	return body
}
