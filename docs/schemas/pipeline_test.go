package schemas_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/hygiene-dev/hygiene/docs/schemas"
	"github.com/hygiene-dev/hygiene/docs/schemas/schematest"
	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/metrics"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/pipeline/pipelinetest"
	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/transport/memory"
)

// renamedTool is a job whose history calls a tool by a name Anthropic
// refuses (a Gemini session moving to Claude): its payload maps the name
// back under tool_names.
const renamedTool = `{"job_id":"renamed-tool","tenant":"acme","session_id":"agent:main:cli:9",
 "target":{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"},
 "options":{"render":"request","tools":[{"name":"browser.open","input_schema":{"type":"object"}}],
  "next":[{"role":"user","content":"Go on.","timestamp":1776000903000}]},
 "messages":[{"role":"user","content":"Open the docs.","timestamp":1776000900000},
  {"role":"assistant","content":[{"type":"toolCall","id":"call_a1","name":"browser.open","arguments":{"url":"https://go.dev"}}],
   "api":"google-generative-ai","provider":"google","model":"gemini-2.5-pro","stopReason":"toolUse","timestamp":1776000901000},
  {"role":"toolResult","toolCallId":"call_a1","toolName":"browser.open","content":[{"type":"text","text":"The Go site."}],"isError":false,"timestamp":1776000902000}]}`

// wrongJob is a job the worker refuses, with the dead-letter code it gives
// and the field its sentence names ("" for the whole job).
type wrongJob struct {
	name, job string
	code      deadletter.Code
	field     string
}

const okTarget = `"target":{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"}`
const okMessages = `"messages":[{"role":"user","content":"hi","timestamp":1776000900000}]`

// withEnvelope is a job of the members given and the usual envelope.
func withEnvelope(members string) string {
	return `{"job_id":"j-1","tenant":"acme","session_id":"s-1",` + members + `}`
}

