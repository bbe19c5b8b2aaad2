package legacy

import (
	"bytes"
	"time"
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
//   - "message" entries contribute their message object, byte for byte;
//   - the latest "compaction" entry on the branch becomes a
//     {"role":"compactionSummary","summary":…,"timestamp":ms} message placed
//     first, followed by the messages from its firstKeptEntryId (when present
//     on the branch) and then those after it; earlier messages are dropped;
//   - "branch_summary" entries become {"role":"branchSummary",…} messages;
//   - "custom" entries become CustomEntries (replay markers);
//   - other entry types carry no replayable content and are skipped.
//
// JobID and SessionID are the header's id; Tenant is left empty for the
// caller to set.
func DecodeSession(data []byte, target Target, lim Limits) (*Transcript, error) {
	lim = lim.WithDefaults()
	if len(data) > lim.MaxBytes {
		return nil, errorf(CodePayloadTooLarge, "", "session file is %d bytes, over the limit of %d", len(data), lim.MaxBytes)
	}
	if err := target.validate(); err != nil {
		return nil, err
	}
	t := &Transcript{Target: target, InputBytes: len(data), Repair: &RepairReport{}}
	var entries []Object
	invalid := map[*byte]bool{} // the message entries that hold invalid text, by their first byte
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		obj, sp, err := parseObject(line, lim.MaxDepth, "", Parallel{})
		if err != nil {
			t.Repair.DroppedLines++
			continue
		}
		if raw, ok := obj.Get("message"); ok && sp.invalidText && len(raw) > 0 {
			invalid[&raw[0]] = true
		}
		entries = append(entries, obj)
	}
	if len(entries) == 0 {
		return nil, errorf(CodeInvalidJob, "", "empty session file")
	}
	header := entries[0]
	id, _ := header.String("id")
	if typ, _ := header.String("type"); typ != "session" || id == "" {
		return nil, errorf(CodeInvalidJob, "line 1", "invalid session header")
	}
	t.JobID, t.SessionID = id, id
	branch := activeBranch(entries[1:])
	start := -1
	for i := len(branch) - 1; i >= 0; i-- {
		if isType(branch[i], "compaction") {
			start = i
			break
		}
	}
	if start >= 0 {
		t.Messages = append(t.Messages, compactionMessage(branch[start]))
		kept, _ := branch[start].String("firstKeptEntryId")
		from := start + 1
		for i := 0; i < start; i++ {
			if eid, _ := branch[i].String("id"); kept != "" && eid == kept {
				from = i
				break
			}
		}
		t.appendEntries(branch[from:start], invalid)
		t.appendEntries(branch[start+1:], invalid)
	} else {
		t.appendEntries(branch, invalid)
	}
	if len(t.Messages) > lim.MaxMessages {
		return nil, errorf(CodePayloadTooLarge, "messages", "%d messages, over the limit of %d", len(t.Messages), lim.MaxMessages)
	}
	return t, nil
}

func isType(o Object, typ string) bool { s, _ := o.String("type"); return s == typ }

// activeBranch returns the entries on the path from the root to the last
// entry when the entries form a tree (all have ids), else all of them.
func activeBranch(entries []Object) []Object {
	if len(entries) == 0 {
		return entries
	}
	byID := make(map[string]int, len(entries))
	for i, e := range entries {
		id, ok := e.String("id")
		if !ok || id == "" {
			return entries
		}
		byID[id] = i
	}
	onPath := make([]bool, len(entries))
	for i, steps := len(entries)-1, 0; i >= 0 && !onPath[i] && steps <= len(entries); steps++ {
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
	branch := make([]Object, 0, len(entries))
	for i, e := range entries {
		if onPath[i] {
			branch = append(branch, e)
		}
	}
	return branch
}

func (t *Transcript) appendEntries(entries []Object, invalid map[*byte]bool) {
	for _, e := range entries {
		typ, _ := e.String("type")
		switch typ {
		case "message":
			if raw, ok := e.Get("message"); ok && len(raw) > 0 && raw[0] == '{' {
				m := messageFromRaw(raw)
				m.invalidText = invalid[&raw[0]]
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
		case "custom":
			ct, _ := e.String("customType")
			data, _ := e.Get("data")
			t.CustomEntries = append(t.CustomEntries, CustomEntry{CustomType: ct, Data: data})
		}
	}
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
