package api

import (
	"encoding/json"
	"fmt"
	"time"
)

// RunInput's durations travel as Go duration strings ("24h0m0s", "5s"), so
// that the input the Temporal UI shows reads as written; a bare number is
// still taken as nanoseconds, which is how histories and clients from before
// carried them.

// jsonDuration is a time.Duration on the wire.
type jsonDuration time.Duration

func (d jsonDuration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

func (d *jsonDuration) UnmarshalJSON(b []byte) error {
	var nanos int64
	if err := json.Unmarshal(b, &nanos); err == nil {
		*d = jsonDuration(nanos)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration: want a string such as \"24h\" or a number of nanoseconds, got %s", b)
	}
	parsed, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration: %w", err)
	}
	*d = jsonDuration(parsed)
	return nil
}

// runInputJSON is RunInput with its durations as strings: the outer fields
// take precedence over the embedded ones of the same JSON name.
type runInputJSON struct {
	runInputFields
	ApprovalTimeout jsonDuration `json:"approvalTimeout,omitempty"`
	ToolTimeout     jsonDuration `json:"toolTimeout,omitempty"`
}

// runInputFields has RunInput's fields without its methods, so that
// marshalling it does not recurse.
type runInputFields RunInput

// MarshalJSON writes the durations as strings, e.g. "approvalTimeout":"24h0m0s".
func (in RunInput) MarshalJSON() ([]byte, error) {
	return json.Marshal(runInputJSON{
		runInputFields:  runInputFields(in),
		ApprovalTimeout: jsonDuration(in.ApprovalTimeout),
		ToolTimeout:     jsonDuration(in.ToolTimeout),
	})
}

// UnmarshalJSON reads durations written either way.
func (in *RunInput) UnmarshalJSON(b []byte) error {
	var v runInputJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*in = RunInput(v.runInputFields)
	in.ApprovalTimeout, in.ToolTimeout = time.Duration(v.ApprovalTimeout), time.Duration(v.ToolTimeout)
	return nil
}
