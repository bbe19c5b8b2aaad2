package wire

import (
	"bytes"
	"strings"
	"unicode"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// emptyResultText stands in a Bedrock toolResult that has no content.
const emptyResultText = "(the tool returned no output)"

// renderBedrock writes an Amazon Bedrock Converse body:
// {"system":[{"text"}],"messages":[...],"toolConfig":{"tools":[...]}}.
//
// Turns are grouped as for Anthropic (Converse requires alternating roles,
// and a toolResult answers its toolUse in the next user message), results
// first. Images carry their base64 bytes as they were (the JSON form of a
// blob). Thinking becomes reasoningContent: reasoningText with its
// signature, or redactedContent; unsigned thinking is left out, as for
// Anthropic.
//
// Wire-only repairs:
//   - toolConfig: Converse refuses a history with toolUse or toolResult
//     blocks unless the request has a toolConfig (ValidationException "The
//     toolConfig field must be defined when using toolUse and toolResult
//     content blocks": vxcontrol/pentagi#160, langgenius/dify#17545,
//     aws-samples/bedrock-access-gateway#239). With the job's `tools` they
//     are rendered. The pipeline never passes tool blocks without tools
//     (ToolsAsText turns them into text first); for a direct caller that
//     does, every tool the history names (its calls, then its results'
//     toolName) is declared with the permissive schema {"type":"object"},
//     so the body is still sendable.
//   - an empty toolResult gets the text emptyResultText: Converse refuses an
//     error result with empty content ("The content field at
//     messages.N.content.0.toolResult cannot be empty when status value is
//     error": aws-samples/sample-multi-agent-orchestration-chat-on-agentcore#15).
func renderBedrock(dst []byte, turns []turn, sys [][]byte, tools []transcript.Tool) []byte {
	dst = append(dst, '{')
	if sys != nil {
		dst = append(dst, `"system":[`...)
		dst = appendTexts(dst, sys, nil, `{"text":`)
		dst = append(dst, `],`...)
	}
	dst = appendGroupedMessages(dst, turns, bedrockBlock, bedrockResult)
	switch {
	case len(tools) > 0:
		dst = append(dst, `,"toolConfig":{"tools":[`...)
		for i, t := range tools {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"toolSpec":{"name":`...)
			dst = transcript.AppendString(dst, t.Name)
			if t.Description != "" {
				dst = append(dst, `,"description":`...)
				dst = transcript.AppendString(dst, t.Description)
			}
			dst = append(dst, `,"inputSchema":{"json":`...)
			dst = append(dst, toolSchema(t)...)
			dst = append(dst, `}}}`...)
		}
		dst = append(dst, `]}`...)
	case hasToolBlocks(turns):
		names := historyToolNames(turns)
		if len(names) == 0 {
			names = [][]byte{[]byte(`"tool"`)}
		}
		dst = append(dst, `,"toolConfig":{"tools":[`...)
		for i, name := range names {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"toolSpec":{"name":`...)
			dst = append(dst, name...)
			dst = append(dst, `,"inputSchema":{"json":{"type":"object"}}}}`...)
		}
		dst = append(dst, `]}`...)
	}
	return append(dst, '}')
}

// bedrockBlock writes one ContentBlock, or nothing for a part Converse has
// no place for.
func bedrockBlock(dst []byte, p part, first *bool) []byte {
	p = carried(p, BedrockConverse, true)
	switch p.kind {
	case partMedia:
		dst = comma(dst, first)
		return bedrockMedia(dst, p)
	case partText:
		dst = comma(dst, first)
		dst = append(dst, `{"text":`...)
		dst = append(dst, p.text...)
	case partImage:
		dst = comma(dst, first)
		dst = bedrockImage(dst, p)
		return dst
	case partThinking:
		if p.sig == nil {
			return dst
		}
		dst = comma(dst, first)
		dst = append(dst, `{"reasoningContent":{"reasoningText":{"text":`...)
		dst = append(dst, p.text...)
		dst = append(dst, `,"signature":`...)
		dst = append(dst, p.sig...)
		dst = append(dst, `}}`...)
	case partRedacted:
		if p.sig == nil {
			return dst
		}
		dst = comma(dst, first)
		dst = append(dst, `{"reasoningContent":{"redactedContent":`...)
		dst = append(dst, p.sig...)
		dst = append(dst, '}')
	case partCall:
		dst = comma(dst, first)
		dst = append(dst, `{"toolUse":{"toolUseId":`...)
		dst = append(dst, p.id...)
		dst = append(dst, `,"name":`...)
		dst = append(dst, p.name...)
		dst = append(dst, `,"input":`...)
		dst = append(dst, p.args...)
		dst = append(dst, '}')
	default:
		return dst
	}
	return append(dst, '}')
}

