package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"unsafe"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// Parsed is a provider request body read into the message model: the
// history as a JSON array of messages (spec §1.2), the body's system prompt
// and tools (the job's `system` and `tools`), and what the parse did not
// carry, counted by loss kind (the Loss constants).
type Parsed struct {
	Messages []byte
	// System is the body's system prompt as the job option takes it: a JSON
	// string for one text, else an array of {"type":"text","text":...}
	// blocks; nil when the body has none.
	System  json.RawMessage
	Tools   []transcript.Tool
	Dropped map[string]int
	// Continue is set when the body's last message is an assistant turn
	// marked prefix: true (Mistral's prefill, also DeepSeek's): the body asks
	// the model to continue that turn, as the job option continue does.
	Continue bool
}

// The kinds of what a parse drops, as the report counts them (stage
// "parse_request", as dropped_<kind>). docs/formats.md tables them per
// format pair. The first group is kept when the target's format is the
// input's own (the renderer of that format writes it back) and dropped
// otherwise; the second has no place in the model and is dropped whatever
// the target. Documents and images by URL or file id are in the model
// (transcript.BlockDocument): what a target cannot carry of them is
// replaced by the stage "documents" (package media), not here.
const (
	LossCacheControl     = "cache_control"          // Anthropic cache_control on a content block or tool result
	LossCitations        = "citations"              // Anthropic citations on a text block
	LossDocCitations     = "document_citations"     // citations: {enabled} on an Anthropic or Bedrock document
	LossDocumentContext  = "document_context"       // context on an Anthropic or Bedrock document
	LossTextSignature    = "text_thought_signature" // Gemini thoughtSignature on a text part
	LossGeminiThought    = "gemini_thought"         // Gemini thought parts (signed summaries)
	LossReasoning        = "reasoning"              // Responses reasoning items
	LossItemID           = "item_id"                // Responses message and function_call item ids
	LossSignedThinking   = "signed_thinking"        // Anthropic thinking / redacted_thinking, Bedrock reasoningContent
	LossToolCacheControl = "system_cache_control"   // Anthropic cache_control on a system block or a tool
	LossCompaction       = "compaction"             // a Responses compaction item (OpenAI's encrypted summary of earlier turns)
	LossImageSource      = "image_source"           // an image whose source is none of base64, URL, file id or S3
	LossDocument         = "document"               // a document whose source the model has no place for (Anthropic content source)
	LossSearchResult     = "search_result"          // Anthropic search_result blocks
	LossAudio            = "audio"                  // audio input parts (Chat and Responses input_audio)
	LossVideo            = "video"                  // Bedrock video blocks
	LossGuardContent     = "guard_content"          // Bedrock guardContent blocks
	LossServerTool       = "server_tool"            // server-side tool blocks and items (web search, code execution, ...)
	LossCachePoint       = "cache_point"            // Bedrock cachePoint blocks
	LossToolKind         = "non_function_tool"      // a declared tool that is not a function (server tools, retrieval)
	LossToolReference    = "tool_reference"         // Anthropic tool_reference blocks (a tool search's result: the tool is declared whole)
	LossToolChange       = "tool_change"            // Anthropic tool_addition / tool_removal blocks (beta mid-conversation tool changes)
	LossUnknown          = "unknown_part"           // a part or item of a type the parser does not know

	// LiteLLM's provider_specific_fields on a Chat assistant message or
	// tool call (but a call's thought_signature, which is carried)
	LossProviderFields = "provider_specific_fields"
)

// keptFor lists, for each loss kind of the first group, the formats that
// carry it. A kind not listed is carried by none.
var keptFor = map[string][]Format{
	LossCacheControl:     {AnthropicMessages},
	LossCitations:        {AnthropicMessages},
	LossDocCitations:     {AnthropicMessages, BedrockConverse},
	LossDocumentContext:  {AnthropicMessages, BedrockConverse},
	LossTextSignature:    {GeminiContents},
	LossGeminiThought:    {GeminiContents},
	LossReasoning:        {OpenAIResponses},
	LossItemID:           {OpenAIResponses},
	LossSignedThinking:   {AnthropicMessages, BedrockConverse},
	LossToolCacheControl: {AnthropicMessages},
	LossCompaction:       {OpenAIResponses},
}

