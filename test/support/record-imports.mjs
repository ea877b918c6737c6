// Loaded with `node --import` by test/cli/cli-import-cost.test.ts: records every module the process resolves (ESM
// `import`, through a resolve hook) and requires (CommonJS: the request, then the file it resolves to), one URL or path
// a line, in DESKHAND_RECORD_IMPORTS.
import { register } from 'node:module';
import { appendFileSync } from 'node:fs';
import Module from 'node:module';

const out = process.env.DESKHAND_RECORD_IMPORTS;
if (out) {
  register(new URL('./record-imports-hook.mjs', import.meta.url), { data: { out } });
  const load = Module._load;
  Module._load = function (request, parent, isMain) {
    appendFileSync(out, `require ${request}\n`);
    // And the file it resolves to (the build's CommonJS chunks are required by relative paths).
    try {
      const file = Module._resolveFilename(request, parent, isMain);
      if (file !== request && !file.startsWith('node:')) appendFileSync(out, `${file}\n`);
    } catch {
      // left to the require itself to fail
    }
    return load.call(this, request, parent, isMain);
  };
}
