//! Time Kendall's τ-b on two float64 little-endian files (written by
//! `scripts/bench-sasbench.sh`): `cargo run --release -p metrics-core --example kendall_bench X Y`.

use std::time::Instant;

use metrics_core::kendall_tau_b::kendall_tau_b;

fn read_f64s(path: &str) -> Result<Vec<f64>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    Ok(bytes
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect())
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let [_, x, y] = args.as_slice() else {
        return Err("usage: kendall_bench X.f64 Y.f64".into());
    };
    let (x, y) = (read_f64s(x)?, read_f64s(y)?);
    let mut best = f64::INFINITY;
    let mut tau = Ok(0.0);
    for _ in 0..3 {
        let start = Instant::now();
        tau = kendall_tau_b(&x, &y);
        best = best.min(start.elapsed().as_secs_f64() * 1e3);
    }
    println!(
        "rust  kendall_tau_b n={} tau={:?} best-of-3 {best:.1} ms",
        x.len(),
        tau
    );
    Ok(())
}
