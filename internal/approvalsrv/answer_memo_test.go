package approvalsrv

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestMemoForgetsTheOldestAnswersButNeverOneBeingComputed(t *testing.T) {
	m := NewMemo(2)
	calls := map[string]int{}
	answerFor := func(key string) Outcome {
		return m.Do(key, "", func() Outcome { calls[key]++; return Accepted(key) })
	}
	release := make(chan struct{})
	inFlight := make(chan Outcome)
	go func() {
		inFlight <- m.Do("slow", "", func() Outcome { <-release; return Accepted("slow") })
	}()
	require.Eventually(t, func() bool { m.mu.Lock(); defer m.mu.Unlock(); return len(m.answers) == 1 }, 10*time.Second, time.Millisecond)

	answerFor("a")
	answerFor("b")
	answerFor("c")
	close(release)
	require.Equal(t, Accepted("slow"), <-inFlight)
	require.Equal(t, Accepted("slow"), m.Do("slow", "", func() Outcome { return Accepted("again") }),
		"an answer still being computed when it was the oldest is kept")
	answerFor("d")
	answerFor("a")
	answerFor("d")
	require.Equal(t, 2, calls["a"], "past the cap the oldest answer is forgotten")
	require.Equal(t, 1, calls["d"], "the newest answer is remembered")
}

func TestMemoForgetsServerFailuresSoThatARetryIsReal(t *testing.T) {
	m := NewMemo(10)
	first := m.Do("k", "", func() Outcome { return Refused(http.StatusInternalServerError, "internal error") })
	second := m.Do("k", "", func() Outcome { return Accepted("sent") })
	third := m.Do("k", "", func() Outcome { return Accepted("twice") })

	require.Equal(t, http.StatusInternalServerError, first.Code)
	require.Equal(t, Accepted("sent"), second)
	require.Equal(t, Accepted("sent"), third)
}
