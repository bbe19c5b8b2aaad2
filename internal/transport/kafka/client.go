package kafka

import (
	kafkago "github.com/segmentio/kafka-go"
)

// Client returns a kafka-go admin client and the Dialer for partition
// readers, both connected as c says (TLS, SASL), for tools that read
// partitions and commit a group's offsets without joining the group
// (`worker dlq redrive`). The caller closes idle connections with
// client.Transport.(*kafkago.Transport).CloseIdleConnections when done.
func (c Config) Client() (*kafkago.Client, *kafkago.Dialer, error) {
	if err := c.Validate(); err != nil {
		return nil, nil, err
	}
	tr, err := c.transport()
	if err != nil {
		return nil, nil, err
	}
	d, err := c.dialer()
	if err != nil {
		return nil, nil, err
	}
	return &kafkago.Client{Addr: kafkago.TCP(c.Brokers...), Transport: tr, Timeout: c.withDefaults().DialTimeout}, d, nil
}
