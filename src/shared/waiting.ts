/**
 * What a tool throws when the work it waits for (a foreground subagent, a mapped batch) is itself parked on requests
 * a person must answer: the call stays open (no result), its run parks on those requests, and the call runs again
 * when the run resumes (docs/subagents-context.md, "Parking through descendants").
 */
export class WaitingForPeople extends Error {
  readonly requestIds: readonly string[];
  constructor(requestIds: readonly string[], message = `waiting for ${requestIds.join(', ')}`) {
    super(message);
    this.name = 'WaitingForPeople';
    this.requestIds = [...new Set(requestIds)];
  }

  static isInstance(err: unknown): err is WaitingForPeople {
    return err instanceof WaitingForPeople || (err instanceof Error && err.name === 'WaitingForPeople' && Array.isArray((err as { requestIds?: unknown }).requestIds));
  }
}
