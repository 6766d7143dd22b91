//! Server-sent events read from a response body, bounded: each event's `data` (its lines joined
//! by `\n`) is at most `max` bytes, and a line is never buffered beyond that; an event over the
//! bound is skipped whole and reported by its length. Comments (`:`), `event`, `id` and `retry`
//! fields carry nothing the link needs and are ignored. Without I/O: bytes in, events out.

/// What an event stream yields.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum SseItem {
    /// An event's data.
    Data(Vec<u8>),
    /// An event whose data passed the bound (the bytes seen of it), skipped.
    Overlong(usize),
}

/// Splits a byte stream into events.
pub(super) struct SseFramer {
    max: usize,
    /// The line being received.
    line: Vec<u8>,
    /// The event's data so far.
    data: Vec<u8>,
    /// Bytes of the current event dropped for the bound (0: none).
    dropped: usize,
    /// The current line passed the bound: skip to its end.
    skip_line: bool,
}

impl SseFramer {
    /// A framer whose events hold at most `max` bytes of data.
    pub(super) fn new(max: usize) -> Self {
        Self {
            max,
            line: Vec::new(),
            data: Vec::new(),
            dropped: 0,
            skip_line: false,
        }
    }

    /// Takes the next bytes of the stream; the events they end go into `out`.
    pub(super) fn push(&mut self, bytes: &[u8], out: &mut Vec<SseItem>) {
        for &b in bytes {
            if b == b'\n' {
                self.end_line(out);
            } else if self.skip_line {
                self.dropped += 1;
            } else if self.line.len() > self.max + 8 {
                // "data: " and the bound: this line cannot fit, drop it and the event.
                self.dropped += self.line.len() + 1;
                self.line.clear();
                self.skip_line = true;
            } else {
                self.line.push(b);
            }
        }
    }

    fn end_line(&mut self, out: &mut Vec<SseItem>) {
        let mut line = std::mem::take(&mut self.line);
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if std::mem::take(&mut self.skip_line) {
            return;
        }
        if line.is_empty() {
            if self.dropped > 0 {
                out.push(SseItem::Overlong(self.dropped + self.data.len()));
            } else if !self.data.is_empty() {
                out.push(SseItem::Data(std::mem::take(&mut self.data)));
            }
            self.data.clear();
            self.dropped = 0;
            return;
        }
        let Some(value) = line.strip_prefix(b"data") else {
            return;
        };
        let value = match value {
            [b':', b' ', rest @ ..] | [b':', rest @ ..] => rest,
            [] => &[][..],
            _ => return,
        };
        let extra = usize::from(!self.data.is_empty());
        if self.dropped > 0 || self.data.len() + extra + value.len() > self.max {
            self.dropped += value.len() + extra;
            return;
        }
        if extra == 1 {
            self.data.push(b'\n');
        }
        self.data.extend_from_slice(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(framer: &mut SseFramer, chunks: &[&[u8]]) -> Vec<SseItem> {
        let mut out = Vec::new();
        for chunk in chunks {
            framer.push(chunk, &mut out);
        }
        out
    }

    #[test]
    fn events_split_across_chunks_with_comments_and_fields() {
        let mut f = SseFramer::new(64);
        let out = feed(
            &mut f,
            &[
                b": keep-alive\n\nevent: message\r\nid: 1\r\nda",
                b"ta: {\"a\":1}\r\n\r\ndata:{\"b\":2}\ndata: x\n\n",
            ],
        );
        assert_eq!(
            out,
            vec![
                SseItem::Data(b"{\"a\":1}".to_vec()),
                SseItem::Data(b"{\"b\":2}\nx".to_vec())
            ]
        );
    }

    #[test]
    fn an_event_over_the_bound_is_skipped_and_the_next_one_read() {
        let mut f = SseFramer::new(8);
        let long = [b'x'; 100];
        let mut out = feed(&mut f, &[b"data: ", &long, b"\n\n"]);
        out.extend(feed(&mut f, &[b"data: 12345\ndata: 678\n\ndata: ok\n\n"]));
        assert_eq!(
            out,
            vec![
                SseItem::Overlong(106),
                SseItem::Overlong(9),
                SseItem::Data(b"ok".to_vec())
            ]
        );
        assert!(f.line.capacity() < 64, "never buffered the long line");
    }
}
