package transcript

import (
	"strconv"
	"strings"
)

// Roles of spec §1.2.
const (
	RoleUser              = "user"
	RoleAssistant         = "assistant"
	RoleToolResult        = "toolResult"
	RoleCompactionSummary = "compactionSummary"
	RoleBranchSummary     = "branchSummary"
	RoleCustom            = "custom"
	RoleTool              = "tool" // legacy tool-result role
)

// Content block types of spec §1.3.
const (
	BlockText             = "text"
	BlockImage            = "image"
	BlockThinking         = "thinking"
	BlockRedactedThinking = "redacted_thinking"
	BlockToolCall         = "toolCall"
	BlockToolUse          = "toolUse"      // legacy alias of toolCall
	BlockFunctionCall     = "functionCall" // legacy alias of toolCall
	BlockToolCallSnake    = "tool_call"    // snake-case legacy alias (input validation only)
	BlockToolUseSnake     = "tool_use"     // snake-case legacy alias (input validation only)
	BlockFunctionSnake    = "function_call"
	BlockVideo            = "video" // legacy inline video
	// BlockDocument is a file the user (or a tool) attached that is not an
	// image: a PDF, a plain-text or office document. It extends spec §1.3,
	// whose model (pi-ai's) holds images as base64 only and no documents,
	// so that a request body's documents survive the parse (package wire).
	// See Block.MediaSource for its members.
	BlockDocument = "document"
)

// The members that give a document's or image's content: exactly one is
// set. An image block of spec §1.3 has SourceData; this package extends
// §1.3 with images given by SourceURL or SourceFileID (an image block
// without data), and with document blocks (BlockDocument) given by any of
// them. Beside the source a document has "mimeType" (application/pdf,
// text/plain, ...; for SourceText, text/plain when absent) and an optional
// "name" (its file name or title); an image by URL or file id may have a
// "mimeType".
const (
	SourceData   = "data"   // base64 bytes, no data-URL prefix (a JSON string)
	SourceText   = "text"   // the document's plain text (a JSON string)
	SourceURL    = "url"    // an http(s) or gs:// URL the provider fetches
	SourceFileID = "fileId" // a provider's file id (Anthropic file_…, OpenAI file-…, Gemini files/…)
	SourceS3     = "s3Uri"  // an Amazon S3 URI (Bedrock s3Location.uri; "s3BucketOwner" beside it)
)

// mediaSources lists the sources in the order MediaSource looks for them.
var mediaSources = [...]string{SourceData, SourceText, SourceURL, SourceFileID, SourceS3}

// Stop reasons of spec §1.2.
const (
	StopStop    = "stop"
	StopLength  = "length"
	StopToolUse = "toolUse"
	StopError   = "error"
	StopAborted = "aborted"
)

// ResultIDFields are the tool-result members that may carry the call id, in
// the extraction order of spec §3.7 (the first non-blank wins).
var ResultIDFields = []string{"toolCallId", "toolUseId", "tool_call_id", "tool_use_id", "callId", "call_id"}

// IsToolCall reports whether the block is a tool call for pairing and id
// rewriting: type toolCall, toolUse or functionCall (spec §3.6, §3.7). The
// snake-case aliases count only for input validation (IsAnyToolCall).
func (b *Block) IsToolCall() bool {
	switch b.Type() {
	case BlockToolCall, BlockToolUse, BlockFunctionCall:
		return true
	}
	return false
}

// IsAnyToolCall reports whether the block is a tool call of any spelling,
// the snake-case legacy aliases included (spec §3.5).
func (b *Block) IsAnyToolCall() bool {
	switch b.Type() {
	case BlockToolCall, BlockToolUse, BlockFunctionCall, BlockToolCallSnake, BlockToolUseSnake, BlockFunctionSnake:
		return true
	}
	return false
}

// MediaSource returns the member that gives a document's or image's
// content (one of the Source constants), or "" when the block is neither
// or has no string source. An image's "text" is not a source.
func (b *Block) MediaSource() string {
	t := b.Type()
	if t != BlockDocument && t != BlockImage {
		return ""
	}
	for _, k := range mediaSources {
		if k == SourceText && t == BlockImage {
			continue
		}
		if raw, ok := b.Get(k); ok && len(raw) >= 2 && raw[0] == '"' {
			return k
		}
	}
	return ""
}

// Media kinds: what the report and `worker audit` name a document or an
// image that is not base64 (MediaKind).
const (
	MediaDocument = "document"  // a document given by its bytes, text, URL or S3 location
	MediaImageURL = "image_url" // an image given by URL
	MediaFileID   = "file_id"   // a document or image given by a provider's file id
)

