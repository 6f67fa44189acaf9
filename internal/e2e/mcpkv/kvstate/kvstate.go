// Package kvstate is the file mcpkv keeps its store in: mcpkv writes it,
// the end-to-end test reads what each write did.
package kvstate

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
)

// State is the store's file.
type State struct {
	Values map[string]string `json:"values"`
	// Applied counts the writes that changed a key: the effects.
	Applied map[string]int `json:"applied"`
	// Calls counts every put of a key, repeats included.
	Calls map[string]int `json:"calls"`
	// OperationKeys are the keys each put of a key carried.
	OperationKeys map[string][]string `json:"operationKeys"`
	// Lost says the first put's answer was already lost.
	Lost bool `json:"lost"`
}

// Load reads the file at path; a file not written yet is an empty store.
func Load(path string) (State, error) {
	st := State{Values: map[string]string{}, Applied: map[string]int{}, Calls: map[string]int{}, OperationKeys: map[string][]string{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal(data, &st)
}

// Save replaces the file whole, so that a reader never sees half of it.
func Save(path string, st State) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
