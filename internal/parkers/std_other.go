//go:build !linux && !windows

package parkers

func init() {
	Register(Backend{
		Name:        NameStd,
		Kind:        KindToken,
		Summary:     "Rust std's Linux thread::park (futex, Linux only)",
		Sleeps:      true,
		Unavailable: onlyOn("Linux only: Rust std's futex thread parker uses futex(2)"),
		Order:       orderStd,
	})
}
