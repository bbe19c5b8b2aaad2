package transporttest

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transport"
)

// testCrashLoop runs rounds of: open a Source, read a random number of
// records, ack them in random order (a few with an error), then crash or
// close. Whatever the interleaving, every record must end up acked with a
// nil error: a transport that commits past an unacked or nacked record loses
// it and never finishes.
func testCrashLoop(t *testing.T, h Harness) {
	const n, keys, maxRounds = 400, 20, 60
	topic := h.NewTopic(t, 4)
	recs := make([]transport.Record, n)
	for i := range recs {
		recs[i] = transport.Record{Key: []byte("key-" + strconv.Itoa(i%keys)), Value: []byte(strconv.Itoa(i))}
	}
	write(t, h.NewSink(t, topic, defaultSink), recs...)

	g := group(t)
	rng := rand.New(rand.NewPCG(7, 11))
	done := map[int]bool{}
	reads := 0
	for round := 0; len(done) < n; round++ {
		if round == maxRounds {
			t.Fatalf("after %d rounds only %d of %d records were acked; some were lost", maxRounds, len(done), n)
		}
		src := h.NewSource(t, topic, g, defaultSource)
		batch := readUpTo(t, h, src, 40+rng.IntN(120))
		reads += len(batch)
		rng.Shuffle(len(batch), func(i, j int) { batch[i], batch[j] = batch[j], batch[i] })
		for _, d := range batch {
			if rng.IntN(50) == 0 {
				ack(t, d, errors.New("transient"))
				continue
			}
			ack(t, d, nil)
			v, _ := strconv.Atoi(string(d.rec.Value))
			done[v] = true
		}
		if round%2 == 0 {
			h.Crash(t, topic, g, src)
		} else {
			closeSource(t, src)
		}
	}
	t.Logf("%d records acked after %d reads (%d redeliveries)", n, reads, reads-n)
}

// readUpTo reads up to max records, stopping early when none arrives within
// h.Quiet after the first one (or h.Wait before it).
func readUpTo(t *testing.T, h Harness, src transport.Source, max int) []delivery {
	t.Helper()
	var out []delivery
	for len(out) < max {
		wait := h.Quiet
		if len(out) == 0 {
			wait = h.Wait
		}
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		rec, ackFn, err := src.Read(ctx)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			if len(out) == 0 {
				t.Fatalf("no record within %s although some are not acked yet", h.Wait)
			}
			return out
		}
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		out = append(out, delivery{rec: rec, ack: ackFn})
	}
	return out
}
