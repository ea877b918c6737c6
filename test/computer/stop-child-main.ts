/**
 * Process B of the cross-process kill switch test: opens the store of a data folder and presses Stop through the
 * same method the banner's Stop, the tray and the shortcut reach (ComputerUseService.kill, as the contract's
 * stopComputerUse calls it), with no computer-use session of its own. Prints "stopped N" (its own sessions stopped).
 *   node --import tsx test/computer/stop-child-main.ts DATA_DIR
 */
import { ComputerUseService } from '../../src/main/services/computer/computer-use';
import { StoreGrantBook } from '../../src/main/services/computer/grant-book';
import { MissingOperator } from '../../src/main/services/computer/operators';
import { StoreStopFlag } from '../../src/main/services/computer/stop-flag';
import { appGrantsModule } from '../../src/main/services/store/modules/app-grants';
import { Store } from '../../src/main/services/store/store';

const dataDir = process.argv[2];
if (!dataDir) {
  process.stderr.write('usage: stop-child-main DATA_DIR\n');
  process.exit(2);
}
const store = new Store(dataDir);
const computer = new ComputerUseService({ operator: new MissingOperator('test', 'process B drives nothing'), grants: new StoreGrantBook(store.module(appGrantsModule)), dataDir, stops: new StoreStopFlag(store) });
const stopped = computer.kill('stopped by the person');
process.stdout.write(`stopped ${stopped.length}\n`);
store.close();
