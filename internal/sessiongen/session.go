package sessiongen

import (
	"fmt"
	"strings"
	"time"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// SessionFile returns a realistic history (History's messages) written as a
// pi/OpenClaw session file (JSONL) with the header of the given version, as
// docs/real-shapes.md describes them:
//
//   - 1: pi's linear files. The header carries provider, modelId and
//     thinkingLevel and no version; entries have no id and no parentId; the
//     compaction entry points at its first kept entry with
//     firstKeptEntryIndex, an index into the file's entries (the header is
//     entry 0).
//   - 2: a tree of 8-hex ids and parentIds; the compaction entry has
//     firstKeptEntryId; custom messages are message entries of role
//     hookMessage.
//   - 3: as 2, with custom messages written as custom_message entries
//     (customType, content, display, details: pi's CustomMessageEntry,
//     which the runtime rebuilds as a role custom message) and OpenClaw's
//     thinking_level_change and model-snapshot entries.
//
// Version 1 writes custom messages as custom_message entries too.
//
// Every file has one compaction entry at a turn boundary whose first kept
// entry is a user message, and (versions 2 and 3) an abandoned branch off the
// active one with a branch_summary entry where the active branch goes on.
// Any other version is written as 3.
func (r *Real) SessionFile(version int) []byte {
	ms := r.messages()
	sid := r.uuid()
	start := time.UnixMilli(r.ts - 3600_000).UTC()
	iso := func(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z") }
	t := r.cfg.Target
	var lines []map[string]any
	header := map[string]any{"type": "session", "id": sid, "timestamp": start.Format("2006-01-02T15:04:05.000Z"), "cwd": "/home/user/.openclaw/workspace"}
	switch version {
	case 1:
		header["provider"], header["modelId"], header["thinkingLevel"] = t.Provider, t.Model, "off"
	case 2:
		header["version"] = 2
	default:
		version = 3
		header["version"] = 3
	}
	lines = append(lines, header)
	tree := version >= 2
	ids := map[string]bool{}
	last := ""
	add := func(e map[string]any, parent string) string {
		if !tree {
			lines = append(lines, e)
			return ""
		}
		id := r.pick(hexChars, 8)
		for ids[id] {
			id = r.pick(hexChars, 8)
		}
		ids[id] = true
		e["id"] = id
		if parent == "" {
			e["parentId"] = nil
		} else {
			e["parentId"] = parent
		}
		lines = append(lines, e)
		return id
	}
	now := start.UnixMilli()
	last = add(map[string]any{"type": "model_change", "timestamp": iso(now), "provider": t.Provider, "modelId": t.Model}, "")
	if version == 3 {
		last = add(map[string]any{"type": "thinking_level_change", "timestamp": iso(now), "thinkingLevel": "low"}, last)
		last = add(map[string]any{"type": "custom", "customType": "model-snapshot", "timestamp": iso(now),
			"data": map[string]any{"timestamp": now, "provider": t.Provider, "modelApi": t.API, "modelId": t.Model}}, last)
	}
	// Turn boundaries: the indexes of user messages that follow an answer.
	var users []int
	for i, m := range ms {
		if m["role"] == "user" && (i == 0 || ms[i-1]["role"] != "toolResult") {
			users = append(users, i)
		}
	}
	compactAt, keepFrom, branchAt := -1, -1, -1
	if len(users) >= 4 {
		keepFrom, compactAt, branchAt = users[len(users)/2-1], users[len(users)/2], users[len(users)-1]
	}
	lineOf := map[int]int{} // message index -> line index
	for i, m := range ms {
		ts, _ := m["timestamp"].(int64)
		if i == compactAt {
			e := map[string]any{"type": "compaction", "timestamp": iso(ts - 1), "summary": "## Goal\n" + r.sentence(120), "tokensBefore": 20000 + r.rng.IntN(150000)}
			if tree {
				e["firstKeptEntryId"] = lines[lineOf[keepFrom]]["id"]
			} else {
				e["firstKeptEntryIndex"] = lineOf[keepFrom]
			}
			last = add(e, last)
		}
		if tree && i == branchAt {
			// An abandoned attempt hangs off the last answer; the active
			// branch goes on from the same answer with a summary of it.
			side := add(map[string]any{"type": "message", "timestamp": iso(ts - 2), "message": r.user("abandoned attempt: " + r.sentence(30))}, last)
			add(map[string]any{"type": "message", "timestamp": iso(ts - 1), "message": r.answer(shapeFor(t))}, side)
			last = add(map[string]any{"type": "branch_summary", "timestamp": iso(ts - 1), "fromId": side, "summary": r.sentence(80)}, last)
		}
		lineOf[i] = len(lines)
		if m["role"] == "custom" {
			last = add(customEntry(m, version, iso(ts)), last)
			continue
		}
		last = add(map[string]any{"type": "message", "timestamp": iso(ts), "message": m}, last)
	}
	if version == 3 {
		add(map[string]any{"type": "custom", "customType": "openclaw:bootstrap-context:full", "timestamp": iso(r.ts + 20),
			"data": map[string]any{"timestamp": r.ts + 20, "runId": r.uuid(), "sessionId": sid}}, last)
	}
	var sb strings.Builder
	for _, l := range lines {
		b, err := transcript.Marshal(l)
		if err != nil {
			panic(err) // only maps, strings and numbers are marshalled
		}
		sb.Write(b)
		sb.WriteByte('\n')
	}
	return []byte(sb.String())
}

// customEntry writes a custom message in its file form: a custom_message
// entry (customType, content, display, details; the message's timestamp
// is the entry's), or for version 2 a message entry of role hookMessage,
// the name pi's v3 migration renames.
func customEntry(m map[string]any, version int, iso string) map[string]any {
	if version == 2 {
		m["role"] = "hookMessage"
		return map[string]any{"type": "message", "timestamp": iso, "message": m}
	}
	e := map[string]any{"type": "custom_message", "timestamp": iso}
	for _, k := range []string{"customType", "content", "display", "details"} {
		if v, ok := m[k]; ok {
			e[k] = v
		}
	}
	return e
}

func (r *Real) uuid() string {
	h := r.pick(hexChars, 32)
	return fmt.Sprintf("%s-%s-4%s-%c%s-%s", h[:8], h[8:12], h[13:16], "89ab"[r.rng.IntN(4)], h[17:20], h[20:])
}

// RealCorpus returns n realistic session files, keyed by file name
// (<uuid>.jsonl), for replay and audit runs over a generated directory. They
// cycle through RealAPIs and the header versions 3, 2 and 1, with foreign
// turns, stand-ins and the extra roles on; every fourth ends with a
// delivery mirror (MirrorLast). The same seed gives the same files.
func RealCorpus(seed uint64, n int) map[string][]byte {
	files := make(map[string][]byte, n)
	for i := range n {
		r := RealShapes(RealConfig{Seed: seed + uint64(i), Target: RealAPIs[i%len(RealAPIs)], Turns: 5 + i%4,
			Foreign: true, StandIns: true, ExtraRoles: true, MirrorLast: i%4 == 3})
		data := r.SessionFile([]int{3, 2, 1}[i%3])
		id := data[strings.Index(string(data), `"id":"`)+6:]
		files[string(id[:36])+".jsonl"] = data
	}
	return files
}
