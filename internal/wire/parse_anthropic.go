package wire

import "github.com/hygiene-dev/hygiene/internal/transcript"

// anthropic reads an Anthropic Messages body: system (a string or text
// blocks), messages and tools. A user message's tool_result blocks become
// toolResult messages in their place, the rest of it user messages; an
// assistant message's text, thinking, redacted_thinking and tool_use blocks
// become its blocks; a system message among them (a beta) is read by
// anthropicSystemMessage, and tool_reference blocks (the result of a
// tool search, naming a tool the body declares whole) are dropped and
// counted. cache_control (on text, image, tool_use and
// tool_result) and citations (on text) are kept as members of the block for
// an Anthropic target (renderAnthropic writes them back), and so is the
// cache_control of a system text block or a tool, in the job's system and
// tools. Images by URL or file id and documents (base64, text, URL and
// file sources; the title is the document's name) are document and image
// blocks of the model; search results, a document of custom content and
// server tool blocks have no place in it.
func (p *parser) anthropic(o *transcript.Object) error {
	if sys := field(o, "system"); sys != nil {
		if isString(sys) {
			p.systemText(sys)
		} else {
			for _, raw := range p.array(sys) {
				b, _ := p.object(raw)
				cc := field(&b, "cache_control")
				if cc != nil && !p.keep(LossToolCacheControl) {
					cc = nil
				}
				p.systemBlock(str(&b, "text"), cc)
			}
		}
	}
	err := p.eachItem(o, "messages", func(m *transcript.Object) {
		role, _ := m.String("role")
		content := field(m, "content")
		switch {
		case role == "system": // beta mid-conversation system message
			p.anthropicSystemMessage(content)
		case role == "assistant":
			p.openAssistant()
			if isString(content) {
				p.out = textBlock(p.out, content, nil)
				return
			}
			for _, raw := range p.array(content) {
				p.anthropicAssistantBlock(raw)
			}
		case isString(content):
			at := p.openUser()
			p.out = textBlock(p.out, content, nil)
			p.closeUser(at)
		default:
			p.userContent(p.array(content), p.anthropicResult, p.anthropicContentBlock)
		}
	})
	if err != nil {
		return err
	}
	for _, raw := range p.array(field(o, "tools")) {
		t, _ := p.object(raw)
		if typ, _ := t.String("type"); typ != "" && typ != "custom" || !t.Has("input_schema") {
			p.drop(LossToolKind)
			continue
		}
		n := len(p.Tools)
		p.tool(str(&t, "name"), str(&t, "description"), field(&t, "input_schema"))
		if cc := field(&t, "cache_control"); cc != nil && len(p.Tools) > n && p.keep(LossToolCacheControl) {
			p.Tools[n].CacheControl = cc
		}
	}
	return nil
}

// anthropicSystemMessage reads a system message among the messages (the
// beta of mid-conversation system messages and tool changes): its texts
// join the system prompt, as the Chat parser takes a system message
// wherever it stands (no other format has a system turn, and the model
// has none); its tool_addition and tool_removal blocks are dropped and
// counted (tool_change: the body's tools are the job's `tools`, the
// runner's current set), and so is any other block.
func (p *parser) anthropicSystemMessage(content []byte) {
	p.systemContent(content)
	for _, raw := range p.array(content) {
		b, _ := p.object(raw)
		switch t, _ := b.String("type"); t {
		case "text":
		case "tool_addition", "tool_removal":
			p.drop(LossToolChange)
		default:
			p.drop(LossUnknown)
		}
	}
}

// anthropicExtra returns the members of an Anthropic block the model keeps
// for an Anthropic target (cache_control, citations), as ,"key":value.
func (p *parser) anthropicExtra(b *transcript.Object) []byte {
	var extra []byte
	if cc := field(b, "cache_control"); cc != nil && p.keep(LossCacheControl) {
		extra = member(extra, "cache_control", cc)
	}
	if c := field(b, "citations"); c != nil && p.keep(LossCitations) {
		extra = member(extra, "citations", c)
	}
	return extra
}

// anthropicContentBlock appends the model block of a text, image or
// document block (user content, tool_result content) to dst.
func (p *parser) anthropicContentBlock(dst []byte, b *transcript.Object) []byte {
	switch t, _ := b.String("type"); t {
	case "text":
		if text := str(b, "text"); text != nil {
			return textBlock(dst, text, p.anthropicExtra(b))
		}
	case "image", "document":
		return p.anthropicMedia(dst, b, t)
	case "search_result":
		p.drop(LossSearchResult)
	case "tool_reference":
		p.drop(LossToolReference)
	case "tool_addition", "tool_removal":
		p.drop(LossToolChange)
	default:
		p.drop(LossUnknown)
	}
	return dst
}

