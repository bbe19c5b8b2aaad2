package redrive

import (
	"reflect"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

func h(k, v string) transport.Header { return transport.Header{Key: k, Value: []byte(v)} }

func TestStandIn(t *testing.T) {
	tests := []struct {
		name   string
		letter transport.Record
		want   bool
	}{
		{"an original", transport.Record{Value: []byte(`{"job_id":"a"}`)}, false},
		{"a stand-in with the first bytes", transport.Record{Value: []byte(`{"job_id":"a","mess`), Headers: []transport.Header{h(deadletter.HeaderOriginalBytes, "20971520")}}, true},
		{"value left out", transport.Record{Headers: []transport.Header{h(deadletter.HeaderErrorCode, "payload_too_large")}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := StandIn(tt.letter)
			if got != tt.want || got == (why == "") {
				t.Errorf("StandIn = %v, %q; want %v with a reason when true", got, why, tt.want)
			}
		})
	}
}

// Original keeps the job's own headers, in order, and drops the worker's.
func TestOriginalDropsTheDeadLetterHeaders(t *testing.T) {
	job := transport.Record{Key: []byte("acme/s"), Value: []byte(`{"job_id":"a"}`),
		Headers: []transport.Header{h("traceparent", "00-x"), h("content-encoding", "zstd")}}
	letter := pipeline.DeadLetter(job, pipeline.Outcome{Code: "invalid_job", Error: "messages: missing", Stage: "decode"})
	if got := Original(letter); !reflect.DeepEqual(got, transport.Record{Key: job.Key, Value: job.Value, Headers: job.Headers}) {
		t.Fatalf("Original = %+v, want %+v", got, job)
	}
}

func TestFilters(t *testing.T) {
	letter := transport.Record{Key: []byte("acme/s1"), Headers: []transport.Header{h(deadletter.HeaderErrorCode, "invalid_job")}}
	tests := []struct {
		codes, tenants []string
		want           bool
	}{
		{nil, nil, true},
		{[]string{"invalid_job"}, nil, true},
		{[]string{"invalid_json", "payload_too_large"}, nil, false},
		{nil, []string{"beta", "acme"}, true},
		{nil, []string{"acm"}, false},
		{[]string{"invalid_job"}, []string{"beta"}, false},
	}
	for _, tt := range tests {
		if got := (Config{Codes: tt.codes, Tenants: tt.tenants}).matches(letter); got != tt.want {
			t.Errorf("codes %v tenants %v: matches = %v, want %v", tt.codes, tt.tenants, got, tt.want)
		}
	}
}
