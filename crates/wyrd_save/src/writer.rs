//! Background writer: saves happen off the frame, in order, newest wins.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use crate::error::SaveError;
use crate::store::CommitReport;
use crate::ticks::now_ticks;

/// One save, run on the writer thread: serialize, sign, commit.
pub type SaveJob = Box<dyn FnOnce() -> Result<CommitReport, SaveError> + Send>;

/// The result of one write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteResult {
    /// When the write finished, in .NET ticks.
    pub finished_ticks: i64,
    /// The tag the job was submitted with (the plugin's change generation).
    pub tag: u64,
    /// What landed, or why nothing did.
    pub result: Result<CommitReport, SaveError>,
}

#[derive(Default)]
struct State {
    job: Option<(u64, SaveJob)>,
    busy: bool,
    shutdown: bool,
    done: Vec<WriteResult>,
    superseded: u64,
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic inside a job cannot leave `State` half-updated (jobs run
        // outside the lock), so a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A thread that runs save jobs, one at a time.
///
/// [`submit`](Self::submit) never blocks on disk. If a new save is submitted
/// while an older one still waits, the older one is dropped (newest wins);
/// writes never overlap or reorder. Dropping the writer (e.g. with the app)
/// finishes the pending save first.
pub struct SaveWriter {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for SaveWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SaveWriter").finish_non_exhaustive()
    }
}

impl SaveWriter {
    /// Starts the writer thread.
    pub fn new() -> Self {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
        });
        let thread_shared = shared.clone();
        let thread = std::thread::Builder::new()
            .name("wyrd-save-writer".into())
            .spawn(move || run(&thread_shared))
            .ok();
        if thread.is_none() {
            bevy::log::error!(
                "could not start the save writer thread; saves will be written on submit"
            );
        }
        SaveWriter { shared, thread }
    }

    /// Queues a save tagged `tag`, replacing one that has not started yet.
    pub fn submit(&self, tag: u64, job: SaveJob) {
        if self.thread.is_none() {
            // No thread: write inline rather than lose the save.
            let result = job();
            self.shared.lock().done.push(WriteResult {
                finished_ticks: now_ticks(),
                tag,
                result,
            });
            return;
        }
        let mut st = self.shared.lock();
        if st.job.replace((tag, job)).is_some() {
            st.superseded += 1;
        }
        drop(st);
        self.shared.wake.notify_all();
    }

    /// Results of the writes finished since the last call.
    pub fn take_results(&self) -> Vec<WriteResult> {
        std::mem::take(&mut self.shared.lock().done)
    }

    /// Whether a save is queued or being written.
    pub fn is_busy(&self) -> bool {
        let st = self.shared.lock();
        st.busy || st.job.is_some()
    }

    /// How many queued saves were replaced by newer ones before starting.
    pub fn superseded(&self) -> u64 {
        self.shared.lock().superseded
    }

    /// Blocks until every submitted save is written.
    pub fn flush(&self) {
        let mut st = self.shared.lock();
        while self.thread.is_some() && (st.busy || st.job.is_some()) {
            st = self
                .shared
                .wake
                .wait(st)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

impl Drop for SaveWriter {
    fn drop(&mut self) {
        self.shared.lock().shutdown = true;
        self.shared.wake.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Default for SaveWriter {
    fn default() -> Self {
        SaveWriter::new()
    }
}

fn run(shared: &Shared) {
    loop {
        let job = {
            let mut st = shared.lock();
            loop {
                if let Some(job) = st.job.take() {
                    st.busy = true;
                    break job;
                }
                if st.shutdown {
                    return;
                }
                st = shared.wake.wait(st).unwrap_or_else(PoisonError::into_inner);
            }
        };
        let (tag, job) = job;
        // A panicking job (a document's Serialize impl) must not leave the
        // writer busy forever: flush would then never return.
        let result =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)).unwrap_or_else(|_| {
                Err(SaveError::Serialize {
                    file: "(save job)".into(),
                    message: "the save job panicked".into(),
                })
            });
        let mut st = shared.lock();
        st.busy = false;
        st.done.push(WriteResult {
            finished_ticks: now_ticks(),
            tag,
            result,
        });
        drop(st);
        shared.wake.notify_all();
    }
}