// anthropicMedia appends the model block of an image or document block by
// its source: base64 (an image's or a PDF's bytes), text (a plain-text
// document), url or file (a Files API id).
func (p *parser) anthropicMedia(dst []byte, b *transcript.Object, typ string) []byte {
	src, _ := p.object(field(b, "source"))
	m := media{typ: typ, mime: str(&src, "media_type"), name: str(b, "title")}
	switch st, _ := src.String("type"); st {
	case "base64":
		m.src, m.value = transcript.SourceData, str(&src, "data")
		if typ == "image" {
			m.name = nil
		}
	case "text":
		m.src, m.value = transcript.SourceText, str(&src, "data")
	case "url":
		m.src, m.value = transcript.SourceURL, str(&src, "url")
	case "file":
		m.src, m.value = transcript.SourceFileID, str(&src, "file_id")
	}
	if m.src == "" || m.value == nil || m.src == transcript.SourceText && typ != transcript.BlockDocument ||
		m.src == transcript.SourceData && m.mime == nil {
		if typ == transcript.BlockImage {
			p.drop(LossImageSource)
		} else {
			p.drop(LossDocument)
		}
		return dst
	}
	if typ == transcript.BlockImage {
		return mediaBlock(dst, m, p.anthropicExtra(b))
	}
	var extra []byte
	if cc := field(b, "cache_control"); cc != nil && p.keep(LossCacheControl) {
		extra = member(extra, "cache_control", cc)
	}
	return mediaBlock(dst, m, append(extra, p.documentExtra(b)...))
}

// documentExtra returns a document's citations ({"enabled": true}) and
// context, which Anthropic and Bedrock documents share, as ,"key":value
// for a target that carries them.
func (p *parser) documentExtra(b *transcript.Object) []byte {
	var extra []byte
	if c := field(b, "citations"); c != nil && p.keep(LossDocCitations) {
		extra = member(extra, "citations", c)
	}
	if c := str(b, "context"); c != nil && p.keep(LossDocumentContext) {
		extra = member(extra, "context", c)
	}
	return extra
}

// anthropicAssistantBlock adds one assistant block to the open turn.
func (p *parser) anthropicAssistantBlock(raw []byte) {
	b, _ := p.object(raw)
	switch t, _ := b.String("type"); t {
	case "text":
		if text := str(&b, "text"); text != nil {
			p.out = textBlock(p.turn(), text, p.anthropicExtra(&b))
		}
	case "thinking":
		if p.keep(LossSignedThinking) {
			text := str(&b, "thinking")
			if text == nil {
				text = []byte(`""`)
			}
			p.out = thinkingBlock(p.turn(), text, "thinkingSignature", str(&b, "signature"))
		}
	case "redacted_thinking":
		if data := str(&b, "data"); data != nil && p.keep(LossSignedThinking) {
			p.out = redactedBlock(p.turn(), data)
		}
	case "tool_use":
		id, name := str(&b, "id"), str(&b, "name")
		if id == nil || name == nil {
			p.drop(LossUnknown)
			return
		}
		args := field(&b, "input")
		if args == nil {
			args = []byte("{}")
		}
		var extra []byte
		if cc := field(&b, "cache_control"); cc != nil && p.keep(LossCacheControl) {
			extra = member(extra, "cache_control", cc)
		}
		p.call(id, name, args, extra)
	case "server_tool_use", "web_search_tool_result", "web_fetch_tool_result", "code_execution_tool_result",
		"bash_code_execution_tool_result", "text_editor_code_execution_tool_result", "mcp_tool_use", "mcp_tool_result",
		"container_upload", "tool_search_tool_result":
		p.drop(LossServerTool)
	case "image", "document":
		p.out = p.anthropicContentBlock(p.turn(), &b)
	default:
		p.drop(LossUnknown)
	}
}

// anthropicResult writes a tool_result block as a toolResult message, or
// reports that b is not one.
func (p *parser) anthropicResult(b *transcript.Object) bool {
	if t, _ := b.String("type"); t != "tool_result" {
		return false
	}
	id := str(b, "tool_use_id")
	if id == nil {
		id = []byte(`""`)
	}
	p.openResult(id, nil)
	content := field(b, "content")
	if isString(content) {
		p.out = textBlock(p.out, content, nil)
	} else {
		for _, raw := range p.array(content) {
			c, _ := p.object(raw)
			p.out = p.anthropicContentBlock(p.out, &c)
		}
	}
	isError, _ := b.Bool("is_error")
	var extra []byte
	if cc := field(b, "cache_control"); cc != nil && p.keep(LossCacheControl) {
		extra = member(extra, "cache_control", cc)
	}
	p.closeResult(isError, extra)
	return true
}