// Carries reports whether a body of format target carries what a parse
// counts as kind.
func Carries(target Format, kind string) bool {
	for _, f := range keptFor[kind] {
		if f == target {
			return true
		}
	}
	return false
}

// formatAliases are the short names `worker sanitize --from` and a job's
// request_format also accept.
var formatAliases = map[string]Format{
	"anthropic": AnthropicMessages,
	"bedrock":   BedrockConverse,
	"openai":    OpenAIChat, "openai-chat": OpenAIChat, "chat": OpenAIChat, "openai-completions": OpenAIChat,
	"responses": OpenAIResponses,
	"gemini":    GeminiContents, "google": GeminiContents,
	"mistral": MistralChat,
}

// ParseFormat returns the format named s: one of Formats, or a short alias
// (anthropic, bedrock, openai-chat, responses, gemini, mistral, ...).
func ParseFormat(s string) (Format, bool) {
	for _, f := range Formats {
		if string(f) == s {
			return f, true
		}
	}
	f, ok := formatAliases[s]
	return f, ok
}

// FormatNames lists every name ParseFormat accepts: Formats in their
// order, then the short aliases sorted (the job schema's request_format).
func FormatNames() []string {
	names := make([]string, 0, len(Formats)+len(formatAliases))
	for _, f := range Formats {
		names = append(names, string(f))
	}
	return append(names, slices.Sorted(maps.Keys(formatAliases))...)
}

// DefaultSource is who wrote a history of format f when the job does not
// say (option `source`): the format's own provider and API, no model.
func DefaultSource(f Format) transcript.Target {
	switch f {
	case AnthropicMessages:
		return transcript.Target{Provider: "anthropic", API: "anthropic-messages"}
	case BedrockConverse:
		return transcript.Target{Provider: "amazon-bedrock", API: "bedrock-converse-stream"}
	case OpenAIResponses:
		return transcript.Target{Provider: "openai", API: "openai-responses"}
	case GeminiContents:
		return transcript.Target{Provider: "google", API: "google-generative-ai"}
	case MistralChat:
		return transcript.Target{Provider: "mistral", API: "mistral-conversations"}
	}
	return transcript.Target{Provider: "openai", API: "openai-completions"}
}

// SourceOf is who wrote a history of format f: the job option `source`
// ("PROVIDER/API/MODEL"), or DefaultSource(f) when the option is empty.
func SourceOf(f Format, option string) (transcript.Target, error) {
	if option == "" {
		return DefaultSource(f), nil
	}
	tg, err := policy.ParseTarget(option)
	if err != nil {
		return tg, fmt.Errorf("options.source: %v", err)
	}
	return tg, nil
}

