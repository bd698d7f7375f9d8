package library

import (
	"encoding/json"

	"workbench/pkg/store"
	"workbench/pkg/verify"
)

// sentResult is a Result's JSON: every field, its report and diagnosis
// in their sent forms, so that a Result made in one Go instance (the
// page's import worker) is the same Result in another.
type sentResult struct {
	Name            string              `json:"name"`
	Status          Status              `json:"status"`
	Problems        []verify.Problem    `json:"problems,omitempty"`
	ProblemsOmitted int                 `json:"problems_omitted,omitempty"`
	Invalid         *verify.SentInvalid `json:"invalid,omitempty"`
	Report          *verify.SentReport  `json:"report,omitempty"`
	Skill           store.Skill         `json:"skill"`
	Collision       *Collision          `json:"collision,omitempty"`
}

// MarshalJSON writes r whole: UnmarshalJSON gives back a Result whose
// report checks signatures and whose diagnosis reads as r's do.
func (r Result) MarshalJSON() ([]byte, error) {
	s := sentResult{Name: r.Name, Status: r.Status, Problems: r.Problems, ProblemsOmitted: r.ProblemsOmitted,
		Skill: r.Skill, Collision: r.Collision}
	if r.Invalid != nil {
		inv := r.Invalid.Sent()
		s.Invalid = &inv
	}
	if r.Report != nil {
		rep := r.Report.Sent()
		s.Report = &rep
	}
	return json.Marshal(s)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (r *Result) UnmarshalJSON(data []byte) error {
	var s sentResult
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	*r = Result{Name: s.Name, Status: s.Status, Problems: s.Problems, ProblemsOmitted: s.ProblemsOmitted,
		Skill: s.Skill, Collision: s.Collision}
	if s.Invalid != nil {
		r.Invalid = s.Invalid.Received()
	}
	if s.Report != nil {
		r.Report = s.Report.Received()
	}
	return nil
}
