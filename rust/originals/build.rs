// Records what the library is built from, for the plugin's version string
// (recorded in every result that uses it): the versions of the crates in
// Cargo.lock and the compiler's `rustc -V`.
use std::env;
use std::fs;
use std::path::Path;
use std::process::Command;

fn main() {
    let dir = env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".to_string());
    let lock_path = Path::new(&dir).join("Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock_path.display());
    println!("cargo:rerun-if-changed=build.rs");
    let lock = fs::read_to_string(&lock_path).unwrap_or_default();
    let mut parts = Vec::new();
    for want in ["parking_lot_core", "parking_lot", "lock_api", "crossbeam-utils"] {
        let v = lock_version(&lock, want).unwrap_or_else(|| "?".to_string());
        parts.push(format!("{} {}", want, v));
    }
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let rv = Command::new(rustc)
        .arg("-V")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "rustc ?".to_string());
    println!("cargo:rustc-env=PB_VERSION={}; {}", parts.join(", "), rv);
}

// lock_version finds `name = "NAME"` in Cargo.lock and returns the version
// on the line after it.
fn lock_version(lock: &str, name: &str) -> Option<String> {
    let key = format!("name = \"{}\"", name);
    let mut lines = lock.lines();
    while let Some(l) = lines.next() {
        if l.trim() == key {
            let v = lines.next()?.trim();
            let v = v.strip_prefix("version = \"")?.strip_suffix('"')?;
            return Some(v.to_string());
        }
    }
    None
}
