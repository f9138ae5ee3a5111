//go:build !linux

package timeout

import (
	"errors"
	"time"
)

const slackSupported = false

func setTimerSlack(time.Duration) error {
	return errors.New("timer slack is Linux only")
}

func timerSlack() int64 { return -1 }
