package pipeline

import "sync"

// payloadBuffers holds the buffers of ready payloads the runner has
// written to a sink that copied them (Runner.recycle), for the payloads of
// the small jobs that follow (encodeSmall). A small job's payload is its
// largest allocation, a little more than its input, and without the pool
// its buffer is garbage as soon as the sink copied it: on the worker the
// collector's work per job grows with what each job allocates.
var payloadBuffers sync.Pool // of *[]byte

// payloadBuffer returns an empty buffer with room for size bytes: a written
// payload's from payloadBuffers when its capacity is between size and twice
// size (a larger one would hold more memory than the job's payload needs
// while it is in flight), else a new one.
func payloadBuffer(size int) []byte {
	if b, ok := payloadBuffers.Get().(*[]byte); ok && cap(*b) >= size && cap(*b) <= 2*size {
		return (*b)[:0]
	}
	return make([]byte, 0, size)
}

// RecyclePayload gives the buffer of out's ready payload to the payloads
// of the small jobs that follow, as the runner does once its sink copied
// the payload: the caller must hold no reference to out.Payload any more,
// nor to anything that read it. A payload the processor did not make for
// the job (the no-op's is the record's value), or a dead letter's, is left
// alone.
func RecyclePayload(out Outcome) {
	if out.Ready && out.ownPayload {
		recyclePayload(out.Payload)
	}
}

// recyclePayload hands the buffer of a written payload to payloadBuffers,
// unless it is larger than a small job's (encodeSmall's) could be: a long
// history's payload is not kept for jobs that would not fit it. The caller
// must hold no reference to it, nor anything that read it.
func recyclePayload(b []byte) {
	if cap(b) == 0 || cap(b) > maxRecycledPayload {
		return
	}
	b = b[:0]
	payloadBuffers.Put(&b)
}

// maxRecycledPayload is the largest buffer recyclePayload keeps: twice the
// largest payload encodeSmall sizes its buffer for.
const maxRecycledPayload = 2 * (smallPayloadBytes + smallPayloadBytes/4 + 1024)
