//! The originals parkbench ports, as a parkbench plugin (include/parkbench.h,
//! ABI version 2): one exported symbol, `parkbench_plugin`, returns a table of
//! three implementations.
//!
//! - `rust-parking_lot`: parking_lot_core 0.9.3's `park` / `unpark_one` /
//!   `unpark_all` / `unpark_requeue` on an address (the `lot` operations),
//!   parking_lot 0.12.1's `Mutex` (lock_api 0.4.9 over parking_lot's
//!   `RawMutex`) and its `Condvar`.
//! - `rust-crossbeam`: crossbeam-utils 0.8.12's `Parker` / `Unparker`, a token
//!   parker.
//! - `rust-std`: the toolchain's `std::thread::park` / `Thread::unpark` as a
//!   token parker, and `std::sync::Mutex` / `Condvar`.
//!
//! Each implementation also owns its loops (version 2, `struct pb_loops`):
//! lock's loop, selfwake's loop and the ping-pong's wait, written once as
//! generic Rust (`lock_loop`, `selfwake_loop`, `pingpong_wait`) and
//! monomorphised for each crate, so that the crate's lock or park is
//! inlined into the measured loop as in a Rust program (the `c-rust-*`
//! rows run them; `c-rust-*.fp` call the functions through pointers).
//!
//! Rules every function here keeps (include/parkbench.h, "Threads"):
//! - nothing unwinds: the crate is built with `panic = "abort"`, and no
//!   function here calls anything that panics on good input (poisoned std
//!   locks are taken over with `into_inner`, which cannot happen anyway with
//!   abort; deadlines are added with `checked_add`);
//! - no thread is spawned (parking_lot_core's deadlock detector is off: the
//!   `deadlock_detection` feature is not enabled);
//! - every operation runs on the caller's thread, which Rust did not create:
//!   parking_lot_core keeps its `ThreadData` and std its `Thread` handle in
//!   thread-locals, created on first use and destroyed when the thread exits.

use std::cell::UnsafeCell;
use std::ffi::c_void;
use std::mem::MaybeUninit;
use std::os::raw::{c_char, c_int};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crossbeam_utils::sync::{Parker, Unparker};
use parking_lot_core::{
    ParkResult, RequeueOp, DEFAULT_PARK_TOKEN, DEFAULT_UNPARK_TOKEN,
};

// ---------------------------------------------------------------------------
// The ABI's structs (include/parkbench.h), field for field.

const PARKBENCH_ABI_VERSION: u32 = 2;
const PB_PARK_UNPARKED: c_int = 1;
const PB_PARK_INVALID: c_int = 0;
const PB_PARK_TIMED_OUT: c_int = -1;

type Create = unsafe extern "C" fn() -> *mut c_void;
type Op = unsafe extern "C" fn(*mut c_void);

#[repr(C)]
pub struct PbParker {
    create: Option<Create>,
    prepare: Option<Op>,
    park: Option<Op>,
    park_until: Option<unsafe extern "C" fn(*mut c_void, i64) -> c_int>,
    unpark: Option<Op>,
    destroy: Option<Op>,
}

#[repr(C)]
pub struct PbMutex {
    create: Option<Create>,
    lock: Option<Op>,
    trylock: Option<unsafe extern "C" fn(*mut c_void) -> c_int>,
    unlock: Option<Op>,
    destroy: Option<Op>,
}

#[repr(C)]
pub struct PbCondvar {
    create: Option<Create>,
    wait: Option<unsafe extern "C" fn(*mut c_void, *mut c_void)>,
    wait_until: Option<unsafe extern "C" fn(*mut c_void, *mut c_void, i64) -> c_int>,
    notify_one: Option<unsafe extern "C" fn(*mut c_void) -> c_int>,
    notify_all: Option<unsafe extern "C" fn(*mut c_void) -> c_int>,
    destroy: Option<Op>,
}

#[repr(C)]
pub struct PbLot {
    park: Option<unsafe extern "C" fn(*const u32, u32, i64) -> c_int>,
    unpark_one: Option<unsafe extern "C" fn(*const u32) -> c_int>,
    unpark_all: Option<unsafe extern "C" fn(*const u32) -> c_int>,
    requeue: Option<unsafe extern "C" fn(*const u32, *const u32) -> c_int>,
}

