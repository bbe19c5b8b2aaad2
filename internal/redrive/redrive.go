// Package redrive sends dead letters back to the jobs topic once their
// cause is fixed (`worker dlq redrive`).
//
// One run reads every partition of the dead-letter topic from its start
// position up to the end offsets it saw when it began, keeps the letters
// that match its filters (hygiene-error-code, tenant), and re-produces each
// one's original key, value and headers (the dead-letter headers removed) to
// the jobs topic. A letter whose value is not the original job (a stand-in,
// see deadletter.Original) is reported and never produced.
//
// A run is idempotent: it reads as a consumer group of its own (Config.Group)
// and commits a partition's position only after the jobs topic acknowledged
// (acks=all) every letter before it, so a run that is stopped and started
// again with the same group goes on where it stopped and produces nothing
// twice, except the batch in flight at a crash (at-least-once, as the
// worker itself; the worker's output for a job is the same bytes either
// way). The group's offsets are committed without joining it (generation
// -1), so the run must not share its group with a consumer.
//
// May import: internal/deadletter, internal/transport,
// internal/transport/kafka.
package redrive

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/transport/kafka"
)

// Config is one redrive run.
type Config struct {
	Kafka     kafka.Config
	DLQTopic  string
	JobsTopic string
	// Group is the run's consumer group; its committed offsets are where a
	// run starts when neither FromOffset nor FromTime is set.
	Group string
	// FromOffset, when >= 0, starts every partition at that offset (or its
	// first offset, when it is later).
	FromOffset int64
	// FromTime, when not zero, starts every partition at its first letter
	// written at or after it. It wins over FromOffset.
	FromTime time.Time
	// Codes and Tenants, when not empty, keep only letters whose
	// hygiene-error-code, or whose key's tenant ("tenant/session_id"), is
	// listed.
	Codes, Tenants []string
	// DryRun reads and reports without producing or committing anything.
	DryRun bool
	// BatchSize is the letters produced per acknowledged write (default 100).
	BatchSize int
	// MaxMessageBytes caps a record produced to the jobs topic.
	MaxMessageBytes int
	// Progress, when set, is told the counts after every batch.
	Progress func(Summary)
}

// Summary counts one run's letters.
type Summary struct {
	// Read is every letter read; Matched passed the filters; Redriven were
	// produced (with DryRun: would have been).
	Read, Matched, Redriven int
	// StandIns are the source refs (topic/partition/offset) of matching
	// letters whose value is not the original job: reported, not produced.
	StandIns []string
	// ByCode counts redriven letters by hygiene-error-code.
	ByCode map[string]int
	// Partitions is the number of partitions with letters to read; Done
	// counts those read to their end.
	Partitions, Done int
}

// Run redrives the letters of cfg and returns what it did. The error names
// the first failure; letters acknowledged before it stay committed.
func Run(ctx context.Context, cfg Config) (Summary, error) {
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 100
	}
	sum := Summary{ByCode: map[string]int{}}
	client, dialer, err := cfg.Kafka.Client()
	if err != nil {
		return sum, err
	}
	defer client.Transport.(*kafkago.Transport).CloseIdleConnections()
	spans, err := positions(ctx, client, cfg)
	if err != nil {
		return sum, err
	}
	for _, s := range spans {
		if s.start < s.end {
			sum.Partitions++
		}
	}
	var sink *kafka.Sink
	if !cfg.DryRun {
		if sink, err = kafka.NewSink(kafka.SinkConfig{Config: cfg.Kafka, Topic: cfg.JobsTopic,
			MaxMessageBytes: cfg.MaxMessageBytes, CompressAbove: -1}); err != nil {
			return sum, err
		}
		defer sink.Close(context.Background())
	}
	for _, s := range spans {
		if s.start >= s.end {
			continue
		}
		if err := redrivePartition(ctx, client, dialer, sink, cfg, s, &sum); err != nil {
			return sum, err
		}
		sum.Done++
		report(cfg, sum)
	}
	return sum, nil
}

// span is the offsets [start, end) of one partition a run reads.
type span struct {
	partition  int
	start, end int64
}

