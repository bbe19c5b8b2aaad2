package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"
	"unique"

	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/transcript/jsontape"
	"github.com/hygiene-dev/hygiene/internal/uncleared"
)

// Target names the provider a history will be replayed to (design §2),
// exactly as the job gives it: policy.Resolve normalises it, Target keeps the
// caller's spelling. It is the one declaration of a target; package policy
// reads and resolves this type.
type Target struct {
	Provider string `json:"provider"`
	API      string `json:"api"`
	Model    string `json:"model"`
}

// Options are a job's optional per-request settings (design §2). Package
// transcript reads the members that shape the request body (render,
// system, tools, next, continue, source: the fields below with a json
// tag) and keeps every other member raw in Settings, for package settings
// to decode: the model does not know the settings, and a rule reads them
// from its stage.Env.
type Options struct {
	// Settings is every member of options that is not a field below, as
	// one JSON object in the job's order (nil when there is none): the
	// images and pruning sections, the image aliases image_max_dimension_px
	// and image_max_bytes, and the request keys (now_ms,
	// context_window_tokens, tools_offered, ...). settings.DecodeJob
	// decodes it, and refuses a key no setting has: DecodeJob here does
	// not, so a job with an unknown option decodes, and the pipeline's
	// resolver makes it the invalid_job dead letter (stage "decode",
	// `options: unknown field "now"`) before any rule runs.
	Settings json.RawMessage `json:"-"`
	// Render is "messages" (the default) or "request": the ready payload
	// then also carries the provider request body (package wire).
	Render string `json:"render,omitempty"`
	// System is the system prompt for the request body: a JSON string or
	// an array of {"type":"text","text":...} blocks.
	System json.RawMessage `json:"system,omitempty"`
	// Tools are the tools the runner offers the model, for the request body.
	Tools []Tool `json:"tools,omitempty"`
	// Next is the turn or turns the runner is about to send (the new user
	// prompt, or tool results): a JSON array of messages of the message
	// model, sanitized with the history and placed after it (package wire,
	// PlaceNext).
	Next json.RawMessage `json:"next,omitempty"`
	// Continue asks a Mistral request body that ends with an assistant turn
	// to continue it (prefix: true); see package wire, FinalTurn.
	Continue bool `json:"continue,omitempty"`
	// Source is who wrote a request job's history, "PROVIDER/API/MODEL"
	// (a request body does not say): its assistant turns get that provider,
	// api and model. It is read only for a job that carries a request.
	Source string `json:"source,omitempty"`
}

// Tool is one entry of the job option `tools`: a tool the runner offers the
// model, with its input's JSON Schema, and Anthropic's prompt-caching
// breakpoint on it (cache_control), which only an Anthropic body carries.
type Tool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema,omitempty"`
	CacheControl json.RawMessage `json:"cache_control,omitempty"`
}

// Request is a provider request body and its format's name: the one a job
// carries instead of messages (Transcript.Input), or the one rendered for
// the ready payload (job option render: request).
type Request struct {
	Format string
	Body   []byte
}

// CustomEntry is a session custom entry (spec §1.1), such as a
// `model-snapshot` or `google-turn-ordering-bootstrap` marker.
type CustomEntry struct {
	CustomType string
	Data       []byte // raw JSON; nil when absent
}

// RepairReport counts what session-file repair (spec §3.17) dropped while
// reading a JSONL session. The input file itself is never modified.
type RepairReport struct {
	DroppedLines int // lines that were not valid JSON objects
	// KeepPointsMissing counts compactions whose first kept entry is
	// missing or out of range (nothing before them is kept).
	KeepPointsMissing int
}

