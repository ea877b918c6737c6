/**
 * A hold: a feature that holds a conversation to something (plan mode, a Tower worker's mission scope, a subagent's
 * inherited ceilings, a peer's ceiling, a budget) plugs in here, once, from its own folder. It says three things: the
 * conversation's state under it (read once per step, and by `policy explain`), what the model is offered (a registry
 * filter), and what is refused and why (an inspector of the approval engine, given that state). The runtime keeps the
 * fold and the general inspectors (approval-engine.ts) and computes the decision's input with one function for the
 * run and for `policy explain` (decision-input.ts); holds are registered on the DecisionBook (decision-book.ts).
 * Types only, so the engine, the book and each feature import it downward.
 */
import type { DecisionInput, Facts, InspectorReport } from './inspector';
import type { PeerCeiling } from './peer-ceiling';
import type { ToolFilter } from '../registry';
import type { Records } from '../records';
import type { TowerHoldSources } from '../../services/tower/index';
import type { SubagentLookups } from '../../services/subagents/index';

/** What a hold reads a conversation's state from. */
export interface HoldSubject {
  conversationId: string;
  /** The conversation's family state slots (plan mode lives in one). */
  slots: Readonly<Record<string, unknown>>;
}

/** The decision's input before the call is known: what holds the conversation, its policy, taint, rules… */
export type DecisionBase = Omit<DecisionInput, 'tool' | 'args' | 'effects'>;

export interface Hold<S = unknown> {
  /** The hold's name: its inspector's in every report and `policy explain`, its filter's in the registry. */
  readonly name: string;
  /** What holds the conversation now (null: this hold does not). Read once per step; never from the model's request. */
  stateOf(subject: HoldSubject): S | null;
  /** What the model is offered: a per-turn filter hiding what the hold would only refuse. */
  readonly offer?: ToolFilter;
  /**
   * What is refused and why: runs in the fold after containment (holds in registration order), given the state
   * (`input.held[name]`, null when the hold does not hold the conversation). Absent: the hold shapes the input only.
   */
  inspect?(input: DecisionInput, facts: Facts, state: S | null): InspectorReport;
  /**
   * How the state shapes the rest of the decision's input (a lower policy, inherited taint, nobody present to watch),
   * applied after every hold's state is read, in registration order.
   */
  shape?(input: DecisionBase, state: S): DecisionBase;
  /** The peer ceiling the conversation's context is judged by, when this hold imposes one (peer-ceiling.ts). */
  contextCeiling?(state: S): PeerCeiling | null;
}

/**
 * What a declared hold is built over: the runtime's records and the services a hold reads (Tower's scope and roles,
 * the subagents' rows). The app's services and the short path of `policy explain` give the same context.
 */
export interface HoldContext {
  records: Records;
  tower: TowerHoldSources;
  subagents: SubagentLookups;
}

/**
 * A hold as its feature declares it, in the feature's own folder (`tools/<family>/hold.ts` exports `holds`): a factory
 * over the context, and its place among the holds (`order`, lowest first: the order their inspectors run, their
 * states are read and they shape the input). The assembly registers every declared hold (host/assembly/holds.ts).
 */
export interface HoldDeclaration {
  readonly order: number;
  make(ctx: HoldContext): Hold;
}

/** A module that declares holds: what `tools/<family>/hold.ts` exports. */
export interface HoldModule {
  readonly holds?: readonly HoldDeclaration[];
}
