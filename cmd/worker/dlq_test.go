package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestParseStart(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		in      string
		want    time.Time
		wantErr bool
	}{
		{"", time.Time{}, false},
		{"2h", now.Add(-2 * time.Hour), false},
		{"2026-11-30T08:00:00Z", time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC), false},
		{"yesterday", time.Time{}, true},
	}
	for _, tt := range tests {
		got, err := parseStart(tt.in, now)
		if (err != nil) != tt.wantErr || !got.Equal(tt.want) {
			t.Errorf("parseStart(%q) = %v, %v; want %v (error %v)", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

// Usage mistakes exit 2 with a reason, before anything is read.
func TestDLQRedriveUsage(t *testing.T) {
	tests := []struct {
		args []string
		env  string
		says string
	}{
		{[]string{"dlq"}, "", "usage: worker dlq redrive"},
		{[]string{"dlq", "purge"}, "", "usage: worker dlq redrive"},
		{[]string{"dlq", "redrive"}, "", "kafka.brokers is not set"},
		{[]string{"dlq", "redrive", "--from-time", "soon"}, "127.0.0.1:1", "--from-time"},
		{[]string{"dlq", "redrive", "--from-time", "1h", "--from-offset", "3"}, "127.0.0.1:1", "not both"},
	}
	for _, tt := range tests {
		t.Setenv("HYGIENE_KAFKA_BROKERS", tt.env)
		var stdout, stderr bytes.Buffer
		if code := dispatch(tt.args, strings.NewReader(""), &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), tt.says) {
			t.Errorf("worker %v: exit %d, stderr %q; want 2 saying %q", tt.args, code, stderr.String(), tt.says)
		}
	}
}
