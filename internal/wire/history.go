package wire

import (
	"bytes"
	"encoding/json"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// role is who speaks a turn of the provider-neutral history.
type role uint8

const (
	roleUser role = iota
	roleAssistant
	roleResult
)

// partKind is the kind of one piece of a turn.
type partKind uint8

const (
	partText partKind = iota
	partImage
	partThinking
	partRedacted // redacted_thinking data, or a thinking block marked redacted
	partCall
	partServer // an Anthropic server-tool block (server_tool_use, *_tool_result), kept whole
	// partCompaction is a Responses compaction item (OpenAI's own encrypted
	// summary of the earlier turns), kept whole in a compactionSummary
	// message's "compaction" member; only the Responses renderer writes it.
	partCompaction
	partMedia // a document, or an image by URL, file id or S3 location (transcript.Block.MediaKind)
)

// part is one piece of a turn. Every []byte is a raw JSON value copied from
// the transcript (a string keeps its quotes), so text and base64 pass through
// without being decoded.
type part struct {
	kind partKind
	text []byte // text or thinking text (JSON string)
	sig  []byte // thinkingSignature, textSignature or redacted data (JSON string)
	data []byte // image base64 (JSON string)
	mime []byte // image mimeType (JSON string)
	id   []byte // call id (JSON string)
	name []byte // call name (JSON string)
	args []byte // call arguments (compact JSON object)
	raw  []byte // a server-tool block's whole JSON object
	// media is a partMedia's block: its source (MediaSource) and the value
	// in data, its mimeType in mime (nil when absent), and the block itself
	// for its name and its placeholder.
	media *transcript.Block
	src   string
	// thought is a Gemini thoughtSignature / thought_signature (JSON string).
	thought []byte
	// anthropic is the block's cache_control and citations members, as
	// ,"key":value, which only the Anthropic renderer writes (ParseAnthropic
	// keeps them for it).
	anthropic []byte
}

// turn is one message of the provider-neutral history.
type turn struct {
	role  role
	parts []part
	// fromGoogle is set on assistant turns produced by a Gemini API, whose
	// thinking signatures Gemini can verify.
	fromGoogle bool
	// Tool results only.
	callID   []byte // JSON string
	toolName []byte // JSON string, or nil
	isError  bool
	// anthropic is the result's cache_control, as for part.
	anthropic []byte
}

// calls returns the turn's call parts.
func (t *turn) calls() []part {
	var out []part
	for _, p := range t.parts {
		if p.kind == partCall {
			out = append(out, p)
		}
	}
	return out
}

// hasKind reports whether the turn has a part of kind k.
func (t *turn) hasKind(k partKind) bool {
	for _, p := range t.parts {
		if p.kind == k {
			return true
		}
	}
	return false
}

// readHistory turns the sanitized messages into the provider-neutral
// history. Roles other than user, assistant and toolResult become user
// turns (compactionSummary and branchSummary carry their summary, or a
// Responses compaction item, partCompaction; a custom message its content,
// text and images, as pi's convertToLlm sends it) or are left out (unknown
// roles, which OpenClaw does not send either); blocks a provider has no
// place for (video, unknown types) are left out.
func readHistory(msgs []*transcript.Message) ([]turn, int) {
	turns := make([]turn, 0, len(msgs))
	for _, m := range msgs {
		switch m.Role() {
		case transcript.RoleUser, transcript.RoleCustom:
			turns = append(turns, turn{role: roleUser, parts: contentParts(m, false)})
		case transcript.RoleAssistant:
			api, _ := m.String("api")
			provider, _ := m.String("provider")
			turns = append(turns, turn{role: roleAssistant, parts: contentParts(m, true), fromGoogle: isGoogle(provider, api)})
		case transcript.RoleToolResult, transcript.RoleTool:
			turns = append(turns, resultTurn(m))
		case transcript.RoleCompactionSummary, transcript.RoleBranchSummary:
			if item, ok := m.Get("compaction"); ok && len(item) > 0 && item[0] == '{' {
				turns = append(turns, turn{role: roleUser, parts: []part{{kind: partCompaction, raw: item}}})
			} else if s, ok := m.Get("summary"); ok && isString(s) {
				turns = append(turns, turn{role: roleUser, parts: []part{{kind: partText, text: s}}})
			} else if ps := contentParts(m, false); len(ps) > 0 {
				turns = append(turns, turn{role: roleUser, parts: ps})
			}
		}
	}
	return turns, historySize(turns)
}

// historySize is the bytes of the values a body copies, a lower bound of
// its size that the renderer reserves at once.
func historySize(turns []turn) int {
	n := 0
	for i := range turns {
		for _, p := range turns[i].parts {
			n += len(p.text) + len(p.data) + len(p.args) + len(p.sig) + len(p.raw) + 32
		}
	}
	return n
}

func resultTurn(m *transcript.Message) turn {
	t := turn{role: roleResult, parts: contentParts(m, false)}
	if id, ok := m.ResultID(); ok {
		t.callID = transcript.JSONString(id)
	} else {
		t.callID = []byte(`""`)
	}
	if name, ok := m.Get("toolName"); ok && isString(name) {
		t.toolName = name
	}
	t.isError, _ = m.Bool("isError")
	t.anthropic = anthropicMembers(m.Get)
	return t
}

// contentParts reads a message's content: a string is one text part; an
// array gives its text, image and document blocks (a document or an image
// by reference in an assistant turn is its placeholder text: no wire takes
// one there), and for an assistant also its thinking, redacted thinking and
// tool calls.
func contentParts(m *transcript.Message, assistant bool) []part {
	if raw, ok := m.Get("content"); ok && isString(raw) {
		return []part{{kind: partText, text: raw}}
	}
	blocks, _ := m.Blocks()
	parts := make([]part, 0, len(blocks))
	for _, b := range blocks {
		switch t := b.Type(); {
		case t == transcript.BlockText:
			if text, ok := b.Get("text"); ok && isString(text) {
				parts = append(parts, part{kind: partText, text: text, sig: stringMember(b, "textSignature"), thought: thoughtSignature(b), anthropic: anthropicMembers(b.Get)})
			}
		case b.MediaKind() != "" && assistant:
			parts = append(parts, part{kind: partText, text: transcript.JSONString(b.MediaPlaceholder("an assistant turn carries no file"))})
		case b.MediaKind() != "":
			src := b.MediaSource()
			data, _ := b.Get(src)
			parts = append(parts, part{kind: partMedia, src: src, data: data, mime: stringMember(b, "mimeType"), media: b, anthropic: anthropicMembers(b.Get)})
		case t == transcript.BlockImage:
			data, okData := b.Get("data")
			mime, okMime := b.Get("mimeType")
			if okData && okMime && isString(data) && isString(mime) {
				parts = append(parts, part{kind: partImage, data: data, mime: mime, anthropic: anthropicMembers(b.Get)})
			}
		case !assistant:
		case t == transcript.BlockThinking:
			p := part{kind: partThinking, text: stringMember(b, "thinking"), sig: stringMember(b, "thinkingSignature"), thought: thoughtSignature(b)}
			if p.text == nil {
				p.text = []byte(`""`)
			}
			if redacted, _ := b.Bool("redacted"); redacted {
				p.kind = partRedacted
			}
			parts = append(parts, p)
		case t == transcript.BlockRedactedThinking:
			if data := stringMember(b, "data"); data != nil {
				parts = append(parts, part{kind: partRedacted, sig: data})
			}
		case isServerBlock(t):
			parts = append(parts, part{kind: partServer, raw: b.AppendJSON(nil)})
		case b.IsToolCall():
			id, ok := b.Get("id")
			name, okName := b.Get("name")
			if !ok || !isString(id) || !okName || !isString(name) {
				continue
			}
			parts = append(parts, part{kind: partCall, id: id, name: name, args: callArguments(b), thought: thoughtSignature(b), anthropic: anthropicMembers(b.Get)})
		}
	}
	return parts
}

// anthropicMembers returns the cache_control, citations and (a
// document's) context members get finds, as ,"key":value; nil when there
// are none.
func anthropicMembers(get func(string) ([]byte, bool)) []byte {
	var out []byte
	for _, key := range [...]string{"cache_control", "citations", "context"} {
		if raw, ok := get(key); ok {
			out = member(out, key, raw)
		}
	}
	return out
}

// callArguments returns a call's arguments (or legacy input) as a compact
// JSON object; anything that is not an object becomes {} (input validation,
// spec §3.5, has already dropped calls whose arguments cannot be repaired).
func callArguments(b *transcript.Block) []byte {
	for _, key := range []string{"arguments", "input"} {
		raw, ok := b.Get(key)
		if !ok || len(raw) == 0 || raw[0] != '{' {
			continue
		}
		if !bytes.ContainsAny(raw, " \t\r\n") {
			return raw // already compact
		}
		var buf bytes.Buffer
		if json.Compact(&buf, raw) == nil {
			return buf.Bytes()
		}
	}
	return []byte("{}")
}

// thoughtSignature returns a block's Gemini thought signature, camel case
// first (spec §1.3 lists both spellings).
func thoughtSignature(b *transcript.Block) []byte {
	if s := stringMember(b, "thoughtSignature"); s != nil {
		return s
	}
	return stringMember(b, "thought_signature")
}

// stringMember returns a block member's raw value when it is a non-blank
// JSON string, else nil.
func stringMember(b *transcript.Block, key string) []byte {
	raw, ok := b.Get(key)
	if !ok || !isString(raw) {
		return nil
	}
	if s, _ := b.String(key); transcript.IsBlank(s) {
		return nil
	}
	return raw
}

// isServerBlock reports whether a block type is one of Anthropic's
// server-tool blocks, which the server_tools rule keeps in pairs for an
// Anthropic Messages target: server_tool_use and any "*_tool_result"
// (web_search_tool_result, web_fetch_tool_result, code_execution_tool_result, ...).
func isServerBlock(t string) bool {
	return t == "server_tool_use" || len(t) > len("_tool_result") && t[len(t)-len("_tool_result"):] == "_tool_result"
}

func isString(raw []byte) bool { return len(raw) >= 2 && raw[0] == '"' }

// isGoogle reports whether a message came from a Gemini API.
func isGoogle(provider, api string) bool {
	return provider == "google" || provider == "google-gemini-cli" || provider == "google-vertex" ||
		len(api) > 7 && api[:7] == "google-"
}

// carried returns p as the renderer of format f writes it: a partMedia f
// has no place for (contract.BodyFormat.Media) becomes its placeholder
// text, a plain-text document with no document place its text
// (Block.DocumentText); any other part is itself. nativeText says whether
// f has a document block for plain text.
func carried(p part, f Format, nativeText bool) part {
	if p.kind != partMedia {
		return p
	}
	if p.src == transcript.SourceText && !nativeText {
		return part{kind: partText, text: transcript.JSONString(p.media.DocumentText())}
	}
	if !f.Media().Carries(p.media) {
		return part{kind: partText, text: transcript.JSONString(p.media.MediaPlaceholder(string(f) + " has no place for it"))}
	}
	return p
}

// mediaName returns a partMedia's name (a JSON string) or nil.
func mediaName(p part) []byte { return stringMember(p.media, "name") }

// isImage reports whether a partMedia is an image by reference.
func (p part) isImage() bool { return p.media.Type() == transcript.BlockImage }
