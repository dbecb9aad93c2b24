//! SGI-Bench (being written)