#[repr(C)]
pub struct PbImpl {
    name: *const c_char,
    summary: *const c_char,
    sleeps: c_int,
    parker: *const PbParker,
    mutex: *const PbMutex,
    condvar: *const PbCondvar,
    lot: *const PbLot,
}

#[repr(C)]
pub struct PbPlugin {
    abi: u32,
    name: *const c_char,
    version: *const c_char,
    n_impls: usize,
    impls: *const PbImpl,
    // Version 2.
    size: usize,
    loops: *const *const PbLoops,
}

/// struct pb_lock_loop: what the harness gives lock's loop, per thread.
#[repr(C)]
pub struct PbLockLoop {
    size: usize,
    mutex: *mut c_void,
    stop: *const u32,
    count: *mut u64,
    guarded: *mut i64,
    shared: *mut f64,
    hist: *mut i64,
    value: *mut f64,
    sample_mask: u64,
    work_in: c_int,
    work_between: c_int,
    check_all: c_int,
}

#[repr(C)]
pub struct PbLoops {
    size: usize,
    lock: Option<unsafe extern "C" fn(*const PbLockLoop) -> u64>,
    selfwake: Option<unsafe extern "C" fn(*mut c_void, *const u32, u64, *mut u64) -> u64>,
    pingpong_wait: Option<unsafe extern "C" fn(*mut c_void, *const u32)>,
}

// The tables are immutable statics holding pointers to other statics.
unsafe impl Sync for PbImpl {}
unsafe impl Sync for PbPlugin {}
unsafe impl Sync for PbLoops {}
struct LoopsTable([*const PbLoops; 3]);
unsafe impl Sync for LoopsTable {}

// ---------------------------------------------------------------------------
// Time: deadlines arrive as CLOCK_MONOTONIC nanoseconds. std's Instant is
// CLOCK_MONOTONIC on Linux too, but has no constructor from a raw value, so
// a deadline becomes now + (deadline - clock now).

fn mono_now_ns() -> i64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: ts is a valid timespec; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    (ts.tv_sec as i64)
        .saturating_mul(1_000_000_000)
        .saturating_add(ts.tv_nsec as i64)
}

/// How long until deadline_ns (zero when it has passed).
fn until(deadline_ns: i64) -> Duration {
    let left = deadline_ns.saturating_sub(mono_now_ns());
    if left <= 0 {
        Duration::ZERO
    } else {
        Duration::from_nanos(left as u64)
    }
}

/// The Instant of deadline_ns; None when it is too far away to represent
/// (then the wait has no deadline, as a caller that far away means).
fn instant_of(deadline_ns: i64) -> Option<Instant> {
    Instant::now().checked_add(until(deadline_ns))
}

// ---------------------------------------------------------------------------
// rust-parking_lot: parking_lot_core's lot on an address.
//
// Why no wake is lost (the contract of pb_lot): parking_lot_core::park runs
// validate under the key's bucket lock and queues the thread under that
// same hold (parking_lot_core-0.9.3 src/parking_lot.rs:591-620); every unpark
// takes the bucket lock. A waker stores to *addr and then unparks: either
// validate runs after the store and sees it (Invalid, no sleep), or the
// parker is queued before the unpark looks and is found.

unsafe extern "C" fn lot_park(addr: *const u32, expected: u32, deadline_ns: i64) -> c_int {
    let key = addr as usize;
    // Relaxed, as parking_lot's own validate closures (raw_mutex.rs): the
    // bucket lock orders it against the waker's store and unpark.
    let word = &*(addr as *const AtomicU32);
    let validate = || word.load(Ordering::Relaxed) == expected;
    let timeout = if deadline_ns < 0 { None } else { instant_of(deadline_ns) };
    match parking_lot_core::park(key, validate, || {}, |_, _| {}, DEFAULT_PARK_TOKEN, timeout) {
        ParkResult::Unparked(_) => PB_PARK_UNPARKED,
        ParkResult::Invalid => PB_PARK_INVALID,
        ParkResult::TimedOut => PB_PARK_TIMED_OUT,
    }
}