// positions finds each partition's start and end offsets.
func positions(ctx context.Context, client *kafkago.Client, cfg Config) ([]span, error) {
	meta, err := client.Metadata(ctx, &kafkago.MetadataRequest{Topics: []string{cfg.DLQTopic}})
	if err != nil {
		return nil, fmt.Errorf("redrive: reading the metadata of %s: %w", cfg.DLQTopic, err)
	}
	if len(meta.Topics) != 1 || meta.Topics[0].Error != nil {
		return nil, fmt.Errorf("redrive: topic %s: %v", cfg.DLQTopic, topicError(meta))
	}
	var parts []int
	for _, p := range meta.Topics[0].Partitions {
		parts = append(parts, p.ID)
	}
	sort.Ints(parts)
	first, err := listOffsets(ctx, client, cfg.DLQTopic, parts, kafkago.FirstOffset)
	if err != nil {
		return nil, err
	}
	last, err := listOffsets(ctx, client, cfg.DLQTopic, parts, kafkago.LastOffset)
	if err != nil {
		return nil, err
	}
	start := first
	switch {
	case !cfg.FromTime.IsZero():
		at, err := listOffsets(ctx, client, cfg.DLQTopic, parts, cfg.FromTime.UnixMilli())
		if err != nil {
			return nil, err
		}
		start = map[int]int64{}
		for _, p := range parts {
			start[p] = at[p]
			if at[p] < 0 { // no letter at or after the time
				start[p] = last[p]
			}
		}
	case cfg.FromOffset >= 0:
		start = map[int]int64{}
		for _, p := range parts {
			start[p] = max(first[p], cfg.FromOffset)
		}
	default:
		committed, err := client.OffsetFetch(ctx, &kafkago.OffsetFetchRequest{GroupID: cfg.Group, Topics: map[string][]int{cfg.DLQTopic: parts}})
		if err != nil {
			return nil, fmt.Errorf("redrive: reading the offsets of group %s: %w", cfg.Group, err)
		}
		// A group that never committed is not found by some brokers
		// (franz-go's kfake); it simply has no offsets.
		if committed.Error != nil && !errors.Is(committed.Error, kafkago.GroupIdNotFound) {
			return nil, fmt.Errorf("redrive: reading the offsets of group %s: %w", cfg.Group, committed.Error)
		}
		start = map[int]int64{}
		for _, p := range parts {
			start[p] = first[p]
		}
		for _, p := range committed.Topics[cfg.DLQTopic] {
			if p.Error == nil && p.CommittedOffset >= 0 {
				start[p.Partition] = max(first[p.Partition], p.CommittedOffset)
			}
		}
	}
	out := make([]span, len(parts))
	for i, p := range parts {
		out[i] = span{partition: p, start: min(start[p], last[p]), end: last[p]}
	}
	return out, nil
}

func topicError(meta *kafkago.MetadataResponse) error {
	if len(meta.Topics) == 1 {
		return meta.Topics[0].Error
	}
	return errors.New("not found")
}

// listOffsets asks each partition's offset at ts (a time in ms, or
// kafkago.FirstOffset / LastOffset).
func listOffsets(ctx context.Context, client *kafkago.Client, topic string, parts []int, ts int64) (map[int]int64, error) {
	req := &kafkago.ListOffsetsRequest{Topics: map[string][]kafkago.OffsetRequest{}}
	for _, p := range parts {
		req.Topics[topic] = append(req.Topics[topic], kafkago.OffsetRequest{Partition: p, Timestamp: ts})
	}
	resp, err := client.ListOffsets(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("redrive: listing the offsets of %s: %w", topic, err)
	}
	out := map[int]int64{}
	for _, po := range resp.Topics[topic] {
		if po.Error != nil {
			return nil, fmt.Errorf("redrive: listing the offsets of %s/%d: %w", topic, po.Partition, po.Error)
		}
		switch ts {
		case kafkago.FirstOffset:
			out[po.Partition] = po.FirstOffset
		case kafkago.LastOffset:
			out[po.Partition] = po.LastOffset
		default:
			out[po.Partition] = -1
			for off := range po.Offsets {
				out[po.Partition] = off
			}
		}
	}
	return out, nil
}

