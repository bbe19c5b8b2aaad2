package transcript

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/transcript/jsontape"
)

// DecodeSession reads an OpenClaw session file (JSONL, spec §1.1) into a
// transcript for target. It repairs as spec §3.17 does, without touching the
// file: blank lines are skipped, lines that are not JSON objects are dropped
// and counted in Repair, and CRLF line ends are accepted. An empty file or a
// first entry that is not a session header is an error, with the spec's
// reasons ("empty session file", "invalid session header").
//
// The message list is the session's active branch, rebuilt the way the
// runtime rebuilds it (choices the spec leaves open, written down here):
//   - when every entry has an id, the branch is the parentId chain that ends
//     at the last entry; otherwise all entries in file order;
//   - "message" entries contribute their message object, byte for byte,
//     but for the role hookMessage of v2 files, which becomes custom as
//     pi's v2-to-v3 migration renames it;
//   - the latest "compaction" entry on the branch becomes a
//     {"role":"compactionSummary","summary":…,"timestamp":ms} message placed
//     first, followed by the messages from its first kept entry (see
//     keepPoint: firstKeptEntryId, or a v1 file's firstKeptEntryIndex) and
//     then those after it; earlier messages are dropped. A keep-point that
//     is missing or out of range keeps nothing before the compaction and is
//     counted in Repair.KeepPointsMissing;
//   - "branch_summary" entries become {"role":"branchSummary",…} messages;
//   - "custom_message" entries (what an extension or OpenClaw injects into
//     the context, such as a runtime-context "Read HEARTBEAT.md…") become
//     {"role":"custom",…} messages (see customMessage), which every target
//     is sent as user content;
//   - "custom" entries become CustomEntries (replay markers);
//   - other entry types carry no replayable content and are skipped.
//
// JobID and SessionID are the header's id; Tenant is left empty for the
// caller to set.
func DecodeSession(data []byte, target Target, lim Limits) (*Transcript, error) {
	lim = lim.WithDefaults()
	if len(data) > lim.MaxBytes {
		return nil, errorf(deadletter.CodePayloadTooLarge, "", "session file is %d bytes, over the limit of %d", len(data), lim.MaxBytes)
	}
	if err := target.validate(); err != nil {
		return nil, err
	}
	t := &Transcript{Target: target, InputBytes: len(data), Repair: &RepairReport{}}
	var entries []Object
	tape := &jsontape.Tape{Data: data} // the message entries' messages, recorded as they are kept
	for len(data) > 0 {
		var line []byte
		if line, data = nextLine(data); len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		obj, err := parseObject(line, lim.MaxDepth)
		if err != nil {
			t.Repair.DroppedLines++
			continue
		}
		entries = append(entries, obj)
	}
	if len(entries) == 0 {
		return nil, errorf(deadletter.CodeInvalidJob, "", "empty session file")
	}
	header := entries[0]
	id, _ := header.String("id")
	if typ, _ := header.String("type"); typ != "session" || id == "" {
		return nil, errorf(deadletter.CodeInvalidJob, "line 1", "invalid session header")
	}
	t.JobID, t.SessionID = id, id
	branch := activeBranch(entries)
	start := -1
	for i := len(branch) - 1; i >= 0; i-- {
		if isType(entries[branch[i]], "compaction") {
			start = i
			break
		}
	}
	if start >= 0 {
		t.Messages = append(t.Messages, compactionMessage(entries[branch[start]]))
		from, ok := keepPoint(entries, branch, start, sessionVersion(header) < 2)
		if !ok {
			t.Repair.KeepPointsMissing++
		}
		t.appendEntries(entries, branch[from:start], tape)
		t.appendEntries(entries, branch[start+1:], tape)
	} else {
		t.appendEntries(entries, branch, tape)
	}
	if len(t.Messages) > lim.MaxMessages {
		return nil, errorf(deadletter.CodePayloadTooLarge, "messages", "%d messages, over the limit of %d", len(t.Messages), lim.MaxMessages)
	}
	return t, nil
}

// IsStandIn reports whether an assistant message is a stand-in that OpenClaw
// writes only for the transcript, not a model's turn: provider "openclaw"
// with model "delivery-mirror" (a reply mirrored to a channel) or
// "gateway-injected" (a row the gateway added), both trimmed, OpenClaw's own
// predicate (spec §3.2). Such a turn is never replayed (the assistant-replay
// rule drops it) and never names a session's target.
func IsStandIn(m *Message) bool {
	if m.members.TrimmedIsNot("provider", "openclaw") { // known from the tape
		return false
	}
	provider, _ := m.String("provider")
	if strings.TrimSpace(provider) != "openclaw" {
		return false
	}
	model, _ := m.String("model")
	switch strings.TrimSpace(model) {
	case "delivery-mirror", "gateway-injected":
		return true
	}
	return false
}

