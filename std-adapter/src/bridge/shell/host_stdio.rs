//! The host's byte streams (stdin and stdout in the binary, any [`Read`] and [`Write`] in
//! tests): a reader frames the input into lines for the shell's inbox, a writer writes the
//! lines the shell hands it. A pipe or a unix socket (what an MCP host gives its server) is
//! tokio I/O driven by two tasks of the shell's runtime, so a line crosses no thread; any other
//! stream (a terminal, a file, a caller's `Read`) is read and written by two threads of its own.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::fs::FileTypeExt;
use std::os::unix::net::UnixStream;
use std::thread::JoinHandle;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc::{Receiver, Sender};

use super::Event;
use crate::bridge::machine::Input;
use crate::bridge::BridgeError;
use crate::device::lines::{write_line, Frame, Framer, LineReader};

/// Starts the thread that reads `host_in` into `events`.
fn spawn_reader<R: Read + Send + 'static>(
    host_in: R,
    max_line: usize,
    events: Sender<Event>,
) -> Result<(), BridgeError> {
    std::thread::Builder::new()
        .name("host-reader".into())
        .spawn(move || {
            let mut lines = LineReader::new(host_in, max_line);
            loop {
                let input = match lines.next_frame() {
                    Ok(Frame::Line(line)) => Input::HostLine(line),
                    Ok(Frame::Overlong { len }) => Input::HostOverlong(len),
                    Ok(Frame::Eof) => Input::HostEof(None),
                    Err(e) => Input::HostEof(Some(e.to_string())),
                };
                let end = matches!(input, Input::HostEof(_));
                if events.blocking_send(Event::Input(input)).is_err() || end {
                    return;
                }
            }
        })
        .map(drop)
        .map_err(BridgeError::Thread)
}

/// Starts the thread that writes the lines of `lines` to `host_out`, each with its newline; a
/// failed write is reported to `events` and ends it.
fn spawn_writer<W: Write + Send + 'static>(
    mut host_out: W,
    mut lines: Receiver<Vec<u8>>,
    events: Sender<Event>,
) -> Result<JoinHandle<()>, BridgeError> {
    std::thread::Builder::new()
        .name("host-writer".into())
        .spawn(move || {
            while let Some(mut line) = lines.blocking_recv() {
                line.push(b'\n');
                if let Err(e) = host_out.write_all(&line).and_then(|()| host_out.flush()) {
                    let _ = events.blocking_send(Event::HostOutputFailed(e.to_string()));
                    return;
                }
            }
        })
        .map_err(BridgeError::Thread)
}

/// A host's input as the shell reads it: tokio I/O read by a task of the shell's runtime (a
/// pipe or a unix socket), or a blocking stream read by a thread of its own.
pub(super) enum HostIn {
    Async(Box<dyn AsyncRead + Send + Unpin>),
    Blocking(Box<dyn Read + Send>),
}

/// A host's output as the shell writes it (see [`HostIn`]).
pub(super) enum HostOut {
    Async(Box<dyn AsyncWrite + Send + Unpin>),
    Blocking(Box<dyn Write + Send>),
}

/// What to wait for once the bridge is done: the host writer draining its queue.
pub(super) enum Writer {
    Task(tokio::task::JoinHandle<()>),
    Thread(JoinHandle<()>),
}

/// The kind of descriptor `fd` is, as the shell can drive it.
enum Kind {
    Pipe,
    UnixSocket,
    Other,
}

fn kind(file: &File) -> Kind {
    match file.metadata().map(|m| m.file_type()) {
        Ok(t) if t.is_fifo() => Kind::Pipe,
        Ok(t) if t.is_socket() => {
            match file.try_clone().map(|f| UnixStream::from(OwnedFd::from(f))) {
                Ok(s) if s.local_addr().is_ok() => Kind::UnixSocket,
                _ => Kind::Other,
            }
        }
        _ => Kind::Other,
    }
}