// Transcript is one provider request context: the job envelope and its
// message list. Messages decoded from a job arrive split into members and
// blocks (see tape); see Message.
type Transcript struct {
	JobID     string
	Tenant    string
	SessionID string
	Target    Target
	Options   Options
	Messages  []*Message
	// CustomEntries is the session state the rules read (model snapshots).
	CustomEntries []CustomEntry
	// AppendEntries are custom entries the rules ask the runner to persist.
	AppendEntries []CustomEntry
	// Repair is set for sessions read from JSONL (spec §3.17).
	Repair *RepairReport
	// InputBytes is the size of the decoded input.
	InputBytes int
	// ToolNames maps each tool name a rule renamed for the target (wire
	// name → original); the ready payload carries it as tool_names.
	ToolNames map[string]string
	// Request, when set, is written to the ready payload as request_format
	// and request.
	Request *Request
	// Input is the provider request body a job carries instead of messages
	// (request_format and request): the pipeline parses it into Messages
	// before the rules (package wire), and the ready payload names its
	// format as input_format.
	Input *Request

	rawTarget []byte // the job's target object, echoed byte-identical
	// tapes are what the decoding pass recorded the messages on (Release).
	tapes []*jsontape.Tape
}

// Release gives the tapes the transcript's messages were decoded onto back
// for reuse by the jobs that follow (jsontape.Tape.Release), once nothing
// will read a message of the transcript again: its payload is built, and
// no view of a message or block, nor anything read from one but the input's
// own bytes, is kept. Strings and values read from a message alias the
// input, which Release neither keeps nor frees; the tape's arrays are
// another job's at once, so a message read afterwards panics. A second
// Release does nothing.
func (t *Transcript) Release() {
	for _, tp := range t.tapes {
		tp.Release()
	}
	t.tapes = nil
}

// Limits bound what a single job may cost to decode.
type Limits struct {
	MaxBytes    int // input size
	MaxMessages int // entries in the message list
	MaxDepth    int // JSON nesting depth
}

// DefaultLimits are the limits used when a field of Limits is zero.
func DefaultLimits() Limits {
	return Limits{MaxBytes: 64 << 20, MaxMessages: 1_000_000, MaxDepth: 256}
}

// WithDefaults fills every zero field of l with its DefaultLimits value.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	if l.MaxBytes <= 0 {
		l.MaxBytes = d.MaxBytes
	}
	if l.MaxMessages <= 0 {
		l.MaxMessages = d.MaxMessages
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = d.MaxDepth
	}
	return l
}

// DecodeJob decodes a job (design §2). The transcript aliases data, which
// must not be modified while the transcript is in use. Unknown top-level
// members are an error (the job schema is ours; a misspelt "mesages" must not
// pass silently), while unknown members inside messages are preserved.
func DecodeJob(data []byte, lim Limits) (*Transcript, error) {
	return DecodeJobParallel(data, lim, Parallel{})
}