unsafe extern "C" fn lot_unpark_one(addr: *const u32) -> c_int {
    let r = parking_lot_core::unpark_one(addr as usize, |_| DEFAULT_UNPARK_TOKEN);
    r.unparked_threads as c_int
}

unsafe extern "C" fn lot_unpark_all(addr: *const u32) -> c_int {
    parking_lot_core::unpark_all(addr as usize, DEFAULT_UNPARK_TOKEN) as c_int
}

unsafe extern "C" fn lot_requeue(from: *const u32, to: *const u32) -> c_int {
    let r = parking_lot_core::unpark_requeue(
        from as usize,
        to as usize,
        || RequeueOp::UnparkOneRequeueRest,
        |_, _| DEFAULT_UNPARK_TOKEN,
    );
    (r.unparked_threads + r.requeued_threads) as c_int
}

// parking_lot's Mutex and Condvar.
//
// parking_lot's Condvar::wait takes the caller's `&mut MutexGuard`, and
// lock_api 0.4.9 has no way to make a guard for a mutex the caller already
// holds (make_guard_unchecked came later). So the mutex keeps the guard its
// holder got from `Mutex::lock`: lock stores it in `guard`, unlock takes it
// out and drops it (which is `RawMutex::unlock`), and the condvar's wait
// borrows it. Only the holder touches `guard`, so the mutex itself orders
// every access; pb_mutex's rule that the locking thread unlocks keeps the
// guard (which is !Send) on one thread. The cost over a bare RawMutex is one
// pointer store and one load on the mutex's own cache line.
struct PlMutex {
    m: parking_lot::Mutex<()>,
    guard: UnsafeCell<MaybeUninit<parking_lot::MutexGuard<'static, ()>>>,
}

unsafe extern "C" fn pl_mutex_create() -> *mut c_void {
    Box::into_raw(Box::new(PlMutex {
        m: parking_lot::Mutex::new(()),
        guard: UnsafeCell::new(MaybeUninit::uninit()),
    })) as *mut c_void
}

unsafe fn pl_keep(pm: &PlMutex, g: parking_lot::MutexGuard<'_, ()>) {
    // SAFETY: the guard borrows pm.m, which lives in a Box that does not
    // move until destroy; the guard is dropped (unlock) before destroy.
    let g: parking_lot::MutexGuard<'static, ()> = std::mem::transmute(g);
    (*pm.guard.get()).write(g);
}

unsafe extern "C" fn pl_mutex_lock(m: *mut c_void) {
    let pm = &*(m as *const PlMutex);
    pl_keep(pm, pm.m.lock());
}

unsafe extern "C" fn pl_mutex_trylock(m: *mut c_void) -> c_int {
    let pm = &*(m as *const PlMutex);
    match pm.m.try_lock() {
        Some(g) => {
            pl_keep(pm, g);
            1
        }
        None => 0,
    }
}

unsafe extern "C" fn pl_mutex_unlock(m: *mut c_void) {
    let pm = &*(m as *const PlMutex);
    drop((*pm.guard.get()).assume_init_read());
}

unsafe extern "C" fn pl_mutex_destroy(m: *mut c_void) {
    drop(Box::from_raw(m as *mut PlMutex));
}

unsafe extern "C" fn pl_cond_create() -> *mut c_void {
    Box::into_raw(Box::new(parking_lot::Condvar::new())) as *mut c_void
}

unsafe extern "C" fn pl_cond_wait(c: *mut c_void, m: *mut c_void) {
    let cv = &*(c as *const parking_lot::Condvar);
    let pm = &*(m as *const PlMutex);
    // The caller holds pm, so its guard is in the slot.
    cv.wait((*pm.guard.get()).assume_init_mut());
}

unsafe extern "C" fn pl_cond_wait_until(c: *mut c_void, m: *mut c_void, deadline_ns: i64) -> c_int {
    let cv = &*(c as *const parking_lot::Condvar);
    let pm = &*(m as *const PlMutex);
    let g = (*pm.guard.get()).assume_init_mut();
    match instant_of(deadline_ns) {
        Some(t) => {
            if cv.wait_until(g, t).timed_out() {
                0
            } else {
                1
            }
        }
        None => {
            cv.wait(g);
            1
        }
    }
}

