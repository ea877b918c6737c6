/** Deskhand's version, from the package.json found above wherever this module was bundled or run from ('dev' otherwise). */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
        if (pkg.name === 'deskhand' && pkg.version) return pkg.version;
      } catch {
        // keep looking
      }
    }
    dir = dirname(dir);
  }
  return 'dev';
}
