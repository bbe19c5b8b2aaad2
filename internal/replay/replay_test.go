package replay

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/compression"
	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

const goodSession = `{"type":"session","id":"S"}
{"type":"message","message":{"role":"user","content":"hi"}}
{not json
{"type":"message","message":{"role":"assistant","content":[],"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"}}
`

// echo is a stand-in pipeline: the payload names the session and target.
func echo(_ context.Context, t *transcript.Transcript) (pipeline.Outcome, error) {
	p, _ := json.Marshal(map[string]any{"session": t.SessionID, "tenant": t.Tenant, "target": t.Target, "messages": json.RawMessage(t.MessagesJSON())})
	return pipeline.Outcome{Ready: true, Payload: p}, nil
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func opts(in, out string) Options {
	return Options{Inputs: []string{in}, Tenant: "offline", Concurrency: 2, CheckpointPath: filepath.Join(out, ".checkpoint"), Process: echo, Output: DirOutput{Dir: out}}
}

func TestReplayDirectory(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(in, "a.jsonl"), goodSession)
	writeFile(t, filepath.Join(in, "sub", "b.jsonl.zst"), string(compression.Encode([]byte(strings.Replace(goodSession, `"S"`, `"B"`, 1)))))
	writeFile(t, filepath.Join(in, "bad.jsonl"), `{"type":"message"}`)
	writeFile(t, filepath.Join(in, "corrupt.jsonl.zst"), "\x28\xb5\x2f\xfdnot zstd")
	writeFile(t, filepath.Join(in, "notarget.jsonl"), `{"type":"session","id":"N"}`+"\n"+`{"type":"message","message":{"role":"user","content":"x"}}`)
	writeFile(t, filepath.Join(in, "ignored.txt"), "not a session")

	sum, err := Run(context.Background(), opts(in, out))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Found != 5 || sum.Delivered != 2 || sum.RepairedLines != 2 || sum.RepairedFiles != 2 {
		t.Fatalf("summary %+v", sum)
	}
	wantCodes := map[deadletter.Code]int{deadletter.CodeInvalidJob: 1, deadletter.CodeDecompressionFailed: 1, deadletter.CodeInvalidTarget: 1}
	for code, n := range wantCodes {
		if sum.DeadLetters[code] != n {
			t.Fatalf("dead letters %v, want %v", sum.DeadLetters, wantCodes)
		}
	}
	got, err := os.ReadFile(filepath.Join(out, "sub", "b.ready.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), `"session":"B"`) || !strings.Contains(string(got), `"provider":"anthropic"`) || !strings.Contains(string(got), `"tenant":"offline"`) {
		t.Fatalf("payload %s", got)
	}
	if entries, _ := filepath.Glob(filepath.Join(out, ".*.tmp-*")); len(entries) != 0 {
		t.Fatalf("temp files left: %v", entries)
	}
}

func TestReplayTargetFlagOverridesSession(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(in, "a.jsonl"), goodSession)
	o := opts(in, out)
	o.Target = &transcript.Target{Provider: "google", API: "google-generative-ai", Model: "gemini-2.5-pro"}
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(out, "a.ready.json"))
	if !strings.Contains(string(got), `"provider":"google"`) {
		t.Fatalf("payload %s", got)
	}
}

func TestReplayResumeSkipsFinishedSessions(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	for _, n := range []string{"a", "b", "c"} {
		writeFile(t, filepath.Join(in, n+".jsonl"), goodSession)
	}
	// The first run is interrupted after the first session is delivered.
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int32
	o := opts(in, out)
	o.Concurrency = 1
	o.Process = func(c context.Context, t *transcript.Transcript) (pipeline.Outcome, error) {
		if calls.Add(1) > 1 {
			cancel()
			return pipeline.Outcome{}, c.Err()
		}
		return echo(c, t)
	}
	sum, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Interrupted || sum.Delivered != 1 || sum.Remaining != 2 {
		t.Fatalf("first run %+v", sum)
	}
	o = opts(in, out)
	o.Resume = true
	var processed atomic.Int32
	o.Process = func(c context.Context, t *transcript.Transcript) (pipeline.Outcome, error) {
		processed.Add(1)
		return echo(c, t)
	}
	sum, err = Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped != 1 || sum.Delivered != 2 || processed.Load() != 2 {
		t.Fatalf("resume %+v, processed %d", sum, processed.Load())
	}
	// A changed file is replayed again even with --resume.
	writeFile(t, filepath.Join(in, "a.jsonl"), goodSession+"\n")
	processed.Store(0)
	if sum, err = Run(context.Background(), o); err != nil || sum.Skipped != 2 || processed.Load() != 1 {
		t.Fatalf("changed file: %+v %v", sum, err)
	}
}

func TestReplayMissingInput(t *testing.T) {
	if _, err := Run(context.Background(), opts(filepath.Join(t.TempDir(), "nope"), t.TempDir())); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("got %v", err)
	}
}

// A session that does not come out ready has the code the worker gives its
// job, and one whose bytes cannot be read has unreadable: replay invents no
// code of its own, and "ready" is no code.
func TestReplayOneReportsTheWorkersCodes(t *testing.T) {
	dir := t.TempDir()
	const limit = 4 << 10
	big := goodSession + strings.Repeat(`{"type":"message","message":{"role":"user","content":"padding"}}`+"\n", 80)
	bomb := compression.Encode([]byte(big))
	files := map[string]string{
		"good.jsonl":        goodSession,
		"bad.jsonl":         `{"type":"message"}`,
		"notarget.jsonl":    `{"type":"session","id":"N"}` + "\n" + `{"type":"message","message":{"role":"user","content":"x"}}`,
		"big.jsonl":         big,
		"corrupt.jsonl.zst": "\x28\xb5\x2f\xfdnot zstd",
		"bomb.jsonl.zst":    string(bomb),
	}
	for name, data := range files {
		writeFile(t, filepath.Join(dir, name), data)
	}
	tests := []struct {
		file  string
		ready bool
		code  deadletter.Code
	}{
		{"good.jsonl", true, ""},
		{"bad.jsonl", false, deadletter.CodeInvalidJob},
		{"notarget.jsonl", false, deadletter.CodeInvalidTarget},
		{"big.jsonl", false, deadletter.CodePayloadTooLarge},
		{"corrupt.jsonl.zst", false, deadletter.CodeDecompressionFailed},
		{"bomb.jsonl.zst", false, deadletter.CodePayloadTooLarge},
		{"gone.jsonl", false, deadletter.CodeUnreadable},
	}
	o := opts(dir, t.TempDir())
	o.Limits = transcript.Limits{MaxBytes: limit}.WithDefaults()
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			res, err := replayOne(context.Background(), o, SessionFile{Path: filepath.Join(dir, tt.file), Rel: tt.file})
			if err != nil {
				t.Fatal(err)
			}
			if res.ready != tt.ready || res.code != tt.code || tt.ready != (res.reason == "") {
				t.Errorf("result %+v, want ready %v, code %q and a reason when not ready", res, tt.ready, tt.code)
			}
		})
	}
	if len(big) <= limit || len(bomb) >= limit {
		t.Fatalf("fixture sizes: %d plain, %d compressed; want over and under %d", len(big), len(bomb), limit)
	}
}
