package embedded

import (
	"context"
	"encoding/binary"
	"net"
	"slices"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestKilledJoinerIsExpired reproduces the member kfake never expires: a
// new member's JoinGroup waits for the rebalance and its connection closes
// (its process was killed) before the rebalance completes. The leader then
// assigns it partitions. Apache Kafka expires it after its
// session timeout, and the next generation gives every partition to the
// live member; without the reaper that generation never comes.
func TestKilledJoinerIsExpired(t *testing.T) {
	const (
		topic      = "reaped.jobs"
		group      = "reaped"
		partitions = 4
		session    = 6 * time.Second
	)
	b, err := Start(Config{Addr: "127.0.0.1:0", Topics: []string{topic}, Partitions: partitions})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	live, err := kafkago.NewConsumerGroup(kafkago.ConsumerGroupConfig{
		ID: group, Brokers: []string{b.Addr()}, Topics: []string{topic},
		SessionTimeout: session, HeartbeatInterval: time.Second, RebalanceTimeout: 3 * time.Second,
		JoinGroupBackoff: 100 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	gen, err := live.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(gen.Assignments[topic]); n != partitions {
		t.Fatalf("the only member holds %d partitions, want %d", n, partitions)
	}

	// The doomed members: JoinGroups on connections that close before the
	// rebalance they start completes. kfake's reply to a closed connection
	// is lost only about half the time (the connection's reply buffer may
	// still take it, and then its session timer starts), so three members
	// make the case happen in seven runs of eight.
	meta := kmsg.NewConsumerMemberMetadata()
	meta.Topics = []string{topic}
	var doomed []net.Conn
	for i := range 3 {
		conn, err := net.Dial("tcp", b.Addr())
		if err != nil {
			t.Fatal(err)
		}
		doomed = append(doomed, conn)
		join := kmsg.NewPtrJoinGroupRequest()
		join.Version = 3 // before KIP-394's member-id round trip; no flexible encoding
		join.Group = group
		join.SessionTimeoutMillis = int32(session / time.Millisecond)
		join.RebalanceTimeoutMillis = 3000
		join.ProtocolType = "consumer"
		join.Protocols = []kmsg.JoinGroupRequestProtocol{{Name: "range", Metadata: meta.AppendTo(nil)}}
		if _, err := conn.Write(frame(join, int32(i+1))); err != nil {
			t.Fatal(err)
		}
	}
	// Real sockets to a real broker (kfake on its own goroutines), which
	// says nothing when it has read a JoinGroup: no fake clock or condition
	// reaches it, so 200ms of wall time lets it read the three joins before
	// the connections close (the live member has not rejoined yet). A
	// broker slower than that makes the case under test less likely, not
	// the test pass vacuously: the check after the next generation fails.
	time.Sleep(200 * time.Millisecond)
	for _, c := range doomed {
		c.Close()
	}

	gen, err = live.Next(ctx) // the rebalance completes with the dead members in it
	if err != nil {
		t.Fatal(err)
	}
	if n := len(gen.Assignments[topic]); n == partitions {
		t.Fatalf("the live member holds all %d partitions at once: the dead members were not carried into the generation, so this test reproduces nothing", n)
	}
	gen, err = live.Next(ctx)
	if err != nil {
		t.Fatalf("no generation followed the one with the dead members in it: %v", err)
	}
	var got []int
	for _, a := range gen.Assignments[topic] {
		got = append(got, a.ID)
	}
	slices.Sort(got)
	if len(got) != partitions {
		t.Fatalf("after the dead members were expired the live member holds partitions %v, want all %d", got, partitions)
	}
}

// frame encodes req as one request on the wire (header v1: key, version,
// correlation id, client id) with its length prefix.
func frame(req kmsg.Request, correlation int32) []byte {
	body := []byte{0, 0, 0, 0}
	body = binary.BigEndian.AppendUint16(body, uint16(req.Key()))
	body = binary.BigEndian.AppendUint16(body, uint16(req.GetVersion()))
	body = binary.BigEndian.AppendUint32(body, uint32(correlation))
	body = binary.BigEndian.AppendUint16(body, uint16(len("reaper-test")))
	body = append(body, "reaper-test"...)
	body = req.AppendTo(body)
	binary.BigEndian.PutUint32(body, uint32(len(body)-4))
	return body
}
