//! `WriterThread`: writes buffers on a thread of its own, so a big per-puzzle CSV goes to
//! disk while the workers solve the next chunk instead of between chunks, with both cores
//! idle. Buffers are written in the order sent; the queue is bounded, so a slow disk holds
//! the run back rather than filling memory. Written buffers come back, emptied, through
//! `spare`, so their memory is reused rather than freed and faulted in again.
//!
//! Buffers are gathered into writes of whole pages, `WRITE_SIZE` or more at a time, with
//! one `writev` each: a write that starts or ends inside a page makes the kernel handle
//! that page twice. What waited `WRITE_WITHIN` is written whatever its size, so a slow
//! run's rows survive a kill (`run --resume` goes on from them).

use std::collections::VecDeque;
use std::io::{self, IoSlice, Write};
use std::sync::mpsc::{channel, sync_channel, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A thread writing buffers to one output, in order.
pub struct WriterThread {
    /// Batches of buffers: one message a batch, so the thread is woken once for a chunk's
    /// rows rather than once for every piece of them.
    queue: Option<SyncSender<Vec<Vec<u8>>>>,
    written: Receiver<Vec<u8>>,
    thread: Option<JoinHandle<io::Result<()>>>,
}

impl WriterThread {
    /// Start writing to `out`; at most `depth` batches wait at once.
    pub fn spawn(mut out: Box<dyn Write + Send>, depth: usize) -> io::Result<WriterThread> {
        let (queue, batches) = sync_channel::<Vec<Vec<u8>>>(depth);
        let (give_back, written) = channel::<Vec<u8>>();
        let thread = std::thread::Builder::new()
            .name("writer".into())
            .spawn(move || {
                let mut pending = Pending::default();
                // When the oldest bytes not yet written must be: a slow run's rows are
                // on disk within `WRITE_WITHIN`, not held until `WRITE_SIZE` gathers.
                let mut due = Instant::now();
                loop {
                    let batch = if pending.bytes == 0 {
                        batches.recv().ok()
                    } else {
                        match batches.recv_timeout(due.saturating_duration_since(Instant::now())) {
                            Ok(batch) => Some(batch),
                            Err(RecvTimeoutError::Timeout) => {
                                pending.write(&mut out, pending.bytes, &give_back)?;
                                out.flush()?;
                                continue;
                            }
                            Err(RecvTimeoutError::Disconnected) => None,
                        }
                    };
                    let Some(batch) = batch else { break };
                    if pending.bytes == 0 {
                        due = Instant::now() + WRITE_WITHIN;
                    }
                    for buffer in batch {
                        pending.push(buffer);
                    }
                    if pending.bytes >= WRITE_SIZE {
                        // Up to a page boundary of the output, wherever a write on time
                        // left it.
                        let end = pending.offset + pending.bytes as u64;
                        let to_page = (end - end % PAGE as u64 - pending.offset) as usize;
                        pending.write(&mut out, to_page, &give_back)?;
                    }
                }
                pending.write(&mut out, pending.bytes, &give_back)?;
                out.flush()
            })?;
        Ok(WriterThread {
            queue: Some(queue),
            written,
            thread: Some(thread),
        })
    }

    /// An empty buffer: one already written, when there is one, else a new one.
    pub(crate) fn spare(&self) -> Vec<u8> {
        self.written.try_recv().unwrap_or_default()
    }

    /// Queue `buffer` to be written after everything sent before it. If writing has
    /// failed, that failure is returned (here or, at the latest, from `finish`).
    pub fn send(&mut self, buffer: Vec<u8>) -> io::Result<()> {
        self.send_all(vec![buffer])
    }

    /// Queue `buffers`, in order, to be written after everything sent before them.
    pub(crate) fn send_all(&mut self, buffers: Vec<Vec<u8>>) -> io::Result<()> {
        let sent = match &self.queue {
            Some(queue) => queue.send(buffers).is_ok(),
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

/// Bytes gathered for one write, at least; measured writing 11.4 MB to ext4 here, from
/// memory already touched: 60,000-byte writes at any offset took 2.9-5.3 ms of CPU,
/// 64 KiB ones at page offsets 2.3-2.5 ms, 256 KiB ones 2.1 ms.
const WRITE_SIZE: usize = 256 << 10;

/// Every write but the last, and those made on time (`WRITE_WITHIN`), ends on a page of
/// the output, so the next starts on one.
const PAGE: usize = 4096;

/// The longest a buffer waits to be written: a slow solver's rows come far slower than
/// `WRITE_SIZE` fills, and a killed run keeps only what was written. Far longer than a
/// fast run takes to fill `WRITE_SIZE`, so its writes stay whole pages.
pub const WRITE_WITHIN: Duration = Duration::from_millis(250);

/// Buffers received and not yet written, the first perhaps in part.
#[derive(Default)]
struct Pending {
    buffers: VecDeque<Vec<u8>>,
    /// Bytes of the first buffer already written.
    done: usize,
    /// Bytes not yet written.
    bytes: usize,
    /// Bytes written so far.
    offset: u64,
}

impl Pending {
    fn push(&mut self, buffer: Vec<u8>) {
        self.bytes += buffer.len();
        self.buffers.push_back(buffer);
    }

    /// Write the next `n` pending bytes, and give back the buffers written whole.
    fn write(
        &mut self,
        out: &mut dyn Write,
        mut n: usize,
        give_back: &Sender<Vec<u8>>,
    ) -> io::Result<()> {
        while n > 0 {
            let mut slices = Vec::with_capacity(self.buffers.len());
            let mut left = n;
            for (i, buffer) in self.buffers.iter().enumerate() {
                let from = if i == 0 { self.done } else { 0 };
                let take = (buffer.len() - from).min(left);
                slices.push(IoSlice::new(&buffer[from..from + take]));
                left -= take;
                if left == 0 {
                    break;
                }
            }
            let written = match out.write_vectored(&slices) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(written) => written,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            n -= written;
            self.bytes -= written;
            self.offset += written as u64;
            self.done += written;
            self.give_back_written(give_back);
        }
        // Empty buffers too.
        self.give_back_written(give_back);
        Ok(())
    }

    fn give_back_written(&mut self, give_back: &Sender<Vec<u8>>) {
        while let Some(first) = self.buffers.front() {
            if self.done < first.len() {
                break;
            }
            self.done -= first.len();
            let mut buffer = self.buffers.pop_front().expect("a first buffer");
            buffer.clear();
            // Gone only when the sender is: then nobody wants it back.
            let _ = give_back.send(buffer);
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

    /// Takes every slice of a vectored write, and notes where each write started.
    #[derive(Clone, Default)]
    struct Gathering {
        bytes: Arc<Mutex<Vec<u8>>>,
        starts: Arc<Mutex<Vec<usize>>>,
    }

    impl Write for Gathering {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.write_vectored(&[IoSlice::new(buf)])
        }
        fn write_vectored(&mut self, slices: &[IoSlice<'_>]) -> io::Result<usize> {
            let mut bytes = self.bytes.lock().unwrap();
            self.starts.lock().unwrap().push(bytes.len());
            let before = bytes.len();
            for slice in slices {
                bytes.extend_from_slice(slice);
            }
            Ok(bytes.len() - before)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn writes_start_on_pages_and_gather_buffers() {
        let out = Gathering::default();
        let mut writer = WriterThread::spawn(Box::new(out.clone()), 4).unwrap();
        let mut expected = Vec::new();
        let mut sent = 0;
        // Buffers of uneven sizes, some empty, about 3 MB in all, alone and in batches.
        let mut batch = Vec::new();
        for i in 0..400usize {
            let buffer: Vec<u8> = (0..(i * 7919) % 15_000).map(|k| (i + k) as u8).collect();
            expected.extend_from_slice(&buffer);
            batch.push(buffer);
            sent += 1;
            if i % 7 == 0 {
                writer.send_all(std::mem::take(&mut batch)).unwrap();
            } else if i % 5 == 0 {
                for buffer in std::mem::take(&mut batch) {
                    writer.send(buffer).unwrap();
                }
            }
        }
        writer.send_all(batch).unwrap();
        writer.finish().unwrap();
        assert_eq!(*out.bytes.lock().unwrap(), expected);
        let starts = out.starts.lock().unwrap().clone();
        assert!(starts.iter().all(|s| s % PAGE == 0), "{starts:?}");
        // Gathered: far fewer writes than buffers, each but the last WRITE_SIZE or more.
        assert!(starts.len() < sent / 10, "{} writes", starts.len());
        for pair in starts.windows(2) {
            assert!(pair[1] - pair[0] >= WRITE_SIZE, "{starts:?}");
        }
        // Every buffer came back.
        let mut back = 0;
        while writer.written.try_recv().is_ok() {
            back += 1;
        }
        assert_eq!(back, sent);
    }

    #[test]
    fn a_small_buffer_is_written_within_its_time_not_held_until_the_end() {
        let out = sink(usize::MAX);
        let mut writer = WriterThread::spawn(Box::new(out.clone()), 2).unwrap();
        writer.send(b"a row\n".to_vec()).unwrap();
        let sent = Instant::now();
        // Far longer than WRITE_WITHIN: a machine busy with builds still writes by then.
        while out.bytes.lock().unwrap().is_empty() {
            assert!(
                sent.elapsed() < Duration::from_secs(10),
                "not written after {:?}",
                sent.elapsed()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(*out.bytes.lock().unwrap(), b"a row\n");
        writer.send(b"another\n".to_vec()).unwrap();
        writer.finish().unwrap();
        assert_eq!(*out.bytes.lock().unwrap(), b"a row\nanother\n");
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