/// The host's input on `fd`: tokio I/O for a pipe or a unix socket (which it sets
/// non-blocking), else the descriptor as a blocking stream. Must be called inside the runtime.
pub(super) fn host_in(fd: OwnedFd) -> HostIn {
    type AsyncIn = Box<dyn AsyncRead + Send + Unpin>;
    let pipe = |f| tokio::net::unix::pipe::Receiver::from_file(f).map(|r| Box::new(r) as AsyncIn);
    match as_tokio(File::from(fd), pipe, |s| Box::new(s) as AsyncIn) {
        Ok(reader) => HostIn::Async(reader),
        Err(file) => HostIn::Blocking(Box::new(file)),
    }
}

/// The host's output on `fd` (see [`host_in`]).
pub(super) fn host_out(fd: OwnedFd) -> HostOut {
    type AsyncOut = Box<dyn AsyncWrite + Send + Unpin>;
    let pipe = |f| tokio::net::unix::pipe::Sender::from_file(f).map(|w| Box::new(w) as AsyncOut);
    match as_tokio(File::from(fd), pipe, |s| Box::new(s) as AsyncOut) {
        Ok(writer) => HostOut::Async(writer),
        Err(file) => HostOut::Blocking(Box::new(file)),
    }
}

/// `file` as tokio I/O made by `pipe` (a pipe) or `socket` (a unix socket); the file back when
/// it is neither, or cannot be registered.
fn as_tokio<T>(
    file: File,
    pipe: impl FnOnce(File) -> std::io::Result<T>,
    socket: impl FnOnce(tokio::net::UnixStream) -> T,
) -> Result<T, File> {
    let made = match kind(&file) {
        Kind::Pipe => file.try_clone().and_then(pipe),
        Kind::UnixSocket => unix_stream(&file).map(socket),
        Kind::Other => return Err(file),
    };
    made.map_err(|_| file)
}

fn unix_stream(file: &File) -> std::io::Result<tokio::net::UnixStream> {
    let stream = UnixStream::from(OwnedFd::from(file.try_clone()?));
    stream.set_nonblocking(true)?;
    tokio::net::UnixStream::from_std(stream)
}

/// Starts reading the host's input into `events`: a task, or a thread for a blocking stream.
pub(super) fn start_reader(
    host_in: HostIn,
    max_line: usize,
    events: Sender<Event>,
) -> Result<(), BridgeError> {
    match host_in {
        HostIn::Async(reader) => {
            tokio::spawn(read_host(reader, max_line, events));
            Ok(())
        }
        HostIn::Blocking(reader) => spawn_reader(reader, max_line, events),
    }
}

/// Starts writing the lines of `lines` to the host's output: a task, or a thread for a
/// blocking stream.
pub(super) fn start_writer(
    host_out: HostOut,
    lines: Receiver<Vec<u8>>,
    events: Sender<Event>,
) -> Result<Writer, BridgeError> {
    match host_out {
        HostOut::Async(writer) => Ok(Writer::Task(tokio::spawn(write_host(
            writer, lines, events,
        )))),
        HostOut::Blocking(writer) => spawn_writer(writer, lines, events).map(Writer::Thread),
    }
}

/// The host's lines (at most `max_line` bytes buffered) until its input ends.
async fn read_host(
    mut reader: Box<dyn AsyncRead + Send + Unpin>,
    max_line: usize,
    events: Sender<Event>,
) {
    let mut framer = Framer::new(max_line);
    loop {
        let input = match framer.read_from(&mut reader).await {
            Ok(Frame::Line(line)) => Input::HostLine(line),
            Ok(Frame::Overlong { len }) => Input::HostOverlong(len),
            Ok(Frame::Eof) => Input::HostEof(None),
            Err(e) => Input::HostEof(Some(e.to_string())),
        };
        let end = matches!(input, Input::HostEof(_));
        if events.send(Event::Input(input)).await.is_err() || end {
            return;
        }
    }
}

/// Writes the host's lines, each with its newline; a failed write is reported and ends it.
async fn write_host(
    mut writer: Box<dyn AsyncWrite + Send + Unpin>,
    mut lines: Receiver<Vec<u8>>,
    events: Sender<Event>,
) {
    while let Some(line) = lines.recv().await {
        if let Err(e) = write_line(&mut writer, line).await {
            let _ = events.send(Event::HostOutputFailed(e.to_string())).await;
            return;
        }
    }
}
