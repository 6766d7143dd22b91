//! Line framing edge cases, through both the `feed` accumulator and the `LineReader` over
//! blocking and async `embedded-io` streams.

use embedded_mcp::transport::{FeedResult, Frame, LineBuffer, LineReader};

#[derive(Debug, PartialEq, Eq, Clone)]
enum Got {
    Line(String),
    InvalidUtf8(Vec<u8>),
    Overlong { len: usize, id: Option<String> },
}

fn got(frame: Frame<'_>) -> Got {
    match frame {
        Frame::Line(l) => Got::Line(l.to_owned()),
        Frame::InvalidUtf8(b) => Got::InvalidUtf8(b.to_vec()),
        Frame::Overlong(o) => Got::Overlong {
            len: o.len,
            id: o.id.map(|id| id.as_str().to_owned()),
        },
    }
}

fn line(s: &str) -> Got {
    Got::Line(s.to_owned())
}

/// Feeds `chunks` one after the other through the accumulator.
fn feed<const N: usize>(chunks: &[&[u8]]) -> Vec<Got> {
    let mut acc = LineBuffer::<N>::new();
    let mut out = Vec::new();
    for chunk in chunks {
        let mut window = *chunk;
        while let FeedResult::Frame { frame, remaining } = acc.feed(window) {
            out.push(got(frame));
            window = remaining;
        }
    }
    out
}

/// A blocking reader that hands out at most `step` bytes per `read`.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
}

impl embedded_io::ErrorType for Trickle<'_> {
    type Error = core::convert::Infallible;
}

impl embedded_io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        let n = self.step.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

impl embedded_io_async::Read for Trickle<'_> {
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        embedded_io::Read::read(self, buf)
    }
}

fn read<const N: usize>(data: &[u8], step: usize) -> Vec<Got> {
    let mut reader = LineReader::<_, N>::new(Trickle { data, step });
    let mut out = Vec::new();
    while let Some(frame) = reader.next_frame().unwrap() {
        out.push(got(frame));
    }
    out
}

/// Polls a future that never waits (the test streams are always ready).
fn block_on<F: std::future::Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

fn read_async<const N: usize>(data: &[u8], step: usize) -> Vec<Got> {
    block_on(async {
        let mut reader = LineReader::<_, N>::new(Trickle { data, step });
        let mut out = Vec::new();
        while let Some(frame) = reader.next_frame_async().await.unwrap() {
            out.push(got(frame));
        }
        out
    })
}

/// Every way of delivering `data`: one chunk, byte by byte, every two-way split, and the
/// readers with read sizes 1, 2, 3, 7 and everything. All must agree with `want`.
fn all_ways<const N: usize>(data: &[u8], want: &[Got]) {
    assert_eq!(feed::<N>(&[data]), want, "one chunk");
    let bytes: Vec<&[u8]> = data.chunks(1).collect();
    assert_eq!(feed::<N>(&bytes), want, "byte by byte");
    for cut in 0..=data.len() {
        assert_eq!(
            feed::<N>(&[&data[..cut], &data[cut..]]),
            want,
            "split at {cut}"
        );
    }
    for step in [1, 2, 3, 7, usize::MAX] {
        assert_eq!(
            read::<N>(data, step),
            want,
            "blocking reader, reads of {step}"
        );
        assert_eq!(
            read_async::<N>(data, step),
            want,
            "async reader, reads of {step}"
        );
    }
}

#[test]
fn several_messages_in_one_read() {
    all_ways::<64>(
        b"{\"id\":1}\n{\"id\":2}\n{\"id\":3}\n",
        &[line("{\"id\":1}"), line("{\"id\":2}"), line("{\"id\":3}")],
    );
}

#[test]
fn crlf_bom_and_blank_lines() {
    all_ways::<64>(
        b"\xEF\xBB\xBF{\"a\":1}\r\n\r\n\n   \n\t\r\n{\"b\":\"\xC3\xA9\"}\r\n",
        &[line("{\"a\":1}"), line("{\"b\":\"\u{e9}\"}")],
    );
    // Only one trailing CR is framing; a CR inside the line stays (and then fails JSON).
    all_ways::<64>(b"a\rb\r\r\n", &[line("a\rb\r")]);
}

#[test]
fn invalid_utf8_is_rejected_and_the_stream_goes_on() {
    all_ways::<64>(
        b"{\"s\":\"\xC3\x28\"}\n\xED\xA0\x80\n{\"ok\":true}\n",
        &[
            Got::InvalidUtf8(b"{\"s\":\"\xC3\x28\"}".to_vec()),
            Got::InvalidUtf8(b"\xED\xA0\x80".to_vec()),
            line("{\"ok\":true}"),
        ],
    );
}

#[test]
fn overlong_lines_are_discarded_reported_and_the_next_message_arrives() {
    // Capacity 32 bytes, LF included: 31 bytes of line fit.
    let fits = "x".repeat(31);
    let too_long = "y".repeat(32);
    let request = format!(
        "{{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{{\"pad\":\"{}\"}},\"id\":\"r-9\"}}",
        "}{\\\"id\\\":1".repeat(20)
    );
    let data = format!("{fits}\n{too_long}\n{request}\n{{\"ok\":1}}\n");
    all_ways::<32>(
        data.as_bytes(),
        &[
            line(&fits),
            Got::Overlong { len: 32, id: None },
            Got::Overlong {
                len: request.len(),
                id: Some("\"r-9\"".to_owned()),
            },
            line("{\"ok\":1}"),
        ],
    );
}

#[test]
fn a_final_line_without_lf_is_not_a_message() {
    assert_eq!(read::<32>(b"{\"a\":1}\n{\"b\"", 5), [line("{\"a\":1}")]);
    assert_eq!(feed::<32>(&[b"{\"a\":1}\n{\"b\""]), [line("{\"a\":1}")]);
}
