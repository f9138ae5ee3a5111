package results

import (
	"errors"
	"fmt"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// EncodeHist encodes h as a Round.Histogram: hdrhistogram-go's V2 compressed
// encoding, base64, values in nanoseconds. Every experiment uses this one
// encoder so that Hist and the plot read what was written.
func EncodeHist(h *hdrhistogram.Histogram) (string, error) {
	if h == nil {
		return "", nil
	}
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("encoding histogram: %w", err)
	}
	return string(b), nil
}

// ErrNoHistogram is returned by Hist for a round recorded without one.
var ErrNoHistogram = errors.New("round has no histogram")

// Hist decodes the round's histogram (ns). A round without one gives
// ErrNoHistogram; a corrupt one an error saying so, never a panic.
func (r *Round) Hist() (h *hdrhistogram.Histogram, err error) {
	if r.Histogram == "" {
		return nil, ErrNoHistogram
	}
	defer func() {
		// Decode checks its header, but a crafted payload is still third-party
		// parsing of untrusted bytes: keep a bad file an error.
		if p := recover(); p != nil {
			h, err = nil, fmt.Errorf("corrupt histogram: %v", p)
		}
	}()
	h, err = hdrhistogram.Decode([]byte(r.Histogram))
	if err != nil {
		return nil, fmt.Errorf("corrupt histogram: %w", err)
	}
	return h, nil
}

// MergedHist merges the histograms of all of c's rounds; rounds without one
// are skipped. It returns ErrNoHistogram when no round has one.
func (c *Config) MergedHist() (*hdrhistogram.Histogram, error) {
	var out *hdrhistogram.Histogram
	for i := range c.Rounds {
		h, err := c.Rounds[i].Hist()
		if errors.Is(err, ErrNoHistogram) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("config %s round %d: %w", c.Key, i+1, err)
		}
		if out == nil {
			out = h
			continue
		}
		if dropped := out.Merge(h); dropped > 0 {
			return nil, fmt.Errorf("config %s round %d: %d values outside the first round's histogram range", c.Key, i+1, dropped)
		}
	}
	if out == nil {
		return nil, ErrNoHistogram
	}
	return out, nil
}