var wrongJobs = []wrongJob{
	{"not an object", `["job"]`, deadletter.CodeInvalidJob, ""},
	{"no job_id", `{"tenant":"acme","session_id":"s",` + okTarget + `,` + okMessages + `}`, deadletter.CodeInvalidJob, "job_id"},
	{"job_id over 128 bytes", `{"job_id":"` + strings.Repeat("j", 129) + `","tenant":"acme","session_id":"s",` + okTarget + `,` + okMessages + `}`, deadletter.CodeInvalidJob, "job_id"},
	{"job_id not a string", `{"job_id":7,"tenant":"acme","session_id":"s",` + okTarget + `,` + okMessages + `}`, deadletter.CodeInvalidJob, "job_id"},
	{"tenant with a space", `{"job_id":"j","tenant":"acme corp","session_id":"s",` + okTarget + `,` + okMessages + `}`, deadletter.CodeInvalidJob, "tenant"},
	{"empty session_id", `{"job_id":"j","tenant":"acme","session_id":"",` + okTarget + `,` + okMessages + `}`, deadletter.CodeInvalidJob, "session_id"},
	{"a misspelt member", withEnvelope(okTarget + `,"mesages":[]`), deadletter.CodeInvalidJob, "mesages"},
	{"no messages and no request", withEnvelope(okTarget), deadletter.CodeInvalidJob, "messages"},
	{"messages not an array", withEnvelope(okTarget + `,"messages":{}`), deadletter.CodeInvalidJob, "messages"},
	{"messages and a request", withEnvelope(okTarget + `,` + okMessages + `,"request_format":"anthropic","request":{"messages":[]}`), deadletter.CodeInvalidJob, "request"},
	{"a request without its format", withEnvelope(okTarget + `,"request":{"messages":[]}`), deadletter.CodeInvalidJob, "request_format"},
	{"a format without its request", withEnvelope(okTarget + `,"request_format":"anthropic"`), deadletter.CodeInvalidJob, "request"},
	{"an unknown format", withEnvelope(okTarget + `,"request_format":"claude","request":{"messages":[{"role":"user","content":"hi"}]}`), deadletter.CodeInvalidJob, "request_format"},
	{"a request that is no object", withEnvelope(okTarget + `,"request_format":"anthropic","request":"hi"`), deadletter.CodeInvalidJob, "request"},
	{"no target", withEnvelope(okMessages), deadletter.CodeInvalidTarget, "target"},
	{"a misspelt target member", withEnvelope(`"target":{"provider":"anthropic","modle":"claude-opus-4-6"},` + okMessages), deadletter.CodeInvalidTarget, "target"},
	{"a target without provider and api", withEnvelope(`"target":{"provider":"","api":"","model":"claude-opus-4-6"},` + okMessages), deadletter.CodeInvalidTarget, "target"},
	{"custom entry without customType", withEnvelope(okTarget + `,"custom_entries":[{"data":{}}],` + okMessages), deadletter.CodeInvalidJob, "custom_entries[0].customType"},
	{"options not an object", withEnvelope(okTarget + `,"options":[],` + okMessages), deadletter.CodeInvalidJob, "options"},
	{"an unknown option", withEnvelope(okTarget + `,"options":{"now":1776000900000},` + okMessages), deadletter.CodeInvalidJob, "options"},
	{"now_ms not an integer", withEnvelope(okTarget + `,"options":{"now_ms":"soon"},` + okMessages), deadletter.CodeInvalidJob, "options"},
	{"context window 0", withEnvelope(okTarget + `,"options":{"context_window_tokens":0},` + okMessages), deadletter.CodeInvalidJob, "options.context_window_tokens"},
	{"a worker bound", withEnvelope(okTarget + `,"options":{"images":{"max_frames":1000}},` + okMessages), deadletter.CodeInvalidJob, "options.images.max_frames"},
	{"an unknown image option", withEnvelope(okTarget + `,"options":{"images":{"max_width":800}},` + okMessages), deadletter.CodeInvalidJob, "options.images.max_width"},
	{"an image size of 0", withEnvelope(okTarget + `,"options":{"image_max_dimension_px":0},` + okMessages), deadletter.CodeInvalidJob, "options.image_max_dimension_px"},
	{"an image option both ways", withEnvelope(okTarget + `,"options":{"image_max_bytes":1000,"images":{"max_bytes":2000}},` + okMessages), deadletter.CodeInvalidJob, "options.image_max_bytes"},
	{"a pruning mode", withEnvelope(okTarget + `,"options":{"pruning":{"mode":"always"}},` + okMessages), deadletter.CodeInvalidJob, "options.pruning.mode"},
	{"a ratio over 1", withEnvelope(okTarget + `,"options":{"pruning":{"soft_trim_ratio":3}},` + okMessages), deadletter.CodeInvalidJob, "options.pruning.soft_trim_ratio"},
	{"a negative TTL", withEnvelope(okTarget + `,"options":{"pruning":{"ttl_ms":-1}},` + okMessages), deadletter.CodeInvalidJob, "options.pruning.ttl_ms"},
	{"a blank placeholder", withEnvelope(okTarget + `,"options":{"pruning":{"hard_clear":{"placeholder":" "}}},` + okMessages), deadletter.CodeInvalidJob, "options.pruning.hard_clear.placeholder"},
	{"a blank tool glob", withEnvelope(okTarget + `,"options":{"pruning":{"tools":{"deny":["read",""]}}},` + okMessages), deadletter.CodeInvalidJob, "options.pruning.tools.deny[1]"},
	{"a render mode", withEnvelope(okTarget + `,"options":{"render":"html"},` + okMessages), deadletter.CodeInvalidJob, "options.render"},
	{"a system prompt that is a number", withEnvelope(okTarget + `,"options":{"system":42},` + okMessages), deadletter.CodeInvalidJob, "options.system"},
	{"a tool without a name", withEnvelope(okTarget + `,"options":{"tools":[{"description":"Read a file"}]},` + okMessages), deadletter.CodeInvalidJob, "options.tools[0].name"},
	{"a tool schema that is no object schema", withEnvelope(okTarget + `,"options":{"tools":[{"name":"read","input_schema":{"type":"string"}}]},` + okMessages), deadletter.CodeInvalidJob, "options.tools[0].input_schema"},
	{"a misspelt tool member", withEnvelope(okTarget + `,"options":{"tools":[{"name":"read","parameters":{}}]},` + okMessages), deadletter.CodeInvalidJob, "options"},
	{"an empty next", withEnvelope(okTarget + `,"options":{"next":[]},` + okMessages), deadletter.CodeInvalidJob, "options.next"},
	{"an assistant turn in next", withEnvelope(okTarget + `,"options":{"next":[{"role":"assistant","content":[]}]},` + okMessages), deadletter.CodeInvalidJob, "options.next[0].role"},
	{"next with continue", withEnvelope(okTarget + `,"options":{"continue":true,"next":[{"role":"user","content":"go"}]},` + okMessages), deadletter.CodeInvalidJob, "options.continue"},
	{"a source without its model", withEnvelope(okTarget + `,"options":{"source":"anthropic/anthropic-messages"},"request_format":"anthropic","request":{"messages":[{"role":"user","content":"hi"}]}`), deadletter.CodeInvalidJob, "options.source"},
}