// DecodeJobParallel is DecodeJob with the message array parsed in the parts
// par gives (see messageArrayInParts): the transcript, or the error, is
// exactly DecodeJob's.
func DecodeJobParallel(data []byte, lim Limits, par Parallel) (*Transcript, error) {
	lim = lim.WithDefaults()
	if len(data) > lim.MaxBytes {
		return nil, errorf(deadletter.CodePayloadTooLarge, "", "job is %d bytes, over the limit of %d", len(data), lim.MaxBytes)
	}
	var fields [8]Field // a job's members: one allocation fewer per small job
	top := Object{Fields: fields[:0]}
	sp, err := jsontape.SplitObject(data, lim.MaxDepth, "messages", par, func(key string, value []byte) {
		top.Fields = append(top.Fields, Field{Key: key, Value: value})
	})
	if err != nil {
		if Valid(data, lim.MaxDepth) == nil {
			return nil, errorf(deadletter.CodeInvalidJob, "", "a job must be a JSON object")
		}
		return nil, jsonError("", err)
	}
	t := &Transcript{InputBytes: len(data)}
	var seenMessages, seenTarget bool
	for _, f := range top.Fields {
		switch f.Key {
		case "job_id":
			t.JobID, err = requiredString(f, 128)
		case "tenant":
			t.Tenant, err = requiredString(f, 64)
			if err == nil && !ValidTenant(t.Tenant) {
				err = errorf(deadletter.CodeInvalidJob, "tenant", "%q must match "+TenantNameForm, t.Tenant)
			}
		case "session_id":
			t.SessionID, err = requiredString(f, 1024)
		case "target":
			seenTarget = true
			t.rawTarget = f.Value
			if !decodeTarget(f.Value, &t.Target) {
				err = strictUnmarshal(f.Value, &t.Target, "target", deadletter.CodeInvalidTarget)
			}
		case "options":
			t.Options, err = decodeOptions(f.Value)
		case "custom_entries":
			t.CustomEntries, err = decodeCustomEntries(f.Value)
		case "messages":
			seenMessages = true
			t.Messages, err = wrapMessages(sp, f.Value, lim)
			t.tapes = sp.Tapes
		case "request_format", "request":
			err = t.decodeInput(f)
		default:
			err = errorf(deadletter.CodeInvalidJob, f.Key, "unknown job field")
		}
		if err != nil {
			return nil, err
		}
	}
	for _, req := range []struct {
		name string
		ok   bool
	}{{"job_id", t.JobID != ""}, {"tenant", t.Tenant != ""}, {"session_id", t.SessionID != ""}, {"messages", seenMessages || t.Input != nil}} {
		if !req.ok {
			return nil, errorf(deadletter.CodeInvalidJob, req.name, "required field is missing (or request_format and request)")
		}
	}
	if err := t.checkInput(seenMessages); err != nil {
		return nil, err
	}
	if !seenTarget {
		return nil, errorf(deadletter.CodeInvalidTarget, "target", "required field is missing")
	}
	if err := t.Target.validate(); err != nil {
		return nil, err
	}
	return t, nil
}

// decodeInput reads request_format (a string) or request (an object) into
// t.Input.
func (t *Transcript) decodeInput(f Field) error {
	if t.Input == nil {
		t.Input = &Request{}
	}
	if f.Key == "request_format" {
		s, ok := jsontape.DecodeString(f.Value)
		if !ok || s == "" {
			return errorf(deadletter.CodeInvalidJob, f.Key, "must be a non-empty string")
		}
		t.Input.Format = s
		return nil
	}
	if len(f.Value) == 0 || f.Value[0] != '{' {
		return errorf(deadletter.CodeInvalidJob, f.Key, "must be a provider request body (a JSON object)")
	}
	t.Input.Body = f.Value
	return nil
}

// checkInput refuses a job that carries both messages and a request, or
// one of request_format and request without the other.
func (t *Transcript) checkInput(seenMessages bool) error {
	switch {
	case t.Input == nil:
		return nil
	case seenMessages:
		return errorf(deadletter.CodeInvalidJob, "request", "a job carries messages or a request, not both")
	case t.Input.Format == "":
		return errorf(deadletter.CodeInvalidJob, "request_format", "required with request")
	case t.Input.Body == nil:
		return errorf(deadletter.CodeInvalidJob, "request", "required with request_format")
	}
	return nil
}

func (tg Target) validate() error {
	if tg.Provider == "" && tg.API == "" {
		return errorf(deadletter.CodeInvalidTarget, "target", "provider and api are both empty")
	}
	return nil
}

func requiredString(f Field, maxLen int) (string, error) {
	s, ok := jsontape.DecodeString(f.Value)
	if !ok {
		return "", errorf(deadletter.CodeInvalidJob, f.Key, "must be a string")
	}
	if s == "" {
		return "", errorf(deadletter.CodeInvalidJob, f.Key, "must not be empty")
	}
	if len(s) > maxLen {
		return "", errorf(deadletter.CodeInvalidJob, f.Key, "is %d bytes, over the limit of %d", len(s), maxLen)
	}
	return s, nil
}

// TenantNameForm is the form of a tenant name (design §2, Job.tenant), as
// the errors that reject one say it.
const TenantNameForm = "[A-Za-z0-9._-]{1,64}"