unsafe extern "C" fn pl_cond_notify_one(c: *mut c_void) -> c_int {
    let cv = &*(c as *const parking_lot::Condvar);
    cv.notify_one() as c_int
}

// notify_all returns parking_lot's own count: threads unparked plus threads
// requeued onto the mutex (condvar.rs notify_all_slow): RequeueAll when the
// mutex is held, UnparkOneRequeueRest when it is not.
unsafe extern "C" fn pl_cond_notify_all(c: *mut c_void) -> c_int {
    let cv = &*(c as *const parking_lot::Condvar);
    cv.notify_all() as c_int
}

unsafe extern "C" fn pl_cond_destroy(c: *mut c_void) {
    drop(Box::from_raw(c as *mut parking_lot::Condvar));
}

// ---------------------------------------------------------------------------
// rust-crossbeam: crossbeam-utils' Parker (a token parker: a mutex, a
// condvar and an EMPTY/PARKED/NOTIFIED word). Parker is !Sync, so the
// unparking thread uses a clone of its Unparker (the same Arc<Inner>).
struct CbParker {
    p: Parker,
    u: Unparker,
}

unsafe extern "C" fn cb_create() -> *mut c_void {
    let p = Parker::new();
    let u = p.unparker().clone();
    Box::into_raw(Box::new(CbParker { p, u })) as *mut c_void
}

unsafe extern "C" fn cb_park(p: *mut c_void) {
    // Parker::park returns only with the token (sync/parker.rs Inner::park
    // loops on a spurious condvar wakeup).
    (*(p as *const CbParker)).p.park();
}

// crossbeam-utils 0.8.12's park_deadline returns nothing, and on timeout it
// swaps the state to EMPTY whether it was PARKED or NOTIFIED (Inner::park),
// so a token that arrives at the deadline is consumed silently: the crate's
// own behaviour. Here: a deadline already past returns 0 without touching
// the parker (a pending token stays pending); a return before the deadline
// had the token (Inner::park returns early only on NOTIFIED); a return at or
// after it reports a timeout.
unsafe extern "C" fn cb_park_until(p: *mut c_void, deadline_ns: i64) -> c_int {
    let cp = &*(p as *const CbParker);
    let left = until(deadline_ns);
    if left.is_zero() {
        return 0;
    }
    let start = Instant::now();
    let deadline = match start.checked_add(left) {
        Some(d) => d,
        None => {
            cp.p.park();
            return 1;
        }
    };
    cp.p.park_deadline(deadline);
    if Instant::now() < deadline {
        1
    } else {
        0
    }
}

unsafe extern "C" fn cb_unpark(p: *mut c_void) {
    (*(p as *const CbParker)).u.unpark();
}

unsafe extern "C" fn cb_destroy(p: *mut c_void) {
    drop(Box::from_raw(p as *mut CbParker));
}

// ---------------------------------------------------------------------------
// rust-std: std::thread::park / Thread::unpark. park works only on the
// current thread, so create (called on the owner, per pb_parker) captures
// thread::current(). std documents that park may return spuriously and
// park_timeout does not say whether it timed out, so the parker pairs the
// thread's token with a flag, as std's documentation tells users to: unpark
// sets the flag and then unparks the thread; park parks first and returns
// when it finds the flag set. Each park consumes the token of the unpark
// that set the flag (or waits for it), so no stale token is left behind.
struct StdParker {
    thread: std::thread::Thread,
    flag: AtomicBool,
}

unsafe extern "C" fn std_create() -> *mut c_void {
    Box::into_raw(Box::new(StdParker {
        thread: std::thread::current(),
        flag: AtomicBool::new(false),
    })) as *mut c_void
}

unsafe extern "C" fn std_park(p: *mut c_void) {
    let sp = &*(p as *const StdParker);
    loop {
        std::thread::park();
        // Acquire: pairs with unpark's Release store (what the unparker
        // wrote before unpark is visible after park).
        if sp.flag.swap(false, Ordering::Acquire) {
            return;
        }
    }
}

