#![no_main]

#[path = "../targets/server.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::config_toml(data));