// MediaKind is the kind a document or an image by reference counts as
// (MediaDocument, MediaImageURL, MediaFileID); "" for a base64 image and
// any other block.
func (b *Block) MediaKind() string {
	src := b.MediaSource()
	switch {
	case src == "" || src == SourceData && b.Type() == BlockImage:
		return ""
	case src == SourceFileID:
		return MediaFileID
	case b.Type() == BlockImage:
		return MediaImageURL
	}
	return MediaDocument
}

// MediaPlaceholder is the text that stands in for a document or an image
// by reference that a target cannot carry: it names the file (its name,
// URL, file id or S3 URI, and its MIME type) and why it is not sent, so
// the model knows something was there.
func (b *Block) MediaPlaceholder(reason string) string {
	what := "document"
	if b.Type() == BlockImage {
		what = "image"
	}
	var ref []string
	if name, ok := b.String("name"); ok && !IsBlank(name) {
		ref = append(ref, strconv.Quote(name))
	}
	if src := b.MediaSource(); src == SourceURL || src == SourceFileID || src == SourceS3 {
		v, _ := b.String(src)
		ref = append(ref, v)
	}
	if mime, ok := b.String("mimeType"); ok && mime != "" {
		ref = append(ref, "("+mime+")")
	}
	if len(ref) > 0 {
		what += " " + strings.Join(ref, " ")
	}
	return "[" + what + " not sent: " + reason + "]"
}

// DocumentText is the text that carries a plain-text document (source
// text) where a wire has no document place: its name, when it has one, on
// a line of its own, then its text.
func (b *Block) DocumentText() string {
	text, _ := b.String(SourceText)
	if name, ok := b.String("name"); ok && !IsBlank(name) {
		return "[document " + strconv.Quote(name) + "]\n" + text
	}
	return text
}

// IsThinking reports whether the block is a thinking or redacted_thinking block.
func (b *Block) IsThinking() bool {
	t := b.Type()
	return t == BlockThinking || t == BlockRedactedThinking
}

// CallID returns a tool call's id member when it is a non-empty string
// (spec §1.3: otherwise the block is not counted as a call).
func (b *Block) CallID() (string, bool) {
	id, ok := b.String("id")
	return id, ok && id != ""
}

// ToolCalls returns the message's tool-call blocks that have a non-empty id
// (IsToolCall and CallID), in content order. When they are one run of the
// content (the usual turn: some text, then its calls) the result is that
// run of Blocks, not a copy: read it, do not write it.
func (m *Message) ToolCalls() []*Block {
	blocks, _ := m.Blocks()
	var calls []*Block
	from, to := -1, -1 // the run blocks[from:to] holds every call so far
	for i, b := range blocks {
		if !b.IsToolCall() {
			continue
		}
		if _, ok := b.CallID(); !ok {
			continue
		}
		switch {
		case calls != nil:
			calls = append(calls, b)
		case from < 0:
			from, to = i, i+1
		case to == i:
			to++
		default: // not one run: copy the calls
			calls = append(append(make([]*Block, 0, to-from+len(blocks)-i), blocks[from:to]...), b)
		}
	}
	if calls == nil && from >= 0 {
		return blocks[from:to:to]
	}
	return calls
}

// ResultID returns the trimmed id of a tool result: the first non-blank of
// ResultIDFields (spec §3.7).
func (m *Message) ResultID() (string, bool) {
	for _, k := range ResultIDFields {
		if s, ok := m.String(k); ok {
			if s = TrimID(s); s != "" {
				return s, true
			}
		}
	}
	return "", false
}

// RawResultID returns a tool result's id as written, untrimmed: the first
// of ResultIDFields that is not blank ("" when none). Pairing compares it
// with the call's id as written, because an exact match wins over a match
// after trimming.
func (m *Message) RawResultID() string {
	for _, k := range ResultIDFields {
		if s, ok := m.String(k); ok && TrimID(s) != "" {
			return s
		}
	}
	return ""
}

// StopReason returns the assistant's stopReason ("" when absent, or not a
// string).
func (m *Message) StopReason() string { return m.members.stopReason() }

// Timestamp returns the message's timestamp in ms (number or ISO string).
func (m *Message) Timestamp() (int64, bool) {
	raw, ok := m.Get("timestamp")
	if !ok {
		return 0, false
	}
	return ParseTimestamp(raw)
}

// IsBlank reports whether s is empty after trimming white space.
func IsBlank(s string) bool { return strings.TrimSpace(s) == "" }
