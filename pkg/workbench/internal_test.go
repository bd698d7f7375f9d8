package workbench

import (
	"context"

	"workbench/pkg/teach"
)

// OpenedForTest is what OpenTeachForTest opened.
type OpenedForTest struct {
	Authority   string
	Fallback    bool
	Unavailable error
	Trusted     bool
}

// OpenTeachForTest opens a demonstration's body and authority as Teach
// does and closes them, for workbench_test to check the rule without a
// model.
func (fl *Flows) OpenTeachForTest(ctx context.Context, p *teach.Plan, acceptLocal bool) (*OpenedForTest, error) {
	rig, err := fl.openTeach(ctx, p, acceptLocal)
	if err != nil {
		return nil, err
	}
	defer rig.close()
	if rig.body == nil {
		return nil, nil
	}
	a := rig.authority
	return &OpenedForTest{Authority: a.Name, Fallback: a.Fallback, Unavailable: a.Unavailable, Trusted: rig.trusted}, nil
}
