//! What a real UART overrun or a noisy line does to the byte stream, which QEMU cannot show:
//! bytes dropped, bits flipped, bursts of noise inserted, runs of bytes lost. The engine reads
//! the damaged stream through `Server::serve` (blocking) and `Server::serve_async` over
//! `LineReader`s with random read sizes, for 600 seeds of a deterministic PRNG.
//!
//! Asserted per seed: every message whose line (and the LF before it) came through intact is
//! answered exactly as on a clean line, in order, however badly its neighbours were damaged:
//! the reader resynchronises at the next LF. A damaged line costs at most one extra response
//! (or silence), every response is one line of JSON, and both serve loops write the same bytes.

use embedded_mcp::server::{
    Call, Done, Output, SchemaStorage, Server, ServerInfo, Tool, ToolError,
};
use embedded_mcp::transport::LineReader;
use serde::{Deserialize, Serialize};

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

static TOOLS: [Tool; 1] = [Tool::new(
    "count",
    r#"{"type":"object","properties":{"n":{"type":"integer","minimum":0}},"required":["n"],"additionalProperties":false}"#,
)
.output_schema(r#"{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}"#)];

#[derive(Serialize, Deserialize)]
struct Count {
    n: u64,
}

fn handler(call: &Call<'_>, out: Output<'_>) -> Result<Done, ToolError> {
    let count: Count = call.parse(&mut [])?;
    Ok(out.structured(&count))
}

type Handler = fn(&Call<'_>, Output<'_>) -> Result<Done, ToolError>;

fn server() -> Server<'static, Handler, 1> {
    let storage = Box::leak(Box::new(SchemaStorage::<1, 8, 32, 64>::new()));
    Server::new(
        ServerInfo::new("noise", "1"),
        &TOOLS,
        storage,
        handler as Handler,
    )
    .unwrap()
}

/// xorshift64*.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Message `i` and its answer on a clean line.
fn message(i: usize) -> (String, String) {
    if i.is_multiple_of(3) {
        (
            format!("{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"ping\"}}\n"),
            format!("{{\"jsonrpc\":\"2.0\",\"id\":{i},\"result\":{{}}}}"),
        )
    } else {
        let json = format!("{{\"n\":{i}}}");
        (
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":\"m{i}\",\"method\":\"tools/call\",\"params\":{{{META},\"name\":\"count\",\"arguments\":{{\"n\":{i}}}}}}}\n"
            ),
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":\"m{i}\",\"result\":{{\"structuredContent\":{json},\"content\":[{{\"type\":\"text\",\"text\":{}}}],\"resultType\":\"complete\"}}}}",
                serde_json::to_string(&json).unwrap()
            ),
        )
    }
}

/// One kind of damage at a byte position of the clean stream.
#[derive(Debug, Clone)]
enum Damage {
    /// The byte is lost (receiver overrun).
    Drop,
    /// Bits of the byte flip (noise); the mask is never 0.
    Flip(u8),
    /// A run of this many bytes is lost.
    Lose(usize),
    /// Noise bytes arrive before the byte (a glitch, a break, another device babbling).
    Insert(Vec<u8>),
}

