package payloadstore

import (
	"fmt"
	"strconv"
	"strings"
)

// Parse reads AGENTRUN_PAYLOAD_STORE (store) and
// AGENTRUN_PAYLOAD_STORE_THRESHOLD (threshold, in bytes). An empty store
// leaves every payload inline and returns nil; a threshold without a store
// is a mistake worth saying.
func Parse(store, threshold string) (*Offloader, error) {
	if store == "" {
		if threshold != "" {
			return nil, fmt.Errorf("AGENTRUN_PAYLOAD_STORE_THRESHOLD is set but AGENTRUN_PAYLOAD_STORE is not")
		}
		return nil, nil
	}
	n := DefaultThreshold
	if threshold != "" {
		v, err := strconv.Atoi(threshold)
		if err != nil {
			return nil, fmt.Errorf("AGENTRUN_PAYLOAD_STORE_THRESHOLD: %q is not a number of bytes", threshold)
		}
		n = v
	}
	path, ok := strings.CutPrefix(store, "file:")
	if !ok {
		return nil, fmt.Errorf("AGENTRUN_PAYLOAD_STORE: %q is not file:/absolute/path[?sync=none]", store)
	}
	open := OpenDir
	if path, ok = strings.CutSuffix(path, "?sync=none"); ok {
		open = OpenDirUnsynced
	}
	if strings.Contains(path, "?") {
		return nil, fmt.Errorf("AGENTRUN_PAYLOAD_STORE: %q: the only option is ?sync=none", store)
	}
	dir, err := open(path)
	if err != nil {
		return nil, fmt.Errorf("AGENTRUN_PAYLOAD_STORE: %w", err)
	}
	o, err := New(dir, n)
	if err != nil {
		return nil, fmt.Errorf("AGENTRUN_PAYLOAD_STORE_THRESHOLD: %w", err)
	}
	return o, nil
}
