//! All server integration tests in one binary (one link on a 2-core machine).

mod support;

mod cli_pairs;
mod http;
mod golden_eotgc;
mod golden_msqa;
mod golden_sasbench;
mod golden_sgibench;
