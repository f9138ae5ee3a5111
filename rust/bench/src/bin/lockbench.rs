// parking_lot's benchmark/src/bin/mutex.rs run_benchmark for
// parking_lot::Mutex<f64>, written out: lockbench THREADS WORK_IN
// WORK_BETWEEN MILLIS REPEATS prints the median over the repeats of the
// total acquisitions per microsecond (all threads).
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

fn run(threads: usize, work_in: usize, work_between: usize, millis: u64) -> f64 {
    let lock = Arc::new(([0u8; 300], Mutex::new(0.0f64), [0u8; 300]));
    let keep_going = Arc::new(AtomicBool::new(true));
    let barrier = Arc::new(Barrier::new(threads + 1));
    let mut hs = vec![];
    for _ in 0..threads {
        let (barrier, lock, keep_going) = (barrier.clone(), lock.clone(), keep_going.clone());
        hs.push(thread::spawn(move || {
            let mut local_value = 0.0;
            let mut value = 0.0;
            let mut iterations = 0usize;
            barrier.wait();
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
        }));
    }
    barrier.wait();
    let t0 = Instant::now();
    thread::sleep(Duration::from_millis(millis));
    keep_going.store(false, Ordering::Relaxed);
    let secs = t0.elapsed().as_secs_f64();
    let total: usize = hs.into_iter().map(|h| h.join().unwrap().0).sum();
    total as f64 / secs / 1e6
}

fn main() {
    let a: Vec<usize> = std::env::args().skip(1).map(|s| s.parse().unwrap()).collect();
    let mut r: Vec<f64> = (0..a[4]).map(|_| run(a[0], a[1], a[2], a[3] as u64)).collect();
    r.sort_by(|x, y| x.partial_cmp(y).unwrap());
    println!("{:.2}", r[r.len() / 2]);
}
