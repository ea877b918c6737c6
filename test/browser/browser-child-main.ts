/**
 * A Deskhand process for the orphan test: opens the app runtime on a data dir, opens a page in the app's browser
 * through browser_navigate's service, prints the browser's pids, and waits to be killed.
 * argv: DATA_DIR URL
 */
import { openRuntime } from '../../src/main/host/assembly/open-runtime';
import { processesUsingProfile } from '../../src/main/services/browser/browser-process';
import { join } from 'node:path';

const [dataDir, url] = process.argv.slice(2) as [string, string];
const runtime = openRuntime({ dataDir, vault: null });
const key = new URL(url).host;
runtime.browser!.approveDestination('conv_orphan', key);
void runtime.browser!.navigate('conv_orphan', url).then((p) => {
  process.stdout.write(`${JSON.stringify({ url: p.url, pids: processesUsingProfile(join(dataDir, 'browser', 'profiles')) })}\n`);
});
setInterval(() => undefined, 1000);
