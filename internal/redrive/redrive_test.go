package redrive

import (
	"testing"

	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

func h(k, v string) transport.Header { return transport.Header{Key: k, Value: []byte(v)} }

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
