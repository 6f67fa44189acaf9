package agentworker

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// checkShape holds a decoded JSON value (encoding/json's generic form) to
// the fields and kinds of the Go type it is to be decoded into, and names
// the JSON path of the first thing wrong: encoding/json refuses an unknown
// field without saying where, and matches field names without regard to
// case, which a documented schema should not.
func checkShape(path string, v any, t reflect.Type) error {
	if v == nil {
		return nil // null is the field left unset
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want an object", path)
		}
		fields := jsonFields(t)
		for _, k := range slices.Sorted(maps.Keys(m)) {
			ft, known := fields[k]
			if !known {
				return fmt.Errorf("%s: unknown field %q", joinPath(path, k), k)
			}
			if err := checkShape(joinPath(path, k), m[k], ft); err != nil {
				return err
			}
		}
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want an object", path)
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if err := checkShape(joinPath(path, k), m[k], t.Elem()); err != nil {
				return err
			}
		}
	case reflect.Slice:
		list, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: want an array", path)
		}
		for i, e := range list {
			if err := checkShape(fmt.Sprintf("%s[%d]", path, i), e, t.Elem()); err != nil {
				return err
			}
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			return fmt.Errorf("%s: want a string", path)
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s: want true or false", path)
		}
	case reflect.Int:
		if n, ok := v.(float64); !ok || n != float64(int(n)) {
			return fmt.Errorf("%s: want a whole number", path)
		}
	default:
		return fmt.Errorf("%s: a %s cannot be configured", path, t.Kind())
	}
	return nil
}

// jsonFields are a struct's JSON names and types, embedded structs' fields
// promoted; a field tagged "-" has none.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	fields := map[string]reflect.Type{}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported():
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			for k, ft := range jsonFields(f.Type) {
				fields[k] = ft
			}
		case name == "":
			fields[f.Name] = f.Type
		default:
			fields[name] = f.Type
		}
	}
	return fields
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
