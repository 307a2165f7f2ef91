//! `WriterThread`: writes buffers on a thread of its own, so a big per-puzzle CSV goes to
//! disk while the workers solve the next chunk instead of between chunks, with both cores
//! idle. Buffers are written whole and in the order sent; the queue is bounded, so a slow
//! disk holds the run back rather than filling memory. Written buffers come back, emptied,
//! through `spare`, so their memory is reused rather than freed and faulted in again.

use std::io::{self, Write};
use std::sync::mpsc::{channel, sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

pub struct WriterThread {
    queue: Option<SyncSender<Vec<u8>>>,
    written: Receiver<Vec<u8>>,
    thread: Option<JoinHandle<io::Result<()>>>,
}

impl WriterThread {
    /// Start writing to `out`; at most `depth` buffers wait at once.
    pub fn spawn(mut out: Box<dyn Write + Send>, depth: usize) -> io::Result<WriterThread> {
        let (queue, buffers) = sync_channel::<Vec<u8>>(depth);
        let (give_back, written) = channel::<Vec<u8>>();
        let thread = std::thread::Builder::new()
            .name("writer".into())
            .spawn(move || {
                for mut buffer in buffers {
                    out.write_all(&buffer)?;
                    buffer.clear();
                    // Gone only when the sender is: then nobody wants it back.
                    let _ = give_back.send(buffer);
                }
                out.flush()
            })?;
        Ok(WriterThread {
            queue: Some(queue),
            written,
            thread: Some(thread),
        })
    }

    /// An empty buffer: one already written, when there is one, else a new one.
    pub fn spare(&self) -> Vec<u8> {
        self.written.try_recv().unwrap_or_default()
    }

    /// Queue `buffer` to be written after everything sent before it. If writing has
    /// failed, that failure is returned (here or, at the latest, from `finish`).
    pub fn send(&mut self, buffer: Vec<u8>) -> io::Result<()> {
        let sent = match &self.queue {
            Some(queue) => queue.send(buffer).is_ok(),
            None => false,
        };
        if sent {
            Ok(())
        } else {
            // The thread only stops taking buffers when a write failed: report why.
            self.finish()
        }
    }

    /// Write what is queued, flush, and return the first failure, if any.
    pub fn finish(&mut self) -> io::Result<()> {
        self.queue = None;
        match self.thread.take() {
            Some(thread) => thread
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("the writer thread panicked"))),
            None => Err(io::Error::other("output already closed after an error")),
        }
    }
}

impl Drop for WriterThread {
    fn drop(&mut self) {
        // On an early return the error at hand matters more than this one.
        if self.thread.is_some() {
            let _ = self.finish();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// Collects what is written; fails every write after `fail_after` bytes.
    #[derive(Clone)]
    struct Sink {
        bytes: Arc<Mutex<Vec<u8>>>,
        fail_after: usize,
    }

    impl Write for Sink {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let mut bytes = self.bytes.lock().unwrap();
            if bytes.len() + buf.len() > self.fail_after {
                return Err(io::Error::new(io::ErrorKind::BrokenPipe, "gone"));
            }
            bytes.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn sink(fail_after: usize) -> Sink {
        Sink {
            bytes: Arc::new(Mutex::new(Vec::new())),
            fail_after,
        }
    }

    #[test]
    fn buffers_arrive_whole_and_in_order() {
        let out = sink(usize::MAX);
        let mut writer = WriterThread::spawn(Box::new(out.clone()), 2).unwrap();
        let mut expected = Vec::new();
        for i in 0..500u32 {
            let buffer = format!("row {i}\n").into_bytes();
            expected.extend_from_slice(&buffer);
            writer.send(buffer).unwrap();
        }
        writer.finish().unwrap();
        assert_eq!(*out.bytes.lock().unwrap(), expected);
    }

    #[test]
    fn written_buffers_come_back_empty_with_their_memory() {
        let out = sink(usize::MAX);
        let mut writer = WriterThread::spawn(Box::new(out.clone()), 1).unwrap();
        writer.send(Vec::with_capacity(4096)).unwrap();
        writer.finish().unwrap();
        let back = writer.spare();
        assert!(back.is_empty());
        assert_eq!(back.capacity(), 4096);
        assert_eq!(writer.spare().capacity(), 0, "none left: a new one");
    }

    #[test]
    fn a_failed_write_is_reported_not_lost() {
        let out = sink(10);
        let mut writer = WriterThread::spawn(Box::new(out.clone()), 1).unwrap();
        let mut failure = None;
        for _ in 0..100 {
            if let Err(e) = writer.send(b"0123456789abcdef".to_vec()) {
                failure = Some(e);
                break;
            }
        }
        // Either a later send saw the failure, or finish reports it.
        let failure = failure.unwrap_or_else(|| writer.finish().unwrap_err());
        assert_eq!(failure.kind(), io::ErrorKind::BrokenPipe);
        assert!(out.bytes.lock().unwrap().is_empty());
    }
}
