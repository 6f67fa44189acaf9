package ghsandbox

import (
	"net/http"
)

// The /_sandbox endpoints drive the sandbox from outside the process: the
// fault suite and manual experiments use them.

func (s *Server) listFaultsHandler(w http.ResponseWriter, r *http.Request) {
	writeControlJSON(w, http.StatusOK, s.Faults())
}

// addFaultsHandler accepts one fault object or an array of them.
func (s *Server) addFaultsHandler(w http.ResponseWriter, r *http.Request) {
	queued, err := Decode(http.MaxBytesReader(w, r.Body, MaxRequestBody))
	if err == nil {
		err = s.faults.Add(queued)
	}
	if err != nil {
		writeControlJSON(w, http.StatusBadRequest, map[string]string{"message": "bad fault: " + err.Error()})
		return
	}
	writeControlJSON(w, http.StatusCreated, s.Faults())
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
	JSON(status, v).Write(w)
}
