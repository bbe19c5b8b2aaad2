package kafka

import (
	"context"
	"errors"
	"fmt"
	"time"

	kafkago "github.com/segmentio/kafka-go"
)

// EnsureTopics creates every topic in topics that does not exist yet, with
// the given number of partitions and the broker's default replication
// factor, on a plaintext cluster at brokers, and waits until each has a
// leader for every partition. Existing topics are left as they are.
func EnsureTopics(ctx context.Context, brokers []string, topics []string, partitions int) error {
	return Config{Brokers: brokers}.EnsureTopics(ctx, topics, partitions)
}

// EnsureTopics is the package-level EnsureTopics for a cluster that needs
// TLS or SASL.
func (c Config) EnsureTopics(ctx context.Context, topics []string, partitions int) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if partitions <= 0 {
		return fmt.Errorf("kafka: topics need at least one partition, got %d", partitions)
	}
	tr, err := c.transport()
	if err != nil {
		return err
	}
	defer tr.CloseIdleConnections()
	client := &kafkago.Client{Addr: kafkago.TCP(c.Brokers...), Transport: tr, Timeout: c.withDefaults().DialTimeout}

	req := &kafkago.CreateTopicsRequest{}
	for _, t := range topics {
		req.Topics = append(req.Topics, kafkago.TopicConfig{Topic: t, NumPartitions: partitions, ReplicationFactor: -1})
	}
	resp, err := client.CreateTopics(ctx, req)
	if err != nil {
		return fmt.Errorf("kafka: creating topics %v: %w", topics, err)
	}
	for topic, terr := range resp.Errors {
		if terr != nil && !errors.Is(terr, kafkago.TopicAlreadyExists) {
			return fmt.Errorf("kafka: creating topic %q: %w", topic, terr)
		}
	}
	return waitForLeaders(ctx, client, topics)
}

// waitForLeaders polls until every partition of topics has a leader that
// answers a ListOffsets request (metadata can name a leader before it has
// loaded the partition, and a produce then fails).
func waitForLeaders(ctx context.Context, client *kafkago.Client, topics []string) error {
	for {
		meta, err := client.Metadata(ctx, &kafkago.MetadataRequest{Topics: topics})
		if err == nil && allLed(meta, len(topics)) {
			if err = offsetsAnswer(ctx, client, meta); err == nil {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			if err == nil {
				err = errors.New("some partitions have no leader yet")
			}
			return fmt.Errorf("kafka: waiting for topics %v: %w (%v)", topics, ctx.Err(), err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func allLed(meta *kafkago.MetadataResponse, want int) bool {
	if len(meta.Topics) != want {
		return false
	}
	for _, t := range meta.Topics {
		if t.Error != nil || len(t.Partitions) == 0 {
			return false
		}
		for _, p := range t.Partitions {
			if p.Error != nil || p.Leader.ID < 0 || p.Leader.Host == "" {
				return false
			}
		}
	}
	return true
}

// offsetsAnswer asks every partition in meta for its first offset.
func offsetsAnswer(ctx context.Context, client *kafkago.Client, meta *kafkago.MetadataResponse) error {
	req := &kafkago.ListOffsetsRequest{Topics: map[string][]kafkago.OffsetRequest{}}
	for _, t := range meta.Topics {
		for _, p := range t.Partitions {
			req.Topics[t.Name] = append(req.Topics[t.Name], kafkago.FirstOffsetOf(p.ID))
		}
	}
	resp, err := client.ListOffsets(ctx, req)
	if err != nil {
		return err
	}
	for topic, parts := range resp.Topics {
		for _, p := range parts {
			if p.Error != nil {
				return fmt.Errorf("partition %s/%d: %w", topic, p.Partition, p.Error)
			}
		}
	}
	return nil
}
