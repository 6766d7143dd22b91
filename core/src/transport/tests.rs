use std::string::String;
use std::vec;
use std::vec::Vec;

use super::*;

#[derive(Debug, PartialEq, Eq)]
enum Got {
    Line(String),
    Bad(Vec<u8>),
    Long(usize, Option<String>),
}

fn got(f: Frame<'_>) -> Got {
    match f {
        Frame::Line(l) => Got::Line(l.into()),
        Frame::InvalidUtf8(b) => Got::Bad(b.into()),
        Frame::Overlong(o) => Got::Long(o.len, o.id.map(|i| i.as_str().into())),
    }
}

fn feed_all<const N: usize>(chunks: &[&[u8]]) -> Vec<Got> {
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

fn read_all<const N: usize>(input: &[u8]) -> Vec<Got> {
    let mut reader = LineReader::<_, N>::new(input);
    let mut out = Vec::new();
    while let Some(f) = reader.next_frame().unwrap() {
        out.push(got(f));
    }
    out
}

#[test]
fn feed_handles_split_and_batched_input() {
    let want = vec![Got::Line("{\"a\":1}".into()), Got::Line("{\"b\":2}".into())];
    assert_eq!(feed_all::<16>(&[b"{\"a\":1}\n{\"b\":2}\n"]), want);
    assert_eq!(
        feed_all::<16>(&[b"{\"a\"", b":1}\r", b"\n\n  \n{\"b\":2}", b"\n"]),
        want
    );
    assert_eq!(
        read_all::<16>(b"\xEF\xBB\xBF{\"a\":1}\r\n\r\n{\"b\":2}\n"),
        want
    );
}

#[test]
fn overlong_is_reported_once_and_the_next_line_survives() {
    // 8 bytes of capacity, LF included: a 7-byte line fits, an 8-byte one does not.
    let want = vec![
        Got::Line("1234567".into()),
        Got::Long(8, None),
        Got::Line("ok".into()),
    ];
    assert_eq!(feed_all::<8>(&[b"1234567\n12345678\nok\n"]), want);
    assert_eq!(read_all::<8>(b"1234567\n12345678\nok\n"), want);
    let line = b"{\"method\":\"x\",\"params\":{\"pad\":\"xxxxxxxxxxxxxxxxxxxx\"},\"id\":17}\n{}\n";
    let want = vec![
        Got::Long(line.len() - 4, Some("17".into())),
        Got::Line("{}".into()),
    ];
    assert_eq!(feed_all::<16>(&[line]), want);
    assert_eq!(read_all::<16>(line), want);
    let bytes: Vec<&[u8]> = line.chunks(1).collect();
    assert_eq!(feed_all::<16>(&bytes), want);
}

#[test]
fn invalid_utf8_is_reported() {
    assert_eq!(
        read_all::<16>(b"\xff\xfe\n{}\n"),
        vec![Got::Bad(vec![0xff, 0xfe]), Got::Line("{}".into())]
    );
}

#[test]
fn partial_final_line_is_dropped_at_eof() {
    assert_eq!(read_all::<16>(b"{}\n{\"a\""), vec![Got::Line("{}".into())]);
}
