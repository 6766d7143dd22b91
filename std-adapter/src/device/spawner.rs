//! Children that die with the bridge, even when the bridge is killed with SIGKILL.
//!
//! On Linux every child gets `PR_SET_PDEATHSIG(SIGKILL)`: the kernel kills it when its parent
//! goes. The kernel means the parent *thread*, so children are spawned by one thread that lives
//! as long as the process (a connector thread that started QEMU and then ended would otherwise
//! take QEMU with it). Elsewhere [`spawn`] is a plain [`Command::spawn`].

use std::io;
use std::process::{Child, Command};

/// Spawns `cmd` so that the child cannot outlive this process (Linux; see the module doc).
pub fn spawn(cmd: &mut Command) -> io::Result<Child> {
    imp::spawn(cmd)
}

// The one unsafe block of the crate: `pre_exec` is unsafe because its closure runs between
// fork and exec; ours only calls two async-signal-safe functions.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
mod imp {
    use std::io;
    use std::os::unix::process::CommandExt;
    use std::process::{Child, Command};
    use std::sync::mpsc::{channel, Sender};
    use std::sync::{Mutex, OnceLock};

    type Reply = Sender<(Command, io::Result<Child>)>;

    /// The spawner thread's inbox (started on first use, never ends).
    static SPAWNER: OnceLock<Mutex<Sender<(Command, Reply)>>> = OnceLock::new();

    fn spawner() -> io::Result<Sender<(Command, Reply)>> {
        if let Some(tx) = SPAWNER.get() {
            return Ok(lock(tx).clone());
        }
        let (tx, rx) = channel::<(Command, Reply)>();
        std::thread::Builder::new()
            .name("child-spawner".into())
            .spawn(move || {
                for (mut cmd, reply) in rx {
                    let result = spawn_here(&mut cmd);
                    let _ = reply.send((cmd, result));
                }
            })?;
        let stored = SPAWNER.get_or_init(|| Mutex::new(tx));
        Ok(lock(stored).clone())
    }

    fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
        match m.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    fn spawn_here(cmd: &mut Command) -> io::Result<Child> {
        let parent = std::process::id();
        // SAFETY: the closure runs in the forked child before exec and only calls prctl and
        // getppid, which are async-signal-safe; it allocates nothing and touches no lock.
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                    return Err(io::Error::last_os_error());
                }
                // The parent may have died between fork and prctl: then do not start at all.
                if libc::getppid() as u32 != parent {
                    return Err(io::Error::other("the parent exited during the spawn"));
                }
                Ok(())
            });
        }
        cmd.spawn()
    }

    pub(super) fn spawn(cmd: &mut Command) -> io::Result<Child> {
        let (reply, answer) = channel();
        let owned = std::mem::replace(cmd, Command::new(""));
        spawner()?
            .send((owned, reply))
            .map_err(|_| io::Error::other("the child spawner thread stopped"))?;
        let (back, result) = answer
            .recv()
            .map_err(|_| io::Error::other("the child spawner thread stopped"))?;
        *cmd = back;
        result
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use std::io;
    use std::process::{Child, Command};

    pub(super) fn spawn(cmd: &mut Command) -> io::Result<Child> {
        cmd.spawn()
    }
}