unsafe extern "C" fn std_park_until(p: *mut c_void, deadline_ns: i64) -> c_int {
    let sp = &*(p as *const StdParker);
    loop {
        let left = until(deadline_ns);
        if left.is_zero() {
            return sp.flag.swap(false, Ordering::Acquire) as c_int;
        }
        std::thread::park_timeout(left);
        if sp.flag.swap(false, Ordering::Acquire) {
            return 1;
        }
    }
}

unsafe extern "C" fn std_unpark(p: *mut c_void) {
    let sp = &*(p as *const StdParker);
    sp.flag.store(true, Ordering::Release);
    sp.thread.unpark();
}

unsafe extern "C" fn std_destroy(p: *mut c_void) {
    drop(Box::from_raw(p as *mut StdParker));
}

// std's Mutex and Condvar, with the holder's guard kept in the mutex as for
// parking_lot's (std's Condvar::wait takes the guard by value and returns
// it). Poisoning cannot happen (panic = "abort"); into_inner keeps the code
// free of unwrap.
struct StdMutex {
    m: std::sync::Mutex<()>,
    guard: UnsafeCell<MaybeUninit<std::sync::MutexGuard<'static, ()>>>,
}

unsafe fn std_keep(sm: &StdMutex, g: std::sync::MutexGuard<'_, ()>) {
    // SAFETY: as pl_keep.
    let g: std::sync::MutexGuard<'static, ()> = std::mem::transmute(g);
    (*sm.guard.get()).write(g);
}

unsafe extern "C" fn std_mutex_create() -> *mut c_void {
    Box::into_raw(Box::new(StdMutex {
        m: std::sync::Mutex::new(()),
        guard: UnsafeCell::new(MaybeUninit::uninit()),
    })) as *mut c_void
}

unsafe extern "C" fn std_mutex_lock(m: *mut c_void) {
    let sm = &*(m as *const StdMutex);
    std_keep(sm, sm.m.lock().unwrap_or_else(|e| e.into_inner()));
}

unsafe extern "C" fn std_mutex_trylock(m: *mut c_void) -> c_int {
    let sm = &*(m as *const StdMutex);
    match sm.m.try_lock() {
        Ok(g) => {
            std_keep(sm, g);
            1
        }
        Err(std::sync::TryLockError::Poisoned(e)) => {
            std_keep(sm, e.into_inner());
            1
        }
        Err(std::sync::TryLockError::WouldBlock) => 0,
    }
}

unsafe extern "C" fn std_mutex_unlock(m: *mut c_void) {
    let sm = &*(m as *const StdMutex);
    drop((*sm.guard.get()).assume_init_read());
}

unsafe extern "C" fn std_mutex_destroy(m: *mut c_void) {
    drop(Box::from_raw(m as *mut StdMutex));
}

unsafe extern "C" fn std_cond_create() -> *mut c_void {
    Box::into_raw(Box::new(std::sync::Condvar::new())) as *mut c_void
}

unsafe extern "C" fn std_cond_wait(c: *mut c_void, m: *mut c_void) {
    let cv = &*(c as *const std::sync::Condvar);
    let sm = &*(m as *const StdMutex);
    let slot = &mut *sm.guard.get();
    let g = cv.wait(slot.assume_init_read()).unwrap_or_else(|e| e.into_inner());
    slot.write(g);
}

unsafe extern "C" fn std_cond_wait_until(c: *mut c_void, m: *mut c_void, deadline_ns: i64) -> c_int {
    let cv = &*(c as *const std::sync::Condvar);
    let sm = &*(m as *const StdMutex);
    let slot = &mut *sm.guard.get();
    let (g, r) = cv
        .wait_timeout(slot.assume_init_read(), until(deadline_ns))
        .unwrap_or_else(|e| e.into_inner());
    slot.write(g);
    if r.timed_out() {
        0
    } else {
        1
    }
}

// std's notify_one / notify_all return nothing: -1, "cannot tell".
unsafe extern "C" fn std_cond_notify_one(c: *mut c_void) -> c_int {
    (*(c as *const std::sync::Condvar)).notify_one();
    -1
}

unsafe extern "C" fn std_cond_notify_all(c: *mut c_void) -> c_int {
    (*(c as *const std::sync::Condvar)).notify_all();
    -1
}

