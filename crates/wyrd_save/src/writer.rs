//! Background writer: saves happen off the frame, in order, newest wins.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use crate::store::SaveStore;
use crate::ticks::now_ticks;

/// Produces the signed bytes of one save, on the writer thread.
pub type SaveJob = Box<dyn FnOnce() -> Result<Vec<u8>, String> + Send>;

/// The result of one write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteResult {
    /// When the write finished, in .NET ticks.
    pub finished_ticks: i64,
    /// Bytes written, or why nothing was.
    pub result: Result<usize, String>,
}

#[derive(Default)]
struct State {
    job: Option<SaveJob>,
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

/// A thread that writes saves for one [`SaveStore`].
///
/// [`submit`](Self::submit) never blocks on disk. If a new save is submitted
/// while an older one still waits, the older one is dropped (newest wins);
/// writes never overlap or reorder. Dropping the writer (e.g. with the app)
/// finishes the pending save first.
pub struct SaveWriter {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
    store: SaveStore,
}

impl std::fmt::Debug for SaveWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SaveWriter").finish_non_exhaustive()
    }
}

impl SaveWriter {
    /// Starts the writer thread.
    pub fn new(store: SaveStore) -> Self {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
        });
        let thread_shared = shared.clone();
        let thread_store = store.clone();
        let thread = std::thread::Builder::new()
            .name("wyrd-save-writer".into())
            .spawn(move || run(&thread_shared, &thread_store))
            .ok();
        if thread.is_none() {
            bevy::log::error!(
                "could not start the save writer thread; saves will be written on submit"
            );
        }
        SaveWriter {
            shared,
            thread,
            store,
        }
    }

    /// Queues a save, replacing one that has not started yet.
    pub fn submit(&self, job: SaveJob) {
        if self.thread.is_none() {
            // No thread: write inline rather than lose the save.
            let result = write_job(&self.store, job);
            self.shared.lock().done.push(WriteResult {
                finished_ticks: now_ticks(),
                result,
            });
            return;
        }
        let mut st = self.shared.lock();
        if st.job.replace(job).is_some() {
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

fn run(shared: &Shared, store: &SaveStore) {
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
        let result = write_job(store, job);
        let mut st = shared.lock();
        st.busy = false;
        st.done.push(WriteResult {
            finished_ticks: now_ticks(),
            result,
        });
        drop(st);
        shared.wake.notify_all();
    }
}

fn write_job(store: &SaveStore, job: SaveJob) -> Result<usize, String> {
    let result = job().and_then(|bytes| {
        store
            .write(&bytes)
            .map(|()| bytes.len())
            .map_err(|e| format!("writing {}: {e}", store.primary_path().display()))
    });
    if let Err(e) = &result {
        bevy::log::error!("save failed: {e}");
    }
    result
}
