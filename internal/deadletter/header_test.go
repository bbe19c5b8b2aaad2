package deadletter

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transport"
)

func h(k, v string) transport.Header { return transport.Header{Key: k, Value: []byte(v)} }

const sessionKey = "acme/3f8a2c71-5b9e-4d06-a1c4-7e2b9d5f0a83"

// Record → Read gives the letter back, and Record → Original the job: its
// key, value byte for byte and own headers, in order.
func TestHeaderRoundTrip(t *testing.T) {
	job := transport.Record{Key: []byte(sessionKey), Value: []byte(`{"job_id":"j-7c1e","tenant":"acme","messages":[`),
		Topic: "hygiene.jobs", Partition: 3, Offset: 18446}
	tests := []struct {
		name    string
		headers []transport.Header
		letter  Letter
	}{
		{"a decode failure", nil,
			Letter{Code: CodeInvalidJSON, Error: "offset 47: unexpected end of input", Stage: "decode", Source: "hygiene.jobs/3/18446"}},
		{"a stage's refusal, the job's own headers kept in order",
			[]transport.Header{h("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"), h("content-encoding", "zstd")},
			Letter{Code: CodeUnsendable, Error: "messages[41].content[2]: the tool_use id toolu_01A09q90qw90lq917835lq9 is not unique (1 violation: unique_tool_use_id)", Stage: "contract", Source: "hygiene.jobs/3/18446"}},
		{"a bug, its stack on the lines after the sentence", []transport.Header{h("x-request-id", "req_011CZ")},
			Letter{Code: CodeInternalError, Error: "stage pairing panicked: index out of range [3] with length 3\ngoroutine 7 [running]:\nmain.f()", Stage: "tool_result_pairing", Source: "hygiene.jobs/0/0"}},
		{"empty fields stay empty", nil, Letter{Code: CodeOutputTooLarge}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := job
			in.Headers = tt.headers
			dl := Record(in, tt.letter)
			if !bytes.Equal(dl.Key, in.Key) || !bytes.Equal(dl.Value, in.Value) {
				t.Fatalf("Record changed the key or value: %q %q", dl.Key, dl.Value)
			}
			got, ok := Read(dl)
			if !ok || got != tt.letter {
				t.Errorf("Read = %+v, %v; want %+v", got, ok, tt.letter)
			}
			orig, err := Original(dl)
			want := transport.Record{Key: in.Key, Value: in.Value, Headers: tt.headers}
			if err != nil || !reflect.DeepEqual(orig, want) {
				t.Errorf("Original = %+v, %v; want %+v", orig, err, want)
			}
		})
	}
}

// A record without hygiene-error-code is no dead letter of the worker's.
func TestReadRefusesARecordWithoutACode(t *testing.T) {
	rec := transport.Record{Key: []byte(sessionKey), Value: []byte(`{}`), Headers: []transport.Header{h(HeaderError, "x")}}
	if l, ok := Read(rec); ok {
		t.Fatalf("Read = %+v, true; want false", l)
	}
}

// The stand-in holds the original's first bytes within maxBytes, its
// length and sha256, the letter's source and its sentence with a note that
// the value is cut; Original refuses it, as it refuses an empty value.
func TestStandIn(t *testing.T) {
	original := bytes.Repeat([]byte(`{"role":"toolResult","toolCallId":"toolu_01A09q90qw90lq917835lq9x"},`), 400)
	job := transport.Record{Key: []byte(sessionKey), Value: original, Headers: []transport.Header{h("content-encoding", "zstd")}}
	letter := Letter{Code: CodePayloadTooLarge, Error: "job is 20971521 bytes, over the limit of 20971520", Stage: "decode", Source: "hygiene.jobs/1/907"}
	sum := sha256.Sum256(original)
	tests := []struct {
		name      string
		maxBytes  int
		wantValue bool // some of the original's bytes fit
	}{
		{"room for the first bytes", 4 << 10, true},
		{"room for the headers only", 450, false},
		{"no room at all (kafka.max_message_bytes 0)", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dl := StandIn(job, letter, tt.maxBytes)
			if !bytes.HasPrefix(original, dl.Value) || (len(dl.Value) > 0) != tt.wantValue {
				t.Fatalf("value of %d bytes: want a prefix of the original, non-empty %v", len(dl.Value), tt.wantValue)
			}
			if tt.wantValue && dl.Size() > tt.maxBytes {
				t.Errorf("stand-in of %d bytes, over %d", dl.Size(), tt.maxBytes)
			}
			if v, _ := dl.Header(HeaderOriginalBytes); string(v) != strconv.Itoa(len(original)) {
				t.Errorf("%s = %q, want %d", HeaderOriginalBytes, v, len(original))
			}
			if v, _ := dl.Header(HeaderOriginalSHA256); string(v) != hex.EncodeToString(sum[:]) {
				t.Errorf("%s = %q", HeaderOriginalSHA256, v)
			}
			got, ok := Read(dl)
			if !ok || got.Code != letter.Code || got.Stage != letter.Stage || got.Source != letter.Source ||
				!strings.HasPrefix(got.Error, letter.Error+" (") || !strings.Contains(got.Error, "first bytes") {
				t.Errorf("Read = %+v, want the letter with a note that the value is cut", got)
			}
			if v, _ := dl.Header("content-encoding"); string(v) != "zstd" {
				t.Errorf("the job's own header is lost: %q", v)
			}
			if _, err := Original(dl); err == nil || !strings.Contains(err.Error(), strconv.Itoa(len(original))) {
				t.Errorf("Original of a stand-in: %v, want an error naming the original's length", err)
			}
		})
	}
	empty := Record(transport.Record{Key: []byte(sessionKey)}, letter)
	if _, err := Original(empty); err == nil {
		t.Error("Original of a letter with an empty value: no error")
	}
}
