// Package embedded runs an in-process Kafka-compatible broker (franz-go's
// kfake) for `worker run` without configured brokers and for tests. It speaks
// the Kafka protocol over TCP, so the kafka transport (kafka-go Readers with
// consumer groups, Writers with acks=all) uses it exactly like a real
// cluster. Data lives in memory and is gone after Close. Where kfake's
// group coordinator departs from Apache Kafka's in a way the worker meets
// (a member killed during a rebalance is never expired), the broker corrects
// it from outside (see reaper).
//
// May import: no package of this module.
package embedded

import (
	"errors"
	"fmt"
	"net"
	"strconv"

	"github.com/twmb/franz-go/pkg/kfake"
)

// DefaultAddr is where the embedded broker listens by default.
const DefaultAddr = "127.0.0.1:9092"

// Config configures the embedded broker.
type Config struct {
	// Addr is the host:port to listen on; port 0 picks a free port. Default DefaultAddr.
	Addr string `yaml:"addr"`
	// Topics are created at start, each with Partitions partitions.
	Topics []string `yaml:"topics"`
	// Partitions per topic, also used for auto-created topics. Default 4.
	Partitions int `yaml:"partitions"`
	// MaxMessageBytes is the broker's message.max.bytes. Default 1,048,588.
	MaxMessageBytes int `yaml:"max_message_bytes"`
}

// Broker is a running embedded broker.
type Broker struct {
	cluster *kfake.Cluster
	addr    string
	reaper  *reaper
}

// Start listens on cfg.Addr and creates cfg.Topics.
func Start(cfg Config) (*Broker, error) {
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	if cfg.Partitions == 0 {
		cfg.Partitions = 4
	}
	if cfg.MaxMessageBytes == 0 {
		cfg.MaxMessageBytes = 1_048_588
	}
	if cfg.Partitions < 0 || cfg.MaxMessageBytes < 0 {
		return nil, fmt.Errorf("embedded: partitions (%d) and max_message_bytes (%d) must be positive", cfg.Partitions, cfg.MaxMessageBytes)
	}
	host, portText, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("embedded: listen address %q: %w", cfg.Addr, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return nil, fmt.Errorf("embedded: listen address %q has no numeric port", cfg.Addr)
	}
	listen := func(network, _ string) (net.Listener, error) {
		return net.Listen(network, net.JoinHostPort(host, strconv.Itoa(port)))
	}
	opts := []kfake.Opt{
		kfake.NumBrokers(1),
		kfake.Ports(port),
		kfake.ListenFn(listen),
		kfake.AllowAutoTopicCreation(),
		kfake.DefaultNumPartitions(cfg.Partitions),
		kfake.BrokerConfigs(map[string]string{"message.max.bytes": strconv.Itoa(cfg.MaxMessageBytes)}),
	}
	if len(cfg.Topics) > 0 {
		opts = append(opts, kfake.SeedTopics(int32(cfg.Partitions), cfg.Topics...))
	}
	cluster, err := kfake.NewCluster(opts...)
	if err != nil {
		return nil, fmt.Errorf("embedded: starting the broker on %s: %w", cfg.Addr, err)
	}
	addrs := cluster.ListenAddrs()
	if len(addrs) != 1 {
		cluster.Close()
		return nil, errors.New("embedded: the broker did not report its listen address")
	}
	return &Broker{cluster: cluster, addr: addrs[0], reaper: startReaper(cluster, addrs[0])}, nil
}

// Addr returns the host:port clients use as their bootstrap address.
func (b *Broker) Addr() string { return b.addr }

// Close stops the broker and drops its data.
func (b *Broker) Close() {
	b.reaper.close()
	b.cluster.Close()
}
