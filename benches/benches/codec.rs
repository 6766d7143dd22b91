//! Encode and decode of a `CallToolResult`, embedded-mcp against the host-SDK path on
//! serde_json, for one sensor reading and for an array of 50. After criterion's report the
//! ratios (serde_json time / embedded-mcp time) are printed twice: from criterion's median
//! estimates of this run, and from an interleaved measurement (see `interleaved`).
//!
//! Run: `cargo bench -p embedded-mcp-benches --bench codec`

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use criterion::{black_box, Criterion};
use embedded_mcp::result::{encode_structured, Era, ResultView};
use embedded_mcp_benches::{host, reading, readings, SensorReading};

const OURS: &str = "embedded_mcp";
const SDK: &str = "serde_json_sdk";

/// The array case decodes into a fixed-capacity vector on both paths (no heap on ours).
type Fifty = heapless::Vec<SensorReading, 50>;

fn bench_encode(c: &mut Criterion, name: &str, value: &(impl serde::Serialize + ?Sized)) {
    let mut group = c.benchmark_group(name);
    let mut buf = vec![0u8; 64 * 1024];
    group.bench_function(OURS, |b| {
        b.iter(|| {
            let done = encode_structured(&mut buf, Era::Stateless, black_box(value)).unwrap();
            black_box(done.len)
        })
    });
    let mut out = Vec::with_capacity(64 * 1024);
    group.bench_function(SDK, |b| {
        b.iter(|| {
            host::encode(black_box(value), &mut out).unwrap();
            black_box(out.len())
        })
    });
    group.finish();
}

fn bench_decode<T>(c: &mut Criterion, name: &str, bytes: &[u8], check: impl Fn(&T))
where
    T: serde::de::DeserializeOwned,
{
    // Both decoders read the same bytes and give the same value.
    let mut scratch = vec![0u8; bytes.len()];
    let ours: T = ResultView::parse(bytes)
        .unwrap()
        .structured_as(&mut scratch)
        .unwrap();
    check(&ours);
    check(&host::decode::<T>(bytes).unwrap());

    let mut group = c.benchmark_group(name);
    group.bench_function(OURS, |b| {
        b.iter(|| {
            let view = ResultView::parse(black_box(bytes)).unwrap();
            let value: T = view.structured_as(&mut []).unwrap();
            black_box(value)
        })
    });
    group.bench_function(SDK, |b| {
        b.iter(|| black_box(host::decode::<T>(black_box(bytes)).unwrap()))
    });
    group.finish();
}

fn encoded(value: &(impl serde::Serialize + ?Sized)) -> Vec<u8> {
    let mut buf = vec![0u8; 64 * 1024];
    let done = encode_structured(&mut buf, Era::Stateless, value).unwrap();
    buf.truncate(done.len);
    buf
}

/// Where criterion writes its estimates (the same rule criterion uses, pinned for this run).
fn criterion_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(dir);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    let dir = target.join("criterion");
    std::env::set_var("CRITERION_HOME", &dir);
    dir
}

/// The median estimate (ns) of one benchmark, if it was measured during this run.
fn median_ns(dir: &Path, group: &str, function: &str, since: SystemTime) -> Option<f64> {
    let path = dir.join(group).join(function).join("new/estimates.json");
    let modified = std::fs::metadata(&path).ok()?.modified().ok()?;
    if modified < since {
        return None; // left over from an earlier run (filtered out this time)
    }
    let text = std::fs::read_to_string(&path).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["median"]["point_estimate"].as_f64()
}

/// Time per call (ns) of `ours` and of `sdk`, measured in alternating batches of about 2 ms
/// (61 rounds, the order swapped every round), each side's fastest batch: on a shared machine
/// other processes only ever add time, so the fastest batch is the closest to the cost of the
/// code, and alternating gives both sides the same chances of a quiet moment.
fn interleaved(mut ours: impl FnMut(), mut sdk: impl FnMut()) -> (f64, f64) {
    fn calibrate(f: &mut impl FnMut()) -> u32 {
        let mut n = 1u32;
        loop {
            let t = Instant::now();
            for _ in 0..n {
                f();
            }
            if t.elapsed() >= Duration::from_millis(2) || n >= 1 << 24 {
                return n;
            }
            n *= 2;
        }
    }
    fn batch(f: &mut impl FnMut(), n: u32) -> f64 {
        let t = Instant::now();
        for _ in 0..n {
            f();
        }
        t.elapsed().as_nanos() as f64 / f64::from(n)
    }
    let (n_ours, n_sdk) = (calibrate(&mut ours), calibrate(&mut sdk));
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for round in 0..61 {
        if round % 2 == 0 {
            a.push(batch(&mut ours, n_ours));
            b.push(batch(&mut sdk, n_sdk));
        } else {
            b.push(batch(&mut sdk, n_sdk));
            a.push(batch(&mut ours, n_ours));
        }
    }
    let fastest = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    (fastest(&a), fastest(&b))
}

