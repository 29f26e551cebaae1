//! The rulesets' data files live in the workspace's `assets/rulesets/` and are
//! built in with `include_str!`; tell cargo to rebuild when they change.

fn main() {
    println!("cargo:rerun-if-changed=../../assets/rulesets");
    if let Ok(dir) = std::fs::read_dir("../../assets/rulesets") {
        for entry in dir.flatten() {
            println!("cargo:rerun-if-changed={}", entry.path().display());
        }
    }
}
