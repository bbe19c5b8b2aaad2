package audit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sessionFile is a session whose assistant asks for two tools.
var sessionFile = `{"type":"session","version":3,"id":"9d2c6f0e-5b1a-4c3e-8f7d-2a6b4c8e0f13","timestamp":"2026-04-12T10:15:00.000Z"}
{"type":"message","id":"5e1f0a2b","parentId":null,"message":{"role":"user","content":"Read both files."}}
{"type":"message","id":"6a2b1c3d","parentId":"5e1f0a2b","message":` + assistant("toolUse", toolCall(idA, "read", `{"path":"a"}`), toolCall(idB, "read", `{"path":"b"}`)) + `}
{"type":"message","id":"7b3c2d4e","parentId":"6a2b1c3d","message":` + toolResult(idA, "read", "a") + `}
{"type":"message","id":"8c4d3e5f","parentId":"7b3c2d4e","message":` + toolResult(idB, "read", "b") + `}
`

// dropSecondCall is a stand-in pipeline that loses the second tool call and
// its result, as a broken rule would.
func dropSecondCall(_ context.Context, t *transcript.Transcript) (pipeline.Outcome, error) {
	blocks, _ := t.Messages[1].Blocks()
	t.Messages[1].SetBlocks(blocks[:1])
	t.Messages = t.Messages[:3]
	return pipeline.Outcome{Ready: true}, nil
}

func TestRunFindsTheDropOfAWellFormedCall(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "sub", "a.jsonl"), sessionFile)
	writeFile(t, filepath.Join(dir, "none.jsonl"), `{"type":"session","version":3,"id":"s"}`+"\n"+`{"type":"message","id":"1","parentId":null,"message":{"role":"user","content":"hi"}}`+"\n")
	writeFile(t, filepath.Join(dir, "ignored.txt"), "not a session")
	missing := filepath.Join(dir, "gone.jsonl")
	opts := Options{
		Inputs: []string{dir},
		Read: func(path string) ([]byte, error) {
			if path == missing {
				return nil, os.ErrNotExist
			}
			return os.ReadFile(path)
		},
		Process: dropSecondCall, Concurrency: 2,
	}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Sessions) != 2 {
		t.Fatalf("sessions %+v", rep.Sessions)
	}
	none, a := rep.Sessions[0], rep.Sessions[1]
	if none.Outcome != string(deadletter.CodeInvalidTarget) {
		t.Fatalf("none.jsonl: %+v", none)
	}
	if a.Outcome != OutcomeReady || a.Target != "anthropic/anthropic-messages/claude-opus-4-6" || a.Calls != (Count{In: 2, Out: 1}) || a.Results != (Count{In: 2, Out: 1}) {
		t.Fatalf("a.jsonl: %+v", a)
	}
	if a.ValidDrops != 2 || len(a.Drops) != 2 || a.Drops[0].Kind != KindCall || a.Drops[0].ID != idB || a.Drops[1].Kind != KindResult || a.Drops[1].Message != 3 {
		t.Fatalf("a.jsonl drops %+v", a.Drops)
	}
	if a.Request != nil {
		t.Fatalf("the stand-in rendered nothing, got %+v", a.Request)
	}
	if rep.Totals.ValidDrops != 2 || rep.Totals.Outcomes[string(deadletter.CodeInvalidTarget)] != 1 || rep.Totals.DropsByClass[ClassValidDropped] != 2 {
		t.Fatalf("totals %+v", rep.Totals)
	}

	// A named file that cannot be read, for two targets: one row each, in
	// path order.
	opts.Inputs = []string{filepath.Join(dir, "sub", "a.jsonl"), missing}
	opts.Targets = []transcript.Target{{Provider: "mistral", API: "mistral-conversations", Model: "mistral-large-latest"}, {Provider: "openai", API: "openai-responses", Model: "gpt-5"}}
	writeFile(t, missing, "")
	rep, err = Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Sessions) != 4 || rep.Sessions[0].Outcome != string(deadletter.CodeUnreadable) || rep.Sessions[1].Outcome != string(deadletter.CodeUnreadable) ||
		rep.Sessions[2].Target != "mistral/mistral-conversations/mistral-large-latest" || rep.Sessions[3].Target != "openai/openai-responses/gpt-5" || rep.Sessions[3].ValidDrops != 2 {
		t.Fatalf("sessions %+v", rep.Sessions)
	}
}

// TestRunGoesOnPastAPanic: a panic while one file is audited is that
// file's internal_error; the next file is still audited.
func TestRunGoesOnPastAPanic(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.jsonl"), sessionFile)
	writeFile(t, filepath.Join(dir, "b.jsonl"), strings.Replace(sessionFile, "9d2c6f0e", "1e3d7a1f", 1))
	var calls atomic.Int32
	rep, err := Run(context.Background(), Options{
		Inputs: []string{dir}, Read: os.ReadFile, Concurrency: 1,
		Process: func(ctx context.Context, t *transcript.Transcript) (pipeline.Outcome, error) {
			if calls.Add(1) == 1 {
				panic("slice bounds out of range")
			}
			return dropSecondCall(ctx, t)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Sessions) != 2 || rep.Sessions[0].Outcome != string(deadletter.CodeInternalError) || rep.Sessions[1].Outcome != OutcomeReady {
		t.Fatalf("sessions %+v", rep.Sessions)
	}
}
