package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hygiene-dev/hygiene/internal/compression"
	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/transport/kafka"
)

// streamStats is what one end-to-end stream measured.
type streamStats struct {
	done, dead int
	bytes      int64 // input bytes of the jobs that came back ready
	elapsed    time.Duration
	latencies  []time.Duration
}

// outcome is one record seen on the ready or dead-letter topic.
type outcome struct {
	job  int
	dead bool
	at   time.Time
	err  error
}

// stream produces the jobs to jobsTopic with at most window of them not yet
// back, and matches what comes back on readyTopic and dlqTopic by job id,
// until every job is back or load ends. ctx bounds the cleanup.
func stream(load, ctx context.Context, brokers []string, jobsTopic, readyTopic, dlqTopic string, jobs *jobSet, window int) (streamStats, error) {
	cfg := kafka.Config{Brokers: brokers, ClientID: "hygiene-bench"}
	sink, err := kafka.NewSink(kafka.SinkConfig{Config: cfg, Topic: jobsTopic, CompressAbove: -1, MaxMessageBytes: maxMessageBytes})
	if err != nil {
		return streamStats{}, err
	}
	defer sink.Close(ctx)
	results := make(chan outcome, window)
	var readers sync.WaitGroup
	readCtx, stopReading := context.WithCancel(ctx)
	defer func() { stopReading(); readers.Wait() }()
	for _, topic := range []string{readyTopic, dlqTopic} {
		src, err := kafka.NewSource(kafka.SourceConfig{Config: cfg, Topic: topic, GroupID: topic + ".bench", MaxInFlightPerPartition: 1 << 20})
		if err != nil {
			return streamStats{}, err
		}
		readers.Add(1)
		go func() {
			defer readers.Done()
			defer src.Close(context.Background())
			consume(readCtx, src, topic == dlqTopic, results)
		}()
		// The clock starts once the bench's consumers hold their
		// partitions, so no latency includes their group join.
		if err := waitAssigned(load, src, topic); err != nil {
			return streamStats{}, err
		}
	}

	n := len(jobs.values)
	sent := make([]atomic.Int64, n) // send time, Unix nanoseconds
	slots := make(chan struct{}, window)
	produceErr := make(chan error, 1)
	start := time.Now()
	go func() {
		for i := range n {
			select {
			case slots <- struct{}{}:
			case <-load.Done():
				return
			}
			sent[i].Store(time.Now().UnixNano())
			go func() {
				rec := transport.Record{Key: jobs.keys[i], Value: jobs.values[i]}
				if err := sink.Write(load, rec); err != nil && load.Err() == nil {
					select {
					case produceErr <- fmt.Errorf("producing job %d: %w", i, err):
					default:
					}
				}
			}()
		}
	}()

	st := streamStats{}
	seen := make([]bool, n)
	for st.done+st.dead < n {
		select {
		case <-load.Done():
			st.elapsed = time.Since(start)
			return st, nil
		case err := <-produceErr:
			return st, err
		case o := <-results:
			if o.err != nil {
				return st, o.err
			}
			if o.job < 0 || o.job >= n || seen[o.job] {
				continue // a redelivered duplicate
			}
			seen[o.job] = true
			if o.dead {
				st.dead++
			} else {
				st.done++
				st.bytes += int64(len(jobs.values[o.job]))
				st.latencies = append(st.latencies, o.at.Sub(time.Unix(0, sent[o.job].Load())))
			}
			<-slots
		}
	}
	st.elapsed = time.Since(start)
	return st, nil
}

// consume reads src until ctx ends and reports each record's job number.
func consume(ctx context.Context, src *kafka.Source, dead bool, results chan<- outcome) {
	for {
		rec, ack, err := src.Read(ctx)
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, transport.ErrClosed) {
				results <- outcome{err: fmt.Errorf("reading %s: %w", rec.Topic, err)}
			}
			return
		}
		at := time.Now()
		job, err := jobNumber(rec)
		ack(ctx, nil)
		select {
		case results <- outcome{job: job, dead: dead, at: at, err: err}:
		case <-ctx.Done():
			return
		}
	}
}

// jobIDPrefix starts the job id of every generated job: "job-<i>".
var jobIDPrefix = []byte(`"job_id":"job-`)

// jobNumber finds the generated job's number in a ready payload or a dead
// letter (decompressing it first when needed).
func jobNumber(rec transport.Record) (int, error) {
	value := rec.Value
	if compression.IsZstd(value, rec.ContentEncoding()) {
		var err error
		if value, err = compression.Decode(value, rec.ContentEncoding(), 1<<30); err != nil {
			return -1, fmt.Errorf("decompressing an output record: %w", err)
		}
	}
	i := bytes.Index(value, jobIDPrefix)
	if i < 0 {
		return -1, fmt.Errorf("an output record at %s has no job id", rec.SourceRef())
	}
	rest := value[i+len(jobIDPrefix):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return -1, fmt.Errorf("an output record at %s has an unterminated job id", rec.SourceRef())
	}
	return strconv.Atoi(string(rest[:end]))
}

// waitAssigned waits until src holds a stable assignment with partitions.
func waitAssigned(ctx context.Context, src *kafka.Source, topic string) error {
	for !src.Ready() || len(src.Partitions()) == 0 {
		select {
		case <-ctx.Done():
			return fmt.Errorf("the bench's consumer of %s got no partitions before the time cap", topic)
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}
