//! SAS-Bench (being written)
