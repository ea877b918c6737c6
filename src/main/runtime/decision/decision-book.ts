/**
 * The decision book: the inspectors a call goes through and the holds a conversation can be under, by registration.
 * The general inspectors (approval-engine.ts) come first and last; each registered hold's inspector runs after
 * containment, in registration order; an inspector registered on its own goes where it asks (before or after a named
 * one, else before `policy`). One book is shared by the run and `policy explain`, so both fold the same list.
 */
import { GENERAL_INSPECTORS } from './approval-engine';
import type { Inspector } from './inspector';
import type { DecisionBase, Hold, HoldSubject } from './hold';
import type { PeerCeiling } from './peer-ceiling';
import type { ToolRegistry } from '../registry';

export type InspectorPlace = { before: string } | { after: string };

export class DecisionBook {
  readonly #holds: Hold[] = [];
  readonly #extra: { inspector: Inspector; place: InspectorPlace | undefined }[] = [];

  /** `registry`: where a hold's filter (what the model is offered) is registered; absent for a book that only judges. */
  constructor(private readonly registry?: Pick<ToolRegistry, 'addFilter'>) {}

  /** Registers a hold: its state, its filter and its inspector; returns its removal. One hold per name. */
  addHold<S>(hold: Hold<S>): () => void {
    if (this.#holds.some((h) => h.name === hold.name)) throw new Error(`A hold named ${hold.name} is registered already.`);
    const h = hold as Hold;
    this.#holds.push(h);
    const offFilter = hold.offer && this.registry ? this.registry.addFilter(hold.name, hold.offer) : () => {};
    return () => {
      const i = this.#holds.indexOf(h);
      if (i >= 0) this.#holds.splice(i, 1);
      offFilter();
    };
  }

  holds(): readonly Hold[] {
    return [...this.#holds];
  }

  /** Registers an inspector (a hook, a probe) at a place in the fold; returns its removal. */
  addInspector(inspector: Inspector, place?: InspectorPlace): () => void {
    const entry = { inspector, place };
    this.#extra.push(entry);
    return () => {
      const i = this.#extra.indexOf(entry);
      if (i >= 0) this.#extra.splice(i, 1);
    };
  }

  /** Every inspector in the order it runs and is printed. */
  inspectors(): Inspector[] {
    const list = [...GENERAL_INSPECTORS];
    const held = this.#holds.filter((h) => h.inspect).map(holdInspector);
    list.splice(list.findIndex((i) => i.name === 'containment') + 1, 0, ...held);
    for (const { inspector, place } of this.#extra) {
      const at = place ? list.findIndex((i) => i.name === ('before' in place ? place.before : place.after)) : list.findIndex((i) => i.name === 'policy');
      if (at < 0) list.push(inspector);
      else list.splice(place && 'after' in place ? at + 1 : at, 0, inspector);
    }
    return list;
  }

  /** Every hold's state of a conversation (null: not held), by hold name. */
  statesOf(subject: HoldSubject): Record<string, unknown> {
    const held: Record<string, unknown> = {};
    for (const h of this.#holds) held[h.name] = h.stateOf(subject);
    return held;
  }

  /** The decision's input as every hold that holds the conversation shapes it (registration order). */
  shape(base: DecisionBase): DecisionBase {
    let input = base;
    for (const h of this.#holds) {
      const state = input.held?.[h.name];
      if (h.shape && state !== null && state !== undefined) input = h.shape(input, state);
    }
    return input;
  }

  /** The peer ceiling a conversation's context is judged by (its own, or one it inherits), or null. */
  contextCeilingOf(conversationId: string): PeerCeiling | null {
    for (const h of this.#holds) {
      if (!h.contextCeiling) continue;
      const state = h.stateOf({ conversationId, slots: {} });
      const ceiling = state === null ? null : h.contextCeiling(state);
      if (ceiling) return ceiling;
    }
    return null;
  }
}

/** A hold's inspector as the fold runs it: given the hold's own state from the input. */
function holdInspector(hold: Hold): Inspector {
  return { name: hold.name, inspect: (input, facts) => hold.inspect!(input, facts, input.held?.[hold.name] ?? null) };
}