// Parse reads a request body of format f into the message model. src is
// who wrote the history (the job's `source`): each assistant turn gets its
// provider, api and model (the body's "model" member when src has none). target is the format the history will be
// rendered in: what only f carries (the first group of the Loss kinds) is
// kept in the model when target is f, and dropped and counted otherwise.
//
// Values are copied from the body's bytes as the raw JSON they are (texts,
// ids, signatures, base64); nothing is decoded but the small members that
// choose a shape (role, type) and the JSON-string arguments of the OpenAI
// formats. Members the history does not hold (model, max_tokens,
// temperature, tool_choice, ...) are the runner's and are not read. The
// error names the member that has the wrong shape.
//
// body must be valid JSON, as the job decode leaves it (it validates every
// byte of a job, request included): Parse does not validate it again. Of
// other bytes it makes messages that may be anything, even invalid JSON
// (which transcript.FromMessages refuses), but it returns: it neither
// panics nor loops (FuzzParse).
func Parse(f Format, body []byte, src transcript.Target, target Format) (*Parsed, error) {
	p := &parser{target: target, out: make([]byte, 0, len(body)+len(body)/8), Parsed: Parsed{Dropped: map[string]int{}}}
	p.protoNames = f == GeminiContents
	p.index(body)
	obj, ok := p.object(body)
	if !ok {
		return nil, fmt.Errorf("request: must be a JSON object")
	}
	if src.Model == "" {
		src.Model, _ = obj.String("model") // the body's own model, when it names one
	}
	p.provider, p.api, p.model = transcript.JSONString(src.Provider), transcript.JSONString(src.API), transcript.JSONString(src.Model)
	p.out = append(p.out, '[')
	var err error
	switch f {
	case AnthropicMessages:
		err = p.anthropic(&obj)
	case BedrockConverse:
		err = p.bedrock(&obj)
	case OpenAIResponses:
		err = p.responses(&obj)
	case GeminiContents:
		err = p.gemini(&obj)
	case OpenAIChat, MistralChat:
		err = p.chat(&obj)
	default:
		return nil, fmt.Errorf("request_format %q is not one of the six formats", f)
	}
	if err != nil {
		return nil, err
	}
	p.flushAssistant()
	p.out = append(p.out, ']')
	p.Messages = p.out
	p.System = p.systemValue()
	return &p.Parsed, nil
}

// parser is one Parse: the messages written so far (each block is written
// once, straight into out: a turn's header when the turn opens, its
// trailer when it ends), whether an assistant turn is open (the formats
// that split a turn into several messages or items are joined back into
// one), the call names by id for the results, and the system texts.
type parser struct {
	Parsed
	splitter
	target               Format
	provider, api, model []byte
	out                  []byte
	assistantOpen        bool // out ends inside an assistant turn's content
	assistantHasCall     bool
	names                map[string][]byte   // call id → name (JSON strings)
	lastCall             map[string][]byte   // tool name → its latest call's id
	fullCallID           map[string][]byte   // Responses call_id → the model's "call_…|fc_…" id
	unanswered           [][]byte            // Gemini: the ids of the calls no response has answered yet
	system               [][]byte            // system texts (JSON strings)
	systemCache          [][]byte            // each system text's cache_control (Anthropic target), or nil
	calls                int                 // calls read, for ids a format leaves out
	rest                 []transcript.Object // userContent's blocks that are not results
}

// keep reports whether the parse keeps what is counted as kind (the target
// carries it), and counts it as dropped when not.
func (p *parser) keep(kind string) bool {
	if Carries(p.target, kind) {
		return true
	}
	p.Dropped[kind]++
	return false
}

// drop counts one thing of kind that the model has no place for.
func (p *parser) drop(kind string) { p.Dropped[kind]++ }

// message opens a message: the separator and {"role":"<role>".
func (p *parser) message(role string) {
	if len(p.out) > 1 {
		p.out = append(p.out, ',')
	}
	p.out = append(p.out, `{"role":"`...)
	p.out = append(p.out, role...)
	p.out = append(p.out, '"')
}

// userMark is where openUser opened a user message: what closeUser needs
// to take it back.
type userMark struct {
	at               int // the length of out before it
	assistantOpen    bool
	assistantHasCall bool
}

// openUser ends the open assistant turn and opens a user message, whose
// blocks the caller appends to out; closeUser ends it.
func (p *parser) openUser() userMark {
	m := userMark{len(p.out), p.assistantOpen, p.assistantHasCall}
	p.flushAssistant()
	p.message(transcript.RoleUser)
	p.out = append(p.out, `,"content":[`...)
	return m
}