// bedrockImage writes {"image":{"format":"png","source":{"bytes":"<base64>"}}}
// (format is the MIME subtype; image/jpg is spelled jpeg).
func bedrockImage(dst []byte, p part) []byte {
	dst = append(dst, `{"image":{"format":"`...)
	dst = append(dst, bedrockImageFormat(p.mime)...)
	dst = append(dst, `","source":{"bytes":`...)
	dst = append(dst, p.data...)
	return append(dst, `}}}`...)
}

// bedrockMedia writes a document (its bytes, text or S3 location, its
// format from its MIME type, its name made one Converse takes) or an image
// by S3 location: {"document":{"format":"pdf","name":...,"source":{"bytes":...}}}.
func bedrockMedia(dst []byte, p part) []byte {
	if p.isImage() {
		dst = append(dst, `{"image":{"format":"`...)
		dst = append(dst, bedrockImageFormat(p.mime)...)
		dst = append(dst, `","source":`...)
	} else {
		dst = append(dst, `{"document":{`...)
		format := "txt"
		if p.src != transcript.SourceText {
			mime, _ := transcript.UnquoteBytes(p.mime)
			format = bedrockDocumentFormat(string(mime))
		}
		if format != "" { // format is optional; one Converse does not know is left out
			dst = append(dst, `"format":"`+format+`",`...)
		}
		dst = append(dst, `"name":`...)
		dst = transcript.AppendString(dst, bedrockDocumentName(p.media))
		dst = append(dst, `,"source":`...)
	}
	switch p.src {
	case transcript.SourceData:
		dst = append(dst, `{"bytes":`...)
		dst = append(dst, p.data...)
	case transcript.SourceText:
		dst = append(dst, `{"text":`...)
		dst = append(dst, p.data...)
	case transcript.SourceS3:
		dst = append(dst, `{"s3Location":{"uri":`...)
		dst = append(dst, p.data...)
		dst = member(dst, "bucketOwner", stringMember(p.media, "s3BucketOwner"))
		dst = append(dst, '}')
	}
	dst = append(dst, '}')
	if !p.isImage() { // a document's citations and context (Anthropic's too: the same members)
		for _, key := range [...]string{"citations", "context"} {
			if raw, ok := p.media.Get(key); ok {
				dst = member(dst, key, raw)
			}
		}
	}
	return append(dst, `}}`...)
}

// bedrockDocumentFormat is the Converse document format of a MIME type
// (bedrockDocumentMIME's way back); "" for one Converse does not take.
func bedrockDocumentFormat(mime string) string {
	for format, m := range bedrockDocumentMIME {
		if m == mime {
			return format
		}
	}
	return ""
}

// bedrockImageFormat is the Converse image format of an image MIME type:
// its subtype, jpg spelled jpeg.
func bedrockImageFormat(mime []byte) []byte {
	sub := mimeSubtype(mime)
	if bytes.Equal(sub, []byte("jpg")) {
		return []byte("jpeg")
	}
	return sub
}

// bedrockDocumentName is a document's name as Converse takes it
// (DocumentBlock.name: letters, digits, single spaces, hyphens,
// parentheses and square brackets; 1 to 200 characters): every other
// character becomes a hyphen ("report.pdf" is "report-pdf"); a document
// without a name is "document".
func bedrockDocumentName(b *transcript.Block) string {
	name, _ := b.String("name")
	out := make([]rune, 0, len(name))
	space := false
	for _, r := range name {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-()[]", r):
			out, space = append(out, r), false
		case unicode.IsSpace(r):
			if !space && len(out) > 0 {
				out = append(out, ' ')
			}
			space = true
		default:
			out, space = append(out, '-'), false
		}
	}
	name = strings.TrimSpace(string(out))
	if name == "" {
		return "document"
	}
	if r := []rune(name); len(r) > 200 {
		name = strings.TrimSpace(string(r[:200]))
	}
	return name
}

// bedrockResult writes a toolResult block with its text and image content.
func bedrockResult(dst []byte, t *turn, first *bool) []byte {
	dst = comma(dst, first)
	dst = append(dst, `{"toolResult":{"toolUseId":`...)
	dst = append(dst, t.callID...)
	dst = append(dst, `,"content":[`...)
	inner := true
	for _, p := range t.parts {
		if p.kind == partText || p.kind == partImage || p.kind == partMedia {
			dst = bedrockBlock(dst, p, &inner)
		}
	}
	if inner {
		dst = append(dst, `{"text":`...)
		dst = transcript.AppendString(dst, emptyResultText)
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	if t.isError {
		dst = append(dst, `,"status":"error"`...)
	}
	return append(dst, `}}`...)
}