// MaxSessionHeaderBytes bounds a session file's first non-blank line, its
// header, as LooksLikeSession reads it (a CR before its LF counted, the LF
// not). An
// OpenClaw header holds a type, a version, a session id, a timestamp, a
// working directory and a parent session's path: a few hundred bytes.
const MaxSessionHeaderBytes = 64 << 10

// nextLine splits the first line off data (its CR LF or LF end removed).
func nextLine(data []byte) (line, rest []byte) {
	line = data
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		line, rest = data[:i], data[i+1:]
	}
	return bytes.TrimSuffix(line, []byte{'\r'}), rest
}

// LooksLikeSession reports whether data's first non-blank line is a
// session-file header ({"type":"session",...}), as DecodeSession reads it:
// such an input is a session file, any other a job. A line longer than
// MaxSessionHeaderBytes is no header, and LooksLikeSession reads no
// further than that: a job written on one line is its own first line, and
// its megabytes are not scanned here (for the line's end, "session" and
// escapes) before the job's decode reads them. A shorter line is parsed
// only when it may spell the string "session" (mayHoldSession).
func LooksLikeSession(data []byte) bool {
	for len(data) > 0 {
		if len(data) > MaxSessionHeaderBytes && bytes.IndexByte(data[:MaxSessionHeaderBytes+1], '\n') < 0 {
			return false // the line is longer than any header
		}
		var line []byte
		if line, data = nextLine(data); len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if !mayHoldSession(line) {
			return false
		}
		obj, err := ParseObject(bytes.TrimSpace(line))
		return err == nil && isType(obj, "session")
	}
	return false
}

// mayHoldSession reports whether line may hold a JSON string that decodes
// to "session": it holds "session" as written, or a \u escape of one of its
// letters (JSON spells a letter no other way), which a job's text seldom
// does. Without either, no member of line is the string "session".
func mayHoldSession(line []byte) bool {
	if bytes.Contains(line, []byte(`"session"`)) {
		return true
	}
	for rest := line; ; {
		i := bytes.Index(rest, []byte(`\u00`))
		if i < 0 || i+6 > len(rest) {
			return false
		}
		// s, e, i, o, n are U+0073, 65, 69, 6F, 6E (a hex digit in either case)
		switch hi, lo := rest[i+4], rest[i+5]|0x20; {
		case hi == '7' && lo == '3', hi == '6' && (lo == '5' || lo == '9' || lo == 'f' || lo == 'e'):
			return true
		}
		rest = rest[i+4:]
	}
}

func isType(o Object, typ string) bool { s, _ := o.String("type"); return s == typ }

// activeBranch returns the indexes in entries (entries[0] is the header,
// never returned) of the entries on the path from the root to the last
// entry when the entries form a tree (all have ids), else of all of them.
func activeBranch(entries []Object) []int {
	all := make([]int, 0, len(entries))
	for i := 1; i < len(entries); i++ {
		all = append(all, i)
	}
	byID := make(map[string]int, len(entries))
	for _, i := range all {
		id, ok := entries[i].String("id")
		if !ok || id == "" {
			return all
		}
		byID[id] = i
	}
	if len(all) == 0 {
		return all
	}
	onPath := make([]bool, len(entries))
	for i, steps := len(entries)-1, 0; i >= 1 && !onPath[i] && steps <= len(entries); steps++ {
		onPath[i] = true
		parent, ok := entries[i].String("parentId")
		if !ok {
			break
		}
		next, found := byID[parent]
		if !found {
			break
		}
		i = next
	}
	branch := all[:0]
	for _, i := range all {
		if onPath[i] {
			branch = append(branch, i)
		}
	}
	return branch
}

// sessionVersion is the header's version; a header without one is a
// version 1 file, as the runtime reads it.
func sessionVersion(header Object) int {
	raw, ok := header.Get("version")
	if !ok {
		return 1
	}
	v, err := strconv.Atoi(string(raw))
	if err != nil {
		return 1
	}
	return v
}

