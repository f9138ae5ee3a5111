//go:build cgo

package runenv

const cgoEnabled = true