/// Applies `damage` (sorted by position) to `clean`.
fn apply(clean: &[u8], damage: &[(usize, Damage)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(clean.len() + 2048);
    let mut at = 0;
    for (pos, d) in damage {
        let pos = *pos;
        assert!(pos >= at, "damage does not overlap");
        out.extend_from_slice(&clean[at..pos.min(clean.len())]);
        at = pos.min(clean.len());
        match d {
            Damage::Drop => at = (at + 1).min(clean.len()),
            Damage::Flip(mask) => {
                if let Some(&b) = clean.get(at) {
                    out.push(b ^ mask);
                    at += 1;
                }
            }
            Damage::Lose(n) => at = (at + n).min(clean.len()),
            Damage::Insert(noise) => out.extend_from_slice(noise),
        }
    }
    out.extend_from_slice(&clean[at..]);
    out
}

fn random_damage(rng: &mut Rng, len: usize) -> Vec<(usize, Damage)> {
    let count = 1 + rng.below(6);
    let mut damage: Vec<(usize, Damage)> = (0..count)
        .map(|_| {
            let pos = rng.below(len);
            let d = match rng.below(8) {
                0..=2 => Damage::Drop,
                3..=5 => Damage::Flip(1 << rng.below(8)),
                6 => Damage::Lose(1 + rng.below(120)),
                _ => {
                    let long = rng.below(4) == 0;
                    let n = 1 + rng.below(if long { 1500 } else { 40 });
                    let fill = match rng.below(3) {
                        0 => vec![0u8; n],
                        1 => vec![0xFFu8; n],
                        _ => (0..n).map(|_| rng.next() as u8).collect(),
                    };
                    Damage::Insert(fill)
                }
            };
            (pos, d)
        })
        .collect();
    damage.sort_by_key(|(p, _)| *p);
    // No overlaps: each damage starts after the bytes the previous one consumed, so the
    // positions recorded are where the damage really is.
    let mut end = 0;
    for (p, d) in &mut damage {
        *p = (*p).max(end);
        end = *p
            + match d {
                Damage::Drop | Damage::Flip(_) => 1,
                Damage::Lose(n) => *n,
                Damage::Insert(_) => 0,
            };
    }
    damage
}

/// Reads in random sizes.
struct Noisy<'a> {
    data: &'a [u8],
    rng: Rng,
}

impl embedded_io::ErrorType for Noisy<'_> {
    type Error = core::convert::Infallible;
}

impl embedded_io::Read for Noisy<'_> {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        let n = (1 + self.rng.below(96)).min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

impl embedded_io_async::Read for Noisy<'_> {
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        embedded_io::Read::read(self, buf)
    }
}

#[derive(Default)]
struct Sink(Vec<u8>);

impl embedded_io::ErrorType for Sink {
    type Error = core::convert::Infallible;
}

impl embedded_io::Write for Sink {
    fn write(&mut self, buf: &[u8]) -> Result<usize, Self::Error> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

impl embedded_io_async::Write for Sink {
    async fn write(&mut self, buf: &[u8]) -> Result<usize, Self::Error> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }
    async fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

/// Serves `stream` with a line buffer of `N` bytes, blocking and async; returns the output.
fn serve<const N: usize>(stream: &[u8], seed: u64) -> Vec<u8> {
    let mut out = vec![0u8; 1024];
    let mut blocking = Sink::default();
    let mut reader = LineReader::<_, N>::new(Noisy {
        data: stream,
        rng: Rng(seed | 1),
    });
    server()
        .serve(&mut reader, &mut blocking, &mut out)
        .unwrap();
    let mut async_out = Sink::default();
    let mut reader = LineReader::<_, N>::new(Noisy {
        data: stream,
        rng: Rng(seed | 1),
    });
    block_on(server().serve_async(&mut reader, &mut async_out, &mut out)).unwrap();
    assert_eq!(
        blocking.0, async_out.0,
        "blocking and async serve loops differ"
    );
    blocking.0
}

/// Runs one seed; returns (messages, intact messages, damaged lines).
fn run_seed<const N: usize>(seed: u64) -> (usize, usize, usize) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let count = 20 + rng.below(30);
    let mut clean = Vec::new();
    let mut spans = Vec::new();
    let mut answers = Vec::new();
    for i in 0..count {
        let (line, answer) = message(i);
        spans.push((clean.len(), clean.len() + line.len() - 1)); // first byte, its LF
        clean.extend_from_slice(line.as_bytes());
        answers.push(answer);
    }
    let damage = random_damage(&mut rng, clean.len());
    let stream = apply(&clean, &damage);
    // Intact: no damage from the LF before the line up to and including its own LF.
    let intact: Vec<bool> = spans
        .iter()
        .map(|&(first, lf)| {
            let from = first.saturating_sub(1);
            !damage.iter().any(|(p, d)| {
                let last = match d {
                    Damage::Lose(n) => p + n - 1,
                    _ => *p,
                };
                *p <= lf && last >= from
            })
        })
        .collect();
    let output = serve::<N>(&stream, seed);
    let text = String::from_utf8(output).expect("UTF-8 output");
    let lines: Vec<&str> = text.lines().collect();
    for line in &lines {
        serde_json::from_str::<serde_json::Value>(line)
            .unwrap_or_else(|e| panic!("seed {seed}: not JSON ({e}): {line}"));
    }
    // The intact messages' answers, in order; anything else is charged to a damaged line.
    let mut next = lines.iter();
    let mut extra = 0;
    for (i, answer) in answers.iter().enumerate().filter(|&(i, _)| intact[i]) {
        loop {
            let Some(line) = next.next() else {
                panic!(
                    "seed {seed}, N {N}: intact message {i} unanswered; damage {:?}\noutput:\n{text}",
                    damage.iter().map(|(p, d)| (p, format!("{d:?}").chars().take(40).collect::<String>())).collect::<Vec<_>>()
                );
            };
            if *line == answer.as_str() {
                break;
            }
            extra += 1;
        }
    }
    extra += next.count();
    let damaged = intact.iter().filter(|ok| !**ok).count();
    // A damaged line is answered at most once; inserted noise can make extra lines of its own
    // (each Insert adds at most the LFs it carries, plus one).
    let noise_lines: usize = damage
        .iter()
        .map(|(_, d)| match d {
            Damage::Insert(n) => n.iter().filter(|&&b| b == b'\n').count() + 1,
            Damage::Flip(_) => 1,
            _ => 0,
        })
        .sum();
    assert!(
        extra <= damaged + noise_lines,
        "seed {seed}: {extra} unexpected responses for {damaged} damaged lines"
    );
    (count, intact.iter().filter(|ok| **ok).count(), damaged)
}

