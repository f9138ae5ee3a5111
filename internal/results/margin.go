package results

// VerdictText is the verdict as the summary says it: "holds", "does not
// hold", "not evaluated", with ", near its limit" when the rounds straddle
// the limit that decided it.
func (c Claim) VerdictText() string {
	if c.Near && c.Verdict != NotEvaluated {
		return c.Verdict + ", near its limit"
	}
	return c.Verdict
}