// closeUser ends the user message openUser opened, or, when it got no
// block, takes it back: there is no message, and the assistant turn open
// before it is still open (a user message with nothing the model holds
// does not split a turn).
func (p *parser) closeUser(m userMark) {
	if p.out[len(p.out)-1] == '[' {
		p.out = p.out[:m.at]
		p.assistantOpen, p.assistantHasCall = m.assistantOpen, m.assistantHasCall
		return
	}
	p.out = append(p.out, `]}`...)
}

// turn opens an assistant turn when none is open, and returns out, for the
// caller to append a block of the turn to.
func (p *parser) turn() []byte {
	p.openAssistant()
	return p.out
}

// flushAssistant ends the open assistant turn, with the source's provider,
// api and model and the stop reason its blocks imply.
func (p *parser) flushAssistant() {
	if !p.assistantOpen {
		return
	}
	p.out = append(p.out, `],"api":`...)
	p.out = append(p.out, p.api...)
	p.out = append(p.out, `,"provider":`...)
	p.out = append(p.out, p.provider...)
	p.out = append(p.out, `,"model":`...)
	p.out = append(p.out, p.model...)
	if p.assistantHasCall {
		p.out = append(p.out, `,"stopReason":"toolUse"}`...)
	} else {
		p.out = append(p.out, `,"stopReason":"stop"}`...)
	}
	p.assistantOpen, p.assistantHasCall = false, false
}

// openAssistant starts an assistant turn even when it gets no block (an
// empty assistant message stays a message, for the chain to judge).
func (p *parser) openAssistant() {
	if p.assistantOpen {
		return
	}
	p.message(transcript.RoleAssistant)
	p.out = append(p.out, `,"content":[`...)
	p.assistantOpen = true
}

// openResult ends the open assistant turn and opens a toolResult message:
// the call id and the tool's name (from the call, else name when the
// format gives one); the caller appends its content blocks to out, and
// closeResult ends it.
func (p *parser) openResult(id, name []byte) {
	p.flushAssistant()
	p.message(transcript.RoleToolResult)
	p.out = append(p.out, `,"toolCallId":`...)
	p.out = append(p.out, id...)
	if n, ok := p.names[aliasString(id)]; ok {
		name = n
	}
	if name != nil {
		p.out = append(p.out, `,"toolName":`...)
		p.out = append(p.out, name...)
	}
	p.out = append(p.out, `,"content":[`...)
}

// closeResult ends the toolResult message openResult opened: isError, and
// extra written as members of the message (cache_control).
func (p *parser) closeResult(isError bool, extra []byte) {
	p.out = append(p.out, `],"isError":`...)
	p.out = strconv.AppendBool(p.out, isError)
	p.out = append(p.out, extra...)
	p.out = append(p.out, '}')
}

// call adds a toolCall block to the open assistant turn. args is the
// arguments' raw JSON; extra more members (thoughtSignature, cache_control).
func (p *parser) call(id, name, args, extra []byte) {
	if p.names == nil {
		p.names, p.lastCall = map[string][]byte{}, map[string][]byte{}
	}
	p.names[aliasString(id)] = name
	p.lastCall[aliasString(name)] = id
	p.calls++
	b := commaIfAny(p.turn())
	b = append(b, `{"type":"toolCall","id":`...)
	b = append(b, id...)
	b = append(b, `,"name":`...)
	b = append(b, name...)
	b = append(b, `,"arguments":`...)
	b = append(b, args...)
	b = append(b, extra...)
	p.out = append(b, '}')
	p.assistantHasCall = true
}

// aliasString views b, bytes of the body or of a value the parse made and
// never changes, as a string (a map key) without copying it.
func aliasString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// textBlock appends {"type":"text","text":<raw><extra>} to dst.
func textBlock(dst, text, extra []byte) []byte {
	dst = commaIfAny(dst)
	dst = append(dst, `{"type":"text","text":`...)
	dst = append(dst, text...)
	dst = append(dst, extra...)
	return append(dst, '}')
}

