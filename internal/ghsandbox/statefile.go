// Package statefile keeps a value in a JSON file that survives crashes: it is
// read strictly and replaced atomically, so that a restarted process finds
// either the old state or the new one, never a torn or half-understood one.
package ghsandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Read decodes the file at path into v; found is false when there is no
// file yet.
func readStateFile(path string, v any) (found bool, err error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	if err := DecodeStrict(raw, v); err != nil {
		return true, fmt.Errorf("%s: not a state file: %w", path, err)
	}
	return true, nil
}

// Write replaces the file at path with v as indented JSON.
func writeStateFile(path string, v any) error {
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	if err := writeAtomic(path, append(raw, '\n'), syncDir); err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	return nil
}

// writeAtomic sends data to a temporary file in the same directory (a rename
// does not cross file systems), syncs it, renames it over path and syncs the
// directory with syncDir.
func writeAtomic(path string, data []byte, syncDir func(dir string) error) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("create temporary file: %w", err)
	}
	written := false
	defer func() {
		if !written {
			_ = os.Remove(tmp.Name()) // a leftover is harmless; the error that matters is returned
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("sync %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("rename into place: %w", err)
	}
	written = true
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("renamed into place, but a crash may still undo it: %w", err)
	}
	return nil
}

// syncDir makes the entries of dir durable: the rename is an entry of the
// directory, and until the directory itself is synced a crash may bring back
// the old file although the new one was reported saved.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open directory %s: %w", dir, err)
	}
	if err := d.Sync(); err != nil {
		_ = d.Close() // the sync's error is the one that matters
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	if err := d.Close(); err != nil {
		return fmt.Errorf("close directory %s: %w", dir, err)
	}
	return nil
}