// redrivePartition reads s and produces its matching letters in batches,
// committing after each acknowledged batch.
func redrivePartition(ctx context.Context, client *kafkago.Client, dialer *kafkago.Dialer, sink *kafka.Sink, cfg Config, s span, sum *Summary) error {
	r := kafkago.NewReader(kafkago.ReaderConfig{
		Brokers: cfg.Kafka.Brokers, Topic: cfg.DLQTopic, Partition: s.partition, Dialer: dialer,
		MaxBytes: max(cfg.MaxMessageBytes, 1<<20), MaxWait: 500 * time.Millisecond,
	})
	defer r.Close()
	if err := r.SetOffset(s.start); err != nil {
		return fmt.Errorf("redrive: %s/%d: %w", cfg.DLQTopic, s.partition, err)
	}
	var batch []transport.Record
	var codes []string
	flush := func(next int64) error {
		if !cfg.DryRun {
			if len(batch) > 0 {
				if err := sink.Write(ctx, batch...); err != nil {
					return fmt.Errorf("redrive: producing to %s: %w", cfg.JobsTopic, err)
				}
			}
			if err := commit(ctx, client, cfg, s.partition, next); err != nil {
				return err
			}
		}
		sum.Redriven += len(batch)
		for _, c := range codes {
			sum.ByCode[c]++
		}
		batch, codes = batch[:0], codes[:0]
		report(cfg, *sum)
		return nil
	}
	for off := s.start; off < s.end; {
		msg, err := r.FetchMessage(ctx)
		if err != nil {
			return fmt.Errorf("redrive: reading %s/%d at offset %d: %w", cfg.DLQTopic, s.partition, off, err)
		}
		off = msg.Offset + 1
		if msg.Offset >= s.end {
			break
		}
		rec := recordOf(msg)
		sum.Read++
		if !cfg.matches(rec) {
			continue
		}
		sum.Matched++
		job, err := deadletter.Original(rec)
		if err != nil {
			sum.StandIns = append(sum.StandIns, rec.SourceRef())
			continue
		}
		code, _ := rec.Header(deadletter.HeaderErrorCode)
		batch = append(batch, job)
		codes = append(codes, string(code))
		if len(batch) >= cfg.BatchSize {
			if err := flush(off); err != nil {
				return err
			}
		}
	}
	return flush(s.end)
}

// commit records next as the group's position in partition.
func commit(ctx context.Context, client *kafkago.Client, cfg Config, partition int, next int64) error {
	resp, err := client.OffsetCommit(ctx, &kafkago.OffsetCommitRequest{
		GroupID: cfg.Group, GenerationID: -1,
		Topics: map[string][]kafkago.OffsetCommit{cfg.DLQTopic: {{Partition: partition, Offset: next}}},
	})
	if err == nil {
		for _, p := range resp.Topics[cfg.DLQTopic] {
			err = errors.Join(err, p.Error)
		}
	}
	if err != nil {
		return fmt.Errorf("redrive: committing %s/%d at %d for group %s: %w", cfg.DLQTopic, partition, next, cfg.Group, err)
	}
	return nil
}

func report(cfg Config, sum Summary) {
	if cfg.Progress != nil {
		cfg.Progress(sum)
	}
}

func recordOf(m kafkago.Message) transport.Record {
	rec := transport.Record{Key: m.Key, Value: m.Value, Topic: m.Topic, Partition: m.Partition, Offset: m.Offset}
	for _, h := range m.Headers {
		rec.Headers = append(rec.Headers, transport.Header{Key: h.Key, Value: h.Value})
	}
	return rec
}

// matches applies the filters.
func (cfg Config) matches(rec transport.Record) bool {
	if len(cfg.Codes) > 0 {
		code, _ := rec.Header(deadletter.HeaderErrorCode)
		if !slices.Contains(cfg.Codes, string(code)) {
			return false
		}
	}
	if len(cfg.Tenants) > 0 {
		tenant, _, _ := strings.Cut(string(rec.Key), "/")
		if !slices.Contains(cfg.Tenants, tenant) {
			return false
		}
	}
	return true
}
