// count pair N | pairdyn N | lock N | loop MILLIS: the operations counted, N times,
// or mutex.rs's thread loop on one thread for MILLIS (prints iterations).
use parking_lot_core::{park, unpark_one, DEFAULT_PARK_TOKEN, DEFAULT_UNPARK_TOKEN};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[inline(never)]
fn pairs(key: usize, n: usize) {
    for _ in 0..n {
        unsafe {
            unpark_one(black_box(key), |_| DEFAULT_UNPARK_TOKEN);
            park(black_box(key), || false, || {}, |_, _| {}, DEFAULT_PARK_TOKEN, None);
        }
    }
}

// pairs with validate called through a &dyn Fn: an indirect call, as Go's
// Park makes to its func value.
#[inline(never)]
fn pairs_dyn(key: usize, n: usize) {
    let refuse = || false;
    let validate: &dyn Fn() -> bool = black_box(&refuse);
    for _ in 0..n {
        unsafe {
            unpark_one(black_box(key), |_| DEFAULT_UNPARK_TOKEN);
            park(black_box(key), || validate(), || {}, |_, _| {}, DEFAULT_PARK_TOKEN, None);
        }
    }
}

#[inline(never)]
fn locks(m: &parking_lot::Mutex<f64>, n: usize) {
    for _ in 0..n {
        drop(black_box(m.lock()));
    }
}

// mutex.rs's run_benchmark thread body with no work. (With its two work
// loops over counts of 0 known only at run time, as mutex.rs and
// scripts/vs-rust.sh lock have them, it counts the same: rustc moves the empty
// loops' tests out of the loop.)
#[inline(never)]
fn mutexrs(lock: &([u8; 300], parking_lot::Mutex<f64>, [u8; 300]), keep_going: &AtomicBool) -> usize {
    let mut iterations = 0usize;
    while keep_going.load(Ordering::Relaxed) {
        drop(lock.1.lock()); // the guard drops at once: lock; unlock
        iterations += 1;
    }
    iterations
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n: usize = a[2].parse().unwrap();
    match a[1].as_str() {
        "pair" => {
            let word = Box::new(0u32);
            pairs(&*word as *const u32 as usize, n)
        }
        "pairdyn" => {
            let word = Box::new(0u32);
            pairs_dyn(&*word as *const u32 as usize, n)
        }
        "lock" => locks(&parking_lot::Mutex::new(0.0), n),
        _ => {
            let lock = Arc::new(([0u8; 300], parking_lot::Mutex::new(0.0), [0u8; 300]));
            let keep_going = Arc::new(AtomicBool::new(true));
            let (l, k) = (lock.clone(), keep_going.clone());
            let h = std::thread::spawn(move || mutexrs(&l, &k));
            std::thread::sleep(std::time::Duration::from_millis(n as u64));
            keep_going.store(false, Ordering::Relaxed);
            println!("{}", h.join().unwrap());
        }
    }
}
