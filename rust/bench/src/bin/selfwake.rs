// The self-wake pair of `parkbench selfwake --impl=lot`, on the real
// parking_lot_core: unpark_one on a key nobody waits on, then park whose
// validate fails. Prints ns per pair (median sample / pairs, median of
// rounds).
//
// An optional argument picks how validate is called (docs/findings.md,
// "Fifth pass"; scripts/vs-rust.sh modes):
//   (none)   a closure rustc sees and inlines, as a Rust user writes it;
//   opaque   through a `&dyn Fn() -> bool` it cannot see into: an indirect
//            call, as Go's Park makes to its func value;
//   guarded  opaque, inside a drop guard that would run if validate
//            unwound, as lot's Park guards validate with a defer.
use parking_lot_core::{park, unpark_one, DEFAULT_PARK_TOKEN, DEFAULT_UNPARK_TOKEN};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

static UNWOUND: AtomicBool = AtomicBool::new(false);

struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        UNWOUND.store(true, Ordering::Relaxed);
    }
}

fn samples<F: Fn()>(pair: &F, pairs: usize, n: usize) -> Vec<u64> {
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let t0 = Instant::now();
        for _ in 0..pairs {
            pair();
        }
        out.push(t0.elapsed().as_nanos() as u64);
    }
    out
}

fn measure<F: Fn()>(pair: F) -> f64 {
    let pairs = 100usize;
    let n = 1000usize;
    let rounds = 3usize;
    samples(&pair, pairs, n / 10); // warm-up, as parkbench's
    let mut per_round = Vec::new();
    for _ in 0..rounds {
        let mut s = samples(&pair, pairs, n);
        s.sort_unstable();
        // Nearest rank, as the HDR histogram's quantile.
        let med = s[(s.len() + 1) / 2 - 1];
        per_round.push(med as f64 / pairs as f64);
    }
    per_round.sort_by(|a, b| a.partial_cmp(b).unwrap());
    per_round[per_round.len() / 2]
}

fn main() {
    let word = Box::new(0u32);
    let key = &*word as *const u32 as usize;
    let refuse = || false;
    let opaque: &dyn Fn() -> bool = black_box(&refuse);
    let mode = std::env::args().nth(1).unwrap_or_default();
    let ns = match mode.as_str() {
        "" => measure(|| unsafe {
            unpark_one(black_box(key), |_| DEFAULT_UNPARK_TOKEN);
            park(black_box(key), || false, || {}, |_, _| {}, DEFAULT_PARK_TOKEN, None);
        }),
        "opaque" => measure(|| unsafe {
            unpark_one(black_box(key), |_| DEFAULT_UNPARK_TOKEN);
            park(black_box(key), || opaque(), || {}, |_, _| {}, DEFAULT_PARK_TOKEN, None);
        }),
        "guarded" => measure(|| unsafe {
            unpark_one(black_box(key), |_| DEFAULT_UNPARK_TOKEN);
            let validate = || {
                let g = Guard;
                let ok = opaque();
                std::mem::forget(g);
                ok
            };
            park(black_box(key), validate, || {}, |_, _| {}, DEFAULT_PARK_TOKEN, None);
        }),
        other => {
            eprintln!("selfwake: unknown mode {:?}; valid: opaque, guarded (or none)", other);
            std::process::exit(2);
        }
    };
    assert!(!UNWOUND.load(Ordering::Relaxed));
    println!("{:.2}", ns);
}
