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
// (DeepSeek, Kimi: unsigned thinking) or reasoning (Groq: the same),
// LiteLLM's thinking_blocks (chatThinking) and tool_calls (arguments
// decoded from their JSON string, a Gemini thought signature carried:
// chatCallSignature) its blocks, and so are Mistral's thinking chunks
// (Magistral: unsigned thinking, as reasoning_content); a message's own
// Gemini signature goes on its first text (chatTextSignature), and LiteLLM's
// provider_specific_fields are counted; a tool message a toolResult. The
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
			p.chatThinking(m)
			textSig := p.chatTextSignature(m)
			if isString(content) {
				p.out = textBlock(p.out, content, textSig)
				textSig = nil
			} else {
				for _, raw := range p.array(content) {
					b, _ := p.object(raw)
					if t, _ := b.String("type"); (t == "text" || t == "output_text") && str(&b, "text") != nil {
						p.out = textBlock(p.out, str(&b, "text"), textSig)
						textSig = nil
					} else if t == "refusal" && str(&b, "refusal") != nil {
						p.out = textBlock(p.out, str(&b, "refusal"), nil)
					} else if t == "thinking" {
						p.out = thinkingBlock(p.out, p.chunkTexts(field(&b, "thinking")), "", nil)
					} else {
						p.drop(LossUnknown)
					}
				}
			}
			if textSig != nil { // no text to sign
				p.drop(LossTextSignature)
			}
			for _, raw := range p.array(field(m, "tool_calls")) {
				c, _ := p.object(raw)
				fn, _ := p.object(field(&c, "function"))
				p.chatCall(str(&c, "id"), str(&fn, "name"), field(&fn, "arguments"), p.chatCallSignature(&c))
			}
			if fc := field(m, "function_call"); fc != nil {
				fn, _ := p.object(fc)
				p.chatCall(nil, str(&fn, "name"), field(&fn, "arguments"), nil)
			}
			if psf, ok := p.object(field(m, "provider_specific_fields")); ok && len(psf.Fields) > 0 {
				p.drop(LossProviderFields)
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

// chatCall adds a tool call with extra members (its thoughtSignature); a
// call without an id (the legacy function_call) gets "call_<n>", n
// counting the body's calls.
func (p *parser) chatCall(id, name, args, extra []byte) {
	if name == nil {
		p.drop(LossUnknown)
		return
	}
	if id == nil {
		id = transcript.JSONString(fmt.Sprintf("call_%d", p.calls))
	}
	p.call(id, name, jsonArguments(args), extra)
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

// chatThinking reads an assistant message's thinking. Its unsigned
// reasoning text is reasoning_content (DeepSeek, Kimi), else reasoning
// (Groq's member, the same unsigned text). LiteLLM's thinking_blocks are
// Anthropic's thinking and redacted_thinking blocks with their signatures:
// for a target that carries signed thinking they are the message's
// thinking (the reasoning text beside them, LiteLLM's join of the same
// texts, is not read again); for any other target the reasoning text is,
// each signed or redacted block is counted as signed_thinking, and the
// texts of unsigned blocks are read only when there is no reasoning text.
func (p *parser) chatThinking(m *transcript.Object) {
	r := str(m, "reasoning_content")
	if r == nil {
		r = str(m, "reasoning")
	}
	if r != nil && bytes.Equal(r, []byte(`""`)) {
		r = nil
	}
	blocks := p.array(field(m, "thinking_blocks"))
	signed := len(blocks) > 0 && Carries(p.target, LossSignedThinking)
	if r != nil && !signed {
		p.out = thinkingBlock(p.out, r, "", nil)
	}
	for _, raw := range blocks {
		b, _ := p.object(raw)
		text, sig, data := str(&b, "thinking"), str(&b, "signature"), str(&b, "data")
		switch t, _ := b.String("type"); {
		case t == "redacted_thinking" && data != nil && signed:
			p.out = redactedBlock(p.out, data)
		case t == "thinking" && text != nil && (signed || sig == nil && r == nil):
			p.out = thinkingBlock(p.out, text, "thinkingSignature", sig)
		case t == "redacted_thinking" && data != nil || t == "thinking" && sig != nil:
			p.drop(LossSignedThinking)
		case t != "thinking":
			p.drop(LossUnknown)
		}
	}
}

// chatTextSignature is the Gemini thought signature Gemini's
// OpenAI-compatible endpoint gives an assistant message
// (extra_content.google.thought_signature), as the ,"thoughtSignature"
// member of the message's first text block: kept for a Gemini target, as
// a Gemini text part's is (text_thought_signature), and counted otherwise.
func (p *parser) chatTextSignature(m *transcript.Object) []byte {
	sig := googleSignature(p, m)
	if sig == nil || !p.keep(LossTextSignature) {
		return nil
	}
	return member(nil, "thoughtSignature", sig)
}

// chatCallSignature is a tool call's Gemini thought signature as the
// call's ,"thoughtSignature" member, the place a Gemini functionCall's
// thoughtSignature has in the model (carried, for the chain's rules, spec
// §3.9): Gemini's OpenAI-compatible endpoint writes it in
// extra_content.google.thought_signature, LiteLLM in
// provider_specific_fields.thought_signature. Other members of
// provider_specific_fields are counted (provider_specific_fields).
func (p *parser) chatCallSignature(c *transcript.Object) []byte {
	sig := googleSignature(p, c)
	if psf, ok := p.object(field(c, "provider_specific_fields")); ok {
		if s := str(&psf, "thought_signature"); s != nil && sig == nil {
			sig = s
		}
		if len(psf.Fields) > 1 || len(psf.Fields) == 1 && psf.Fields[0].Key != "thought_signature" {
			p.drop(LossProviderFields)
		}
	}
	return member(nil, "thoughtSignature", sig)
}

// googleSignature returns o's extra_content.google.thought_signature, nil
// when it has none.
func googleSignature(p *parser, o *transcript.Object) []byte {
	extra, _ := p.object(field(o, "extra_content"))
	google, _ := p.object(field(&extra, "google"))
	return str(&google, "thought_signature")
}
