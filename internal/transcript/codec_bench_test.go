package transcript

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	gojson "github.com/goccy/go-json"
)

// benchHistory builds a deterministic job of about size bytes: user and
// assistant text, assistant turns with thinking and tool calls, tool
// results, and two 1 MB base64 images.
func benchHistory(size int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the build failed because the linker could not find symbol main in package cmd worker so we retry with verbose flags and read the log file again")
	text := func(n int) string {
		var sb strings.Builder
		for sb.Len() < n {
			sb.WriteString(words[rng.IntN(len(words))])
			sb.WriteByte(' ')
		}
		return sb.String()
	}
	image := func() string {
		raw := make([]byte, 768<<10) // 1 MiB of base64
		for i := range raw {
			raw[i] = byte(rng.Uint32())
		}
		return base64.StdEncoding.EncodeToString(raw)
	}
	var msgs []string
	add := func(v any) {
		b, _ := json.Marshal(v)
		msgs = append(msgs, string(b))
	}
	add(map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "look"}, map[string]any{"type": "image", "data": image(), "mimeType": "image/png"}}, "timestamp": 1})
	total := 2 << 20
	for i := 0; total < size; i++ {
		id := fmt.Sprintf("toolu_%06d", i)
		before := len(msgs)
		add(map[string]any{"role": "user", "content": text(200), "timestamp": 1000 + i})
		add(map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "thinking", "thinking": text(300), "thinkingSignature": "EqQBCkYIBxgCKkA" + text(20)},
			map[string]any{"type": "text", "text": text(120)},
			map[string]any{"type": "toolCall", "id": id, "name": "read", "arguments": map[string]any{"path": "src/main.go", "limit": 400}},
		}, "api": "anthropic-messages", "provider": "anthropic", "model": "claude-opus-4-6", "stopReason": "toolUse",
			"usage": map[string]any{"input": 1200, "output": 85, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1285}, "timestamp": 1000 + i})
		add(map[string]any{"role": "toolResult", "toolCallId": id, "toolName": "read", "content": []any{map[string]any{"type": "text", "text": text(2000)}}, "isError": false, "timestamp": 1000 + i})
		for _, m := range msgs[before:] {
			total += len(m) + 1
		}
		if i == 100 {
			add(map[string]any{"role": "toolResult", "toolCallId": id, "toolName": "screenshot", "content": []any{map[string]any{"type": "image", "data": image(), "mimeType": "image/png"}}, "isError": false})
		}
	}
	return []byte(`{"job_id":"bench","tenant":"acme","session_id":"s","target":{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"},"messages":[` + strings.Join(msgs, ",") + `]}`)
}

// stdJob is the plain encoding/json model of a job: what a straightforward
// implementation without a minimal-copy codec would decode into.
type stdJob struct {
	JobID     string            `json:"job_id"`
	Tenant    string            `json:"tenant"`
	SessionID string            `json:"session_id"`
	Target    map[string]string `json:"target"`
	Messages  []map[string]any  `json:"messages"`
}

// BenchmarkCodec decodes and re-encodes an unchanged 10 MB history with this
// package, and with encoding/json and goccy/go-json into generic maps.
func BenchmarkCodec(b *testing.B) {
	job := benchHistory(10 << 20)
	// transcript-released runs the job as the worker does: its tapes
	// released once the payload is built (pipeline.Processor.Process), so
	// the next decode takes their arrays from the pool.
	for _, name := range []string{"transcript", "transcript-released"} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(job)))
			b.ReportAllocs()
			var out []byte
			for b.Loop() {
				t, err := DecodeJob(job, Limits{})
				if err != nil {
					b.Fatal(err)
				}
				out = t.EncodePayload(out[:0], nil)
				if name == "transcript-released" {
					t.Release()
				}
			}
		})
	}
	b.Run("transcript-touch-all", func(b *testing.B) {
		// Every message parsed and every content block looked at, as the
		// rules do, with nothing changed.
		b.SetBytes(int64(len(job)))
		b.ReportAllocs()
		var out []byte
		for b.Loop() {
			t, err := DecodeJob(job, Limits{})
			if err != nil {
				b.Fatal(err)
			}
			for _, m := range t.Messages {
				if m.Role() == RoleAssistant {
					m.ToolCalls()
				}
			}
			out = t.EncodePayload(out[:0], nil)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(job)))
		b.ReportAllocs()
		for b.Loop() {
			var j stdJob
			if err := json.Unmarshal(job, &j); err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(&j); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("goccy-go-json", func(b *testing.B) {
		b.SetBytes(int64(len(job)))
		b.ReportAllocs()
		for b.Loop() {
			var j stdJob
			if err := gojson.Unmarshal(job, &j); err != nil {
				b.Fatal(err)
			}
			if _, err := gojson.Marshal(&j); err != nil {
				b.Fatal(err)
			}
		}
	})
}
