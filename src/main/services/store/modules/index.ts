/**
 * Every store module, in migration order: a module may reference tables of the modules before it. A new family adds
 * its module file and one line here; it never edits another module's migrations.
 */
import { conversationsModule } from './conversations';
import { inputRequestsModule } from './input-requests';
import { rulesModule } from './rules';
import { runsModule } from './runs';
import { secretsCatalogModule } from './secrets-catalog';
import { tasksModule } from './tasks';
import { urlGrantsModule } from './url-grants';
import { appGrantsModule } from './app-grants';

export const STORE_MODULES = [conversationsModule, runsModule, inputRequestsModule, rulesModule, tasksModule, secretsCatalogModule, urlGrantsModule, appGrantsModule] as const;
