package transport

import (
	"errors"
	"testing"
)

func TestRecordAccessors(t *testing.T) {
	r := Record{
		Key: []byte("acme/s1"), Value: []byte("{}"), Topic: "hygiene.jobs", Partition: 3, Offset: 42,
		Headers: []Header{{Key: "a", Value: []byte("1")}, {Key: "a", Value: []byte("2")}},
	}
	if got := r.SourceRef(); got != "hygiene.jobs/3/42" {
		t.Fatalf("SourceRef() = %q", got)
	}
	if v, ok := r.Header("a"); !ok || string(v) != "1" {
		t.Fatalf("Header(a) = %q, %v; want the first value", v, ok)
	}
	if _, ok := r.Header("b"); ok {
		t.Fatal("Header(b) found a missing header")
	}
	if got := r.Size(); got != 7+2+2+2 {
		t.Fatalf("Size() = %d", got)
	}
}

func TestCheckSize(t *testing.T) {
	r := Record{Key: []byte("k"), Value: make([]byte, 99)}
	tests := []struct {
		max     int
		tooLong bool
	}{{max: 100}, {max: 0}, {max: 99, tooLong: true}}
	for _, tt := range tests {
		err := CheckSize(r, tt.max)
		if errors.Is(err, ErrRecordTooLarge) != tt.tooLong {
			t.Errorf("CheckSize(max %d) = %v, want too large %v", tt.max, err, tt.tooLong)
		}
	}
}
