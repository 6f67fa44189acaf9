package workflows

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"

	"github.com/agentrun/agentrun/api"
)

// TestEveryCheckpointFieldIsCarriedAcrossContinueAsNew fills every exported
// field of a Checkpoint, at any depth, with a distinct non-zero value, sends
// it through the payload converter as continue-as-new does, restores it into
// a fresh run and checkpoints that run again: nothing may be lost or changed.
// A field added to Checkpoint later is filled, and so covered, without
// touching this test.
func TestEveryCheckpointFieldIsCarriedAcrossContinueAsNew(t *testing.T) {
	var want api.Checkpoint
	fillEveryField(t, reflect.ValueOf(&want).Elem(), new(int))

	payload, err := converter.GetDefaultDataConverter().ToPayload(&want)
	require.NoError(t, err)
	var carried *api.Checkpoint
	require.NoError(t, converter.GetDefaultDataConverter().FromPayload(payload, &carried))
	w := &agentRun{}
	w.restore(carried)

	require.Equal(t, &want, w.checkpoint())
}

var timeType = reflect.TypeOf(time.Time{})

// fillEveryField sets v, and every exported field under it, to a value no
// other field has; a slice gets two elements. It fails on a kind it does not
// know, so that a new kind of field cannot go unchecked.
func fillEveryField(t *testing.T, v reflect.Value, n *int) {
	t.Helper()
	*n++
	switch {
	case v.Type() == timeType:
		v.Set(reflect.ValueOf(time.Date(2026, 12, 1, 0, 0, *n, 0, time.UTC)))
		return
	case v.Type() == reflect.TypeOf(json.RawMessage(nil)):
		v.SetBytes([]byte(fmt.Sprintf(`{"n":%d}`, *n)))
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fillEveryField(t, v.Field(i), n)
			}
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillEveryField(t, v.Elem(), n)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := 0; i < v.Len(); i++ {
			fillEveryField(t, v.Index(i), n)
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		key, val := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fillEveryField(t, key, n)
		fillEveryField(t, val, n)
		v.SetMapIndex(key, val)
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", *n))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*n))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(*n) + 0.5)
	case reflect.Bool:
		v.SetBool(true)
	default:
		t.Fatalf("fillEveryField: no value for a %s (%s)", v.Kind(), v.Type())
	}
}
