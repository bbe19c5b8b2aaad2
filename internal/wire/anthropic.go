package wire

import (
	"bytes"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// renderAnthropic writes an Anthropic Messages body:
// {"system":[text blocks],"messages":[...],"tools":[...]}.
//
// Each run of user and tool-result turns becomes one user message with
// every tool_result block first (Anthropic: "tool_result blocks must come
// first in the user message content", https://docs.anthropic.com/en/docs/build-with-claude/tool-use),
// so consecutive results are merged and the user's own text follows them;
// consecutive assistant turns become one assistant message (the API would
// combine them the same way). Thinking without a signature is left out: the
// API refuses unsigned thinking blocks. A server-tool block (server_tool_use
// and its *_tool_result, which the server_tools rule keeps only in pairs)
// is copied whole, as the API returned it; the other formats have no place
// for one (the chain turns them into text for every other target). A
// system text block and a tool keep their cache_control (the job option's
// system blocks and tools carry it), the other formats drop it.
func renderAnthropic(dst []byte, turns []turn, sys, sysCache [][]byte, tools []transcript.Tool) []byte {
	dst = append(dst, '{')
	if sys != nil {
		dst = append(dst, `"system":[`...)
		dst = appendTexts(dst, sys, sysCache, `{"type":"text","text":`)
		dst = append(dst, `],`...)
	}
	dst = appendGroupedMessages(dst, turns, anthropicBlock, anthropicResult)
	if len(tools) > 0 {
		dst = append(dst, `,"tools":[`...)
		for i, t := range tools {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"name":`...)
			dst = transcript.AppendString(dst, t.Name)
			if t.Description != "" {
				dst = append(dst, `,"description":`...)
				dst = transcript.AppendString(dst, t.Description)
			}
			dst = append(dst, `,"input_schema":`...)
			dst = append(dst, toolSchema(t)...)
			if cc := bytes.TrimSpace(t.CacheControl); len(cc) > 0 && string(cc) != "null" {
				dst = member(dst, "cache_control", cc)
			}
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// anthropicBlock writes one content block, or nothing for a part Anthropic
// has no place for (a document or image by reference it cannot take is
// its placeholder text: carried).
func anthropicBlock(dst []byte, p part, first *bool) []byte {
	p = carried(p, AnthropicMessages, true)
	switch p.kind {
	case partMedia:
		dst = comma(dst, first)
		dst = anthropicMedia(dst, p)
	case partText:
		dst = comma(dst, first)
		dst = append(dst, `{"type":"text","text":`...)
		dst = append(dst, p.text...)
	case partImage:
		dst = comma(dst, first)
		dst = append(dst, `{"type":"image","source":{"type":"base64","media_type":`...)
		dst = append(dst, p.mime...)
		dst = append(dst, `,"data":`...)
		dst = append(dst, p.data...)
		dst = append(dst, '}')
	case partThinking:
		if p.sig == nil {
			return dst
		}
		dst = comma(dst, first)
		dst = append(dst, `{"type":"thinking","thinking":`...)
		dst = append(dst, p.text...)
		dst = append(dst, `,"signature":`...)
		dst = append(dst, p.sig...)
	case partRedacted:
		if p.sig == nil {
			return dst
		}
		dst = comma(dst, first)
		dst = append(dst, `{"type":"redacted_thinking","data":`...)
		dst = append(dst, p.sig...)
	case partServer:
		dst = comma(dst, first)
		return append(dst, p.raw...)
	case partCall:
		dst = comma(dst, first)
		dst = append(dst, `{"type":"tool_use","id":`...)
		dst = append(dst, p.id...)
		dst = append(dst, `,"name":`...)
		dst = append(dst, p.name...)
		dst = append(dst, `,"input":`...)
		dst = append(dst, p.args...)
	}
	dst = append(dst, p.anthropic...)
	return append(dst, '}')
}

// anthropicMedia writes a document or an image by reference, without its
// closing brace: {"type":"document","source":{"type":"base64","media_type":...,"data":...},"title":...
// for a document's bytes (a PDF), a text source for plain text, a url or
// file (Files API id) source for either.
func anthropicMedia(dst []byte, p part) []byte {
	dst = append(dst, `{"type":"`...)
	dst = append(dst, p.media.Type()...)
	dst = append(dst, `","source":{"type":"`...)
	switch p.src {
	case transcript.SourceData:
		dst = append(dst, `base64","media_type":`...)
		dst = append(dst, p.mime...)
		dst = append(dst, `,"data":`...)
	case transcript.SourceText:
		dst = append(dst, `text","media_type":"text/plain","data":`...)
	case transcript.SourceURL:
		dst = append(dst, `url","url":`...)
	case transcript.SourceFileID:
		dst = append(dst, `file","file_id":`...)
	}
	dst = append(dst, p.data...)
	dst = append(dst, '}')
	if name := mediaName(p); name != nil && !p.isImage() {
		dst = append(dst, `,"title":`...)
		dst = append(dst, name...)
	}
	return dst
}

// anthropicResult writes a tool_result block with its text, image and
// document blocks.
func anthropicResult(dst []byte, t *turn, first *bool) []byte {
	dst = comma(dst, first)
	dst = append(dst, `{"type":"tool_result","tool_use_id":`...)
	dst = append(dst, t.callID...)
	inner := true
	for _, p := range t.parts {
		if p.kind != partText && p.kind != partImage && p.kind != partMedia {
			continue
		}
		if inner {
			dst = append(dst, `,"content":[`...)
		}
		dst = anthropicBlock(dst, p, &inner)
	}
	if !inner {
		dst = append(dst, ']')
	}
	if t.isError {
		dst = append(dst, `,"is_error":true`...)
	}
	dst = append(dst, t.anthropic...)
	return append(dst, '}')
}
