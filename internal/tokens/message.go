package tokens

import (
	"bytes"
	"encoding/base64"
	"unicode/utf8"
	"unsafe"

	"github.com/hygiene-dev/hygiene/internal/images"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// Message returns the tokens a message takes in the target's context: its
// texts, thinking, tool calls (name and arguments JSON), tool results,
// images by their pixel size, and the provider's per-message framing.
// Thinking counts even where a provider strips earlier turns' thinking, so
// the count stays an upper bound for every target.
func (c *Counter) Message(m *transcript.Message) int { return c.message(m, true) }

// MessageBound is an upper bound of Message from lengths alone: Bound for
// every text, ImageMax for every image (no header is read; a base64 PDF is
// still read for its pages, as Message reads it). Cheap enough to run over a
// whole history to prove that it fits before anything is counted.
func (c *Counter) MessageBound(m *transcript.Message) int {
	return c.message(m, false)
}

// Request returns the tokens of what a request carries besides its
// messages: the system prompt, the tool definitions (their JSON text, plus
// the provider's tool prompt when there is any tool) and the request's own
// framing. Either may be nil.
func (c *Counter) Request(system, tools []byte) int { return c.request(system, tools, c.Text) }

// RequestBound is an upper bound of Request from lengths alone (Bound for
// the system prompt and the tools), as MessageBound is of Message.
func (c *Counter) RequestBound(system, tools []byte) int {
	return c.request(system, tools, func(b []byte) int { return c.Bound(len(b)) })
}

// request counts a request's fixed part, counting text with text.
func (c *Counter) request(system, tools []byte, text func([]byte) int) int {
	n := c.perRequest
	if len(system) > 0 {
		n += c.perMessage + text(system)
	}
	if len(tools) > 0 && string(tools) != "[]" && string(tools) != "null" {
		n += c.toolPrompt + text(tools)
	}
	return n
}

// message walks a message's parts: Message's count when exact, else
// MessageBound's.
func (c *Counter) message(m *transcript.Message, exact bool) int {
	if m == nil || !m.IsObject() {
		return 0
	}
	n := c.perMessage + c.str(m, "toolName", exact) + c.str(m, "summary", exact)
	if _, ok := m.ContentString(); ok {
		return n + c.str(m, "content", exact)
	}
	blocks, _ := m.Blocks()
	for _, b := range blocks {
		n += c.block(b, exact)
	}
	return n
}

// members is what a message and a block have in common.
type members interface {
	Get(key string) ([]byte, bool)
	String(key string) (string, bool)
	StringSize(key string) (int, bool)
}

// str counts a string member: its text when exact, else Bound of its raw
// JSON length, which is never below the decoded text's (an escape is
// longer than what it stands for), so no text is decoded, nor read: the
// tape knows the length.
func (c *Counter) str(v members, key string, exact bool) int {
	if !exact {
		size, ok := v.StringSize(key)
		if !ok {
			return 0
		}
		return c.Bound(size)
	}
	s, _ := v.String(key)
	return c.Text(bytesOf(s))
}

// raw counts a member's raw JSON (a tool call's arguments).
func (c *Counter) raw(v members, key string, exact bool) int {
	raw, _ := v.Get(key)
	if !exact {
		return c.Bound(len(raw))
	}
	return c.Text(raw)
}

// block counts one content block; an image by its header when exact, else
// as ImageMax.
func (c *Counter) block(b *transcript.Block, exact bool) int {
	if !b.IsObject() {
		return 0
	}
	switch t := b.Type(); {
	case t == transcript.BlockText:
		return c.str(b, "text", exact)
	case t == transcript.BlockThinking:
		return c.str(b, "thinking", exact)
	case t == transcript.BlockRedactedThinking:
		return c.str(b, "data", exact)
	case t == transcript.BlockImage && !exact:
		return c.imageMax
	case t == transcript.BlockImage:
		w, h := imageSize(b)
		return c.Image(w, h)
	case t == blockDocument:
		return c.document(b, exact)
	case b.IsAnyToolCall():
		args := "arguments"
		if !b.Has(args) {
			args = "input"
		}
		return c.str(b, "name", exact) + c.raw(b, args, exact)
	}
	// Any other block (a document, a provider's own part): its JSON text,
	// which holds whatever the provider would read of it.
	raw := b.AppendJSON(nil)
	if !exact {
		return c.Bound(len(raw))
	}
	return c.Text(raw)
}

// blockDocument is a document block (a PDF, a text or office file: issue
// 29's extension of the message model): its content is in exactly one of
// "data" (base64), "text", "url", "fileId", "s3Uri", with a "mimeType".
const blockDocument = "document"

// Document figures. pdfPageText: Anthropic's PDF guide counts 1,500 to
// 3,000 tokens of text per page, on top of each page as an image (the
// family's ImageMax here); Gemini and OpenAI charge less per page.
// A document by reference (url, fileId, s3Uri) is fetched by the provider
// and its size is unknown here: it counts as one page, an estimate and not
// a bound.
const pdfPageText = 3000

// document counts a document block: its text; for base64 data, a PDF by
// its pages (the "/Type /Page" objects of the decoded file) and any other
// file as text; a document by reference as one page.
func (c *Counter) document(b *transcript.Block, exact bool) int {
	if b.Has("text") {
		return c.str(b, "text", exact)
	}
	raw, ok := b.Get("data")
	if !ok || len(raw) < 2 || raw[0] != '"' {
		return pdfPageText + c.imageMax
	}
	s, _ := b.String("data")
	data, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return c.Bound(len(raw))
	}
	if bytes.HasPrefix(data, []byte("%PDF")) {
		return max(pdfPages(data), 1) * (pdfPageText + c.imageMax)
	}
	if !exact || !utf8.Valid(data) {
		return c.Bound(len(data))
	}
	return c.Text(data)
}

