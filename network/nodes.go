package network

import (
	"errors"
	"fmt"

	"github.com/pairgossip/pairgossip/internal/rng"
)

// NewNodes builds the network of a run on n nodes whose edges are drawn
// elsewhere, from the engine's uniform edge stream (the run over MPI
// ranks, where no rank holds the whole graph): the models that act on the
// iterations and the nodes only, message loss (two-way or one-way) and
// churn, with the draws of New (the same Delivered, Online and Span for
// the same seed). The models that need the graph (--graph-schedule,
// --link-up, --edge-stream, --activation) and --delay are refused, naming
// the flag (CheckNodes). Edge, P, InvP and EffectiveGap are not available
// on it.
func NewNodes(m Model, n int, seed uint64) (*Net, error) {
	if err := CheckNodes(m); err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, errors.New("network: no nodes")
	}
	nt := &Net{model: m, n: n, seed: seed, loss: m.Loss, oneway: m.LossOneWay, linkUp: 1,
		dLoss: rng.Hash(seed, hashLoss, 0), dDelay: rng.Hash(seed, hashDelay, 0),
		dLink: rng.Hash(seed, hashLink, 0), dAct: rng.Hash(seed, hashActivation, 0)}
	nt.initDraws()
	if m.Churn.Dist != "" {
		ch, err := newChurn(m.Churn, n, seed)
		if err != nil {
			return nil, err
		}
		nt.churn = ch
	}
	return nt, nil
}

// CheckNodes is NewNodes's check of m, without reading a file or
// allocating: Validate, then the models NewNodes refuses, by flag.
func CheckNodes(m Model) error {
	if err := m.Validate(); err != nil {
		return err
	}
	const why = "not available where the graph is not held whole (a run over MPI ranks): --loss, --loss-oneway and --churn are"
	switch {
	case m.LinkUp != 0 && m.LinkUp != 1:
		return fmt.Errorf("--link-up: %s", why)
	case len(m.Schedule) > 0:
		return fmt.Errorf("--graph-schedule: %s", why)
	case m.EdgeStream != "" || m.Stream != nil:
		return fmt.Errorf("--edge-stream: %s", why)
	case m.Activation.Kind != "" && m.Activation.Kind != ActEdges:
		return fmt.Errorf("--activation %s: %s", m.Activation.Kind, why)
	case m.Delay.Dist != "":
		return fmt.Errorf("--delay: %s", why)
	}
	return nil
}
