/**
 * The sandbox probe, remembered between processes for `deskhand policy explain` (issue 30): the probe spawns bubblewrap
 * once (a pid and network namespace around /bin/true), which is a large share of a short CLI call. Explaining runs no
 * command, so it may answer from the last probe's result — but only while nothing the result depends on has changed:
 * the result is kept in `<data dir>/cache/sandbox-probe.json` with a key of the bwrap binary found (its path, device,
 * inode, size, mtime, mode and owner: an update, a reinstall or a setuid change makes a new key), the user, the
 * kernel's boot id, and the settings that allow or forbid unprivileged user namespaces (`unprivileged_userns_clone`,
 * `max_user_namespaces`, AppArmor's `apparmor_restrict_unprivileged_userns`). Any other key means a fresh probe, whose
 * result replaces the file. Hosts that run commands never read it: they probe in their own process
 * (sandbox.ts sandboxSupport). What this cannot see: a change that keeps all of the key (an AppArmor profile for bwrap
 * loaded or removed, a seccomp policy) until the next boot; `policy explain` then says what the last probe found.
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bwrapBinary, sandboxSupport, type SandboxSupport } from './sandbox';

const FILE = 'sandbox-probe.json';
const USERNS_SETTINGS = ['/proc/sys/kernel/unprivileged_userns_clone', '/proc/sys/user/max_user_namespaces', '/proc/sys/kernel/apparmor_restrict_unprivileged_userns'];

function readSetting(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return null;
  }
}

/** What the probe's answer depends on, or null when there is nothing to probe (no bwrap, not Linux, turned off). */
export function probeKey(): string | null {
  if (process.env.DESKHAND_SANDBOX === 'none' || process.platform !== 'linux') return null;
  const bwrap = bwrapBinary();
  if (!bwrap) return null;
  let st;
  try {
    st = statSync(bwrap);
  } catch {
    return null;
  }
  return JSON.stringify({
    bwrap,
    dev: st.dev,
    ino: st.ino,
    size: st.size,
    mtimeMs: st.mtimeMs,
    mode: st.mode,
    owner: st.uid,
    uid: process.getuid?.() ?? null,
    boot: readSetting('/proc/sys/kernel/random/boot_id'),
    userns: USERNS_SETTINGS.map(readSetting),
  });
}

/** The sandbox support as the last probe with the same key found it, else a fresh probe (then remembered). */
export function rememberedSandboxSupport(cacheDir: string): SandboxSupport {
  const key = probeKey();
  // Nothing to spawn: the answer costs no more than reading a file would.
  if (key === null) return sandboxSupport();
  const path = join(cacheDir, FILE);
  try {
    const saved = JSON.parse(readFileSync(path, 'utf8')) as { key?: unknown; support?: SandboxSupport };
    if (saved.key === key && saved.support && typeof saved.support.available === 'boolean' && typeof saved.support.detail === 'string') return saved.support;
  } catch {
    // no file yet, or not ours to trust: probe
  }
  const support = sandboxSupport();
  try {
    mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ key, support }), { mode: 0o600 });
    renameSync(tmp, path);
  } catch {
    // unwritable: the next explanation probes again
  }
  return support;
}
