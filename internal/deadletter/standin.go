package deadletter

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/hygiene-dev/hygiene/internal/transport"
)

// StandIn is the dead letter of job cut down to maxBytes (its Size), for
// when the dead-letter topic refuses the original: the value is the
// original's first bytes, as many as fit beside the key and headers; the
// headers add the original's length (HeaderOriginalBytes) and sha256
// (HeaderOriginalSHA256); hygiene-source still names the job's offset; and
// hygiene-error says, after the letter's sentence, that the value is cut.
// Original refuses to give a stand-in back as the job.
func StandIn(job transport.Record, l Letter, maxBytes int) transport.Record {
	l.Error += fmt.Sprintf(" (the original value of %d bytes is larger than the dead-letter topic accepts; this value holds its first bytes, see %s and %s)",
		len(job.Value), HeaderOriginalBytes, HeaderOriginalSHA256)
	dl := Record(job, l)
	sum := sha256.Sum256(job.Value)
	dl.Headers = append(dl.Headers,
		transport.Header{Key: HeaderOriginalBytes, Value: strconv.AppendInt(nil, int64(len(job.Value)), 10)},
		transport.Header{Key: HeaderOriginalSHA256, Value: []byte(hex.EncodeToString(sum[:]))})
	dl.Value = nil
	room := maxBytes - dl.Size()
	dl.Value = job.Value[:max(0, min(room, len(job.Value)))]
	return dl
}
