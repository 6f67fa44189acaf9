package testkit

import (
	"sync"

	"go.temporal.io/sdk/log"
)

// TailBuffer keeps the last max bytes written, safe for concurrent use: the
// server's output, shown only when a test fails, or a process's log that a
// test reads while the process still writes it.
type TailBuffer struct {
	mu   sync.Mutex
	max  int
	data []byte
}

// NewTailBuffer keeps the last max bytes.
func NewTailBuffer(max int) *TailBuffer { return &TailBuffer{max: max} }

func (b *TailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.data = append(b.data, p...)
	if over := len(b.data) - b.max; over > 0 {
		b.data = append(b.data[:0], b.data[over:]...)
	}
	return len(p), nil
}

func (b *TailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.data)
}

func quietSDKLogger() log.Logger { return log.NewStructuredLogger(QuietLogger()) }
