/**
 * PreToolUse hooks as an inspector of the approval engine (docs/hooks.md): the hooks ran before the fold (they are
 * processes; the fold is not), and their folded outcome is this inspector's verdict. A hook's deny and ask always
 * count; its allow counts as an always-allow rule's does, only for a call nothing asked about or refused (never past
 * the sandbox, containment, a ceiling, plan mode or taint, which ask or deny on their own).
 */
import type { Inspector, InspectorReport } from './inspector';

export const hookInspector: Inspector = {
  name: 'hooks',
  inspect({ hook }): InspectorReport {
    const notes = hook?.notes ?? [];
    if (!hook) return { inspector: 'hooks', verdict: 'pass', reasons: [] };
    if (hook.block) return { inspector: 'hooks', verdict: 'deny', reasons: [...notes, hook.block] };
    if (hook.permission?.decision === 'ask') return { inspector: 'hooks', verdict: 'ask', reasons: [...notes, ...hook.permission.reasons] };
    if (hook.permission?.decision === 'allow') return { inspector: 'hooks', verdict: 'allow', reasons: [...notes, ...hook.permission.reasons] };
    return { inspector: 'hooks', verdict: 'pass', reasons: notes, clearsOnly: true };
  },
};
