// The resolve hook of record-imports.mjs (runs on the loader thread): appends each resolved URL to the record file.
import { appendFileSync } from 'node:fs';

let out = '';
export function initialize(data) {
  out = data.out;
}

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(out, `import ${result.url}\n`);
  return result;
}
