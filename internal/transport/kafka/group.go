package kafka

import (
	"reflect"
	"sort"
	"sync"

	kafkago "github.com/segmentio/kafka-go"
)

// kafka-go's Reader does not expose its consumer-group generations, so the
// Source learns them from the Reader's Logger: these are the exact format
// strings kafka-go v0.4.51 logs at the start and end of a generation. The
// tests against kfake and Apache Kafka check that assignments are seen.
const (
	logJoined     = "joined group %s as member %s in generation %d"
	logSubscribed = "subscribed to topics and partitions: %+v"
	logGenEnded   = "stopped heartbeat for group %s\n"
)

// groupState tracks the Source's current generation and assignment.
type groupState struct {
	topic      string
	onAssigned func(map[int]bool)
	onBoundary func()

	mu         sync.Mutex
	known      bool // an assignment was seen
	stable     bool // between an assignment and the end of its generation
	generation int32
	memberID   string
	partitions map[int]bool
	rebalances int64
}

func newGroupState(topic string, onAssigned func(map[int]bool), onBoundary func()) *groupState {
	return &groupState{topic: topic, onAssigned: onAssigned, onBoundary: onBoundary}
}

// logger returns the kafka-go Logger that feeds g and forwards to next.
func (g *groupState) logger(next kafkago.Logger) kafkago.Logger {
	return kafkago.LoggerFunc(func(format string, args ...interface{}) {
		g.observe(format, args)
		if next != nil {
			next.Printf(format, args...)
		}
	})
}

func (g *groupState) observe(format string, args []interface{}) {
	switch format {
	case logJoined:
		if len(args) == 3 {
			member, _ := args[1].(string)
			gen, _ := args[2].(int32)
			g.mu.Lock()
			g.memberID, g.generation = member, gen
			g.mu.Unlock()
		}
	case logSubscribed:
		if len(args) != 1 {
			return
		}
		parts, ok := partitionsOf(args[0], g.topic)
		if !ok {
			return
		}
		g.mu.Lock()
		g.known, g.stable, g.partitions = true, true, parts
		g.rebalances++
		g.mu.Unlock()
		g.onAssigned(parts)
		g.onBoundary()
	case logGenEnded:
		g.mu.Lock()
		g.stable = false
		g.mu.Unlock()
		g.onBoundary()
	}
}

// partitionsOf reads the partitions of topic from kafka-go's
// map[topicPartition]int64 (fields topic string, partition int32).
func partitionsOf(v interface{}, topic string) (map[int]bool, bool) {
	m := reflect.ValueOf(v)
	if m.Kind() != reflect.Map || m.Type().Key().Kind() != reflect.Struct {
		return nil, false
	}
	tf, ok1 := m.Type().Key().FieldByName("topic")
	pf, ok2 := m.Type().Key().FieldByName("partition")
	if !ok1 || !ok2 || tf.Type.Kind() != reflect.String || pf.Type.Kind() != reflect.Int32 {
		return nil, false
	}
	out := map[int]bool{}
	for _, k := range m.MapKeys() {
		if k.FieldByIndex(tf.Index).String() == topic {
			out[int(k.FieldByIndex(pf.Index).Int())] = true
		}
	}
	return out, true
}

// snapshot returns the assigned partitions (sorted), whether the member is
// in a stable generation, the generation id and the member id.
func (g *groupState) snapshot() (parts []int, stable bool, generation int32, member string, rebalances int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for p := range g.partitions {
		parts = append(parts, p)
	}
	sort.Ints(parts)
	return parts, g.stable, g.generation, g.memberID, g.rebalances
}
