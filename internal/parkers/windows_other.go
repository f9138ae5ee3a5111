//go:build !windows

package parkers

func init() {
	Register(Backend{
		Name:             NameWaitOnAddress,
		Kind:             KindThread,
		Summary:          "parking_lot windows/waitaddress.rs: WaitOnAddress/WakeByAddressSingle (Windows only)",
		Sleeps:           true,
		CheapToConstruct: true,
		Unavailable:      onlyOn("Windows only: WaitOnAddress is a Windows 8+ API"),
		Order:            orderWaitOnAddress,
	})
	Register(Backend{
		Name:             NameKeyedEvent,
		Kind:             KindThread,
		Summary:          "parking_lot windows/keyed_event.rs: NT keyed events (Windows only)",
		Sleeps:           true,
		CheapToConstruct: true,
		Unavailable:      onlyOn("Windows only: NT keyed events are an ntdll.dll API (Windows XP+)"),
		Order:            orderKeyedEvent,
	})
}
