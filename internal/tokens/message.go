package tokens

import (
	"unsafe"

	"github.com/hygiene-dev/hygiene/internal/images"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// Message returns the tokens a message takes in the target's context: its
// texts, thinking, tool calls (name and arguments JSON), tool results,
// images by their pixel size, and the provider's per-message framing.
// Thinking counts even where a provider strips earlier turns' thinking, so
// the count stays an upper bound for every target.
func (c *Counter) Message(m *transcript.Message) int { return c.message(m, c.Text) }

// MessageBound is an upper bound of Message from lengths alone (Bound for
// every text; images by their formula): cheap enough to run over a whole
// history to prove that it fits before anything is counted.
func (c *Counter) MessageBound(m *transcript.Message) int {
	return c.message(m, func(b []byte) int { return c.Bound(len(b)) })
}

// Request returns the tokens of what a request carries besides its
// messages: the system prompt, the tool definitions (their JSON text, plus
// the provider's tool prompt when there is any tool) and the request's own
// framing. Either may be nil.
func (c *Counter) Request(system, tools []byte) int {
	n := c.perRequest
	if len(system) > 0 {
		n += c.perMessage + c.Text(system)
	}
	if len(tools) > 0 && string(tools) != "[]" && string(tools) != "null" {
		n += c.toolPrompt + c.Text(tools)
	}
	return n
}

// message walks a message's parts, counting text with text.
func (c *Counter) message(m *transcript.Message, text func([]byte) int) int {
	if m == nil || !m.IsObject() {
		return 0
	}
	n := c.perMessage
	for _, k := range [...]string{"toolName", "summary"} {
		if s, ok := m.String(k); ok {
			n += text(bytesOf(s))
		}
	}
	if s, ok := m.ContentString(); ok {
		return n + text(bytesOf(s))
	}
	blocks, _ := m.Blocks()
	for _, b := range blocks {
		n += c.block(b, text)
	}
	return n
}

// block counts one content block.
func (c *Counter) block(b *transcript.Block, text func([]byte) int) int {
	if !b.IsObject() {
		return 0
	}
	switch t := b.Type(); {
	case t == transcript.BlockText:
		s, _ := b.Text()
		return text(bytesOf(s))
	case t == transcript.BlockThinking:
		s, _ := b.String("thinking")
		return text(bytesOf(s))
	case t == transcript.BlockRedactedThinking:
		s, _ := b.String("data")
		return text(bytesOf(s))
	case t == transcript.BlockImage:
		w, h := imageSize(b)
		return c.Image(w, h)
	case b.IsAnyToolCall():
		name, _ := b.String("name")
		args, ok := b.Get("arguments")
		if !ok {
			args, _ = b.Get("input")
		}
		return text(bytesOf(name)) + text(args)
	}
	// Any other block (a document, a provider's own part): its JSON text,
	// which holds whatever the provider would read of it.
	return text(b.AppendJSON(nil))
}

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
