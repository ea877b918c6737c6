// Loaded with `node --import` by test/cli/cli-import-cost.test.ts: records every module the process resolves (ESM
// `import`, through a resolve hook) and requires (CommonJS), one URL or path a line, in DESKHAND_RECORD_IMPORTS.
import { register } from 'node:module';
import { appendFileSync } from 'node:fs';
import Module from 'node:module';

const out = process.env.DESKHAND_RECORD_IMPORTS;
if (out) {
  register(new URL('./record-imports-hook.mjs', import.meta.url), { data: { out } });
  const load = Module._load;
  Module._load = function (request, parent, isMain) {
    appendFileSync(out, `require ${request}\n`);
    return load.call(this, request, parent, isMain);
  };
}
