package kafka

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/transport/transporttest"
)

// TestCommitErrorsAreCountedAndRetried makes the broker refuse offset
// commits, checks the Source counts the failures without losing the acked
// offsets, then lets commits through and checks they land.
func TestCommitErrorsAreCountedAndRetried(t *testing.T) {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Close)
	var refuse atomic.Bool
	refuse.Store(true)
	cluster.ControlKey(int16(kmsg.OffsetCommit), func(r kmsg.Request) (kmsg.Response, error, bool) {
		cluster.KeepControl()
		if !refuse.Load() {
			return nil, nil, false
		}
		req := r.(*kmsg.OffsetCommitRequest)
		resp := req.ResponseKind().(*kmsg.OffsetCommitResponse)
		resp.Version = req.Version
		for _, rt := range req.Topics {
			st := kmsg.NewOffsetCommitResponseTopic()
			st.Topic = rt.Topic
			for _, rp := range rt.Partitions {
				sp := kmsg.NewOffsetCommitResponseTopicPartition()
				sp.Partition = rp.Partition
				sp.ErrorCode = 14 // COORDINATOR_LOAD_IN_PROGRESS
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})

	brokers := cluster.ListenAddrs()
	h := harness(brokers)
	topic := h.NewTopic(t, 1)
	group := transporttest.Name(t, "group")
	sink := h.NewSink(t, topic, transporttest.SinkOptions{MaxMessageBytes: 1 << 20, CompressAbove: 1 << 14})
	if err := sink.Write(context.Background(),
		transport.Record{Key: []byte("k"), Value: []byte("0")},
		transport.Record{Key: []byte("k"), Value: []byte("1")}); err != nil {
		t.Fatal(err)
	}
	src := newTestSource(t, brokers, topic, group)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for range 2 {
		_, ack, err := src.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := ack(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "a counted commit error", func() bool {
		st := src.Stats()
		return st.CommitErrors > 0 && st.LastCommitError != nil && st.Commits == 0
	})
	refuse.Store(false)
	waitFor(t, "the retried commit to land", func() bool { return src.Stats().Commits > 0 })
	if err := src.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	again := newTestSource(t, brokers, topic, group)
	rctx, rcancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer rcancel()
	if rec, _, err := again.Read(rctx); err == nil {
		t.Fatalf("read %s after every record was acked and committed", rec.SourceRef())
	}
}
