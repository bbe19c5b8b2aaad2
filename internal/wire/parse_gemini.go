package wire

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// gemini reads a Gemini generateContent body: systemInstruction, contents
// and tools (functionDeclarations). A model content is an assistant turn:
// its text parts (with their thoughtSignature for a Gemini target), thought
// parts (thinking blocks with their thoughtSignature, for a Gemini target)
// and functionCall parts (toolCall blocks, the call's thoughtSignature
// kept). A user content's functionResponse parts become toolResult
// messages: {"output": text} or {"error": text} give the text (and isError),
// any other response its compact JSON; its inlineData parts go to the last
// result before them (renderGemini writes the results' images after the
// responses), or to a user message with its text parts after the results.
//
// Gemini often leaves call ids out. A functionCall without one gets
// "<name>_<n>" (n counts the body's calls), and a functionResponse without
// one answers the earliest unanswered call of its name; both are written
// back with the id.
func (p *parser) gemini(o *transcript.Object) error {
	if si, ok := object(field(o, "systemInstruction")); ok {
		for _, raw := range array(field(&si, "parts")) {
			part, _ := object(raw)
			p.systemText(str(&part, "text"))
		}
	} else if si := str(o, "systemInstruction"); si != nil {
		p.systemText(si)
	}
	err := eachItem(o, "contents", func(c *transcript.Object) {
		parts := array(field(c, "parts"))
		if role, _ := c.String("role"); role != "model" {
			p.geminiUserContent(parts)
			return
		}
		p.openAssistant()
		for _, raw := range parts {
			p.geminiModelPart(raw)
		}
		p.flushAssistant() // each model content is its own turn
	})
	if err != nil {
		return err
	}
	for _, raw := range array(field(o, "tools")) {
		t, _ := object(raw)
		decls := field(&t, "functionDeclarations")
		if decls == nil {
			decls = field(&t, "function_declarations")
		}
		if decls == nil {
			p.drop(LossToolKind)
			continue
		}
		for _, raw := range array(decls) {
			d, _ := object(raw)
			schema := field(&d, "parametersJsonSchema")
			if schema == nil {
				schema = field(&d, "parameters")
			}
			p.tool(str(&d, "name"), str(&d, "description"), schema)
		}
	}
	return nil
}

// geminiSignature returns a part's thoughtSignature (either spelling).
func geminiSignature(part *transcript.Object) []byte {
	if s := str(part, "thoughtSignature"); s != nil {
		return s
	}
	return str(part, "thought_signature")
}

// geminiModelPart adds one part of a model content to the open turn.
func (p *parser) geminiModelPart(raw []byte) {
	part, _ := object(raw)
	sig := geminiSignature(&part)
	if text := str(&part, "text"); text != nil {
		if thought, _ := part.Bool("thought"); thought {
			if p.keep(LossGeminiThought) {
				p.addAssistant(thinkingBlock(nil, text, "thoughtSignature", sig))
			}
			return
		}
		if sig != nil && !p.keep(LossTextSignature) {
			sig = nil
		}
		p.addAssistant(textBlock(nil, text, member(nil, "thoughtSignature", sig)))
		return
	}
	if fc, ok := object(field(&part, "functionCall")); ok {
		name := str(&fc, "name")
		if name == nil {
			p.drop(LossUnknown)
			return
		}
		id := str(&fc, "id")
		if id == nil || bytes.Equal(id, []byte(`""`)) {
			n, _ := unquote(name)
			id = transcript.JSONString(fmt.Sprintf("%s_%d", n, p.calls))
		}
		args := field(&fc, "args")
		if args == nil {
			args = []byte("{}")
		}
		p.call(id, name, args, member(nil, "thoughtSignature", sig))
		p.unanswered = append(p.unanswered, id)
		return
	}
	if inline, ok := object(field(&part, "inlineData")); ok {
		if data, mime := str(&inline, "data"), str(&inline, "mimeType"); data != nil && mime != nil {
			p.addAssistant(imageBlock(nil, data, mime, nil))
			return
		}
	}
	p.geminiOtherPart(&part)
}

// geminiOtherPart counts a part the model has no place for.
func (p *parser) geminiOtherPart(part *transcript.Object) {
	switch {
	case part.Has("fileData"), part.Has("inlineData"):
		p.drop(LossImageURL)
	case part.Has("executableCode"), part.Has("codeExecutionResult"), part.Has("toolCall"), part.Has("toolResponse"):
		p.drop(LossServerTool)
	default:
		p.drop(LossUnknown)
	}
}

// geminiResult is a functionResponse read from a user content.
type geminiResult struct {
	id, name, blocks []byte
	isError          bool
}

// geminiUserContent reads a user content: its function responses, then a
// user message of its text and the images that follow no response.
func (p *parser) geminiUserContent(parts [][]byte) {
	var results []geminiResult
	var blocks []byte
	for _, raw := range parts {
		part, _ := object(raw)
		if text := str(&part, "text"); text != nil {
			blocks = textBlock(blocks, text, nil)
			continue
		}
		if fr, ok := object(field(&part, "functionResponse")); ok {
			results = append(results, p.geminiResponse(&fr))
			continue
		}
		if inline, ok := object(field(&part, "inlineData")); ok {
			data, mime := str(&inline, "data"), str(&inline, "mimeType")
			if data != nil && mime != nil {
				if n := len(results); n > 0 {
					results[n-1].blocks = imageBlock(results[n-1].blocks, data, mime, nil)
				} else {
					blocks = imageBlock(blocks, data, mime, nil)
				}
				continue
			}
		}
		p.geminiOtherPart(&part)
	}
	for _, r := range results {
		p.result(r.id, r.name, r.blocks, r.isError, nil)
	}
	p.user(blocks)
}

// geminiResponse reads a functionResponse: its id (or the earliest
// unanswered call of its name), its name, and its response as text.
func (p *parser) geminiResponse(fr *transcript.Object) geminiResult {
	r := geminiResult{name: str(fr, "name")}
	r.id = str(fr, "id")
	if r.id == nil || bytes.Equal(r.id, []byte(`""`)) {
		r.id = []byte(`""`)
		for i, id := range p.unanswered {
			if bytes.Equal(p.names[string(id)], r.name) {
				r.id = id
				p.unanswered = append(p.unanswered[:i:i], p.unanswered[i+1:]...)
				break
			}
		}
	} else {
		for i, id := range p.unanswered {
			if bytes.Equal(id, r.id) {
				p.unanswered = append(p.unanswered[:i:i], p.unanswered[i+1:]...)
				break
			}
		}
	}
	resp, _ := object(field(fr, "response"))
	switch out, errText := field(&resp, "output"), field(&resp, "error"); {
	case len(resp.Fields) == 1 && isString(out):
		r.blocks = textBlock(nil, out, nil)
	case len(resp.Fields) == 1 && isString(errText):
		r.blocks, r.isError = textBlock(nil, errText, nil), true
	default:
		if raw := field(fr, "response"); raw != nil {
			var buf bytes.Buffer
			if json.Compact(&buf, raw) == nil {
				r.blocks = textBlock(nil, transcript.JSONString(buf.String()), nil)
			}
		}
	}
	return r
}
