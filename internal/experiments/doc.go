// Package experiments is the top of parkbench's experiments: RunSuite (what
// `parkbench run` measures) and the registry of experiments that `parkbench
// list` shows. Each experiment is its own package on the shared driver
// (internal/experiments/driver, whose doc says how to add one):
//
//   - e12: E12 wake latency (a ping-pong between two threads) and its
//     reverse check, selfwake; their claims, and the claim that needs both.
//   - herd: E6, N waiters on one condvar and one notify_all.
//   - lock: a contended lock (parking_lot's mutex benchmark) and an
//     rwlock under readers and writers (its rwlock benchmark).
//   - timeout: how late each timed wait returns after its deadline.
//   - stacks: where a thread blocked on each mechanism sleeps.
//
// Experiments return data (*results.Experiment) and never print: commands
// render. The method of each is in its package doc and in docs/experiments.md.
package experiments
