package layout

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestAppendDailyRefusesYearsNoNameHolds(t *testing.T) {
	for _, day := range []time.Time{
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 12, 31, 0, 0, 0, 0, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		t.Run(fmt.Sprint(day.Year()), func(t *testing.T) {
			ws := newWorkspace(t, "beacon")
			rel, err := ws.AppendDaily(context.Background(), "beacon", day, "h", "text")
			if err == nil || !strings.Contains(err.Error(), "year from 0001 to 9999") {
				t.Fatalf("AppendDaily = %q, %v; want it refused", rel, err)
			}
			files, err := ws.Files("beacon")
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if f.Kind == KindDaily || f.Kind == KindTyped {
					t.Errorf("%s was written", f.Path)
				}
			}
		})
	}
}