// keepPoint returns the position on the branch from which the compaction
// at branch[start] keeps the entries before it, and whether it found one.
// The first kept entry is named by firstKeptEntryId. A version 1 file named
// it by firstKeptEntryIndex, the index of the entry among the file's
// entries (the header is 0); the runtime's v1→v2 migration turns that into
// the id of that entry when it is not the header and comes before the
// compaction (the migration gives ids in file order, so a later entry has
// none yet), and this reads it the same way.
//
// A keep-point that is missing, names no entry before the compaction on the
// branch, or is out of range keeps nothing before the compaction, as the
// runtime's context builder does (it keeps entries only from the one it
// finds): then start is returned with ok false, and the caller counts it.
func keepPoint(entries []Object, branch []int, start int, v1 bool) (int, bool) {
	comp := entries[branch[start]]
	kept, _ := comp.String("firstKeptEntryId")
	index := -1
	if v1 && kept == "" {
		if raw, ok := comp.Get("firstKeptEntryIndex"); ok {
			if n, err := strconv.Atoi(string(raw)); err == nil && n >= 1 {
				index = n
			}
		}
	}
	if kept == "" && index < 0 {
		return start, false
	}
	for p := range start {
		if index >= 0 && branch[p] == index {
			return p, true
		}
		if eid, _ := entries[branch[p]].String("id"); kept != "" && eid == kept {
			return p, true
		}
	}
	return start, false
}

// appendEntries adds the messages of the entries at the given indexes,
// each message entry's message recorded on tape.
func (t *Transcript) appendEntries(entries []Object, at []int, tape *jsontape.Tape) {
	for _, i := range at {
		e := entries[i]
		typ, _ := e.String("type")
		switch typ {
		case "message":
			if raw, ok := e.Get("message"); ok && len(raw) > 0 && raw[0] == '{' {
				m := messageOf(tape, tape.AddMessage(raw))
				if m.Role() == roleHookMessage {
					m.SetString("role", RoleCustom)
				}
				t.Messages = append(t.Messages, m)
			}
		case "branch_summary":
			fields := []Field{{"role", JSONString("branchSummary")}}
			if s, ok := e.Get("summary"); ok {
				fields = append(fields, Field{"summary", s})
			}
			if ms, ok := entryTime(e); ok {
				fields = append(fields, Field{"timestamp", JSONInt(ms)})
			}
			t.Messages = append(t.Messages, NewMessage(fields...))
		case "custom_message":
			t.Messages = append(t.Messages, customMessage(e))
		case "custom":
			ct, _ := e.String("customType")
			data, _ := e.Get("data")
			t.CustomEntries = append(t.CustomEntries, CustomEntry{CustomType: ct, Data: data})
		}
	}
}

// roleHookMessage is a v2 session's name for the role custom.
const roleHookMessage = "hookMessage"

// customMessage is a custom_message entry as the runtime rebuilds it
// (pi's buildSessionContext): {"role":"custom","customType":…,"content":…,
// "display":…,"details":…,"timestamp":ms}, each member present when the
// entry has it, the timestamp turned from the entry's ISO time. The runtime
// sends it to the model as a user message with its content (pi's
// convertToLlm); details stay out of the model's view, as a tool result's do.
func customMessage(e Object) *Message {
	fields := []Field{{"role", JSONString(RoleCustom)}}
	for _, k := range []string{"customType", "content", "display", "details"} {
		if v, ok := e.Get(k); ok {
			fields = append(fields, Field{k, v})
		}
	}
	if ms, ok := entryTime(e); ok {
		fields = append(fields, Field{"timestamp", JSONInt(ms)})
	}
	return NewMessage(fields...)
}

func compactionMessage(e Object) *Message {
	fields := []Field{{"role", JSONString("compactionSummary")}}
	if s, ok := e.Get("summary"); ok {
		fields = append(fields, Field{"summary", s})
	}
	if n, ok := e.Get("tokensBefore"); ok {
		fields = append(fields, Field{"tokensBefore", n})
	}
	if ms, ok := entryTime(e); ok {
		fields = append(fields, Field{"timestamp", JSONInt(ms)})
	}
	return NewMessage(fields...)
}

func entryTime(e Object) (int64, bool) {
	raw, ok := e.Get("timestamp")
	if !ok {
		return 0, false
	}
	return ParseTimestamp(raw)
}

func parseISOTime(s string) (int64, bool) {
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, false
	}
	return tm.UnixMilli(), true
}
