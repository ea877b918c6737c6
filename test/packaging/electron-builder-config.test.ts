/**
 * The packaging configuration's invariants (electron-builder.json), checked without building a package (that needs
 * the network): it is valid for the installed electron-builder, ships what the app loads, unpacks from asar every
 * native module and the ripgrep binary (patterns matched against the real paths in node_modules), targets the three
 * operating systems, and the icons exist at the sizes each OS wants.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { minimatch } from 'minimatch';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const config = JSON.parse(readFileSync(join(ROOT, 'electron-builder.json'), 'utf8')) as {
  files: string[];
  asarUnpack: string[];
  asar: boolean;
  directories: { buildResources: string; output: string };
  linux: { target: string[]; icon: string };
  mac: { target: string[]; icon: string; hardenedRuntime: boolean; entitlements: string; entitlementsInherit: string; extendInfo: Record<string, string> };
  win: { target: string[]; icon: string };
  electronFuses?: { runAsNode?: boolean };
};
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { main: string; scripts: Record<string, string>; dependencies: Record<string, string> };

/** Every file under `dir`, relative to ROOT (skipping node-gyp's intermediate objects). */
function walk(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'obj.target' && entry.name !== '.deps') walk(p, out);
    } else out.push(relative(ROOT, p));
  }
  return out;
}

