//! Where encoded bytes go.

use super::shift::copy_bytes;
use super::EncodeError;

/// A destination for encoded bytes.
///
/// Implementations either store the bytes, count them, or forward them to a transport.
pub trait Sink {
    /// Appends `bytes`. An error stops the encoder and is returned to its caller.
    fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError>;

    /// Appends one byte.
    fn put_byte(&mut self, byte: u8) -> Result<(), EncodeError> {
        self.put(&[byte])
    }
}

impl<S: Sink + ?Sized> Sink for &mut S {
    fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        (**self).put(bytes)
    }
    fn put_byte(&mut self, byte: u8) -> Result<(), EncodeError> {
        (**self).put_byte(byte)
    }
}

/// A sink over a caller-provided buffer.
///
/// When the buffer is full it stops storing but keeps counting, so that [`SliceSink::finish`]
/// can report the exact size the output needs. The buffer never holds a truncated message that
/// could be mistaken for a complete one: `finish` fails instead.
#[derive(Debug)]
pub struct SliceSink<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl<'a> SliceSink<'a> {
    /// A sink writing from the start of `buf`.
    pub fn new(buf: &'a mut [u8]) -> Self {
        Self { buf, len: 0 }
    }

    /// Bytes written so far (may exceed the capacity after an overflow).
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when nothing has been written.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The buffer's capacity.
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// True once more bytes were written than fit.
    pub fn overflowed(&self) -> bool {
        self.len > self.buf.len()
    }

    /// The bytes written so far, if they all fit.
    pub fn written(&self) -> Option<&[u8]> {
        self.buf.get(..self.len)
    }

    /// Ends the output: the number of bytes written, or
    /// [`EncodeError::BufferTooSmall`] with the size that was needed.
    pub fn finish(self) -> Result<usize, EncodeError> {
        if self.len > self.buf.len() {
            Err(EncodeError::BufferTooSmall { needed: self.len })
        } else {
            Ok(self.len)
        }
    }

    /// Ends the output and returns the written part of the buffer (see [`SliceSink::finish`]).
    pub fn into_written(self) -> Result<&'a mut [u8], EncodeError> {
        let len = self.len;
        match self.buf.get_mut(..len) {
            Some(done) => Ok(done),
            None => Err(EncodeError::BufferTooSmall { needed: len }),
        }
    }
}

impl Sink for SliceSink<'_> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        // `get_mut(..n)` yields exactly `n` bytes, so the lengths are equal by construction
        // (the copy cannot fail, and the optimiser can see it).
        let dst = self
            .buf
            .get_mut(self.len..)
            .and_then(|rest| rest.get_mut(..bytes.len()));
        if let Some(dst) = dst {
            copy_bytes(dst, bytes);
        }
        // When the bytes do not fit, nothing is stored; the count goes past the capacity so
        // `finish` fails and reports the size needed.
        self.len = self.len.saturating_add(bytes.len());
        Ok(())
    }

    #[inline]
    fn put_byte(&mut self, byte: u8) -> Result<(), EncodeError> {
        if let Some(dst) = self.buf.get_mut(self.len) {
            *dst = byte;
        }
        self.len = self.len.saturating_add(1);
        Ok(())
    }
}

/// A sink that only counts bytes: the exact size an output will take.
#[derive(Debug, Default, Clone, Copy)]
pub struct CountingSink {
    /// Bytes counted so far.
    pub count: usize,
}

impl Sink for CountingSink {
    #[inline]
    fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        self.count = self.count.saturating_add(bytes.len());
        Ok(())
    }
}
