# scripts/debian-cargo.sh, sourced by the scripts that build against the
# real crates (rust-originals.sh for rust/originals, vs-rust.sh for
# rust/bench): Cargo reads crates-io from Debian's source directory
# (apt-get install librust-*-dev), offline. The file names a
# machine path, so it is written at each run and never committed.

# debian_cargo_config CRATE_DIR REGISTRY writes CRATE_DIR/.cargo/config.toml.
debian_cargo_config() {
	mkdir -p "$1/.cargo"
	printf '%s\n' '# Written by scripts/debian-cargo.sh.' \
		'[source.crates-io]' 'replace-with = "debian"' \
		'[source.debian]' "directory = \"$2\"" \
		'[net]' 'offline = true' >"$1/.cargo/config.toml"
}
