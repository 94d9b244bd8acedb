//! Embeds N copies of a 200-word abstract and prints documents per second.
#![allow(clippy::print_stdout)]
fn main() {
    let dir = std::env::args().nth(1).expect("model dir");
    let count: usize = std::env::args().nth(2).and_then(|n| n.parse().ok()).unwrap_or(64);
    let model = embed::Embedder::load(std::path::Path::new(&dir)).expect("model");
    let text = "The effects of chimeric antigen receptor T cell therapy on tumour microenvironment ".repeat(20);
    let texts: Vec<&str> = (0..count).map(|_| text.as_str()).collect();
    let started = std::time::Instant::now();
    let vectors = model.embed_documents(&texts).expect("embedded");
    let seconds = started.elapsed().as_secs_f64();
    println!("{} documents in {seconds:.2} s: {:.1}/s", vectors.len(), vectors.len() as f64 / seconds);
}
