package results

import "testing"

// A herd file written before notify=all became notify=notify-all reads
// with the new name; other experiments are untouched.
func TestUpgradeRenamed(t *testing.T) {
	f := &File{Experiments: []*Experiment{
		{Name: "herd", Options: map[string]string{"notify": "all,one-loop"}, Configs: []*Config{
			{Key: "lot/unpinned/notify=all/lock-held=true/n=4", Params: map[string]string{"notify": "all"}},
			{Key: "lot/unpinned/notify=one-loop/lock-held=true/n=4", Params: map[string]string{"notify": "one-loop"}},
		}},
		{Name: "lock", Options: map[string]string{"notify": "all"}, Configs: []*Config{{Key: "x/notify=all", Params: map[string]string{"notify": "all"}}}},
	}}
	upgradeRenamed(f)
	h := f.Experiments[0]
	if h.Configs[0].Key != "lot/unpinned/notify=notify-all/lock-held=true/n=4" || h.Configs[0].Params["notify"] != "notify-all" {
		t.Errorf("herd config: %q %q", h.Configs[0].Key, h.Configs[0].Params)
	}
	if h.Configs[1].Key != "lot/unpinned/notify=one-loop/lock-held=true/n=4" {
		t.Errorf("one-loop changed: %q", h.Configs[1].Key)
	}
	if h.Options["notify"] != "notify-all,one-loop" {
		t.Errorf("options echo %q", h.Options["notify"])
	}
	if l := f.Experiments[1]; l.Configs[0].Key != "x/notify=all" || l.Options["notify"] != "all" {
		t.Errorf("another experiment changed: %q %q", l.Configs[0].Key, l.Options)
	}
}
