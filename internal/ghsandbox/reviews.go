package ghsandbox

import (
	"net/http"
	"slices"
	"time"
)

// Review is a pull request review held by the sandbox, with the draft
// comments it was created with.
type Review struct {
	ID       int64  `json:"id"`
	User     string `json:"user"`
	Body     string `json:"body"`
	State    string `json:"state"`
	CommitID string `json:"commitId"`
	// SubmittedAt is nil while the review is PENDING.
	SubmittedAt *time.Time             `json:"submittedAt,omitempty"`
	Comments    []ReviewCommentRequest `json:"comments,omitempty"`
}

func reviewFacts(number int, rv Review) ReviewFacts {
	return ReviewFacts{
		ID: rv.ID, Number: number, User: rv.User, Body: rv.Body, State: rv.State,
		CommitID: rv.CommitID, SubmittedAt: rv.SubmittedAt,
	}
}

func listReviews(r *http.Request, rs *repoState, ps *pullState) Response {
	b := BasesOf(r)
	return Paginated(r, viewsOf(ps.reviews, func(rv Review) ReviewJSON {
		return NewReview(b, rs.ref(), reviewFacts(ps.Number, rv))
	}))
}

// createReview refuses the whole review when any of its comments is not on
// the pull request's diff, as GitHub does: then nothing is created.
func (s *Server) createReview(r *http.Request) Response {
	var in CreateReviewRequest
	if resp, ok := s.decodeWrite(r, DocsCreateReview, &in); !ok {
		return resp
	}
	return s.onPull(DocsCreateReview, func(r *http.Request, rs *repoState, ps *pullState) Response {
		b := BasesOf(r)
		patches := make(map[string]string, len(ps.Files))
		for _, f := range ps.Files {
			patches[f.Filename] = f.Patch
		}
		state, problems := in.Check(ps.HeadSHA, patches)
		if len(problems) > 0 {
			return ValidationFailedSimple(DocsCreateReview, problems...)
		}
		if state == "PENDING" && slices.ContainsFunc(ps.reviews, func(o Review) bool { return o.State == "PENDING" && o.User == s.botLogin }) {
			return ValidationFailedSimple(DocsCreateReview, "User can only have one pending review per pull request")
		}
		rv := Review{ID: s.allocCommentID(), User: s.botLogin, State: state, CommitID: ps.HeadSHA, Comments: in.Comments}
		if in.Body != nil {
			rv.Body = *in.Body
		}
		if state != "PENDING" {
			now := commentTime()
			rv.SubmittedAt = &now
		}
		ps.reviews = append(ps.reviews, rv)
		if err := s.saveLocked(); err != nil {
			ps.reviews = ps.reviews[:len(ps.reviews)-1]
			s.nextCommentID--
			return notStored(DocsCreateReview, err)
		}
		return JSON(http.StatusOK, NewReview(b, rs.ref(), reviewFacts(ps.Number, rv)))
	})(r)
}

// Reviews returns the reviews of a pull request, oldest first.
func (s *Server) Reviews(owner, repo string, number int) []Review {
	_, ps, ok := s.lookupPull(owner, repo, number)
	if !ok {
		return nil
	}
	return ps.reviews
}
