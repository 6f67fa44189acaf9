package ghsandbox

import (
	"bytes"
	"fmt"
	"io"
	"net/http"

	"github.com/agentrun/agentrun/internal/ghsandbox/wire"
)

// The /_sandbox endpoints drive the sandbox from outside the process: the
// fault suite and manual experiments use them.

func (s *Server) listFaultsHandler(w http.ResponseWriter, r *http.Request) {
	writeControlJSON(w, http.StatusOK, s.Faults())
}

// addFaultsHandler accepts one fault object or an array of them.
func (s *Server) addFaultsHandler(w http.ResponseWriter, r *http.Request) {
	faults, err := decodeFaults(http.MaxBytesReader(w, r.Body, wire.MaxRequestBody))
	if err == nil {
		err = s.addFaults(faults)
	}
	if err != nil {
		writeControlJSON(w, http.StatusBadRequest, map[string]string{"message": "bad fault: " + err.Error()})
		return
	}
	writeControlJSON(w, http.StatusCreated, s.Faults())
}

func decodeFaults(r io.Reader) ([]Fault, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, fmt.Errorf("empty body; send a fault object or an array of them")
	}
	var faults []Fault
	if raw[0] == '[' {
		err = wire.DecodeStrict(raw, &faults)
	} else {
		var f Fault
		err = wire.DecodeStrict(raw, &f)
		faults = []Fault{f}
	}
	if err != nil {
		return nil, err
	}
	return faults, nil
}

func (s *Server) clearFaultsHandler(w http.ResponseWriter, r *http.Request) {
	s.ClearFaults()
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) listRequestsHandler(w http.ResponseWriter, r *http.Request) {
	writeControlJSON(w, http.StatusOK, s.Requests())
}

func (s *Server) clearRequestsHandler(w http.ResponseWriter, r *http.Request) {
	s.ClearRequests()
	w.WriteHeader(http.StatusNoContent)
}

func writeControlJSON(w http.ResponseWriter, status int, v any) {
	wire.JSON(status, v).Write(w)
}