// imageBlock appends {"type":"image","data":<raw>,"mimeType":<raw><extra>}.
func imageBlock(dst, data, mime, extra []byte) []byte {
	dst = commaIfAny(dst)
	dst = append(dst, `{"type":"image","data":`...)
	dst = append(dst, data...)
	dst = append(dst, `,"mimeType":`...)
	dst = append(dst, mime...)
	dst = append(dst, extra...)
	return append(dst, '}')
}

// media is a document or an image by reference as a body gives it: the
// model block's type, its source member (a transcript.Source constant)
// and the source's value, with the optional MIME type, name and S3 bucket
// owner (raw JSON strings, nil when absent).
type media struct {
	typ, src          string
	value, mime, name []byte
	owner             []byte
}

// mediaBlock appends the model block of m:
// {"type":<typ>,"<src>":<value>,"mimeType":...,"name":...,"s3BucketOwner":...<extra>}.
func mediaBlock(dst []byte, m media, extra []byte) []byte {
	dst = commaIfAny(dst)
	dst = append(dst, `{"type":"`+m.typ+`","`+m.src+`":`...)
	dst = append(dst, m.value...)
	dst = member(dst, "mimeType", m.mime)
	dst = member(dst, "name", m.name)
	dst = member(dst, "s3BucketOwner", m.owner)
	dst = append(dst, extra...)
	return append(dst, '}')
}

// isImageMIME reports whether a raw JSON string is an image/* MIME type:
// any other inline or referenced file is a document, never an image (the
// image stage decodes what is an image).
func isImageMIME(mime []byte) bool {
	return bytes.HasPrefix(mime, []byte(`"image/`))
}

// fileBlock appends inline bytes (base64) of a MIME type as an image
// block when the type is an image's, else as a document block.
func fileBlock(dst, data, mime, name, extra []byte) []byte {
	if isImageMIME(mime) {
		return imageBlock(dst, data, mime, extra)
	}
	return mediaBlock(dst, media{typ: transcript.BlockDocument, src: transcript.SourceData, value: data, mime: mime, name: name}, extra)
}

// refBlock appends a file given by reference (src: URL, file id or S3
// URI) as an image block when its MIME type is an image's, else a
// document block; image says what the body's part is when it gives no MIME
// type.
func refBlock(dst []byte, src string, value, mime, name []byte, image bool) []byte {
	typ := transcript.BlockDocument
	if mime != nil && isImageMIME(mime) || mime == nil && image {
		typ = transcript.BlockImage
	}
	return mediaBlock(dst, media{typ: typ, src: src, value: value, mime: mime, name: name}, nil)
}

// dataURLBlock appends the block of a "data:<mime>;base64,<data>" URL (a
// raw JSON string): an image block when the type is image/*, else a
// document block named name. The base64 is copied once, into dst, as it
// is. false for any other value.
func dataURLBlock(dst, url, name []byte) ([]byte, bool) {
	if url == nil || !bytes.HasPrefix(url, []byte(`"data:`)) {
		return dst, false
	}
	body := url[len(`"data:`) : len(url)-1]
	semi := bytes.Index(body, []byte(";base64,"))
	if semi <= 0 {
		return dst, false
	}
	mime, data := body[:semi], body[semi+len(";base64,"):]
	dst = commaIfAny(dst)
	if bytes.HasPrefix(mime, []byte("image/")) {
		dst = append(dst, `{"type":"image","data":"`...)
	} else {
		dst = append(dst, `{"type":"document","data":"`...)
	}
	dst = append(dst, data...)
	dst = append(dst, `","mimeType":"`...)
	dst = append(dst, mime...)
	dst = append(dst, '"')
	if !bytes.HasPrefix(mime, []byte("image/")) {
		dst = member(dst, "name", name)
	}
	return append(dst, '}'), true
}

