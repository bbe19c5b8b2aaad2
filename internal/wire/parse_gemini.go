package wire

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// gemini reads a Gemini generateContent body: systemInstruction, contents
// and tools (functionDeclarations), at the top or, in the SDKs' form, under
// config. A model content is an assistant turn:
// its text parts (with their thoughtSignature for a Gemini target), thought
// parts (thinking blocks with their thoughtSignature, for a Gemini target)
// and functionCall parts (toolCall blocks, the call's thoughtSignature
// kept). A user content's functionResponse parts become toolResult
// messages: {"output": text} or {"error": text} give the text (and isError),
// any other response its compact JSON; its inlineData and fileData parts go
// to the last result before them (renderGemini writes the results' images
// after the responses), or to a user message with its text parts after the
// results. An inlineData part is an image when its MIME type is image/*,
// else a document (a PDF is never read as an image); a fileData part is an
// image or a document by URL (its fileUri), by the same rule.
//
// The body is protobuf JSON: every member is read by its lowerCamelCase
// name or its proto name alike (functionCall or function_call, inlineData
// or inline_data, systemInstruction or system_instruction, ...), as
// Gemini's own parsers read them (Vertex AI REST bodies and the Python
// SDK's to_json_dict write the proto names); the splitter renames the
// members as it splits them (splitter.protoNames), so the code below names
// each member once. The values are copied as they are: the keys inside a
// call's args, a response or a schema are the caller's.
//
// Gemini often leaves call ids out. A functionCall without one gets
// "<name>_<n>" (n counts the body's calls), and a functionResponse without
// one answers the earliest unanswered call of its name; both are written
// back with the id.
func (p *parser) gemini(o *transcript.Object) error {
	// The SDKs' request form (google-genai's GenerateContentConfig, as ADK
	// logs it and strands hands it over) has systemInstruction and tools
	// under config; the REST form has them at the top.
	top := []*transcript.Object{o}
	if cfg, ok := p.object(field(o, "config")); ok {
		top = append(top, &cfg)
	}
	for _, o := range top {
		if si, ok := p.object(field(o, "systemInstruction")); ok {
			for _, raw := range p.array(field(&si, "parts")) {
				part, _ := p.object(raw)
				p.systemText(str(&part, "text"))
			}
		} else if si := str(o, "systemInstruction"); si != nil {
			p.systemText(si)
		}
	}
	err := p.eachItem(o, "contents", func(c *transcript.Object) {
		parts := p.array(field(c, "parts"))
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
	var tools [][]byte
	for _, o := range top {
		tools = append(tools, p.array(field(o, "tools"))...)
	}
	for _, raw := range tools {
		t, _ := p.object(raw)
		decls := field(&t, "functionDeclarations")
		if decls == nil {
			p.drop(LossToolKind)
			continue
		}
		for _, raw := range p.array(decls) {
			d, _ := p.object(raw)
			schema := field(&d, "parametersJsonSchema")
			if schema == nil {
				schema = field(&d, "parameters")
			}
			p.tool(str(&d, "name"), str(&d, "description"), schema)
		}
	}
	return nil
}

// geminiModelPart adds one part of a model content to the open turn.
func (p *parser) geminiModelPart(raw []byte) {
	part, _ := p.object(raw)
	sig := str(&part, "thoughtSignature")
	if text := str(&part, "text"); text != nil {
		if thought, _ := part.Bool("thought"); thought {
			if p.keep(LossGeminiThought) {
				p.out = thinkingBlock(p.turn(), text, "thoughtSignature", sig)
			}
			return
		}
		if sig != nil && !p.keep(LossTextSignature) {
			sig = nil
		}
		p.out = textBlock(p.turn(), text, member(nil, "thoughtSignature", sig))
		return
	}
	if fc, ok := p.object(field(&part, "functionCall")); ok {
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
	if block, ok := geminiMedia(nil, p, &part); ok {
		p.out = append(commaIfAny(p.turn()), block...)
		return
	}
	p.geminiOtherPart(&part)
}

// geminiMedia appends the block of an inlineData part (fileBlock) or a
// fileData part (refBlock by URL); false for any other part, or one that
// lacks its data, MIME type or URI.
func geminiMedia(dst []byte, p *parser, part *transcript.Object) ([]byte, bool) {
	if inline, ok := p.object(field(part, "inlineData")); ok {
		if data, mime := str(&inline, "data"), str(&inline, "mimeType"); data != nil && mime != nil {
			return fileBlock(dst, data, mime, str(&inline, "displayName"), nil), true
		}
	}
	if fd, ok := p.object(field(part, "fileData")); ok {
		if uri := str(&fd, "fileUri"); uri != nil {
			return refBlock(dst, transcript.SourceURL, uri, str(&fd, "mimeType"), str(&fd, "displayName"), false), true
		}
	}
	return dst, false
}

// geminiOtherPart counts a part the model has no place for.
func (p *parser) geminiOtherPart(part *transcript.Object) {
	switch {
	case part.Has("fileData"), part.Has("inlineData"):
		p.drop(LossImageSource)
	case part.Has("executableCode"), part.Has("codeExecutionResult"), part.Has("toolCall"), part.Has("toolResponse"):
		p.drop(LossServerTool)
	default:
		p.drop(LossUnknown)
	}
}

// geminiResult is a functionResponse read from a user content: its text
// (a raw JSON string), and the image and document blocks of the
// inlineData and fileData parts after it (comma-separated).
type geminiResult struct {
	id, name, text, images []byte
	isError                bool
}

// geminiUserPart is a part of a user content that goes to its user message: a
// text, or the block of an image or document that follows no response.
type geminiUserPart struct {
	text, block []byte
}

// geminiUserContent reads a user content: its function responses, then a
// user message of its text and the images that follow no response.
func (p *parser) geminiUserContent(parts [][]byte) {
	var results []geminiResult
	user := make([]geminiUserPart, 0, len(parts))
	for _, raw := range parts {
		part, _ := p.object(raw)
		if text := str(&part, "text"); text != nil {
			user = append(user, geminiUserPart{text: text})
			continue
		}
		if fr, ok := p.object(field(&part, "functionResponse")); ok {
			results = append(results, p.geminiResponse(&fr))
			continue
		}
		if n := len(results); n > 0 {
			if block, ok := geminiMedia(results[n-1].images, p, &part); ok {
				results[n-1].images = block
				continue
			}
		} else if block, ok := geminiMedia(nil, p, &part); ok {
			user = append(user, geminiUserPart{block: block})
			continue
		}
		p.geminiOtherPart(&part)
	}
	for _, r := range results {
		p.openResult(r.id, r.name)
		if r.text != nil {
			p.out = textBlock(p.out, r.text, nil)
		}
		if r.images != nil {
			p.out = append(commaIfAny(p.out), r.images...)
		}
		p.closeResult(r.isError, nil)
	}
	at := p.openUser()
	for _, u := range user {
		if u.text != nil {
			p.out = textBlock(p.out, u.text, nil)
		} else {
			p.out = append(commaIfAny(p.out), u.block...)
		}
	}
	p.closeUser(at)
}

// geminiResponse reads a functionResponse: its id (or the earliest
// unanswered call of its name), its name, its response as text, and the
// files of its parts (inlineData, fileData).
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
	for _, raw := range p.array(field(fr, "parts")) { // the files of the result (vercel/ai)
		part, _ := p.object(raw)
		var ok bool
		if r.images, ok = geminiMedia(r.images, p, &part); !ok {
			p.geminiOtherPart(&part)
		}
	}
	resp, _ := p.object(field(fr, "response"))
	switch out, errText := field(&resp, "output"), field(&resp, "error"); {
	case len(resp.Fields) == 1 && isString(out):
		r.text = out
	case len(resp.Fields) == 1 && isString(errText):
		r.text, r.isError = errText, true
	default:
		if raw := field(fr, "response"); raw != nil {
			var buf bytes.Buffer
			if json.Compact(&buf, raw) == nil {
				r.text = transcript.JSONString(buf.String())
			}
		}
	}
	return r
}
