package recall

import "testing"

// TestDateRulesCompile compiles every rule: they compile on first use, so
// a bad pattern would otherwise wait for the query that needs it.
func TestDateRulesCompile(t *testing.T) {
	for i, rule := range dateRules {
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("rule %d: %v", i, p)
				}
			}()
			rule.re()
		}()
	}
}
