package transcript_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// realSessionSeeds are the session files of every shape in
// docs/real-shapes.md (sessiongen.RealCorpus: every API family, header
// versions 1, 2 and 3, foreign turns, stand-ins, extra roles, a compaction
// and a branch), and copies whose compaction keep-point is missing, names an
// entry that does not exist, or (v1) indexes past the file, before it, or
// with a fraction.
func realSessionSeeds() [][]byte {
	corpus := sessiongen.RealCorpus(20, 14)
	names := make([]string, 0, len(corpus))
	for name := range corpus {
		names = append(names, name)
	}
	sort.Strings(names)
	var seeds [][]byte
	for _, name := range names {
		data := corpus[name]
		seeds = append(seeds, data)
		for _, edit := range []func(map[string]any){
			func(e map[string]any) { delete(e, "firstKeptEntryId"); delete(e, "firstKeptEntryIndex") },
			func(e map[string]any) {
				if _, ok := e["firstKeptEntryId"]; ok {
					e["firstKeptEntryId"] = "0badc0de"
				} else {
					e["firstKeptEntryIndex"] = 99999
				}
			},
			func(e map[string]any) { e["firstKeptEntryIndex"] = -1 },
			func(e map[string]any) { e["firstKeptEntryIndex"] = 1.5 },
		} {
			seeds = append(seeds, editCompaction(data, edit))
		}
	}
	return seeds
}

// editCompaction returns the session file with edit applied to its
// compaction entry.
func editCompaction(data []byte, edit func(map[string]any)) []byte {
	lines := bytes.Split(data, []byte("\n"))
	for i, l := range lines {
		if !bytes.Contains(l, []byte(`"type":"compaction"`)) {
			continue
		}
		var e map[string]any
		if json.Unmarshal(l, &e) != nil {
			continue
		}
		edit(e)
		lines[i], _ = transcript.Marshal(e)
	}
	return bytes.Join(lines, []byte("\n"))
}

// realJobSeeds are jobs whose messages are realistic histories for every
// API family and for targets other than the one that wrote them.
func realJobSeeds() [][]byte {
	var seeds [][]byte
	for i, tg := range sessiongen.RealAPIs {
		history := sessiongen.RealShapes(sessiongen.RealConfig{Seed: uint64(40 + i), Target: tg, Turns: 4,
			Foreign: i%2 == 0, StandIns: true, ExtraRoles: true}).History()
		for _, to := range []transcript.Target{tg, sessiongen.RealAPIs[(i+3)%len(sessiongen.RealAPIs)]} {
			seeds = append(seeds, fmt.Appendf(nil, `{"job_id":"job-%d","tenant":"acme","session_id":"agent:main:s%d","target":{"provider":%q,"api":%q,"model":%q},"options":{"now_ms":1776000999000},"messages":%s}`,
				i, i, to.Provider, to.API, to.Model, history))
		}
	}
	return seeds
}

// FuzzDecodeSessionRealShapes is issue 20's property (c) for session files:
// DecodeSession never panics on any input grown from the real shapes, and
// every error it returns carries a code.
func FuzzDecodeSessionRealShapes(f *testing.F) {
	for _, s := range realSessionSeeds() {
		f.Add(s)
	}
	target := transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-5"}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := transcript.DecodeSession(data, target, transcript.Limits{MaxDepth: 64})
		if err != nil {
			if transcript.ErrorCode(err) == "" {
				t.Fatalf("error without a code: %v", err)
			}
			return
		}
		if out := tr.MessagesJSON(); !json.Valid(out) {
			t.Fatalf("the decoded session encodes to invalid JSON: %s", out)
		}
	})
}

// FuzzDecodeJobRealShapes is issue 20's property (c) for jobs: DecodeJob
// never panics on any input grown from realistic histories, every error
// carries a code, and a decoded job's messages encode to valid JSON that
// decodes again.
func FuzzDecodeJobRealShapes(f *testing.F) {
	for _, s := range realJobSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := transcript.DecodeJob(data, transcript.Limits{MaxDepth: 64})
		if err != nil {
			if transcript.ErrorCode(err) == "" {
				t.Fatalf("error without a code: %v", err)
			}
			return
		}
		out := tr.MessagesJSON()
		if !json.Valid(out) {
			t.Fatalf("the decoded job encodes to invalid JSON: %s", out)
		}
		if _, err := transcript.FromMessages(out, tr.Target); err != nil {
			t.Fatalf("the re-encoded messages do not decode: %v", err)
		}
	})
}
