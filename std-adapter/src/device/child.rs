//! Child processes (QEMU, `--command` devices) that never outlive the bridge.
//!
//! Every child is held by a [`ChildGuard`]: dropping it kills and reaps the process. The guards
//! are also listed in a process-wide registry so that [`stop_children_on_signals`] can kill them
//! when the bridge receives SIGTERM, SIGINT or SIGHUP; on Linux a SIGKILL of the bridge takes them
//! along too (see [`super::spawner`]).

use std::io;
use std::process::{Child, Command, ExitStatus};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

type Shared = Arc<Mutex<Child>>;

static REGISTRY: Mutex<Vec<(u64, Shared)>> = Mutex::new(Vec::new());
static NEXT_ID: AtomicU64 = AtomicU64::new(1);
/// Set (under the registry lock) once the bridge is stopping: no child is spawned after it, so a
/// router reconnecting while a signal is handled cannot start a QEMU that outlives the bridge.
static STOPPING: AtomicBool = AtomicBool::new(false);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// Owns a running child process; dropping the guard kills and reaps it.
#[derive(Debug)]
pub struct ChildGuard {
    id: u64,
    pid: u32,
    child: Shared,
}

impl ChildGuard {
    /// Spawns `cmd` (a child that dies with this process, see [`super::spawner`]) and registers
    /// the child. Take its pipes with [`ChildGuard::take_stdio`].
    ///
    /// Fails once [`kill_all_children`] has run: the spawn and the registration happen under
    /// the registry's lock, so a child is either killed by it or never started.
    pub fn spawn(cmd: &mut Command) -> io::Result<Self> {
        let mut registry = lock(&REGISTRY);
        if STOPPING.load(Ordering::SeqCst) {
            return Err(io::Error::other(
                "the bridge is stopping: no new device process",
            ));
        }
        let child = super::spawner::spawn(cmd)?;
        let pid = child.id();
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let child = Arc::new(Mutex::new(child));
        registry.push((id, Arc::clone(&child)));
        Ok(Self { id, pid, child })
    }

    /// The operating-system process id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Takes the child's piped stdin, stdout and stderr (each `None` if not piped or taken).
    pub fn take_stdio(
        &self,
    ) -> (
        Option<std::process::ChildStdin>,
        Option<std::process::ChildStdout>,
        Option<std::process::ChildStderr>,
    ) {
        let mut child = lock(&self.child);
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    }

    /// The exit status if the child has exited.
    pub fn try_wait(&self) -> Option<ExitStatus> {
        lock(&self.child).try_wait().ok().flatten()
    }

    /// Kills the child (if still running) and reaps it. Idempotent.
    pub fn kill(&self) {
        let mut child = lock(&self.child);
        if matches!(child.try_wait(), Ok(None)) {
            let _ = child.kill();
        }
        let _ = child.wait();
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        self.kill();
        lock(&REGISTRY).retain(|(id, _)| *id != self.id);
    }
}

/// Kills and reaps every child still held by a [`ChildGuard`] in this process, and refuses every
/// later [`ChildGuard::spawn`] (the process is stopping).
pub fn kill_all_children() {
    let children: Vec<Shared> = {
        let registry = lock(&REGISTRY);
        STOPPING.store(true, Ordering::SeqCst);
        registry.iter().map(|(_, c)| Arc::clone(c)).collect()
    };
    for child in children {
        let mut child = lock(&child);
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// Number of children currently held by guards (for diagnostics and tests).
pub fn live_children() -> usize {
    lock(&REGISTRY).len()
}

/// On SIGTERM, SIGINT or SIGHUP: kill every guarded child, then exit with `128 + signal`.
///
/// Call once, from a binary's `main` path (it installs process-wide handlers).
pub fn stop_children_on_signals() -> io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP])?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                kill_all_children();
                std::process::exit(128 + signal);
            }
        })?;
    Ok(())
}