// ValidTenant reports whether s is a tenant name: 1 to 64 ASCII letters,
// digits, dots, underscores and hyphens. Jobs and the configuration's
// tenants: section are checked by it alike.
func ValidTenant(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// strictUnmarshal decodes a small envelope member with encoding/json,
// rejecting unknown fields, and names the member in the error.
func strictUnmarshal(raw []byte, v any, path string, code deadletter.Code) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && te.Field != "" {
			return errorf(code, path+"."+te.Field, "must be %s, got %s", jsonKind(te.Type), te.Value)
		}
		return errorf(code, path, "%s", cleanJSONError(err))
	}
	return nil
}

// jsonKind names the JSON value a Go type of an envelope member holds, for
// strictUnmarshal's errors: "target.provider: must be a string, got
// number", not encoding/json's words, which name Go types ("Go struct
// field Target.provider of type string") and change with the
// implementation behind encoding/json (Go 1.27 runs it on v2's).
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return jsonKind(t.Elem())
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	default:
		return "an object"
	}
}

// decodeTarget decodes a target whose members are provider, api and model,
// each at most once, each a string of valid UTF-8 without an escape, into
// tg as strictUnmarshal would, and reports whether it did: a job's target
// then costs no reflection. Any other target leaves tg as it was and
// returns false, for strictUnmarshal to decode (and to word its error).
// Its strings are canonical (package unique): jobs name a few targets, so
// most jobs' targets cost no allocation.
func decodeTarget(raw []byte, tg *Target) bool {
	if last := lastTarget.Load(); last != nil && last.raw == string(raw) {
		*tg = last.target
		return true
	}
	var d Target
	ok := true
	err := EachMember(raw, func(key string, value []byte) {
		var field *string
		switch key {
		case "provider":
			field = &d.Provider
		case "api":
			field = &d.API
		case "model":
			field = &d.Model
		}
		if field == nil || *field != "" || len(value) < 2 || value[0] != '"' ||
			bytes.IndexByte(value, '\\') >= 0 || !utf8.Valid(value) {
			ok = false
			return
		}
		*field = unique.Make(string(value[1 : len(value)-1])).Value()
	})
	if err != nil || !ok {
		return false
	}
	*tg = d
	lastTarget.Store(&decodedTarget{raw: unique.Make(string(raw)).Value(), target: d})
	return true
}

// decodedTarget is a target decodeTarget decoded, and its bytes.
type decodedTarget struct {
	raw    string
	target Target
}

// lastTarget is the target decodeTarget decoded last: most jobs name the
// target of the job before them, whose bytes are then compared, not read
// member by member. It is replaced, never written; a job whose target
// differs from the last one's costs one allocation more (its bytes are
// canonical, as the strings of a target are).
var lastTarget atomic.Pointer[decodedTarget]

// decodeOptions reads a job's options: the members that are fields of
// Options strictly with encoding/json, and every other member onto
// Options.Settings, unread. Options of settings alone (a small job's
// now_ms) cost the one allocation of Settings.
func decodeOptions(raw []byte) (Options, error) {
	var o Options
	var own, other []byte // objects of members, without their closing brace
	err := jsontape.EachMember(raw, 1<<30, func(key string, value []byte) {
		if optionKeys[key] {
			own = appendMember(own, key, value, len(raw))
		} else {
			other = appendMember(other, key, value, len(raw))
		}
	})
	if err != nil {
		if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			return o, nil
		}
		return o, errorf(deadletter.CodeInvalidJob, "options", "must be an object")
	}
	if own != nil {
		decoded := new(Options) // for encoding/json: on the heap only here
		err := strictUnmarshal(append(own, '}'), decoded, "options", deadletter.CodeInvalidJob)
		if o = *decoded; err != nil {
			return o, err
		}
	}
	if other != nil {
		o.Settings = append(other, '}')
	}
	return o, nil
}

// appendMember appends the member key: value to obj, an object's members
// so far without its closing brace (nil for none), a new obj sized for
// size bytes (the whole options object, which mostly holds only one kind
// of member).
func appendMember(obj []byte, key string, value []byte, size int) []byte {
	if obj == nil {
		obj = append(make([]byte, 0, size+1), '{')
	} else {
		obj = append(obj, ',')
	}
	return append(append(AppendString(obj, key), ':'), value...)
}

