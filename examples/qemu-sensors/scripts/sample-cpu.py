#!/usr/bin/env python3
"""Host CPU time QEMU spends during one 2-s sample_temperature call (3 samples, 1000 ms apart)
on the lm3s6965evb firmware, read from /proc/PID/stat before and after the call.

Usage (in this folder): python3 scripts/sample-cpu.py target/thumbv7m-none-eabi/release/qemu-sensors
"""
import json, os, subprocess, sys, time

elf = sys.argv[1]
tck = os.sysconf("SC_CLK_TCK")


def cpu(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / tck  # utime + stime


p = subprocess.Popen(
    ["qemu-system-arm", "-cpu", "cortex-m3", "-machine", "lm3s6965evb", "-display", "none",
     "-monitor", "none", "-semihosting-config", "enable=on,target=native", "-serial", "stdio",
     "-kernel", elf],
    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
try:
    def send(m):
        p.stdin.write((json.dumps(m) + "\n").encode())
        p.stdin.flush()

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "m", "version": "1"}}})
    p.stdout.readline()
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    time.sleep(1)
    idle0 = cpu(p.pid)
    time.sleep(1)
    c0, t0 = cpu(p.pid), time.monotonic()
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "sample_temperature", "arguments": {"samples": 3, "intervalMs": 1000}}})
    line = p.stdout.readline()
    c1, t1 = cpu(p.pid), time.monotonic()
    print(f"idle: qemu cpu {c0-idle0:.2f} s in 1 s; call: wall {t1-t0:.3f} s, "
          f"qemu cpu {c1-c0:.2f} s; {line[:60]!r}")
finally:
    p.kill()
    p.wait()
