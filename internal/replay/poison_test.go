package replay

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/stages/sendable"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// compactedSession is a pi v3 session whose compaction has no
// firstKeptEntryId: on main it panicked DecodeSession (issue 20).
var compactedSession = strings.Join([]string{
	`{"type":"session","version":3,"id":"b81d4e2a-6c3f-4a97-8e05-2d9f71c6a4b3","timestamp":"2026-01-09T16:20:00.000Z","cwd":"/home/dev/app"}`,
	`{"type":"message","id":"4f2a9c10","parentId":null,"timestamp":"2026-01-09T16:20:01.000Z","message":{"role":"user","content":[{"type":"text","text":"refactor the parser"}],"timestamp":1767975601000}}`,
	`{"type":"message","id":"8b3e1d72","parentId":"4f2a9c10","timestamp":"2026-01-09T16:21:30.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Done: split into three files."}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":30211,"output":1804,"cacheRead":0,"cacheWrite":0,"totalTokens":32015},"stopReason":"stop","timestamp":1767975690000}}`,
	`{"type":"compaction","id":"c09a7f35","parentId":"8b3e1d72","timestamp":"2026-01-09T16:40:00.000Z","summary":"The user asked for a parser refactor; it was split into three files.","tokensBefore":182344}`,
	`{"type":"message","id":"e6d2b8f1","parentId":"c09a7f35","timestamp":"2026-01-09T16:40:05.000Z","message":{"role":"user","content":[{"type":"text","text":"now add tests"}],"timestamp":1767976805000}}`,
	`{"type":"message","id":"1a7c5e93","parentId":"e6d2b8f1","timestamp":"2026-01-09T16:41:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Added 12 tests."}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":9120,"output":640,"cacheRead":0,"cacheWrite":0,"totalTokens":9760},"stopReason":"stop","timestamp":1767976860000}}`,
}, "\n") + "\n"

// TestReplayGoesPastAPoisonedFile: replay of a directory goes on past a
// file that panics, reports it as that file's internal_error failure,
// writes every other file and ends with a summary; a resumed run tries the
// poisoned file again and is not stuck on it. On main the pi session
// without a keep-point panicked DecodeSession on a replay worker goroutine
// and took the whole run down, with no summary.
func TestReplayGoesPastAPoisonedFile(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(in, "a.jsonl"), goodSession)
	writeFile(t, filepath.Join(in, "compacted.jsonl"), compactedSession)
	writeFile(t, filepath.Join(in, "mirrored.jsonl"), mirroredSession)
	writeFile(t, filepath.Join(in, "z", "poisoned.jsonl"), strings.Replace(goodSession, `"id":"S"`, `"id":"poisoned"`, 1))

	cfg := config.Default()
	proc := pipeline.NewProcessor(cfg.Limits, pipeline.ResolverFor(cfg), pipeline.Deps{Stages: []stage.Stage{sendable.EmptyHistory()}})
	o := opts(in, out)
	o.Process = func(ctx context.Context, t *transcript.Transcript) (pipeline.Outcome, error) {
		if t.SessionID == "poisoned" {
			_ = t.Messages[len(t.Messages)] // a bug: index out of range
		}
		return proc.Sanitize(ctx, t)
	}
	sum, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Found != 4 || sum.Delivered != 3 || len(sum.Failures) != 1 || sum.Interrupted {
		t.Fatalf("summary %+v", sum)
	}
	if f := sum.Failures[0]; !strings.HasSuffix(f.Path, "poisoned.jsonl") || f.Code != deadletter.CodeInternalError || !strings.Contains(f.Reason, "index out of range") {
		t.Fatalf("failure %+v", f)
	}
	for _, name := range []string{"a.ready.json", "compacted.ready.json", "mirrored.ready.json"} {
		data, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "compacted.ready.json" && (!strings.Contains(string(data), `"compaction_keep_points_missing":1`) || !strings.Contains(string(data), "now add tests") || strings.Contains(string(data), "refactor the parser")) {
			t.Fatalf("the compaction without a keep-point was not kept from itself on, and counted:\n%s", data)
		}
	}
	o.Resume = true
	sum, err = Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped != 3 || sum.Delivered != 0 || len(sum.Failures) != 1 || sum.Remaining != 0 {
		t.Fatalf("resumed summary %+v", sum)
	}
}
