/**
 * The computer-use family (Spec I): see and operate granted desktop apps through the accessibility tree. Every call
 * declares the app and capability it needs (`effects.apps`), which the approval engine's app-grants inspector checks;
 * the service re-checks the target window at the moment of acting.
 */
import type { InputKind } from '../../runtime/loop/input-kinds';
import type { ToolDefinition } from '../../runtime/tool';
import type { ComputerUse } from '../../services/computer/index';
import { createComputerForeground, createComputerInput, createComputerPointer } from './act';
import { appGrantKind, createComputerApps, createComputerGrantApp } from './grant';
import { createComputerObserve, createComputerWait } from './observe';
import { createComputerEnd, createComputerHandoff } from './session';

export function createComputerFamily(deps: { computer: ComputerUse }): { tools: ToolDefinition[]; inputKinds: InputKind[] } {
  const c = deps.computer;
  return {
    tools: [
      createComputerApps(c),
      createComputerGrantApp(c),
      createComputerObserve(c),
      createComputerPointer(c),
      createComputerInput(c),
      createComputerWait(c),
      createComputerForeground(c),
      createComputerHandoff(c),
      createComputerEnd(c),
    ] as ToolDefinition[],
    inputKinds: [appGrantKind(c) as InputKind],
  };
}
