/**
 * A stand-in Deskhand process for crash tests: opens the store in DATA_DIR, starts COMMAND as a background task
 * (sandbox mode MODE) for a conversation in WS, prints `ready <task id>`, and waits to be killed.
 * Usage: node --import tsx test/support/task-host-main.ts DATA_DIR WS MODE COMMAND
 */
import { Store } from '../../src/main/services/store/store';
import { BackgroundTasks } from '../../src/main/services/tasks/background-tasks';
import { planSandbox } from '../../src/main/services/sandbox/sandbox';
import { isSandboxMode } from '../../src/shared/sandbox';

const [dataDir, ws, mode, command] = process.argv.slice(2);
if (!dataDir || !ws || !command || !isSandboxMode(mode)) {
  process.stderr.write('usage: task-host-main DATA_DIR WS MODE COMMAND\n');
  process.exit(2);
}
const store = new Store(dataDir);
const tasks = new BackgroundTasks({ store, dataDir });
if (!store.getConversation('conv_crash')) store.createConversation({ id: 'conv_crash', title: 'crash', folder: ws, policy: 'read-only' });
const plan = planSandbox({ mode, network: false, outside: false, roots: [ws], cwd: ws, dataDir });
const task = tasks.startCommand({ conversationId: 'conv_crash', runId: null, callId: null, command, cwd: ws, plan, background: true, title: command });
process.stdout.write(`ready ${task.id}\n`);
setInterval(() => undefined, 60_000);
