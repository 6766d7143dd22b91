//! Encode and decode of a `CallToolResult`, embedded-mcp against the host-SDK path on
//! serde_json, for one sensor reading, for an array of 50, and for arrays of readings making
//! results of about 1 KiB, 16 KiB and 256 KiB (to show that the cost grows linearly with the
//! size). After criterion's report the ratios (serde_json time / embedded-mcp time) are printed
//! twice: from criterion's median estimates of this run, and from an interleaved measurement
//! (see `embedded_mcp_benches::measure::interleaved`), with ns per KiB for the size series.
//!
//! Run: `cargo bench -p embedded-mcp-benches --bench codec`

use std::time::SystemTime;

use criterion::{black_box, Criterion};
use embedded_mcp::result::{encode_structured, Era, ResultView};
use embedded_mcp_benches::measure::{criterion_dir, interleaved, load_average, median_ns};
use embedded_mcp_benches::{host, reading, readings, SensorReading};

const OURS: &str = "embedded_mcp";
const SDK: &str = "serde_json_sdk";

/// The array case decodes into a fixed-capacity vector on both paths (no heap on ours).
type Fifty = heapless::Vec<SensorReading, 50>;

/// Output buffer of the encoders (room for the largest case).
const BUF: usize = 512 * 1024;

fn bench_encode(c: &mut Criterion, name: &str, value: &(impl serde::Serialize + ?Sized)) {
    let mut group = c.benchmark_group(name);
    let mut buf = vec![0u8; BUF];
    group.bench_function(OURS, |b| {
        b.iter(|| {
            let done = encode_structured(&mut buf, Era::Stateless, black_box(value)).unwrap();
            black_box(done.len)
        })
    });
    let mut out = Vec::with_capacity(BUF);
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
    let mut buf = vec![0u8; BUF];
    let done = encode_structured(&mut buf, Era::Stateless, value).unwrap();
    buf.truncate(done.len);
    buf
}

/// Readings making an encoded result of at least `bytes` bytes.
fn readings_for(bytes: usize) -> Vec<SensorReading> {
    let mut n = 1;
    while encoded(&readings(n)[..]).len() < bytes {
        n = (n * 5 / 4).max(n + 1);
    }
    // Step back to the smallest count that reaches the size.
    while n > 1 && encoded(&readings(n - 1)[..]).len() >= bytes {
        n -= 1;
    }
    readings(n)
}

/// The size series: label, target size.
const SIZES: [(&str, usize); 3] = [("1KiB", 1024), ("16KiB", 16 * 1024), ("256KiB", 256 * 1024)];

/// Decoded forms of the size series: fixed-capacity vectors on both paths (no heap on ours),
/// each just large enough (5, 71 and 1114 readings), so that moving the decoded value costs
/// the same small share at every size.
type Upto8 = heapless::Vec<SensorReading, 8>;
type Upto80 = heapless::Vec<SensorReading, 80>;
type Upto1200 = heapless::Vec<SensorReading, 1200>;

/// Criterion's decode benchmark of one size-series case, in its decoded type.
fn bench_decode_series(c: &mut Criterion, label: &str, values: &[SensorReading], bytes: &[u8]) {
    let group = format!("decode_{label}");
    match values.len() {
        0..=8 => bench_decode::<Upto8>(c, &group, bytes, |r| assert_eq!(&r[..], values)),
        9..=80 => bench_decode::<Upto80>(c, &group, bytes, |r| assert_eq!(&r[..], values)),
        _ => bench_decode::<Upto1200>(c, &group, bytes, |r| assert_eq!(&r[..], values)),
    }
}

/// The interleaved decode measurement of one size-series case, in its decoded type.
fn interleaved_decode_series(values: &[SensorReading], bytes: &[u8]) -> (f64, f64) {
    fn run<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> (f64, f64) {
        interleaved(
            || {
                let view = ResultView::parse(black_box(bytes)).unwrap();
                black_box(view.structured_as::<T>(&mut []).unwrap());
            },
            || {
                black_box(host::decode::<T>(black_box(bytes)).unwrap());
            },
        )
    }
    match values.len() {
        0..=8 => run::<Upto8>(bytes),
        9..=80 => run::<Upto80>(bytes),
        _ => run::<Upto1200>(bytes),
    }
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
    let series: Vec<(&str, Vec<SensorReading>, Vec<u8>)> = SIZES
        .iter()
        .map(|&(label, size)| {
            let values = readings_for(size);
            let bytes = encoded(&values[..]);
            (label, values, bytes)
        })
        .collect();
    for (label, values, bytes) in &series {
        bench_encode(&mut c, &format!("encode_{label}"), &values[..]);
        bench_decode_series(&mut c, label, values, bytes);
    }
    c.final_summary();
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--test" || a == "--list") {
        return; // `cargo test --benches` or a listing: no measurements
    }

    println!();
    println!(
        "load average at the end of criterion's run: {}",
        load_average()
    );
    println!(
        "ratios (serde_json host-SDK median / embedded-mcp median; result bytes: one {} B, fifty {} B{}):",
        one_bytes.len(),
        fifty_bytes.len(),
        series
            .iter()
            .map(|(label, values, bytes)| format!(", {label} {} B ({} readings)", bytes.len(), values.len()))
            .collect::<String>()
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
    for (label, _, bytes) in &series {
        for (op, target) in [("encode", 3.0), ("decode", 2.0)] {
            let group = format!("{op}_{label}");
            match (
                median_ns(&dir, &group, OURS, started),
                median_ns(&dir, &group, SDK, started),
            ) {
                (Some(ours), Some(sdk)) => println!(
                    "  {group:<20} embedded-mcp {ours:>10.1} ns  serde_json {sdk:>10.1} ns  ratio {:>5.2}x  (target >= {target}x: {})  embedded-mcp {:>7.1} ns/KiB",
                    sdk / ours,
                    if sdk / ours >= target { "met" } else { "NOT met" },
                    ours * 1024.0 / bytes.len() as f64
                ),
                _ => println!("  {group:<20} not measured in this run"),
            }
        }
    }

    // The same comparison measured interleaved (see `interleaved`): steadier on a busy machine.
    println!();
    println!(
        "ratios measured interleaved (ns per call in each side's fastest of 61 alternating ~2 ms batches):"
    );
    let mut buf = vec![0u8; BUF];
    let mut out = Vec::with_capacity(BUF);
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
    for (label, values, bytes) in &series {
        let per_kib = |ns: f64| ns * 1024.0 / bytes.len() as f64;
        let (ours, sdk) = interleaved(
            || {
                black_box(
                    encode_structured(&mut buf, Era::Stateless, black_box(&values[..])).unwrap(),
                );
            },
            || {
                host::encode(black_box(&values[..]), &mut out).unwrap();
                black_box(out.len());
            },
        );
        report(&format!("encode_{label}"), 3.0, (ours, sdk));
        println!(
            "  {:<20} embedded-mcp {:>7.1} ns/KiB, serde_json {:>7.1} ns/KiB",
            "",
            per_kib(ours),
            per_kib(sdk)
        );
        let (ours, sdk) = interleaved_decode_series(values, bytes);
        report(&format!("decode_{label}"), 2.0, (ours, sdk));
        println!(
            "  {:<20} embedded-mcp {:>7.1} ns/KiB, serde_json {:>7.1} ns/KiB",
            "",
            per_kib(ours),
            per_kib(sdk)
        );
    }
    println!(
        "load average after the interleaved runs: {}",
        load_average()
    );
}