unsafe extern "C" fn std_cond_destroy(c: *mut c_void) {
    drop(Box::from_raw(c as *mut std::sync::Condvar));
}

// ---------------------------------------------------------------------------
// The loops each implementation owns (version 2): generic over the crate's
// lock or parker, monomorphised for each, so that its lock or park is
// inlined into the loop as in a Rust program. The harness's contract is in
// include/parkbench.h (struct pb_loops); the C templates that do the same
// are include/parkbench_loops.h's.

/// A lock the loop holds for the critical section: the crate's own guard.
trait OwnLock {
    fn locked<R, F: FnOnce() -> R>(&self, f: F) -> R;
}

impl OwnLock for PlMutex {
    #[inline(always)]
    fn locked<R, F: FnOnce() -> R>(&self, f: F) -> R {
        let _g = self.m.lock();
        f()
    }
}

impl OwnLock for StdMutex {
    #[inline(always)]
    fn locked<R, F: FnOnce() -> R>(&self, f: F) -> R {
        let _g = self.m.lock().unwrap_or_else(|e| e.into_inner());
        f()
    }
}

/// include/parkbench.h's pb_hist_bucket: the sampled waits' histogram.
#[inline(always)]
fn hist_bucket(v: u64) -> usize {
    if v < 256 {
        return v as usize;
    }
    let e = 63 - v.leading_zeros() as usize;
    if e > 40 {
        return 256 + 33 * 128 - 1;
    }
    256 + (e - 8) * 128 + ((v >> (e - 7)) - 128) as usize
}

/// lock's loop (parking_lot's benchmark/src/bin/mutex.rs, run_benchmark's
/// thread body, with the harness's sampled waits and its mutual-exclusion
/// counter): until the stop flag, lock, the work inside, unlock, the work
/// between; the count stored into the harness's word every iteration.
#[inline(always)]
unsafe fn lock_loop<M: OwnLock>(a: &PbLockLoop) -> u64 {
    let m = &*(a.mutex as *const M);
    let stop = &*(a.stop as *const AtomicU32);
    let count = &*(a.count as *const AtomicU64);
    let (guarded, shared, hist) = (a.guarded, a.shared, a.hist);
    let (mask, win, wbetween, check_all) = (a.sample_mask, a.work_in, a.work_between, a.check_all != 0);
    let (mut value, mut local) = (0.0f64, 0.0f64);
    let mut n: u64 = 0;
    while stop.load(Ordering::Relaxed) == 0 {
        let sample = n & mask == 0;
        let t0 = if sample { mono_now_ns() } else { 0 };
        let t1 = m.locked(|| {
            let t1 = if sample { mono_now_ns() } else { 0 };
            if check_all || sample {
                *guarded += 1;
            }
            for _ in 0..win {
                *shared += value;
                *shared *= 1.01;
                value = *shared;
            }
            t1
        });
        // After the unlock: the histogram is not written under the lock.
        if sample {
            *hist.add(hist_bucket((t1 - t0) as u64)) += 1;
        }
        for _ in 0..wbetween {
            local += value;
            local *= 1.01;
            value = local;
        }
        n += 1;
        count.store(n, Ordering::Relaxed);
    }
    *a.value = value;
    n
}

unsafe extern "C" fn pl_lock_loop(a: *const PbLockLoop) -> u64 {
    lock_loop::<PlMutex>(&*a)
}

unsafe extern "C" fn std_lock_loop(a: *const PbLockLoop) -> u64 {
    lock_loop::<StdMutex>(&*a)
}

/// A parker (or the lot on a word) as selfwake's pair and the ping-pong's
/// wait use it.
trait OwnPark {
    /// One self-wake pair: the wake, then a park that returns at once.
    unsafe fn pair(p: *mut c_void, word: *const u32);
    /// Return once *flag is not 0, parking while it is 0.
    unsafe fn wait(p: *mut c_void, flag: *const u32);
}

/// parking_lot_core's park/unpark_one on an address, as lot_park and
/// lot_unpark_one: the pair is unpark_one on a key nobody waits on, then
/// park whose validate finds the word 1, not the expected 0 (invalid).
struct Lot;

