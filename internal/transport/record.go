package transport

import "strconv"

// Header is one record header. Keys may repeat; Record.Header returns the first.
type Header struct {
	Key   string
	Value []byte
}

// Record is one message: a key (the dispatcher orders by it), a value and
// headers. Topic, Partition and Offset are set on records read from a Source
// and ignored by a Sink.
type Record struct {
	Key, Value []byte
	Headers    []Header
	Topic      string
	Partition  int
	Offset     int64
}

// SourceRef returns "topic/partition/offset", the value of the dead-letter
// header hygiene-source.
func (r Record) SourceRef() string {
	return r.Topic + "/" + strconv.Itoa(r.Partition) + "/" + strconv.FormatInt(r.Offset, 10)
}

// Header returns the value of the first header named key, and whether there is one.
func (r Record) Header(key string) ([]byte, bool) {
	for _, h := range r.Headers {
		if h.Key == key {
			return h.Value, true
		}
	}
	return nil, false
}

// Size is the number of bytes the record occupies on the wire before
// framing: key, value, and every header key and value.
func (r Record) Size() int {
	n := len(r.Key) + len(r.Value)
	for _, h := range r.Headers {
		n += len(h.Key) + len(h.Value)
	}
	return n
}