#[test]
fn the_reader_resynchronises_after_dropped_flipped_and_inserted_bytes() {
    let (mut messages, mut intact, mut damaged) = (0, 0, 0);
    for seed in 0..600u64 {
        let (m, i, d) = if seed.is_multiple_of(2) {
            run_seed::<512>(seed)
        } else {
            run_seed::<256>(seed)
        };
        messages += m;
        intact += i;
        damaged += d;
    }
    println!("600 seeds: {messages} messages, {intact} intact and all answered, {damaged} damaged");
    assert!(
        intact > messages * 3 / 4,
        "the damage should spare most lines"
    );
    assert!(damaged > 600, "every seed damages at least one line");
}

#[test]
fn a_lost_lf_costs_exactly_the_two_lines_it_joined() {
    let (a, _) = message(1);
    let (b, _) = message(2);
    let (c, c_answer) = message(3);
    let stream = format!("{}{}{}", a.trim_end(), b, c);
    let output = serve::<512>(stream.as_bytes(), 7);
    assert_eq!(String::from_utf8(output).unwrap(), format!("{c_answer}\n"));
}

#[test]
fn a_flipped_bit_in_a_digit_changes_only_that_message() {
    // `"n":5` becomes `"n":4` (0x35 ^ 0x01): a different but valid request, answered as such.
    let (a, _) = message(5);
    let damaged = a.replace("\"n\":5", "\"n\":4");
    let (b, b_answer) = message(6);
    let output = serve::<512>(format!("{damaged}{b}").as_bytes(), 3);
    let text = String::from_utf8(output).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(
        lines[0].contains(r#""structuredContent":{"n":4}"#),
        "{}",
        lines[0]
    );
    assert_eq!(lines[1], b_answer);
}

#[test]
fn a_long_break_becomes_one_overlong_line_and_the_next_message_is_served() {
    // A UART break reads as a run of NUL bytes; 5,000 of them overflow the 512-byte buffer.
    let (a, a_answer) = message(1);
    let mut stream = vec![0u8; 5000];
    stream.extend_from_slice(b"\n");
    stream.extend_from_slice(a.as_bytes());
    let output = serve::<512>(&stream, 11);
    assert_eq!(String::from_utf8(output).unwrap(), format!("{a_answer}\n"));
}