// optionKeys are the JSON names of Options' own fields.
var optionKeys = func() map[string]bool {
	keys := map[string]bool{}
	t := reflect.TypeFor[Options]()
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			keys[name] = true
		}
	}
	return keys
}()

// cleanJSONError drops encoding/json's "json: " prefix.
func cleanJSONError(err error) string {
	return string(bytes.TrimPrefix([]byte(err.Error()), []byte("json: ")))
}

func decodeCustomEntries(raw []byte) ([]CustomEntry, error) {
	elems, err := ParseArray(raw)
	if err != nil {
		return nil, errorf(deadletter.CodeInvalidJob, "custom_entries", "must be an array")
	}
	entries := make([]CustomEntry, 0, len(elems))
	for i, e := range elems {
		obj, err := ParseObject(e)
		path := fmt.Sprintf("custom_entries[%d]", i)
		if err != nil {
			return nil, errorf(deadletter.CodeInvalidJob, path, "must be an object")
		}
		ct, ok := obj.String("customType")
		if !ok || ct == "" {
			return nil, errorf(deadletter.CodeInvalidJob, path+".customType", "must be a non-empty string")
		}
		data, _ := obj.Get("data")
		entries = append(entries, CustomEntry{CustomType: ct, Data: data})
	}
	return entries, nil
}

// wrapMessages takes the messages of the message array, recorded on tapes
// while the job was scanned (see messagesOf); raw is the member's value.
func wrapMessages(sp jsontape.Split, raw []byte, lim Limits) ([]*Message, error) {
	if !sp.Found || len(raw) == 0 || raw[0] != '[' {
		return nil, errorf(deadletter.CodeInvalidJob, "messages", "must be an array")
	}
	n := 0
	for _, t := range sp.Tapes {
		n += len(t.Messages)
	}
	if n > lim.MaxMessages {
		return nil, errorf(deadletter.CodePayloadTooLarge, "messages", "%d messages, over the limit of %d", n, lim.MaxMessages)
	}
	return messagesOf(sp.Tapes, n), nil
}

// EncodePayload appends the ready payload (design §2): the envelope, the
// messages (unchanged ones as their original bytes), the entries to append
// and the report, which the caller has already encoded as a JSON object. The
// output is a pure function of the transcript and the report.
func (t *Transcript) EncodePayload(dst []byte, report []byte) []byte {
	return t.AppendPayload(dst, t.EncodeMessages(Parallel{}), report)
}

// AppendPayload is EncodePayload with the messages msgs encoded from t
// (EncodeMessages; possibly in parallel parts, with the same bytes).
func (t *Transcript) AppendPayload(dst []byte, msgs *EncodedMessages, report []byte) []byte {
	// The envelope and the request are estimated; the messages are measured.
	dst = uncleared.Grow(dst, msgs.Size()+len(report)+512)
	dst = t.appendPayloadHead(dst)
	dst = msgs.appendTo(dst)
	return t.appendPayloadTail(dst, report)
}

// AppendPayloadSized appends the bytes AppendPayload appends, for a job
// encoded in one part on the caller's goroutine: each message is written
// straight into dst as AppendJSON writes it (EncodeMessages' list, byte
// for byte, without its buffer of changed messages and their copy into
// the payload), and report appends the report once the message list is
// written, given the list's size (Report.BytesOut); "{}" when it appends
// nothing.
func (t *Transcript) AppendPayloadSized(dst []byte, report func(dst []byte, listSize int) []byte) []byte {
	dst = t.appendPayloadHead(dst)
	at := len(dst)
	dst = append(dst, '[')
	for i, m := range t.Messages {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = m.AppendJSON(dst)
	}
	dst = append(dst, ']')
	size := len(dst) - at
	dst = append(t.appendPayloadExtras(dst), `,"report":`...)
	n := len(dst)
	if dst = report(dst, size); len(dst) == n {
		dst = append(dst, "{}"...)
	}
	return append(dst, '}')
}

