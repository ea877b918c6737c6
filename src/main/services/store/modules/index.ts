/**
 * Every store module, in migration order: a module may reference tables of the modules before it. A new family adds
 * its module file and one line here; it never edits another module's migrations.
 */
import { compositionsModule } from './compositions';
import { conversationsModule } from './conversations';
import { inputRequestsModule } from './input-requests';
import { rulesModule } from './rules';
import { runsModule } from './runs';
import { scheduleModule } from './schedule';
import { secretsCatalogModule } from './secrets-catalog';
import { tasksModule } from './tasks';
import { urlGrantsModule } from './url-grants';
import { memoryModule } from './memory';
import { goalsModule } from './goals';

import { extensionsModule } from './extensions';

export const STORE_MODULES = [conversationsModule, runsModule, inputRequestsModule, rulesModule, tasksModule, secretsCatalogModule, urlGrantsModule, memoryModule, goalsModule, scheduleModule, extensionsModule, compositionsModule, subagentsModule, contextModule, appGrantsModule, chatModule, workflowsModule, towerModule, computerStopsModule, peersModule, mcpSeenModule, ledgerModule, instructionPinsModule, projectPinsModule, usageModule, reviewedModule] as const;
import { subagentsModule } from './subagents';
import { contextModule } from './context';

import { appGrantsModule } from './app-grants';
import { computerStopsModule } from './computer-stops';
import { chatModule } from './chat';
import { workflowsModule } from './workflows';
import { towerModule } from './tower';
import { peersModule } from './peers';
import { mcpSeenModule } from './mcp-seen';
import { ledgerModule } from './ledger';
import { instructionPinsModule } from './instruction-pins';
import { projectPinsModule } from './project-pins';
import { usageModule } from './usage';
import { reviewedModule } from './reviewed';
