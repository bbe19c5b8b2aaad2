package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/compression"
	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

const processJob = `{"job_id":"j1","tenant":"acme","session_id":"s1","target":{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"},"options":{"now_ms":5},"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"yo"}]}]}`

// tagUsers is a test rule: it marks every user message.
var tagUsers = stage.Stage{Name: "tag_users", Apply: func(_ context.Context, t *transcript.Transcript, env *stage.Env) error {
	for _, m := range t.Messages {
		if m.Role() == transcript.RoleUser {
			m.Set("tagged", []byte("true"))
			env.Report.Add("tag_users", "tagged", 1)
		}
	}
	return nil
}}

func process(t *testing.T, value []byte, headers []transport.Header, stages ...stage.Stage) Outcome {
	t.Helper()
	p := NewProcessor(config.Default().Limits, ResolverFor(config.Default()), Deps{Stages: stages})
	out, err := p.Process(context.Background(), transport.Record{Value: value, Headers: headers})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestProcessPassesUntouchedMessagesThrough(t *testing.T) {
	out := process(t, []byte(processJob), nil)
	if !out.Ready {
		t.Fatalf("dead letter: %+v", out)
	}
	want := `{"job_id":"j1","tenant":"acme","session_id":"s1","target":{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"},"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"yo"}]}],"report":{"changed":false,"stages":{},"images":{"resized":0,"omitted":0,"stale":0,"bytes_in":0,"bytes_out":0},"pruning":{"ran":false,"soft_trimmed":0,"hard_cleared":0},"bytes_in":` +
		itoa(len(processJob)) + `,"bytes_out":` + itoa(len(`[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"yo"}]}]`)) + `}}`
	if string(out.Payload) != want {
		t.Fatalf("payload\n got %s\nwant %s", out.Payload, want)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestProcessReportsChangesAndIsDeterministic(t *testing.T) {
	a := process(t, []byte(processJob), nil, tagUsers)
	b := process(t, []byte(processJob), nil, tagUsers)
	if !bytes.Equal(a.Payload, b.Payload) {
		t.Fatal("two runs gave different bytes")
	}
	if !a.Report.Changed || a.Report.Stages.Get("tag_users", "tagged") != 1 {
		t.Fatalf("report %+v", a.Report)
	}
	if !strings.Contains(string(a.Payload), `{"role":"user","content":"hi","tagged":true}`) {
		t.Fatalf("payload %s", a.Payload)
	}
}

func TestProcessDecompressesZstd(t *testing.T) {
	z := compression.Encode([]byte(processJob))
	out := process(t, z, []transport.Header{{Key: "content-encoding", Value: []byte("zstd")}})
	if !out.Ready || out.JobID != "j1" {
		t.Fatalf("%+v", out)
	}
}

func TestProcessDeadLetters(t *testing.T) {
	boom := stage.Stage{Name: "boom", Apply: func(context.Context, *transcript.Transcript, *stage.Env) error {
		var m map[string]int
		//lint:ignore SA5000 the bug this stage stands for: writing to a nil map panics, and the processor must recover
		m["x"]++
		return nil
	}}
	bomb := compression.Encode(bytes.Repeat([]byte{'a'}, 80<<20))
	cases := []struct {
		name        string
		value       string
		headers     []transport.Header
		stages      []stage.Stage
		code, stage string
		says        string
	}{
		{"invalid json", `{"job_id":`, nil, nil, "invalid_json", "decode", "unexpected end"},
		{"missing field", `{"job_id":"j","tenant":"t","target":{"provider":"x"},"messages":[]}`, nil, nil, "invalid_job", "decode", "session_id: required"},
		{"empty target", `{"job_id":"j","tenant":"t","session_id":"s","target":{"provider":"","api":""},"messages":[]}`, nil, nil, "invalid_target", "decode", "provider and api are both empty"},
		{"corrupt zstd", "\x28\xb5\x2f\xfdgarbage", nil, nil, "decompression_failed", "decode", ""},
		{"zstd bomb", string(bomb), nil, nil, "payload_too_large", "decode", ""},
		{"bad option", strings.Replace(processJob, `"now_ms":5`, `"now_ms":5,"pruning":{"soft_trim_ratio":3}`, 1), nil, nil, "invalid_job", "decode", "options.pruning.soft_trim_ratio: must be between 0 and 1, got 3"},
		{"panicking stage", processJob, nil, []stage.Stage{tagUsers, boom}, "internal_error", "boom", "stage boom panicked"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := process(t, []byte(c.value), c.headers, c.stages...)
			if out.Ready || string(out.Code) != c.code || out.Stage != c.stage || !strings.Contains(out.Error, c.says) {
				t.Fatalf("got ready=%v code=%q stage=%q error=%q", out.Ready, out.Code, out.Stage, out.Error)
			}
		})
	}
}

func TestProcessHonoursContextCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := NewProcessor(config.Default().Limits, ResolverFor(config.Default()), Deps{Stages: []stage.Stage{tagUsers}})
	if _, err := p.Process(ctx, transport.Record{Value: []byte(processJob)}); err == nil {
		t.Fatal("cancelled context gave an outcome")
	}
}

// mustResolve is the settings cfg's resolver gives tr, which must be valid.
func mustResolve(t *testing.T, cfg config.Config, tr *transcript.Transcript) stage.Settings {
	t.Helper()
	s, err := ResolverFor(cfg)(tr)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestResolverLayers(t *testing.T) {
	cfg := config.Default()
	cfg.Tenants = map[string]config.TenantOverride{"acme": {Images: settings.OverlayOf[settings.Images]("max_dimension_px: 800")}}
	tr, err := transcript.DecodeJob([]byte(strings.Replace(processJob, `"now_ms":5`, `"now_ms":5,"context_window_tokens":1000,"pruning":{"mode":"cache-ttl","last_cache_touch_ms":2,"keep_last_assistants":1}`, 1)), transcript.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	s := mustResolve(t, cfg, tr)
	if s.Images.MaxDimensionPx != 800 || s.Images.MaxBytes != 5242880 {
		t.Fatalf("images %+v", s.Images)
	}
	if s.Pruning.Mode != "cache-ttl" || s.Pruning.LastCacheTouchMs != 2 || s.Pruning.KeepLastAssistants != 1 || s.Pruning.TTL.Milliseconds() != 300000 || s.Pruning.SoftTrim.HeadChars != 1500 {
		t.Fatalf("pruning %+v", s.Pruning)
	}
	if now, ok := s.Request.Now(); !ok || now != 5 || s.Request.ContextWindow() != 1000 {
		t.Fatalf("settings %+v", s)
	}
	if other := mustResolve(t, cfg, &transcript.Transcript{Tenant: "other"}); other.Images.MaxDimensionPx != 1200 || other.Request.NowMs != nil {
		t.Fatalf("other tenant %+v", other.Images)
	}
}
