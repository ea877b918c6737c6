import { grepTool } from '../src/main/tools/files/grep';
import { makeContext } from '../test/support/tool-context';
const TREE = '/tmp/deskhand-bench-grep-v1-20000';
const ctx = makeContext(TREE);
for (let r = 0; r < 4; r++) {
  const t0 = performance.now(); const c0 = process.cpuUsage();
  const out = (await grepTool.execute({ pattern: 'deskhandneedle', output_mode: 'content', head_limit: 0 }, ctx)).output;
  const c = process.cpuUsage(c0);
  console.log('tool', (performance.now() - t0).toFixed(0), 'cpu', ((c.user + c.system) / 1000).toFixed(0), out.length);
}
