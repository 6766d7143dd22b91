//! Shared fixtures of the benchmarks (sensor readings used by every bench).
