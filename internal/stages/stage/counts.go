package stage

import (
	"strconv"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// Counts are a report's counts of changes by rule (a stage's name) and
// kind ("merged", "dropped"), each above zero; it is written as the JSON
// object of objects {"rule":{"kind":n}} with the keys in order, as
// encoding/json writes a map of maps. They are one list in that order,
// not a map per rule: a job counts a handful, and a map each was most of
// a small job's report. The zero Counts is empty.
type Counts struct {
	list []Count
}

// Count is one count of Counts.
type Count struct {
	Stage, What string
	N           int
}

// countsCap is the room for a report's first counts (NewReport's): a
// small job's rules count about two to eight changes.
const countsCap = 8

// add adds n to the count of (stage, what), keeping the list in order.
func (c *Counts) add(stage, what string, n int) {
	i := 0
	for ; i < len(c.list); i++ {
		e := &c.list[i]
		if e.Stage == stage && e.What == what {
			e.N += n
			return
		}
		if e.Stage > stage || e.Stage == stage && e.What > what {
			break
		}
	}
	if c.list == nil {
		c.list = make([]Count, 0, countsCap)
	}
	c.list = append(c.list, Count{})
	copy(c.list[i+1:], c.list[i:])
	c.list[i] = Count{Stage: stage, What: what, N: n}
}

// Get is the count of what by stage (0 when none).
func (c Counts) Get(stage, what string) int {
	for _, e := range c.list {
		if e.Stage == stage && e.What == what {
			return e.N
		}
	}
	return 0
}

// Of is the counts of stage by kind, nil when it counted nothing.
func (c Counts) Of(stage string) map[string]int {
	var m map[string]int
	for _, e := range c.list {
		if e.Stage == stage {
			if m == nil {
				m = map[string]int{}
			}
			m[e.What] = e.N
		}
	}
	return m
}

// Total is the sum of stage's counts. A rule counts every change it
// makes, so a run of it that left its total where it was edited nothing
// (see Env.NoEdit).
func (c Counts) Total(stage string) int {
	n := 0
	for _, e := range c.list {
		if e.Stage == stage {
			n += e.N
		}
	}
	return n
}

// Len is how many stages counted something.
func (c Counts) Len() int {
	n := 0
	for i, e := range c.list {
		if i == 0 || e.Stage != c.list[i-1].Stage {
			n++
		}
	}
	return n
}

// List is every count, ordered by stage then kind; the caller must not
// change it.
func (c Counts) List() []Count { return c.list }

// Map is the counts as a map of stages to their counts by kind.
func (c Counts) Map() map[string]map[string]int {
	m := map[string]map[string]int{}
	for _, e := range c.list {
		if m[e.Stage] == nil {
			m[e.Stage] = map[string]int{}
		}
		m[e.Stage][e.What] = e.N
	}
	return m
}

// MarshalJSON writes the counts as encoding/json writes Map's map.
func (c Counts) MarshalJSON() ([]byte, error) {
	if c.plain() {
		return c.appendJSON(nil), nil
	}
	return transcript.Marshal(c.Map())
}

// String is the counts' JSON, for messages.
func (c Counts) String() string {
	b, _ := c.MarshalJSON()
	return string(b)
}

// appendJSON appends the counts of plain names (plain) as JSON.
func (c Counts) appendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	for i, e := range c.list {
		switch {
		case i == 0:
		case e.Stage != c.list[i-1].Stage:
			dst = append(dst, "},"...)
		default:
			dst = append(dst, ',')
		}
		if i == 0 || e.Stage != c.list[i-1].Stage {
			dst = append(appendKey(dst, e.Stage), '{')
		}
		dst = appendKey(dst, e.What)
		dst = strconv.AppendInt(dst, int64(e.N), 10)
	}
	if len(c.list) > 0 {
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// plain reports whether every name is plain (transcript.PlainString), so
// that appendJSON's order and bytes are encoding/json's: a plain name is
// written as it is, and byte order is the order of its encoding.
func (c Counts) plain() bool {
	for _, e := range c.list {
		if !transcript.PlainString(e.Stage) || !transcript.PlainString(e.What) {
			return false
		}
	}
	return true
}