// urlOrData appends the block of a part that gives a file as a URL: a
// data URL is its inline bytes (dataURLBlock), any other string a
// reference by URL (refBlock). false when url is not a string.
func urlOrData(dst, url, name []byte, image bool) ([]byte, bool) {
	if url == nil {
		return dst, false
	}
	if dst, ok := dataURLBlock(dst, url, name); ok {
		return dst, true
	}
	return refBlock(dst, transcript.SourceURL, url, nil, name, image), true
}

// thinkingBlock appends a thinking block; sigKey names the signature member
// (thinkingSignature, or thoughtSignature for Gemini), sig nil for none.
func thinkingBlock(dst, text []byte, sigKey string, sig []byte) []byte {
	dst = commaIfAny(dst)
	dst = append(dst, `{"type":"thinking","thinking":`...)
	dst = append(dst, text...)
	if sig != nil {
		dst = append(dst, `,"`+sigKey+`":`...)
		dst = append(dst, sig...)
	}
	return append(dst, '}')
}

// commaIfAny appends the separator before a block: a comma, unless dst is
// empty (a list of blocks being gathered) or ends with the '[' that opens
// a message's content.
func commaIfAny(dst []byte) []byte {
	if len(dst) > 0 && dst[len(dst)-1] != '[' {
		return append(dst, ',')
	}
	return dst
}

// redactedBlock appends a redacted_thinking block of data (raw JSON).
func redactedBlock(dst, data []byte) []byte {
	dst = commaIfAny(dst)
	dst = append(dst, `{"type":"redacted_thinking","data":`...)
	dst = append(dst, data...)
	return append(dst, '}')
}

// member appends ,"key":raw when raw is set.
func member(dst []byte, key string, raw []byte) []byte {
	if raw == nil {
		return dst
	}
	dst = append(dst, `,"`+key+`":`...)
	return append(dst, raw...)
}

// systemValue is the gathered system texts as the job option takes them:
// one text without cache_control as a string, else text blocks.
func (p *parser) systemValue() json.RawMessage {
	switch {
	case len(p.system) == 0:
		return nil
	case len(p.system) == 1 && p.systemCache[0] == nil:
		return p.system[0]
	}
	out := []byte{'['}
	out = appendTexts(out, p.system, p.systemCache, `{"type":"text","text":`)
	return append(out, ']')
}

// systemText adds a system text (a raw JSON string; other values are
// ignored).
func (p *parser) systemText(raw []byte) { p.systemBlock(raw, nil) }

// systemBlock adds a system text and its block's cache_control (nil for
// none).
func (p *parser) systemBlock(raw, cache []byte) {
	if isString(raw) {
		p.system = append(p.system, raw)
		p.systemCache = append(p.systemCache, cache)
	}
}

// systemContent adds a system message's content: a string, or the texts
// of its parts.
func (p *parser) systemContent(content []byte) {
	if isString(content) {
		p.systemText(content)
		return
	}
	for _, raw := range p.array(content) {
		b, _ := p.object(raw)
		p.systemText(str(&b, "text"))
	}
}

// tool adds a declared tool: its name, description and JSON Schema as the
// format gives them.
func (p *parser) tool(name, description, schema []byte) {
	n, ok := unquote(name)
	if !ok {
		return
	}
	d, _ := unquote(description)
	p.Tools = append(p.Tools, transcript.Tool{Name: n, Description: d, InputSchema: schema})
}

// functionTools adds the OpenAI formats' tools of type function: name,
// description and parameters in the tool's "function" member (Chat
// Completions, nested) or in the tool itself (Responses). A tool without a
// type is a function: Mistral's API defaults a tool's type to "function"
// (its Tool schema), and so do OpenAI-compatible servers such as vLLM
// (ChatCompletionToolsParam); OpenAI requires the member, so a body without
// it was written for one of them, and every other tool kind names its type.
// Other tool types are counted as dropped.
func (p *parser) functionTools(tools []byte, nested bool) {
	for _, raw := range p.array(tools) {
		t, _ := p.object(raw)
		if typ, ok := t.String("type"); ok && typ != "function" || !ok && !t.IsNull("type") {
			p.drop(LossToolKind)
			continue
		}
		if nested {
			t, _ = p.object(field(&t, "function"))
		}
		p.tool(str(&t, "name"), str(&t, "description"), field(&t, "parameters"))
	}
}

