// Package memory is an in-process transport: topics with partitions chosen
// by key hash, and consumer groups whose committed offsets survive a
// simulated crash. It behaves like the Kafka transport for the pipeline's
// fast tests: records with one key stay in order, a Source commits only the
// contiguous acked prefix of each partition (through package checkpoint),
// and after Broker.Crash or a reopen every unacked or nacked record is
// delivered again.
//
// Commits are immediate: an ack that moves a partition's commit point updates
// the group at once, so a crash loses no acked work. A group has at most one
// open Source at a time and it owns every partition of its topic.
//
// May import: internal/compression, internal/transport,
// internal/transport/checkpoint.
package memory

import (
	"fmt"
	"hash/fnv"
	"sync"

	"github.com/hygiene-dev/hygiene/internal/transport"
)

// Broker holds topics and consumer groups. It is safe for concurrent use.
type Broker struct {
	mu      sync.Mutex
	topics  map[string]*topic
	groups  map[groupKey]*group
	changed chan struct{} // closed and replaced on every append, commit and crash
}

type topic struct {
	partitions [][]transport.Record
	next       int // round-robin partition for keyless records
}

type groupKey struct{ topic, group string }

type group struct {
	committed []int64 // next offset to consume, per partition
	open      *Source
}

// NewBroker returns an empty Broker.
func NewBroker() *Broker {
	return &Broker{topics: map[string]*topic{}, groups: map[groupKey]*group{}, changed: make(chan struct{})}
}

// CreateTopic creates name with the given number of partitions. Creating an
// existing topic with the same partition count does nothing.
func (b *Broker) CreateTopic(name string, partitions int) error {
	if partitions <= 0 {
		return fmt.Errorf("memory: topic %q needs at least one partition, got %d", name, partitions)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if t, ok := b.topics[name]; ok {
		if len(t.partitions) != partitions {
			return fmt.Errorf("memory: topic %q exists with %d partitions, not %d", name, len(t.partitions), partitions)
		}
		return nil
	}
	b.topics[name] = &topic{partitions: make([][]transport.Record, partitions)}
	return nil
}

// Records returns a copy of every record of topic, partition by partition in offset order.
func (b *Broker) Records(topicName string) ([]transport.Record, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.topics[topicName]
	if !ok {
		return nil, fmt.Errorf("memory: topic %q does not exist", topicName)
	}
	var out []transport.Record
	for _, p := range t.partitions {
		out = append(out, p...)
	}
	return out, nil
}

// Committed returns the committed offsets (next offset to consume) of group on
// topic, per partition.
func (b *Broker) Committed(topicName, groupID string) []int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	g, ok := b.groups[groupKey{topicName, groupID}]
	if !ok {
		return nil
	}
	return append([]int64(nil), g.committed...)
}

// Crash simulates the crash of group's open Source on topic: the Source is
// closed without any further commit, its pending acks are ignored, and the
// next Source of the group starts from the committed offsets.
func (b *Broker) Crash(topicName, groupID string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	g, ok := b.groups[groupKey{topicName, groupID}]
	if !ok || g.open == nil {
		return
	}
	g.open.detach()
	g.open = nil
	b.notify()
}

// append stores recs on topic, choosing partitions by key hash.
func (b *Broker) append(topicName string, recs []transport.Record) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.topics[topicName]
	if !ok {
		return fmt.Errorf("memory: topic %q does not exist", topicName)
	}
	for _, r := range recs {
		p := t.partitionFor(r.Key)
		stored := transport.Record{
			Key: clone(r.Key), Value: clone(r.Value), Topic: topicName, Partition: p,
			Offset: int64(len(t.partitions[p])),
		}
		for _, h := range r.Headers {
			stored.Headers = append(stored.Headers, transport.Header{Key: h.Key, Value: clone(h.Value)})
		}
		t.partitions[p] = append(t.partitions[p], stored)
	}
	b.notify()
	return nil
}

// partitionFor hashes key with FNV-1a like kafka-go's Hash balancer; keyless
// records go round robin.
func (t *topic) partitionFor(key []byte) int {
	n := len(t.partitions)
	if key == nil {
		t.next = (t.next + 1) % n
		return t.next
	}
	h := fnv.New32a()
	h.Write(key)
	return int(h.Sum32() % uint32(n))
}

// notify wakes every waiter; the caller holds b.mu.
func (b *Broker) notify() {
	close(b.changed)
	b.changed = make(chan struct{})
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}
