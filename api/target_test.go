package api_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentrun/agentrun/api"
)

// Recorded histories and approvals' argsHash hold a pull request's target in
// its first shape: a change to it would break every open run's replay.
func TestAPullRequestTargetKeepsTheWireFormRecordedHistoriesHold(t *testing.T) {
	pr, err := api.NewTarget(api.TargetPullRequest, map[string]string{"repo": "acme/widgets", "pull": "1"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(pr)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"owner":"acme","repo":"widgets","pullNumber":1}`; string(got) != want {
		t.Fatalf("wire form %s, want %s", got, want)
	}
	if in := (api.RunInput{}).WithTarget(pr); in.Target != nil || in.Repo != "acme/widgets" || in.PullNumber != 1 {
		t.Fatalf("a pull request's input is %+v, want repo and pullNumber only", in)
	}
}

func TestATargetOfAnotherKindTravelsAsKindAndFieldsAndReadsBack(t *testing.T) {
	tk, err := api.NewTarget("support_queue", map[string]string{"queue": "support"})
	if err != nil {
		t.Fatal(err)
	}
	in := (api.RunInput{Agent: "tickets"}).WithTarget(tk)
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var back api.RunInput
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	got, err := back.RunTarget()
	if err != nil {
		t.Fatal(err)
	}
	if got.Ref() != "support_queue queue=support" || got.IsPullRequest() {
		t.Fatalf("read back %+v (%s)", got, got.Ref())
	}
	if string(raw) == "" || back.Repo != "" || back.PullNumber != 0 {
		t.Fatalf("input %s carries a pull request", raw)
	}
}

func TestAnOldInputsRepoAndPullNumberAreItsPullRequestTarget(t *testing.T) {
	var in api.RunInput
	if err := json.Unmarshal([]byte(`{"repo":"acme/widgets","pullNumber":7,"userId":"u"}`), &in); err != nil {
		t.Fatal(err)
	}
	got, err := in.RunTarget()
	if err != nil || got.Ref() != "acme/widgets#7" || !got.IsPullRequest() {
		t.Fatalf("target %+v, %v", got, err)
	}
}

func TestAnInputWithATargetAndARepoIsRefused(t *testing.T) {
	in := api.RunInput{Repo: "acme/widgets", PullNumber: 1, Target: &api.Target{Kind: "support_queue", Fields: map[string]string{"queue": "x"}}}
	if _, err := in.RunTarget(); err == nil {
		t.Fatal("a target of two kinds was taken")
	}
}

func TestBadTargetsAreRefusedSayingWhy(t *testing.T) {
	cases := map[string]struct {
		kind   string
		fields map[string]string
	}{
		"pull request without pull":  {api.TargetPullRequest, map[string]string{"repo": "acme/widgets"}},
		"pull request extra field":   {"", map[string]string{"repo": "acme/widgets", "pull": "1", "x": "y"}},
		"kind with spaces":           {"Support Queue", map[string]string{"queue": "s"}},
		"kind without fields":        {"support_queue", nil},
		"field name with a quote":    {"support_queue", map[string]string{`q"`: "s"}},
		"field value with a newline": {"support_queue", map[string]string{"queue": "a\nb"}},
		"empty field value":          {"support_queue", map[string]string{"queue": ""}},
	}
	for name, c := range cases {
		if _, err := api.NewTarget(c.kind, c.fields); err == nil {
			t.Errorf("%s: taken", name)
		}
	}
}

func TestAKindWithoutAnApproverSourceNeedsNamedApprovers(t *testing.T) {
	tk, _ := api.NewTarget("support_queue", map[string]string{"queue": "support"})
	err := api.CheckApprovers(tk, nil)
	if !errors.Is(err, api.ErrNeedsApprovers) {
		t.Fatalf("no approvers on a support_queue: %v", err)
	}
	if err := api.CheckApprovers(tk, []string{"alice"}); err != nil {
		t.Fatalf("named approver: %v", err)
	}
	pr, _ := api.ParseTarget("acme/widgets", 1)
	if err := api.CheckApprovers(pr, nil); err != nil {
		t.Fatalf("a pull request's approvers come from GitHub: %v", err)
	}
}

func TestEveryTargetKindReadsAsAPersonNamesItNeverAsAnEmptyPullRequest(t *testing.T) {
	pr, _ := api.ParseTarget("acme/widgets", 1)
	chat, _ := api.NewTarget("chat_channel", map[string]string{"channel": "releases"})
	rec, _ := api.NewTarget("recommendation_request", map[string]string{"city": "riverside", "party_size": "2", "budget": "150"})
	cases := []struct {
		target   api.Target
		template string
		want     string
	}{
		{pr, "", "acme/widgets#1"},
		{chat, "#{channel}", "#releases"},
		{chat, "", "chat channel (channel releases)"},
		{chat, "#{name}", "chat channel (channel releases)"}, // a field the target lacks
		{rec, "table for {party_size} in {city}", "table for 2 in riverside"},
		{rec, "", "recommendation request (budget 150, city riverside, party size 2)"},
		{api.Target{}, "", ""},
	}
	for _, c := range cases {
		if got := c.target.LabelFrom(c.template); got != c.want {
			t.Errorf("%s with %q: got %q, want %q", c.target.Ref(), c.template, got, c.want)
		}
	}
}

func TestARunsTargetNameIsItsRecordedLabelElseItsTargetsNeverHashZero(t *testing.T) {
	chat, _ := api.NewTarget("chat_channel", map[string]string{"channel": "releases"})
	runs := map[string]api.Run{
		"#releases":                       {Target: &chat, TargetLabel: "#releases"},
		"chat channel (channel releases)": {Target: &chat}, // recorded before runs kept a label
		"acme/widgets#1":                  {Repo: "acme/widgets", PullNumber: 1},
		"":                                {},
	}
	for want, r := range runs {
		if got := r.TargetName(); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
		if strings.Contains(r.TargetName(), "#0") {
			t.Errorf("%q prints #0", r.TargetName())
		}
	}
}

func TestATargetLabelTemplateNamesOnlyFields(t *testing.T) {
	for _, ok := range []string{"", "#{channel}", "{id}", "table for {party_size} in {city}"} {
		if err := api.CheckTargetLabel(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"{", "}", "{Channel}", "{}", "a}{b", "{a b}"} {
		if api.CheckTargetLabel(bad) == nil {
			t.Errorf("%q taken", bad)
		}
	}
}