impl OwnPark for Lot {
    #[inline(always)]
    unsafe fn pair(_: *mut c_void, word: *const u32) {
        let key = word as usize;
        let w = &*(word as *const AtomicU32);
        parking_lot_core::unpark_one(key, |_| DEFAULT_UNPARK_TOKEN);
        parking_lot_core::park(key, || w.load(Ordering::Relaxed) == 0, || {}, |_, _| {}, DEFAULT_PARK_TOKEN, None);
    }
    #[inline(always)]
    unsafe fn wait(_: *mut c_void, flag: *const u32) {
        let key = flag as usize;
        let f = &*(flag as *const AtomicU32);
        while f.load(Ordering::Acquire) == 0 {
            // validate under the key's bucket lock: the waker's store,
            // then unpark_one, is never missed (see lot_park).
            parking_lot_core::park(key, || f.load(Ordering::Relaxed) == 0, || {}, |_, _| {}, DEFAULT_PARK_TOKEN, None);
        }
    }
}

impl OwnPark for CbParker {
    #[inline(always)]
    unsafe fn pair(p: *mut c_void, _: *const u32) {
        let cp = &*(p as *const CbParker);
        cp.u.unpark();
        cp.p.park();
    }
    #[inline(always)]
    unsafe fn wait(p: *mut c_void, flag: *const u32) {
        let cp = &*(p as *const CbParker);
        let f = &*(flag as *const AtomicU32);
        while f.load(Ordering::Acquire) == 0 {
            cp.p.park();
        }
    }
}

impl OwnPark for StdParker {
    #[inline(always)]
    unsafe fn pair(p: *mut c_void, _: *const u32) {
        std_unpark(p);
        std_park(p);
    }
    #[inline(always)]
    unsafe fn wait(p: *mut c_void, flag: *const u32) {
        let f = &*(flag as *const AtomicU32);
        while f.load(Ordering::Acquire) == 0 {
            std_park(p);
        }
    }
}

#[inline(always)]
unsafe fn selfwake_loop<P: OwnPark>(p: *mut c_void, word: *const u32, pairs: u64, count: *mut u64) -> u64 {
    let count = &*(count as *const AtomicU64);
    let mut c = count.load(Ordering::Relaxed);
    for _ in 0..pairs {
        P::pair(p, word);
        c += 1;
        count.store(c, Ordering::Relaxed);
    }
    pairs
}

unsafe extern "C" fn pl_selfwake(p: *mut c_void, w: *const u32, n: u64, c: *mut u64) -> u64 {
    selfwake_loop::<Lot>(p, w, n, c)
}
unsafe extern "C" fn cb_selfwake(p: *mut c_void, w: *const u32, n: u64, c: *mut u64) -> u64 {
    selfwake_loop::<CbParker>(p, w, n, c)
}
unsafe extern "C" fn std_selfwake(p: *mut c_void, w: *const u32, n: u64, c: *mut u64) -> u64 {
    selfwake_loop::<StdParker>(p, w, n, c)
}
unsafe extern "C" fn pl_wait(p: *mut c_void, f: *const u32) {
    Lot::wait(p, f)
}
unsafe extern "C" fn cb_wait(p: *mut c_void, f: *const u32) {
    CbParker::wait(p, f)
}
unsafe extern "C" fn std_wait(p: *mut c_void, f: *const u32) {
    StdParker::wait(p, f)
}

static PL_LOOPS: PbLoops = PbLoops {
    size: std::mem::size_of::<PbLoops>(),
    lock: Some(pl_lock_loop),
    selfwake: Some(pl_selfwake),
    pingpong_wait: Some(pl_wait),
};

static CB_LOOPS: PbLoops = PbLoops {
    size: std::mem::size_of::<PbLoops>(),
    lock: None,
    selfwake: Some(cb_selfwake),
    pingpong_wait: Some(cb_wait),
};

static STD_LOOPS: PbLoops = PbLoops {
    size: std::mem::size_of::<PbLoops>(),
    lock: Some(std_lock_loop),
    selfwake: Some(std_selfwake),
    pingpong_wait: Some(std_wait),
};