// blames reports whether a schema error's fields name field: that field,
// or a member or item inside it.
func blames(fields []string, field string) bool {
	for _, f := range fields {
		if f == field || strings.HasPrefix(f, field+".") || strings.HasPrefix(f, field+"[") {
			return true
		}
	}
	return false
}

// Each wrong job is refused by the worker with its code and a sentence
// naming the field, and by the job schema for the same field.
func TestWrongJobsAreRefusedForTheWorkersReason(t *testing.T) {
	proc, _ := pipelinetest.Processor(t, config.Default())
	for _, w := range wrongJobs {
		t.Run(w.name, func(t *testing.T) {
			out, err := proc.Process(context.Background(), transport.Record{Key: []byte("acme/s-1"), Value: []byte(w.job), Topic: "hygiene.jobs"})
			if err != nil {
				t.Fatal(err)
			}
			if out.Ready || out.Code != w.code || !strings.Contains(out.Error, w.field) {
				t.Fatalf("the worker: ready %v, %s %q; want %s naming %q", out.Ready, out.Code, out.Error, w.code, w.field)
			}
			err = schematest.Validate(schemas.Job, []byte(w.job))
			if err == nil {
				t.Fatalf("the job schema accepts it; the worker says %s: %s", out.Code, out.Error)
			}
			if fields := schematest.Fields(err); !blames(fields, w.field) {
				t.Errorf("the job schema refuses %v, not %q (the worker: %s)\n%v", fields, w.field, out.Error, err)
			}
		})
	}
}

