package audit

import (
	"strings"

	"github.com/hygiene-dev/hygiene/internal/pipeline"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
)

// PartCount is how many parts of one kind did not reach the target as
// they were: Dropped had no place in the message model (the parse's
// dropped_<kind>), Replaced became a text that names them (a document,
// an image by URL or file id the target has no place for, an image or a
// document over a limit).
type PartCount struct {
	Dropped  int `json:"dropped"`
	Replaced int `json:"replaced"`
}

// PartImage is the kind of an image given by its bytes that became a
// placeholder (omitted by the image rules, stale, or over the request
// size).
const PartImage = "image"

// partsOf reads, from the chain's report of one input (its counts by stage
// and key), every part dropped or replaced, by kind: the parse's
// dropped_<kind> (a request job: every wire.Loss kind, thought parts,
// compaction items, cache_control, ... as the parser names them), any
// stage's replaced_<kind> (document, image_url, file_id: the stages
// documents and request_size), and the images the image rules replaced
// (images omitted and stale, request_size stale_images). nil when nothing
// was.
func partsOf(stages stage.Counts) map[string]PartCount {
	var parts map[string]PartCount
	add := func(kind string, dropped, replaced int) {
		if dropped+replaced == 0 {
			return
		}
		if parts == nil {
			parts = map[string]PartCount{}
		}
		c := parts[kind]
		c.Dropped += dropped
		c.Replaced += replaced
		parts[kind] = c
	}
	for _, c := range stages.List() {
		st, key, n := c.Stage, c.What, c.N
		switch kind, replaced := strings.CutPrefix(key, "replaced_"); {
		case replaced:
			add(kind, 0, n)
		case st == pipeline.StageParse && strings.HasPrefix(key, "dropped_"):
			add(strings.TrimPrefix(key, "dropped_"), n, 0)
		case st == "images" && (key == "omitted" || key == "stale"),
			st == "stale_media" && key == "images",
			st == "request_size" && key == "stale_images":
			add(PartImage, 0, n)
		}
	}
	return parts
}