// unquote decodes a raw JSON string; false for anything else.
func unquote(raw []byte) (string, bool) {
	b, ok := transcript.UnquoteBytes(raw)
	return string(b), ok
}

// field returns member key of o when it is present and not null.
func field(o *transcript.Object, key string) []byte {
	raw, ok := o.Get(key)
	if !ok || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	return raw
}

// str returns member key of o when it is a JSON string (one that closes:
// of bytes that are not JSON, an unterminated string is not one).
func str(o *transcript.Object, key string) []byte {
	raw, ok := o.Get(key)
	if !ok || !isString(raw) || raw[len(raw)-1] != '"' {
		return nil
	}
	return raw
}

// historyArray returns the body's history member, an array, or an error naming
// it.
func (p *parser) historyArray(o *transcript.Object, key string) ([][]byte, error) {
	raw, ok := o.Get(key)
	if !ok {
		return nil, fmt.Errorf("request.%s is missing", key)
	}
	if s := bytes.TrimSpace(raw); len(s) == 0 || s[0] != '[' {
		return nil, fmt.Errorf("request.%s must be an array", key)
	}
	return p.array(raw), nil
}

// eachItem calls fn with each object of the body's history member key, or
// returns an error naming the member, or its first element that is not an
// object.
func (p *parser) eachItem(o *transcript.Object, key string, fn func(m *transcript.Object)) error {
	return p.eachItemNext(o, key, func(m *transcript.Object, _ []byte) { fn(m) })
}

// eachItemNext is eachItem for a reader that looks ahead: fn also gets the
// element after m (nil after the last).
func (p *parser) eachItemNext(o *transcript.Object, key string, fn func(m *transcript.Object, next []byte)) error {
	items, err := p.historyArray(o, key)
	if err != nil {
		return err
	}
	for i, raw := range items {
		m, ok := p.object(raw)
		if !ok {
			return fmt.Errorf("request.%s[%d] must be an object", key, i)
		}
		var next []byte
		if i+1 < len(items) {
			next = items[i+1]
		}
		fn(&m, next)
	}
	return nil
}

// userContent reads the blocks of a user message of the Anthropic-shaped
// formats: each block that result takes (a tool result) is written as a
// toolResult message, and then the others, read by block, as one user
// message after them.
func (p *parser) userContent(content [][]byte, result func(b *transcript.Object) bool, block func(dst []byte, b *transcript.Object) []byte) {
	rest := p.rest[:0]
	for _, raw := range content {
		b, _ := p.object(raw)
		if !result(&b) {
			rest = append(rest, b)
		}
	}
	at := p.openUser()
	for i := range rest {
		p.out = block(p.out, &rest[i])
	}
	p.closeUser(at)
	p.rest = rest[:0]
}

// jsonArguments reads the OpenAI formats' arguments: a JSON string holding
// a JSON object becomes that object; an object is taken as it is; anything
// else is kept as it is, for the chain's input validation (spec §3.5) to
// judge.
func jsonArguments(raw []byte) []byte {
	if len(raw) > 0 && raw[0] == '{' {
		return raw
	}
	if s, ok := transcript.UnquoteBytes(raw); ok {
		s = bytes.TrimSpace(s)
		if len(s) == 0 {
			return []byte("{}")
		}
		if s[0] == '{' && json.Valid(s) {
			return s
		}
	}
	if raw == nil {
		return []byte("{}")
	}
	return raw
}
