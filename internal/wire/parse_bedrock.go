package wire

import (
	"bytes"
	"encoding/json"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// bedrock reads an Amazon Bedrock Converse body: system, messages and
// toolConfig.tools. A user message's toolResult blocks become toolResult
// messages in their place (their text, image and json content; status
// "error" is isError), the rest of it user messages; an assistant message's
// text, reasoningContent (reasoningText with its signature, or
// redactedContent, also spelt redactedReasoning {data} by vercel/ai) and
// toolUse blocks become its blocks. Images carry their base64 bytes as they
// are (format png becomes image/png), or their S3 location; a document
// block is a document (its bytes, text or S3 location; format pdf becomes
// application/pdf, and its name is kept). A guardContent block is read as
// the text or image it wraps. cachePoint and video blocks have no place in
// the model.
func (p *parser) bedrock(o *transcript.Object) error {
	for _, raw := range p.array(field(o, "system")) {
		b, _ := p.object(raw)
		if b.Has("cachePoint") {
			p.drop(LossCachePoint)
			continue
		}
		p.systemText(str(&b, "text"))
	}
	err := p.eachItem(o, "messages", func(m *transcript.Object) {
		content := p.array(field(m, "content"))
		if role, _ := m.String("role"); role != "assistant" {
			p.userContent(content, p.bedrockResult, p.bedrockContentBlock)
			return
		}
		p.openAssistant()
		for _, raw := range content {
			p.bedrockAssistantBlock(raw)
		}
	})
	if err != nil {
		return err
	}
	tc, _ := p.object(field(o, "toolConfig"))
	for _, raw := range p.array(field(&tc, "tools")) {
		t, _ := p.object(raw)
		spec, ok := p.object(field(&t, "toolSpec"))
		if !ok {
			if t.Has("cachePoint") {
				p.drop(LossCachePoint)
			} else {
				p.drop(LossToolKind)
			}
			continue
		}
		schema, _ := p.object(field(&spec, "inputSchema"))
		p.tool(str(&spec, "name"), str(&spec, "description"), field(&schema, "json"))
	}
	return nil
}

// bedrockContentBlock appends the model block of a text or image block
// (user content, toolResult content) to dst; a json block is its compact
// JSON as text.
func (p *parser) bedrockContentBlock(dst []byte, b *transcript.Object) []byte {
	if text := str(b, "text"); text != nil {
		return textBlock(dst, text, nil)
	}
	if img, ok := p.object(field(b, "image")); ok {
		src, _ := p.object(field(&img, "source"))
		format, okFormat := img.String("format")
		mime := transcript.JSONString("image/" + format)
		if data := str(&src, "bytes"); data != nil && okFormat && format != "" {
			return imageBlock(dst, data, mime, nil)
		}
		if s3, ok := p.object(field(&src, "s3Location")); ok && str(&s3, "uri") != nil {
			if !okFormat || format == "" {
				mime = nil
			}
			return mediaBlock(dst, media{typ: transcript.BlockImage, src: transcript.SourceS3, value: str(&s3, "uri"), mime: mime, owner: str(&s3, "bucketOwner")}, nil)
		}
		p.drop(LossImageSource)
		return dst
	}
	if doc, ok := p.object(field(b, "document")); ok {
		return p.bedrockDocument(dst, &doc)
	}
	if gc, ok := p.object(field(b, "guardContent")); ok {
		// a guardrail's wrapper (strands and the AWS samples wrap the last
		// user turn): its text or image is the user's own, read as it is;
		// the wrapper, which only narrows what the guardrail checks, is
		// not kept
		if t, ok := p.object(field(&gc, "text")); ok && str(&t, "text") != nil {
			return textBlock(dst, str(&t, "text"), nil)
		}
		if gc.Has("image") {
			return p.bedrockContentBlock(dst, &gc)
		}
	}
	if js := field(b, "json"); js != nil {
		var buf bytes.Buffer
		if json.Compact(&buf, js) == nil {
			return textBlock(dst, transcript.JSONString(buf.String()), nil)
		}
	}
	p.bedrockOther(b)
	return dst
}

// bedrockDocument appends a document block: its source's bytes, text or
// s3Location, its format as a MIME type (bedrockDocumentMIME) and its name.
func (p *parser) bedrockDocument(dst []byte, doc *transcript.Object) []byte {
	src, _ := p.object(field(doc, "source"))
	m := media{typ: transcript.BlockDocument, name: str(doc, "name")}
	if format, ok := doc.String("format"); ok {
		if mime := bedrockDocumentMIME[format]; mime != "" {
			m.mime = transcript.JSONString(mime)
		}
	}
	if data := str(&src, "bytes"); data != nil {
		m.src, m.value = transcript.SourceData, data
	} else if text := str(&src, "text"); text != nil {
		m.src, m.value = transcript.SourceText, text
	} else if s3, ok := p.object(field(&src, "s3Location")); ok && str(&s3, "uri") != nil {
		m.src, m.value, m.owner = transcript.SourceS3, str(&s3, "uri"), str(&s3, "bucketOwner")
	}
	if m.src == "" || m.src == transcript.SourceData && m.mime == nil {
		p.drop(LossDocument)
		return dst
	}
	return mediaBlock(dst, m, p.documentExtra(doc))
}

// bedrockDocumentMIME maps Converse's document formats (DocumentBlock
// format: pdf | csv | doc | docx | xls | xlsx | html | txt | md,
// docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_DocumentBlock.html)
// to MIME types; bedrockDocumentFormat is the way back.
var bedrockDocumentMIME = map[string]string{
	"pdf": "application/pdf", "csv": "text/csv", "doc": "application/msword",
	"docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	"xls":  "application/vnd.ms-excel",
	"xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	"html": "text/html", "txt": "text/plain", "md": "text/markdown",
}

// bedrockOther counts a block the model has no place for.
func (p *parser) bedrockOther(b *transcript.Object) {
	switch {
	case b.Has("cachePoint"):
		p.drop(LossCachePoint)
	case b.Has("video"):
		p.drop(LossVideo)
	case b.Has("guardContent"):
		p.drop(LossGuardContent)
	default:
		p.drop(LossUnknown)
	}
}

// bedrockAssistantBlock adds one assistant block to the open turn.
func (p *parser) bedrockAssistantBlock(raw []byte) {
	b, _ := p.object(raw)
	if text := str(&b, "text"); text != nil {
		p.out = textBlock(p.turn(), text, nil)
		return
	}
	if rc, ok := p.object(field(&b, "reasoningContent")); ok {
		if !p.keep(LossSignedThinking) {
			return
		}
		if rt, ok := p.object(field(&rc, "reasoningText")); ok {
			text := str(&rt, "text")
			if text == nil {
				text = []byte(`""`)
			}
			p.out = thinkingBlock(p.turn(), text, "thinkingSignature", str(&rt, "signature"))
		} else if data := str(&rc, "redactedContent"); data != nil {
			p.out = redactedBlock(p.turn(), data)
		} else if rr, ok := p.object(field(&rc, "redactedReasoning")); ok && str(&rr, "data") != nil {
			// vercel/ai's spelling of redactedContent
			p.out = redactedBlock(p.turn(), str(&rr, "data"))
		}
		return
	}
	if tu, ok := p.object(field(&b, "toolUse")); ok {
		id, name := str(&tu, "toolUseId"), str(&tu, "name")
		if id == nil || name == nil {
			p.drop(LossUnknown)
			return
		}
		args := field(&tu, "input")
		if args == nil {
			args = []byte("{}")
		}
		p.call(id, name, args, nil)
		return
	}
	if b.Has("image") || b.Has("document") {
		p.out = p.bedrockContentBlock(p.turn(), &b)
		return
	}
	p.bedrockOther(&b)
}

// bedrockResult writes a toolResult block as a toolResult message, or
// reports that b is not one.
func (p *parser) bedrockResult(b *transcript.Object) bool {
	tr, ok := p.object(field(b, "toolResult"))
	if !ok {
		return false
	}
	id := str(&tr, "toolUseId")
	if id == nil {
		id = []byte(`""`)
	}
	p.openResult(id, nil)
	for _, raw := range p.array(field(&tr, "content")) {
		c, _ := p.object(raw)
		p.out = p.bedrockContentBlock(p.out, &c)
	}
	status, _ := tr.String("status")
	p.closeResult(status == "error", nil)
	return true
}
