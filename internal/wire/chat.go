package wire

import "github.com/hygiene-dev/hygiene/internal/transcript"

// chatDialect selects the differences between the Chat Completions formats.
type chatDialect struct {
	// reasoningContent adds reasoning_content to assistant tool-call turns
	// (DeepSeek, Kimi / Moonshot; see wantsReasoningContent).
	reasoningContent bool
	// mistral names the tool in each tool message (Mistral's tool message
	// has a name member) and writes no reasoning.
	mistral bool
	// prefix marks a final assistant message "prefix": true (Mistral's
	// continuation of the assistant's turn: FinalPrefix).
	prefix bool
}

// mistralBridgeText is the assistant turn put between a tool message and a
// user message for Mistral.
const mistralBridgeText = "Tool results received."

// imageMovedText stands in a tool message for the images the renderer moved
// to the next user message.
const imageMovedText = "[the tool returned images; they follow in the next user message]"

// renderChat writes an OpenAI Chat Completions body (also Mistral chat):
// {"messages":[...],"tools":[...]}.
//
// The system prompt is the first message. A user turn with a single text is
// a string content, otherwise text and image_url parts (images as data
// URLs). An assistant turn's texts are joined into one string content (many
// OpenAI-compatible servers take only a string there) and its calls become
// tool_calls with the arguments as a JSON string; thinking is not sent,
// except as reasoning_content in the thinking dialects.
//
// Wire-only repairs:
//   - reasoning_content: in the DeepSeek and Kimi / Moonshot dialects every
//     assistant turn with tool calls carries reasoning_content, its
//     thinking texts joined, or "" when the history has none (a call replayed
//     from another provider): those APIs refuse a tool-call turn without it
//     in thinking mode (https://api-docs.deepseek.com/guides/thinking_mode;
//     anomalyco/opencode#24722, #25758; RooCodeInc/Roo-Code#10171). Turns
//     without calls get none: DeepSeek ignores it there.
//   - tool-result images: a tool message takes text only
//     (https://platform.openai.com/docs/api-reference/chat/create, tool
//     message content: string or text parts), so the images of a run of
//     tool results move to one user message right after the run, and a tool
//     message left with no text says so (imageMovedText).
//   - Mistral: a user message right after a tool message is refused
//     ("Unexpected role 'user' after role 'tool'", invalid_request_message_order:
//     NousResearch/hermes-agent#20154, avante-corp/avante.nvim#2562,
//     zed-industries/zed#37021; pi-ai bridges it with its compat flag
//     requiresAssistantAfterToolResult, aliou/pi-neuralwatt#12), so an
//     assistant turn saying mistralBridgeText goes between them.
func renderChat(dst []byte, turns []turn, sys [][]byte, tools []transcript.Tool, d chatDialect) []byte {
	dst = append(dst, `{"messages":[`...)
	first := true
	if sys != nil {
		dst = comma(dst, &first)
		dst = append(dst, `{"role":"system","content":`...)
		dst = appendJoined(dst, sys)
		dst = append(dst, '}')
	}
	prefixAt := -1 // the turn marked prefix: the last one written
	for i := len(turns) - 1; d.prefix && i >= 0; i-- {
		if turns[i].role != roleAssistant || len(texts(turns[i].parts)) > 0 || len(turns[i].calls()) > 0 {
			prefixAt = i
			break
		}
	}
	var moved []part
	afterTool := false // the last message written is a tool message
	user := func(parts []part) {
		if d.mistral && afterTool {
			dst = comma(dst, &first)
			dst = append(dst, `{"role":"assistant","content":`...)
			dst = transcript.AppendString(dst, mistralBridgeText)
			dst = append(dst, '}')
		}
		before := len(dst)
		dst = chatUser(dst, parts, d, &first)
		afterTool = afterTool && len(dst) == before
	}
	for i := range turns {
		t := &turns[i]
		switch t.role {
		case roleUser:
			user(t.parts)
		case roleAssistant:
			before := len(dst)
			dst = chatAssistant(dst, t, d, i == prefixAt, &first)
			afterTool = afterTool && len(dst) == before
		case roleResult:
			afterTool = true
			dst = comma(dst, &first)
			dst = append(dst, `{"role":"tool","tool_call_id":`...)
			dst = append(dst, t.callID...)
			if d.mistral && t.toolName != nil {
				dst = append(dst, `,"name":`...)
				dst = append(dst, t.toolName...)
			}
			dst = append(dst, `,"content":`...)
			txt := texts(t.parts)
			hasImage := false
			for _, p := range t.parts {
				if p.kind == partImage || p.kind == partMedia {
					moved = append(moved, p)
					hasImage = true
				}
			}
			if len(txt) == 0 && hasImage {
				dst = transcript.AppendString(dst, imageMovedText)
			} else {
				dst = appendJoined(dst, txt)
			}
			dst = append(dst, '}')
			if len(moved) > 0 && (i+1 == len(turns) || turns[i+1].role != roleResult) {
				user(moved)
				moved = moved[:0]
			}
		}
	}
	dst = append(dst, ']')
	if len(tools) > 0 {
		dst = append(dst, `,"tools":[`...)
		for i, t := range tools {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"type":"function","function":{"name":`...)
			dst = transcript.AppendString(dst, t.Name)
			if t.Description != "" {
				dst = append(dst, `,"description":`...)
				dst = transcript.AppendString(dst, t.Description)
			}
			dst = append(dst, `,"parameters":`...)
			dst = append(dst, toolSchema(t)...)
			dst = append(dst, `}}`...)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// format is the format the dialect writes.
func (d chatDialect) format() Format {
	if d.mistral {
		return MistralChat
	}
	return OpenAIChat
}

// chatUser writes a user message; nothing when it has no text, image or
// document. Documents and images by reference are parts of their own:
// Chat's file (file_data as a data URL, or file_id) and image_url by URL,
// Mistral's document_url (a URL, or a data URL) and image_url.
func chatUser(dst []byte, parts []part, d chatDialect, first *bool) []byte {
	n, images := 0, 0
	copied := false
	for i, p := range parts {
		if p.kind == partMedia {
			if !copied { // the caller's slice is not written
				parts, copied = append([]part(nil), parts...), true
			}
			parts[i] = carried(p, d.format(), false)
			p = parts[i]
		}
		switch p.kind {
		case partText:
			n++
		case partImage, partMedia:
			n++
			images++
		}
	}
	if n == 0 {
		return dst
	}
	dst = comma(dst, first)
	dst = append(dst, `{"role":"user","content":`...)
	if n == 1 && images == 0 {
		dst = append(dst, texts(parts)[0]...)
		return append(dst, '}')
	}
	dst = append(dst, '[')
	inner := true
	for _, p := range parts {
		switch p.kind {
		case partText:
			dst = comma(dst, &inner)
			dst = append(dst, `{"type":"text","text":`...)
			dst = append(dst, p.text...)
			dst = append(dst, '}')
		case partImage:
			dst = comma(dst, &inner)
			dst = append(dst, `{"type":"image_url","image_url":{"url":`...)
			dst = appendDataURL(dst, p.mime, p.data)
			dst = append(dst, `}}`...)
		case partMedia:
			dst = comma(dst, &inner)
			dst = chatMedia(dst, p, d.mistral)
		}
	}
	return append(dst, `]}`...)
}

// chatMedia writes the part of a document or an image by reference (one
// the format carries).
func chatMedia(dst []byte, p part, mistral bool) []byte {
	switch {
	case p.isImage():
		dst = append(dst, `{"type":"image_url","image_url":{"url":`...)
		dst = append(dst, p.data...)
		return append(dst, `}}`...)
	case mistral && p.src == transcript.SourceFileID:
		dst = append(dst, `{"type":"file","file_id":`...)
		dst = append(dst, p.data...)
		return append(dst, '}')
	case mistral:
		dst = append(dst, `{"type":"document_url","document_url":`...)
		if p.src == transcript.SourceData {
			dst = appendDataURL(dst, p.mime, p.data)
		} else {
			dst = append(dst, p.data...)
		}
		dst = member(dst, "document_name", mediaName(p))
		return append(dst, '}')
	}
	dst = append(dst, `{"type":"file","file":{`...)
	if name := mediaName(p); name != nil || p.src == transcript.SourceData {
		if name == nil {
			name = []byte(`"document.pdf"`) // file_data needs a filename; Chat takes PDFs only
		}
		dst = append(dst, `"filename":`...)
		dst = append(dst, name...)
		dst = append(dst, ',')
	}
	if p.src == transcript.SourceFileID {
		dst = append(dst, `"file_id":`...)
		dst = append(dst, p.data...)
	} else {
		dst = append(dst, `"file_data":`...)
		dst = appendDataURL(dst, p.mime, p.data)
	}
	return append(dst, `}}`...)
}

// chatAssistant writes an assistant message; nothing when it has neither
// text nor calls. prefix marks it "prefix": true.
func chatAssistant(dst []byte, t *turn, d chatDialect, prefix bool, first *bool) []byte {
	txt := texts(t.parts)
	calls := t.calls()
	if len(txt) == 0 && len(calls) == 0 {
		return dst
	}
	dst = comma(dst, first)
	dst = append(dst, `{"role":"assistant"`...)
	if len(txt) > 0 {
		dst = append(dst, `,"content":`...)
		dst = appendJoined(dst, txt)
	}
	if prefix {
		dst = append(dst, `,"prefix":true`...)
	}
	if len(calls) == 0 {
		return append(dst, '}')
	}
	if d.reasoningContent {
		var thinking [][]byte
		for _, p := range t.parts {
			if p.kind == partThinking {
				thinking = append(thinking, p.text)
			}
		}
		dst = append(dst, `,"reasoning_content":`...)
		dst = appendJoined(dst, thinking)
	}
	dst = append(dst, `,"tool_calls":[`...)
	for i, c := range calls {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"id":`...)
		dst = append(dst, c.id...)
		dst = append(dst, `,"type":"function","function":{"name":`...)
		dst = append(dst, c.name...)
		dst = append(dst, `,"arguments":`...)
		dst = appendEncodedJSON(dst, c.args)
		dst = append(dst, `}}`...)
	}
	return append(dst, `]}`...)
}