/** The folder before a pattern's first wildcard. */
const staticBase = (pattern: string) => pattern.split('/').filter((_, i, parts) => !parts.slice(0, i + 1).some((s) => /[*?[{]/.test(s))).join('/');

/** Whether electron-builder's file patterns (last match wins, "!" excludes) include `file`. */
function included(file: string): boolean {
  let inc = false;
  for (const p of config.files) {
    if (p.startsWith('!')) {
      if (minimatch(file, p.slice(1), { dot: true })) inc = false;
    } else if (minimatch(file, p, { dot: true })) inc = true;
  }
  return inc;
}

const unpacked = (file: string) => config.asarUnpack.some((p) => minimatch(file, p, { dot: true }));

/** PNG width × height from its IHDR. */
function pngSize(buf: Buffer): [number, number] {
  expect(buf.subarray(0, 8).toString('latin1')).toBe('\x89PNG\r\n\x1a\n');
  return [buf.readUInt32BE(16), buf.readUInt32BE(20)];
}

describe('electron-builder.json', () => {
  it('is valid for the installed electron-builder (its own schema validator)', async () => {
    const req = createRequire(createRequire(import.meta.url).resolve('app-builder-lib/package.json'));
    const { validateConfiguration } = req('./out/util/config/config') as { validateConfiguration(c: unknown, l: unknown): Promise<void> };
    const { DebugLogger } = req('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };
    await expect(validateConfiguration(structuredClone(config), new DebugLogger(false))).resolves.toBeUndefined();
    // And it catches a typo, so the check above means something.
    await expect(validateConfiguration({ ...structuredClone(config), mac: { ...config.mac, hardenedRuntme: true } }, new DebugLogger(false))).rejects.toThrow(/configuration\.mac/);
  });

  it('ships the main entry, the job worker, the preload and the renderer, and none of the dev-only Electron builds', () => {
    for (const file of [pkg.main, 'out/main/job-worker.js', 'out/main/chunks/x.js', 'out/preload/index.cjs', 'out/renderer/index.html', 'out/renderer/assets/index-abc.js', 'package.json']) {
      expect(included(file), file).toBe(true);
    }
    for (const file of ['out/native/electron-146/node_modules/better-sqlite3/build/Release/better_sqlite3.node', 'src/main/electron/main.ts', 'test/shell/fake-electron.ts', 'out/main/index.js.map', 'e2e/app.spec.ts']) {
      expect(included(file), file).toBe(false);
    }
    expect(pkg.main).toBe('out/main/index.js');
    expect(config.asar).toBe(true);
    // The job worker is the app binary run as Node (ELECTRON_RUN_AS_NODE): that fuse must stay on.
    expect(config.electronFuses?.runAsNode).not.toBe(false);
  });

  it('every asarUnpack pattern matches real files in node_modules', () => {
    for (const pattern of config.asarUnpack) {
      const matches = walk(join(ROOT, staticBase(pattern))).filter((f) => minimatch(f, pattern, { dot: true }));
      expect(matches.length, pattern).toBeGreaterThan(0);
    }
  });

  it('unpacks every native module of the production dependencies and the ripgrep binary the app runs', async () => {
    const natives = ['better-sqlite3', 'keytar', '@nut-tree-fork'].flatMap((d) => walk(join(ROOT, 'node_modules', d))).filter((f) => f.endsWith('.node'));
    expect(natives).toEqual(expect.arrayContaining(['node_modules/better-sqlite3/build/Release/better_sqlite3.node', 'node_modules/keytar/build/Release/keytar.node']));
    for (const file of natives) expect(unpacked(file), file).toBe(true);
    expect(Object.keys(pkg.dependencies)).toEqual(expect.arrayContaining(['better-sqlite3', 'keytar', '@nut-tree-fork/nut-js', '@vscode/ripgrep']));
    const { rgPath } = (await import('@vscode/ripgrep')) as { rgPath: string };
    expect(unpacked(relative(ROOT, rgPath))).toBe(true);
    for (const platform of ['darwin-arm64/bin/rg', 'darwin-x64/bin/rg', 'win32-x64/bin/rg.exe', 'linux-x64/bin/rg']) {
      expect(unpacked(`node_modules/@vscode/ripgrep-${platform}`), platform).toBe(true);
    }
  });

  it('targets Linux (AppImage, deb), macOS (dmg, hardened runtime with entitlements) and Windows (nsis)', () => {
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.mac.target).toEqual(['dmg']);
    expect(config.win.target).toEqual(['nsis']);
    expect(config.mac.hardenedRuntime).toBe(true);
    expect(config.mac.entitlementsInherit).toBe(config.mac.entitlements);
    const plist = readFileSync(join(ROOT, config.mac.entitlements), 'utf8');
    for (const key of ['com.apple.security.cs.allow-jit', 'com.apple.security.cs.allow-unsigned-executable-memory', 'com.apple.security.cs.disable-library-validation', 'com.apple.security.automation.apple-events']) {
      expect(plist).toMatch(new RegExp(`<key>${key.replace(/\./g, '\\.')}</key>\\s*<true/>`));
    }
    expect(Object.keys(config.mac.extendInfo)).toEqual(expect.arrayContaining(['NSAppleEventsUsageDescription']));
  });

  it('has the icons at the sizes each OS wants', () => {
    // Linux: a folder of NxN.png, electron-builder picks per size.
    for (const size of [16, 32, 48, 64, 128, 256, 512]) {
      const file = join(ROOT, config.linux.icon, `${size}x${size}.png`);
      expect(pngSize(readFileSync(file)), file).toEqual([size, size]);
    }
    // Windows: an .ico with 16, 32, 48 and 256 at least (256 is written as 0 in the directory).
    const ico = readFileSync(join(ROOT, config.win.icon));
    expect([ico.readUInt16LE(0), ico.readUInt16LE(2)]).toEqual([0, 1]);
    const icoSizes = Array.from({ length: ico.readUInt16LE(4) }, (_, i) => {
      const e = 6 + i * 16;
      const size = ico[e] || 256;
      const png = ico.subarray(ico.readUInt32LE(e + 12), ico.readUInt32LE(e + 12) + ico.readUInt32LE(e + 8));
      expect(pngSize(png)).toEqual([size, size]);
      return size;
    });
    expect(icoSizes).toEqual(expect.arrayContaining([16, 32, 48, 256]));
    // macOS: an .icns with 16 to 1024 (its chunks hold PNGs).
    const icns = readFileSync(join(ROOT, config.mac.icon));
    expect(icns.subarray(0, 4).toString('latin1')).toBe('icns');
    expect(icns.readUInt32BE(4)).toBe(icns.length);
    const chunks = new Map<string, [number, number]>();
    for (let off = 8; off < icns.length; off += icns.readUInt32BE(off + 4)) chunks.set(icns.subarray(off, off + 4).toString('latin1'), pngSize(icns.subarray(off + 8, off + icns.readUInt32BE(off + 4))));
    expect(Object.fromEntries(chunks)).toMatchObject({ icp4: [16, 16], icp5: [32, 32], ic07: [128, 128], ic08: [256, 256], ic09: [512, 512], ic10: [1024, 1024] });
    expect(pngSize(readFileSync(join(ROOT, config.directories.buildResources, 'icon.png')))).toEqual([1024, 1024]);
    expect(statSync(join(ROOT, config.directories.buildResources, 'icon.png')).size).toBeGreaterThan(1000);
  });

  // Packaging itself is not run here (it needs an Electron binary and the network for its headers); this checks the
  // wiring: `npm run dist` runs scripts/dist.mjs, which calls electron-builder's CLI with this very config file.
  it('npm run dist is wired to electron-builder with electron-builder.json (the wiring only: nothing is packaged here)', () => {
    expect(pkg.scripts.dist).toBe('node scripts/dist.mjs');
    const dist = readFileSync(join(ROOT, 'scripts/dist.mjs'), 'utf8');
    expect(dist).toMatch(/node_modules', 'electron-builder', 'cli\.js'\), '--config', 'electron-builder\.json'/);
    expect(existsSync(join(ROOT, 'node_modules/electron-builder/cli.js'))).toBe(true);
  });
});
