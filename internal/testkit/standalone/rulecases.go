package standalone

// RuleCase is an approver a run names and the login a decision or cancel
// comes from.
type RuleCase struct{ Approver, Sender string }

// ApproverRuleCases are the cases whose match depends on api's approver
// rule: "Sam" and "sam" match under ASCII folding, not under the exact
// match `-tags rulechange` swaps in (api/rules_approver_changed.go). The
// workflow's and the approval server's rules_follow_test.go both run them,
// each expecting whatever api says, so a side that copied the rule fails.
var ApproverRuleCases = []RuleCase{
	{"sam", "sam"},
	{"Sam", "sam"},
	{"sam", "SAM"},
	{"sam", "ſam"}, // only Unicode folding makes it "sam"
	{"alice", "ali"},
}