// WritePayload writes to w the bytes AppendPayload appends, without ever
// holding the payload whole: the message list goes out as the spans of the
// input and the encoded changed messages it is made of (a long history's
// payload is about its input's size, so holding it would double what the
// job keeps live; `worker sanitize` writes its output file this way).
func (t *Transcript) WritePayload(w io.Writer, msgs *EncodedMessages, report []byte) error {
	if _, err := w.Write(t.appendPayloadHead(make([]byte, 0, 512))); err != nil {
		return err
	}
	if err := msgs.writeTo(w); err != nil {
		return err
	}
	_, err := w.Write(t.appendPayloadTail(nil, report))
	return err
}

// appendPayloadHead appends the payload up to its message list: the
// envelope, the input's format, and the messages member's key.
func (t *Transcript) appendPayloadHead(dst []byte) []byte {
	dst = t.appendEnvelope(dst)
	if t.Input != nil {
		dst = append(dst, `,"input_format":`...)
		dst = AppendString(dst, t.Input.Format)
	}
	return append(dst, `,"messages":`...)
}

// appendPayloadTail appends the payload after its message list: the
// rendered request, the tool names, the entries to append
// (appendPayloadExtras), the report ("{}" when empty), and the closing
// brace.
func (t *Transcript) appendPayloadTail(dst []byte, report []byte) []byte {
	if len(report) == 0 {
		report = []byte("{}")
	}
	dst = append(t.appendPayloadExtras(dst), `,"report":`...)
	dst = append(dst, report...)
	return append(dst, '}')
}

// appendPayloadExtras appends what the payload holds between its message
// list and its report: the rendered request, the tool names and the
// entries to append.
func (t *Transcript) appendPayloadExtras(dst []byte) []byte {
	if t.Request != nil {
		dst = append(dst, `,"request_format":`...)
		dst = AppendString(dst, t.Request.Format)
		dst = append(dst, `,"request":`...)
		dst = append(dst, t.Request.Body...)
	}
	if len(t.ToolNames) > 0 {
		dst = append(dst, `,"tool_names":{`...)
		for i, wire := range slices.Sorted(maps.Keys(t.ToolNames)) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, wire)
			dst = append(dst, ':')
			dst = AppendString(dst, t.ToolNames[wire])
		}
		dst = append(dst, '}')
	}
	return appendEntries(dst, "append_entries", t.AppendEntries)
}

func (tg Target) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"provider":`...)
	dst = AppendString(dst, tg.Provider)
	dst = append(dst, `,"api":`...)
	dst = AppendString(dst, tg.API)
	dst = append(dst, `,"model":`...)
	dst = AppendString(dst, tg.Model)
	return append(dst, '}')
}

// appendJSON writes the entry in session-file form:
// {"type":"custom","customType":...,"data":...}.
func (e CustomEntry) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":"custom","customType":`...)
	dst = AppendString(dst, e.CustomType)
	if e.Data != nil {
		dst = append(dst, `,"data":`...)
		dst = append(dst, e.Data...)
	}
	return append(dst, '}')
}

// SetTarget replaces the target (the echoed bytes are re-encoded).
func (t *Transcript) SetTarget(tg Target) {
	t.Target, t.rawTarget = tg, nil
}

// ParseTimestamp reads a timestamp value: a JSON number of milliseconds or
// an RFC 3339 / ISO 8601 string. ok is false when it does not parse.
func ParseTimestamp(raw []byte) (ms int64, ok bool) {
	if len(raw) == 0 {
		return 0, false
	}
	if raw[0] == '"' {
		s, ok := jsontape.DecodeString(raw)
		if !ok {
			return 0, false
		}
		return parseISOTime(s)
	}
	if ms, ok := exactDigits(raw); ok {
		return ms, true
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return 0, false
	}
	return int64(f), true
}

