package wire

import (
	"bytes"
	"fmt"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// chat reads an OpenAI Chat Completions body, or a Mistral chat body (the
// same shape; Mistral's tool messages also name the tool, and its
// arguments may be an object): messages and tools. system and developer
// messages become the system prompt wherever they stand; a user message's
// string or text, image_url (a data URL is the image's bytes, any other
// URL an image by URL), file (file_data or file_id: a document) and
// Mistral document_url parts its blocks; an assistant message's content, reasoning_content
// (DeepSeek, Kimi: unsigned thinking) and tool_calls (arguments decoded
// from their JSON string) its blocks, and so are Mistral's thinking chunks
// (Magistral: unsigned thinking, as reasoning_content); a tool message a
// toolResult. The
// legacy function role and function_call member are read as a tool result
// and a call. A last assistant message with prefix: true sets Continue.
func (p *parser) chat(o *transcript.Object) error {
	err := p.eachItem(o, "messages", func(m *transcript.Object) {
		role, _ := m.String("role")
		content := field(m, "content")
		p.Continue = false // only the last message's prefix counts
		switch role {
		case "system", "developer":
			p.systemContent(content)
		case "assistant":
			p.openAssistant()
			p.Continue, _ = m.Bool("prefix")
			if r := str(m, "reasoning_content"); r != nil && !bytes.Equal(r, []byte(`""`)) {
				p.out = thinkingBlock(p.out, r, "", nil)
			}
			if isString(content) {
				p.out = textBlock(p.out, content, nil)
			} else {
				for _, raw := range p.array(content) {
					b, _ := p.object(raw)
					if t, _ := b.String("type"); (t == "text" || t == "output_text") && str(&b, "text") != nil {
						p.out = textBlock(p.out, str(&b, "text"), nil)
					} else if t == "refusal" && str(&b, "refusal") != nil {
						p.out = textBlock(p.out, str(&b, "refusal"), nil)
					} else if t == "thinking" {
						p.out = thinkingBlock(p.out, p.chunkTexts(field(&b, "thinking")), "", nil)
					} else {
						p.drop(LossUnknown)
					}
				}
			}
			for _, raw := range p.array(field(m, "tool_calls")) {
				c, _ := p.object(raw)
				fn, _ := p.object(field(&c, "function"))
				p.chatCall(str(&c, "id"), str(&fn, "name"), field(&fn, "arguments"))
			}
			if fc := field(m, "function_call"); fc != nil {
				fn, _ := p.object(fc)
				p.chatCall(nil, str(&fn, "name"), field(&fn, "arguments"))
			}
		case "tool", "function":
			id := str(m, "tool_call_id")
			if id == nil && role == "function" {
				id = p.lastCall[string(str(m, "name"))]
			}
			if id == nil {
				id = []byte(`""`)
			}
			p.openResult(id, str(m, "name"))
			p.out = p.chatParts(p.out, content)
			p.closeResult(false, nil)
		default: // user, and unknown roles as user text
			at := p.openUser()
			p.out = p.chatParts(p.out, content)
			p.closeUser(at)
		}
	})
	if err != nil {
		return err
	}
	p.functionTools(field(o, "tools"), true)
	return nil
}

// chunkTexts is a Mistral thinking chunk's text: its "thinking" member, a
// string or text chunks, their texts joined.
func (p *parser) chunkTexts(raw []byte) []byte {
	if isString(raw) {
		return raw
	}
	var texts [][]byte
	for _, c := range p.array(raw) {
		o, _ := p.object(c)
		if t := str(&o, "text"); t != nil {
			texts = append(texts, t)
		}
	}
	return appendJoined(nil, texts)
}

// chatCall adds a tool call; a call without an id (the legacy
// function_call) gets "call_<n>", n counting the body's calls.
func (p *parser) chatCall(id, name, args []byte) {
	if name == nil {
		p.drop(LossUnknown)
		return
	}
	if id == nil {
		id = transcript.JSONString(fmt.Sprintf("call_%d", p.calls))
	}
	p.call(id, name, jsonArguments(args), nil)
}

// chatParts appends the blocks of a user or tool content: a string, or
// text and image_url parts.
func (p *parser) chatParts(dst, content []byte) []byte {
	if isString(content) {
		return textBlock(dst, content, nil)
	}
	for _, raw := range p.array(content) {
		b, _ := p.object(raw)
		switch t, _ := b.String("type"); t {
		case "text", "input_text":
			if text := str(&b, "text"); text != nil {
				dst = textBlock(dst, text, nil)
			}
		case "image_url":
			img, _ := p.object(field(&b, "image_url"))
			url := str(&img, "url")
			if url == nil {
				url = str(&b, "image_url")
			}
			var ok bool
			if dst, ok = urlOrData(dst, url, nil, true); !ok {
				p.drop(LossImageSource)
			}
		case "file":
			dst = p.chatFile(dst, &b)
		case "document_url":
			var ok bool
			if dst, ok = urlOrData(dst, str(&b, "document_url"), str(&b, "document_name"), false); !ok {
				p.drop(LossDocument)
			}
		case "input_audio":
			p.drop(LossAudio)
		default:
			p.drop(LossUnknown)
		}
	}
	return dst
}

// chatFile appends a Chat Completions file part: file.file_data (a data
// URL, or bare base64, which Chat takes for PDFs only) or file.file_id,
// with file.filename as the document's name; or Mistral's file chunk, its
// file_id on the part itself.
func (p *parser) chatFile(dst []byte, b *transcript.Object) []byte {
	f, _ := p.object(field(b, "file"))
	name := str(&f, "filename")
	if data := str(&f, "file_data"); data != nil {
		if dst, ok := dataURLBlock(dst, data, name); ok {
			return dst
		}
		return fileBlock(dst, data, []byte(`"application/pdf"`), name, nil)
	}
	id := str(&f, "file_id")
	if id == nil {
		id = str(b, "file_id") // Mistral's file chunk: {"type":"file","file_id":...}
	}
	if id != nil {
		return refBlock(dst, transcript.SourceFileID, id, nil, name, false)
	}
	p.drop(LossDocument)
	return dst
}
