// Package httpstatus records the status an HTTP handler answered, for the
// request logs and metrics of the programs' servers.
package httpstatus

import "net/http"

// Recorder remembers the first status written (what the client gets; an
// implicit 200 on the first Write). Unwrap lets http.ResponseController
// reach the real writer: the flusher of an event stream, the hijacker of a
// dropped response.
type Recorder struct {
	http.ResponseWriter
	Status int
}

func (r *Recorder) WriteHeader(code int) {
	if r.Status == 0 {
		r.Status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *Recorder) Write(b []byte) (int, error) {
	if r.Status == 0 {
		r.Status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// Unwrap is the writer the Recorder wraps.
func (r *Recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
