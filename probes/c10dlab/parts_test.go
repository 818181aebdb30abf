package c10dlab

import (
	"reflect"
	"testing"
)

func TestPartsOf(t *testing.T) {
	if list, err := PartsOf(""); list != nil || err != nil {
		t.Errorf("empty: %v, %v", list, err)
	}
	if list, err := PartsOf("store,compile"); err != nil || !reflect.DeepEqual(list, []string{"store", "compile"}) {
		t.Errorf("two parts: %v, %v", list, err)
	}
	if _, err := PartsOf("store,nap"); err == nil || err.Error() != `--parts: "nap" is not one of store, coalesce, timeout, compile` {
		t.Errorf("an unknown part: %v", err)
	}
}
