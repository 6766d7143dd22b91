//! The codec bench's 50-reading case (`benches/benches/codec.rs`), for counting instructions
//! under valgrind: a figure that does not move with the machine's load, to tell a change in the
//! code's cost from the noise of the timed ratios.
//!
//! `codec_count decode|encode ITERATIONS` encodes the 50 readings once, then decodes the result
//! into `T` (`ResultView::parse` and `structured_as`, as the bench does) or encodes it again
//! (`result::encode_structured`, 2026-07-28 shape) `ITERATIONS` times. Instructions per call are
//! the difference between a run of N iterations and a run of 0, divided by N:
//!
//! ```sh
//! cargo build --release -p embedded-mcp-benches --bin codec_count
//! for n in 0 200; do valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
//!     target/release/codec_count decode $n 2>&1 | grep 'I *refs'; done
//! ```

use std::hint::black_box;
use std::process::ExitCode;

use embedded_mcp::result::{encode_structured, Era, ResultView};
use embedded_mcp_benches::{readings, SensorReading};

/// The bench's decoded type for 50 readings.
type Fifty = heapless::Vec<SensorReading, 50>;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(what), Some(Ok(n))) = (args.get(1), args.get(2).map(|n| n.parse::<usize>())) else {
        eprintln!("usage: codec_count decode|encode ITERATIONS");
        return ExitCode::from(2);
    };
    let values = readings(50);
    let mut buf = vec![0u8; 64 * 1024];
    let len = encode_structured(&mut buf, Era::Stateless, &values[..])
        .expect("50 readings fit 64 KiB")
        .len;
    let bytes = buf[..len].to_vec();
    match what.as_str() {
        "decode" => {
            for _ in 0..n {
                let view = ResultView::parse(black_box(&bytes)).expect("our own result");
                let value: Fifty = view.structured_as(&mut []).expect("50 readings");
                black_box(value);
            }
        }
        "encode" => {
            for _ in 0..n {
                let done = encode_structured(&mut buf, Era::Stateless, black_box(&values[..]))
                    .expect("50 readings fit 64 KiB");
                black_box(done.len);
            }
        }
        _ => {
            eprintln!("usage: codec_count decode|encode ITERATIONS");
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}
