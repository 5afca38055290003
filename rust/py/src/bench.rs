//! The startd's benchmarks (RunBenchmarks): a Dhrystone-style integer loop for Mips and a
//! Linpack-style daxpy for KFlops, each run for a fixed amount of work and timed, with the
//! GIL released. Small on purpose: they run on the execute machine between jobs.

use std::hint::black_box;
use std::time::Instant;

use pyo3::prelude::*;

/// Integer operations per iteration of the loop in `integer_ops` (adds, multiplies,
/// shifts, xors, compares): the count Mips is reckoned from.
const OPS_PER_ROUND: f64 = 12.0;

fn integer_ops(rounds: u64) -> u64 {
    let mut a: u64 = 1;
    let mut b: u64 = 0x9e37_79b9;
    let mut c: u64 = 7;
    for i in 0..rounds {
        a = a.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i);
        b ^= a >> 17;
        c = c.wrapping_add(b & 0xff);
        if c > a {
            c = c.wrapping_sub(a >> 3);
        } else {
            c = c.wrapping_add(3);
        }
        b = b.rotate_left(5) ^ c;
    }
    black_box(a ^ b ^ c)
}

fn daxpy(n: usize, reps: usize) -> f64 {
    let x: Vec<f64> = (0..n).map(|i| (i % 97) as f64 * 0.5).collect();
    let mut y: Vec<f64> = (0..n).map(|i| (i % 89) as f64 * 0.25).collect();
    let a = black_box(1.000_001_f64);
    for _ in 0..reps {
        for (yi, xi) in y.iter_mut().zip(&x) {
            *yi += a * *xi;
        }
        black_box(&mut y);
    }
    y.iter().sum()
}

/// Millions of integer instructions a second.
#[pyfunction]
fn benchmark_mips(py: Python<'_>) -> f64 {
    py.detach(|| {
        let rounds = 20_000_000u64;
        let start = Instant::now();
        black_box(integer_ops(black_box(rounds)));
        let secs = start.elapsed().as_secs_f64().max(1e-9);
        rounds as f64 * OPS_PER_ROUND / secs / 1e6
    })
}

/// Thousands of floating-point operations a second (two per daxpy element).
#[pyfunction]
fn benchmark_kflops(py: Python<'_>) -> f64 {
    py.detach(|| {
        let (n, reps) = (4096usize, 4000usize);
        let start = Instant::now();
        black_box(daxpy(black_box(n), black_box(reps)));
        let secs = start.elapsed().as_secs_f64().max(1e-9);
        (2 * n * reps) as f64 / secs / 1e3
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(benchmark_mips, m)?)?;
    m.add_function(wrap_pyfunction!(benchmark_kflops, m)?)?;
    Ok(())
}