// Every record the runner writes for the examples, the generated jobs, the
// job with a renamed tool and the wrong jobs (and a value that is not JSON,
// one whose zstd is broken) is valid against its schema: each ready
// payload against the payload schema, each dead letter against the
// dead-letter schema. Together the payloads use every member of the
// payload schema, which has no member they lack: a member the worker
// writes and the schema does not know, or the reverse, fails the test.
func TestPayloadsOverThePipeline(t *testing.T) {
	b := memory.NewBroker()
	for _, topic := range []string{"hygiene.jobs", "hygiene.ready", "hygiene.dlq"} {
		if err := b.CreateTopic(topic, 3); err != nil {
			t.Fatal(err)
		}
	}
	var jobs []transport.Record
	add := func(value []byte, headers ...transport.Header) {
		var env struct{ Tenant, SessionID string }
		_ = json.Unmarshal(value, &struct {
			Tenant    *string `json:"tenant"`
			SessionID *string `json:"session_id"`
		}{&env.Tenant, &env.SessionID})
		jobs = append(jobs, transport.Record{Key: []byte(env.Tenant + "/" + env.SessionID), Value: value, Headers: headers})
	}
	for _, name := range slices.Sorted(maps.Keys(examples(t))) {
		add(examples(t)[name])
	}
	gen := generated(t)
	for _, name := range slices.Sorted(maps.Keys(gen)) {
		add(gen[name])
	}
	add([]byte(renamedTool))
	for _, w := range wrongJobs {
		add([]byte(w.job))
	}
	add([]byte("not json"))
	enc, _ := zstd.NewWriter(nil)
	broken := enc.EncodeAll([]byte(renamedTool), nil)
	enc.Close()
	add(broken[:len(broken)-8], transport.Header{Key: "content-encoding", Value: []byte("zstd")})
	if err := b.NewSink(memory.SinkConfig{Topic: "hygiene.jobs", CompressAbove: -1}).Write(context.Background(), jobs...); err != nil {
		t.Fatal(err)
	}

	src, err := b.NewSource(memory.SourceConfig{Topic: "hygiene.jobs", Group: "hygiene", EndOfInput: true})
	if err != nil {
		t.Fatal(err)
	}
	m, err := metrics.New(prometheus.NewPedanticRegistry())
	if err != nil {
		t.Fatal(err)
	}
	proc, _ := pipelinetest.Processor(t, config.Default())
	cfg := pipeline.RunnerConfigFrom(config.Default(), 2)
	r, err := pipeline.NewRunner(cfg, pipeline.RunnerDeps{Source: src, Processor: proc, Metrics: m,
		Ready: b.NewSink(memory.SinkConfig{Topic: "hygiene.ready", MaxMessageBytes: 64 << 20, CompressAbove: -1}),
		DLQ:   b.NewSink(memory.SinkConfig{Topic: "hygiene.dlq", MaxMessageBytes: 64 << 20, CompressAbove: -1})})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := r.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if err := src.Close(context.Background()); err != nil {
		t.Fatal(err)
	}

	ready, _ := b.Records("hygiene.ready")
	dlq, _ := b.Records("hygiene.dlq")
	if len(ready)+len(dlq) != len(jobs) || len(dlq) < len(wrongJobs)+2 {
		t.Fatalf("%d jobs gave %d ready and %d dead letters", len(jobs), len(ready), len(dlq))
	}
	members := map[string]bool{}
	for _, rec := range ready {
		schematest.Payload(t, rec.Value)
		var top map[string]json.RawMessage
		if err := json.Unmarshal(rec.Value, &top); err != nil {
			t.Fatal(err)
		}
		for k := range top {
			members[k] = true
		}
	}
	codes := map[string]bool{}
	for _, rec := range dlq {
		schematest.DeadLetter(t, rec)
		l, _ := deadletter.Read(rec)
		codes[string(l.Code)] = true
	}
	if want := []string{"decompression_failed", "invalid_job", "invalid_json", "invalid_target"}; !containsAll(codes, want) {
		t.Errorf("the dead letters' codes are %v; want at least %v", slices.Sorted(maps.Keys(codes)), want)
	}
	if got, want := slices.Sorted(maps.Keys(members)), props(schemaDoc(t, schemas.Payload)); !slices.Equal(got, want) {
		t.Errorf("the payloads written use the members %v; the payload schema has %v", got, want)
	}
}

func containsAll(set map[string]bool, want []string) bool {
	for _, w := range want {
		if !set[w] {
			return false
		}
	}
	return true
}

// A value of the dead-letter schema as a client builds it: the stand-in of
// a job too large for the dead-letter topic keeps its headers valid.
func TestStandInIsADeadLetter(t *testing.T) {
	job := transport.Record{Key: []byte("acme/s-1"), Value: []byte(renamedTool), Topic: "hygiene.jobs", Partition: 2, Offset: 907}
	letter := deadletter.Letter{Code: deadletter.CodeOutputTooLarge, Error: "the ready payload is 12582912 bytes, over kafka.max_message_bytes 10485760", Stage: pipeline.StageEncode, Source: fmt.Sprintf("%s/%d/%d", job.Topic, job.Partition, job.Offset)}
	schematest.DeadLetter(t, deadletter.StandIn(job, letter, 600))
	schematest.DeadLetter(t, deadletter.Record(job, letter))
}
