package audit

import (
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
)

// bar is the live display of the files done, on a terminal only: a
// redirected or CI run keeps its stderr for errors (the table is the record).
// It uses the progress bar library of `worker replay` with its options.
type bar struct {
	pb *progressbar.ProgressBar // nil: no display; safe for concurrent use
}

// newBar shows a bar of files on w when it is a terminal.
func newBar(w io.Writer, terminal bool, files int) *bar {
	if w == nil || !terminal {
		return &bar{}
	}
	return &bar{pb: progressbar.NewOptions(files,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(fmt.Sprintf("auditing %d files", files)),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)}
}

func (b *bar) add() {
	if b.pb == nil {
		return
	}
	_ = b.pb.Add(1)
}

func (b *bar) finish() {
	if b.pb != nil {
		_ = b.pb.Finish()
	}
}
