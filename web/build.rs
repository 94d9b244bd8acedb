//! Rebuild the binary when the client is rebuilt, so the embedded copy is never stale.

fn main() {
    println!("cargo:rerun-if-changed=client/dist");
    println!("cargo:rerun-if-changed=client/dist/index.html");
    println!("cargo:rerun-if-changed=build.rs");
}
