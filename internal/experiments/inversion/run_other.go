//go:build !linux

package inversion

import (
	"context"
	"errors"
)

func (h host) options() map[string]string { return nil }

// measure is never called here: plan fails first (checkHost).
func (p *invPlan) measure(ctx context.Context, im impl) (sample, error) {
	return sample{}, errors.New(notHere())
}
