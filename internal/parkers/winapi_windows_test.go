//go:build windows

package parkers

import "testing"

// The real Windows APIs (under Wine here, see docs/platforms-windows.md):
// std's parker on both of its paths, and the parking_lot keyed-event
// parker's self-wake, which with parking_lot's protocol as written blocks
// in NtReleaseKeyedEvent for ever.

func init() {
	if wa, err := winLoad.WaitAddress(); err == nil {
		stdWinReal["real-waitonaddress"] = func() (*stdWinParker, *fakeKeyedEvent) {
			return newStdWin(&winChoice{wa: wa}), nil
		}
	}
	if ke, err := winLoad.KeyedEvent(); err == nil {
		stdWinReal["real-keyedevent"] = func() (*stdWinParker, *fakeKeyedEvent) {
			return newStdWin(&winChoice{ke: ke}), nil
		}
	}
}

func TestKeyedEventRealSelfWake(t *testing.T) {
	ke, err := winLoad.KeyedEvent()
	if err != nil {
		t.Skip(err)
	}
	wait(t, onThread(selfWakeRounds(newKeyedEventParker(ke), 100)), "keyed-event self-wake")
}