fn main() {
    let dir = criterion_dir();
    let started = SystemTime::now();
    let mut c = Criterion::default().configure_from_args();

    let one = reading(7);
    let fifty = readings(50);
    let one_bytes = encoded(&one);
    let fifty_bytes = encoded(&fifty[..]);

    bench_encode(&mut c, "encode_reading", &one);
    bench_encode(&mut c, "encode_50_readings", &fifty[..]);
    bench_decode::<SensorReading>(&mut c, "decode_reading", &one_bytes, |r| {
        assert_eq!(r, &one)
    });
    bench_decode::<Fifty>(&mut c, "decode_50_readings", &fifty_bytes, |r| {
        assert_eq!(&r[..], &fifty[..])
    });
    c.final_summary();
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--test" || a == "--list") {
        return; // `cargo test --benches` or a listing: no measurements
    }

    println!();
    println!(
        "ratios (serde_json host-SDK median / embedded-mcp median; result bytes: one {} B, fifty {} B):",
        one_bytes.len(),
        fifty_bytes.len()
    );
    for (group, target) in [
        ("encode_reading", 3.0),
        ("encode_50_readings", 3.0),
        ("decode_reading", 2.0),
        ("decode_50_readings", 2.0),
    ] {
        match (
            median_ns(&dir, group, OURS, started),
            median_ns(&dir, group, SDK, started),
        ) {
            (Some(ours), Some(sdk)) => println!(
                "  {group:<20} embedded-mcp {ours:>10.1} ns  serde_json {sdk:>10.1} ns  ratio {:>5.2}x  (target >= {target}x: {})",
                sdk / ours,
                if sdk / ours >= target { "met" } else { "NOT met" }
            ),
            _ => println!("  {group:<20} not measured in this run"),
        }
    }

    // The same comparison measured interleaved (see `interleaved`): steadier on a busy machine.
    println!();
    println!(
        "ratios measured interleaved (ns per call in each side's fastest of 61 alternating ~2 ms batches):"
    );
    let mut buf = vec![0u8; 64 * 1024];
    let mut out = Vec::with_capacity(64 * 1024);
    let report = |group: &str, target: f64, (ours, sdk): (f64, f64)| {
        println!(
            "  {group:<20} embedded-mcp {ours:>10.1} ns  serde_json {sdk:>10.1} ns  ratio {:>5.2}x  (target >= {target}x: {})",
            sdk / ours,
            if sdk / ours >= target { "met" } else { "NOT met" }
        );
    };
    let r = interleaved(
        || {
            black_box(encode_structured(&mut buf, Era::Stateless, black_box(&one)).unwrap());
        },
        || {
            host::encode(black_box(&one), &mut out).unwrap();
            black_box(out.len());
        },
    );
    report("encode_reading", 3.0, r);
    let r = interleaved(
        || {
            black_box(encode_structured(&mut buf, Era::Stateless, black_box(&fifty[..])).unwrap());
        },
        || {
            host::encode(black_box(&fifty[..]), &mut out).unwrap();
            black_box(out.len());
        },
    );
    report("encode_50_readings", 3.0, r);
    let r = interleaved(
        || {
            let view = ResultView::parse(black_box(&one_bytes)).unwrap();
            black_box(view.structured_as::<SensorReading>(&mut []).unwrap());
        },
        || {
            black_box(host::decode::<SensorReading>(black_box(&one_bytes)).unwrap());
        },
    );
    report("decode_reading", 2.0, r);
    let r = interleaved(
        || {
            let view = ResultView::parse(black_box(&fifty_bytes)).unwrap();
            black_box(view.structured_as::<Fifty>(&mut []).unwrap());
        },
        || {
            black_box(host::decode::<Fifty>(black_box(&fifty_bytes)).unwrap());
        },
    );
    report("decode_50_readings", 2.0, r);
}