static LOOPS: LoopsTable = LoopsTable([&PL_LOOPS, &CB_LOOPS, &STD_LOOPS]);

// ---------------------------------------------------------------------------
// The tables.

static PL_MUTEX: PbMutex = PbMutex {
    create: Some(pl_mutex_create),
    lock: Some(pl_mutex_lock),
    trylock: Some(pl_mutex_trylock),
    unlock: Some(pl_mutex_unlock),
    destroy: Some(pl_mutex_destroy),
};

static PL_CONDVAR: PbCondvar = PbCondvar {
    create: Some(pl_cond_create),
    wait: Some(pl_cond_wait),
    wait_until: Some(pl_cond_wait_until),
    notify_one: Some(pl_cond_notify_one),
    notify_all: Some(pl_cond_notify_all),
    destroy: Some(pl_cond_destroy),
};

static PL_LOT: PbLot = PbLot {
    park: Some(lot_park),
    unpark_one: Some(lot_unpark_one),
    unpark_all: Some(lot_unpark_all),
    requeue: Some(lot_requeue),
};

static CB_PARKER: PbParker = PbParker {
    create: Some(cb_create),
    prepare: None,
    park: Some(cb_park),
    park_until: Some(cb_park_until),
    unpark: Some(cb_unpark),
    destroy: Some(cb_destroy),
};

static STD_PARKER: PbParker = PbParker {
    create: Some(std_create),
    prepare: None,
    park: Some(std_park),
    park_until: Some(std_park_until),
    unpark: Some(std_unpark),
    destroy: Some(std_destroy),
};

static STD_MUTEX: PbMutex = PbMutex {
    create: Some(std_mutex_create),
    lock: Some(std_mutex_lock),
    trylock: Some(std_mutex_trylock),
    unlock: Some(std_mutex_unlock),
    destroy: Some(std_mutex_destroy),
};

static STD_CONDVAR: PbCondvar = PbCondvar {
    create: Some(std_cond_create),
    wait: Some(std_cond_wait),
    wait_until: Some(std_cond_wait_until),
    notify_one: Some(std_cond_notify_one),
    notify_all: Some(std_cond_notify_all),
    destroy: Some(std_cond_destroy),
};

macro_rules! cstr {
    ($s:expr) => {
        concat!($s, "\0").as_ptr() as *const c_char
    };
}

static IMPLS: [PbImpl; 3] = [
    PbImpl {
        name: cstr!("rust-parking_lot"),
        // At most 80 bytes (include/parkbench.h).
        summary: cstr!("parking_lot_core 0.9 park/unpark/requeue; parking_lot 0.12 Mutex, Condvar"),
        sleeps: 1,
        parker: std::ptr::null(),
        mutex: &PL_MUTEX,
        condvar: &PL_CONDVAR,
        lot: &PL_LOT,
    },
    PbImpl {
        name: cstr!("rust-crossbeam"),
        summary: cstr!("crossbeam-utils 0.8 Parker/Unparker (token; std Mutex + Condvar inside)"),
        sleeps: 1,
        parker: &CB_PARKER,
        mutex: std::ptr::null(),
        condvar: std::ptr::null(),
        lot: std::ptr::null(),
    },
    PbImpl {
        name: cstr!("rust-std"),
        summary: cstr!("Rust std thread::park/unpark (token + flag), std::sync Mutex, Condvar"),
        sleeps: 1,
        parker: &STD_PARKER,
        mutex: &STD_MUTEX,
        condvar: &STD_CONDVAR,
        lot: std::ptr::null(),
    },
];

static PLUGIN: PbPlugin = PbPlugin {
    abi: PARKBENCH_ABI_VERSION,
    name: cstr!("rust-originals"),
    version: concat!(env!("PB_VERSION"), "\0").as_ptr() as *const c_char,
    n_impls: 3,
    impls: &IMPLS as *const PbImpl,
    size: std::mem::size_of::<PbPlugin>(),
    loops: &LOOPS.0 as *const *const PbLoops,
};

/// The plugin's one entry point (include/parkbench.h).
#[no_mangle]
pub extern "C" fn parkbench_plugin() -> *const PbPlugin {
    &PLUGIN
}
