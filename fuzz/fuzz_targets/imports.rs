#![no_main]

#[path = "../targets/metrics_core.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::imports(data));