// exactDigits reads raw when it is 1 to 15 decimal digits: the timestamp
// of almost every message, in milliseconds. Such a number is below 2^53,
// so ParseFloat reads it exactly and ParseTimestamp's int64 of it is the
// integer read here. The model snapshot reads every message's timestamp
// (and the compaction rules those of a compacted history), and ParseFloat
// costs several times this loop.
func exactDigits(raw []byte) (int64, bool) {
	if len(raw) > 15 {
		return 0, false
	}
	n := int64(0)
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, len(raw) > 0
}

// FromMessages builds a transcript around a JSON array of messages, for
// tests and tools that have no job envelope. The target is required.
func FromMessages(messagesJSON []byte, target Target) (*Transcript, error) {
	lim := DefaultLimits()
	// One pass: validate and split, as DecodeJob does (see messagesOf).
	tapes, isArray, err := jsontape.SplitArray(messagesJSON, lim.MaxDepth, Parallel{})
	if err != nil {
		return nil, jsonError("messages", err)
	}
	if !isArray {
		return nil, errorf(deadletter.CodeInvalidJob, "messages", "must be an array")
	}
	msgs, err := wrapMessages(jsontape.Split{Tapes: tapes, Found: true}, []byte{'['}, lim)
	if err != nil {
		return nil, err
	}
	return &Transcript{JobID: "test", Tenant: "test", SessionID: "test", Target: target, Messages: msgs, InputBytes: len(messagesJSON), tapes: tapes}, nil
}

// MessagesJSON encodes the message list alone as a JSON array.
func (t *Transcript) MessagesJSON() []byte {
	return t.appendMessages(nil)
}

// MessagesSize is the length of MessagesJSON without building it: each
// message's EncodedLen (its input bytes when unchanged).
func (t *Transcript) MessagesSize() int {
	n := 2 + max(len(t.Messages)-1, 0)
	for _, m := range t.Messages {
		n += m.EncodedLen()
	}
	return n
}

// EncodeJob appends the transcript as a job (design §2), the form `worker
// replay --to-kafka` produces from a session file. Messages are written as
// their bytes; options are not carried (the consuming workers apply their
// defaults). A transcript that carries a request body not yet parsed
// (Input, no Messages: `worker replay --from`) is written as request_format
// and request.
func (t *Transcript) EncodeJob(dst []byte) []byte {
	dst = t.appendEnvelope(dst)
	dst = appendEntries(dst, "custom_entries", t.CustomEntries)
	if t.Input != nil && t.Messages == nil {
		dst = append(dst, `,"request_format":`...)
		dst = AppendString(dst, t.Input.Format)
		dst = append(dst, `,"request":`...)
		dst = append(dst, t.Input.Body...)
		return append(dst, '}')
	}
	dst = append(dst, `,"messages":`...)
	dst = t.appendMessages(dst)
	return append(dst, '}')
}

// appendEnvelope opens the object and writes job_id, tenant, session_id
// and target (the job's own target bytes when it had them).
func (t *Transcript) appendEnvelope(dst []byte) []byte {
	dst = append(dst, `{"job_id":`...)
	dst = AppendString(dst, t.JobID)
	dst = append(dst, `,"tenant":`...)
	dst = AppendString(dst, t.Tenant)
	dst = append(dst, `,"session_id":`...)
	dst = AppendString(dst, t.SessionID)
	dst = append(dst, `,"target":`...)
	if t.rawTarget != nil {
		return append(dst, t.rawTarget...)
	}
	return t.Target.appendJSON(dst)
}

// appendMessages writes the message list as a JSON array: every changed
// message encoded once, the others copied from the input in spans
// (EncodeMessages, in one part).
func (t *Transcript) appendMessages(dst []byte) []byte {
	return t.EncodeMessages(Parallel{}).appendTo(dst)
}

// appendEntries writes `,"<name>":[…]`, or nothing for no entries.
func appendEntries(dst []byte, name string, entries []CustomEntry) []byte {
	if len(entries) == 0 {
		return dst
	}
	dst = append(dst, `,"`+name+`":[`...)
	for i, e := range entries {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = e.appendJSON(dst)
	}
	return append(dst, ']')
}
