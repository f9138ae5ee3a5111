// scripts/mutexrs.rs: parking_lot's benchmark thread body
// (benchmark/src/bin/mutex.rs:159-172, run_benchmark), written out once
// for scripts/lock-vs-rust.sh (timed) and scripts/fastpath-instructions.sh
// (instructions counted), which copy it into their crates: the loop they
// time and the loop they count are the same. Work counts are run-time
// values, as in mutex.rs. Not inlined, so callgrind can name it (it is
// called once per thread).
use std::sync::atomic::{AtomicBool, Ordering};

pub type Padded = ([u8; 300], parking_lot::Mutex<f64>, [u8; 300]);

#[inline(never)]
pub fn thread_body(lock: &Padded, keep_going: &AtomicBool, work_in: usize, work_between: usize) -> (usize, f64) {
    let mut local_value = 0.0;
    let mut value = 0.0;
    let mut iterations = 0usize;
    while keep_going.load(Ordering::Relaxed) {
        {
            let mut shared_value = lock.1.lock();
            for _ in 0..work_in {
                *shared_value += value;
                *shared_value *= 1.01;
                value = *shared_value;
            }
        }
        for _ in 0..work_between {
            local_value += value;
            local_value *= 1.01;
            value = local_value;
        }
        iterations += 1;
    }
    (iterations, value)
}