// pdfPages counts the page objects of a PDF: "/Type /Page" (or
// "/Type/Page") not followed by "s", as the page tree's leaves are marked.
// Objects in compressed object streams are not seen; the page tree's
// "/Count" of the root is then the figure, when it is larger.
func pdfPages(pdf []byte) int {
	n := 0
	for _, key := range [][]byte{[]byte("/Type /Page"), []byte("/Type/Page")} {
		for rest := pdf; ; {
			i := bytes.Index(rest, key)
			if i < 0 {
				break
			}
			rest = rest[i+len(key):]
			if len(rest) == 0 || rest[0] != 's' {
				n++
			}
		}
	}
	return max(n, pdfCount(pdf))
}

// pdfCount is the largest "/Count N" of a PDF (the page tree root's).
func pdfCount(pdf []byte) int {
	m := 0
	key := []byte("/Count ")
	for rest := pdf; ; {
		i := bytes.Index(rest, key)
		if i < 0 {
			return m
		}
		rest = rest[i+len(key):]
		n := 0
		for j := 0; j < len(rest) && j < 7 && isDigit(rest[j]); j++ {
			n = n*10 + int(rest[j]-'0')
		}
		m = max(m, n)
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// imageSize reads an image block's pixel size from its header (0, 0 when
// the data is not a readable image). The base64 is read in place when the
// JSON string holds no escape.
func imageSize(b *transcript.Block) (int, int) {
	raw, ok := b.Get("data")
	if !ok || len(raw) < 2 || raw[0] != '"' {
		return 0, 0
	}
	data := raw[1 : len(raw)-1]
	for _, ch := range data {
		if ch == '\\' {
			s, _ := b.String("data")
			data = []byte(s)
			break
		}
	}
	w, h, err := images.Dimensions(data)
	if err != nil {
		return 0, 0
	}
	return w, h
}

// bytesOf views a string's bytes without copying; the counters only read.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
