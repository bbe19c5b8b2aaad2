package pipeline

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestBudget(t *testing.T) {
	b := newBudget(2, 100)
	ctx := context.Background()
	short := func() context.Context {
		c, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
		t.Cleanup(cancel)
		return c
	}
	if err := b.acquireBytes(ctx, 500); err != nil {
		t.Fatalf("an oversize record must be admitted alone: %v", err)
	}
	if err := b.acquireBytes(short(), 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("acquireBytes over the cap = %v, want a wait", err)
	}
	b.release(0, 500)
	if err := b.acquireBytes(ctx, 60); err != nil {
		t.Fatal(err)
	}
	if err := b.acquireBytes(ctx, 40); err != nil {
		t.Fatal(err)
	}
	if err := b.acquireBytes(short(), 1); err == nil {
		t.Fatal("acquireBytes past a full budget succeeded")
	}
	for range 2 {
		if err := b.acquireJob(ctx); err != nil {
			t.Fatal(err)
		}
	}
	got := make(chan error, 1)
	go func() { got <- b.acquireJob(ctx) }()
	b.release(1, 60)
	if err := <-got; err != nil {
		t.Fatalf("acquireJob after a release: %v", err)
	}
	if jobs, bytes := b.inUse(); jobs != 2 || bytes != 40 {
		t.Fatalf("inUse = %d jobs, %d bytes; want 2, 40", jobs, bytes)
	}
	if err := b.drained(short()); err == nil {
		t.Fatal("drained returned while jobs were held")
	}
	b.release(2, 40)
	if err := b.drained(ctx); err != nil {
		t.Fatal(err)
	}
}
