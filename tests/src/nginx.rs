//! nginx for the replicas test (`tests/tests/gateway_nginx.rs`): found, or installed from
//! Debian with apt-get as QEMU is (`scripts/setup.sh` does the same), then run in the
//! foreground as one process (`daemon off; master_process off;`) with a configuration and every
//! file of its own in a folder of the test's, on loopback. [`Nginx`] stops it when dropped,
//! also when a test panics.
#![cfg(unix)]

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// `nginx`, installed when missing and this is root.
pub fn ensure_nginx() -> Result<PathBuf, String> {
    static NGINX: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    NGINX.get_or_init(find_or_install).clone()
}

fn find() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin")])
        .map(|dir| dir.join("nginx"))
        .find(|candidate| candidate.is_file())
}

fn find_or_install() -> Result<PathBuf, String> {
    if let Some(nginx) = find() {
        return Ok(nginx);
    }
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    if !root {
        return Err("nginx is not installed and this is not root: run \
                    `sudo apt-get install -y --no-install-recommends nginx` (Debian/Ubuntu)"
            .into());
    }
    let status = Command::new("bash")
        .arg(crate::project_root().join("scripts/install-nginx.sh"))
        .stdin(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run scripts/install-nginx.sh: {e}"))?;
    if !status.success() {
        return Err(format!("scripts/install-nginx.sh failed ({status})"));
    }
    find().ok_or_else(|| "nginx was installed but is not found".into())
}

/// A running nginx; killed (it is one process) and waited for on drop.
pub struct Nginx {
    child: Child,
    /// Its error log.
    pub error_log: PathBuf,
    /// Its access log.
    pub access_log: PathBuf,
}

impl Nginx {
    /// Starts nginx with `http` as the body of its `http { }` block, everything under `dir`,
    /// and waits until it accepts connections on `port`.
    pub fn start(dir: &Path, http: &str, port: u16) -> Result<Self, String> {
        let nginx = ensure_nginx()?;
        let d = dir.display();
        let temp = dir.join("temp");
        std::fs::create_dir_all(&temp).map_err(|e| e.to_string())?;
        let error_log = dir.join("error.log");
        let access_log = dir.join("access.log");
        let config = format!(
            "error_log {d}/error.log info;\npid {d}/nginx.pid;\nevents {{ worker_connections 256; }}\n\
             http {{\n  client_body_temp_path {d}/temp/body;\n  proxy_temp_path {d}/temp/proxy;\n  \
             fastcgi_temp_path {d}/temp/fastcgi;\n  uwsgi_temp_path {d}/temp/uwsgi;\n  \
             scgi_temp_path {d}/temp/scgi;\n{http}\n}}\n"
        );
        let path = dir.join("nginx.conf");
        std::fs::write(&path, config).map_err(|e| e.to_string())?;
        let child = Command::new(nginx)
            .arg("-c")
            .arg(&path)
            .arg("-e")
            .arg(&error_log)
            .args(["-g", "daemon off; master_process off;"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start nginx: {e}"))?;
        let mut started = Self {
            child,
            error_log,
            access_log,
        };
        let since = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = started.child.try_wait() {
                let log = std::fs::read_to_string(&started.error_log).unwrap_or_default();
                return Err(format!("nginx exited ({status}):\n{log}"));
            }
            if since.elapsed() > Duration::from_secs(10) {
                return Err("nginx did not listen within 10 s".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(started)
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
